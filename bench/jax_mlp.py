"""The MLPs of bench/train_mlp.spmd and bench/train_mlp_wide.spmd in JAX: their data, the
model and one data-parallel SGD step over axis "i". Shared by the CPU baselines
(baselines.py, under pmap) and the GPU ones (gpu_baselines.py, under vmap), so both
sides of both suites train the same network on the same numbers. Needs JAX: import it
only where JAX is available.
"""
import jax
import jax.numpy as jnp
from jax import lax


def predict(params, x):
    """params: ((w, b), ...) layers, relu between them."""
    *layers, (w, b) = params
    for wl, bl in layers:
        x = jax.nn.relu(x @ wl + bl)
    return x @ w + b


def sgd_step(nclass, lr):
    """(params, xs, ys) -> (mean loss, new params) for one replica of axis "i": the
    gradient of the softmax cross-entropy, averaged over "i" (pmean), then one SGD step."""
    def loss(params, x, y):
        logits = predict(params, x)
        logp = logits - jax.nn.logsumexp(logits, axis=1, keepdims=True)
        return -jnp.mean(jnp.sum(logp * jax.nn.one_hot(y, nclass), axis=1))

    def step(params, xs, ys):
        l, g = jax.value_and_grad(loss)(params, xs, ys)
        g = jax.tree_util.tree_map(lambda t: lax.pmean(t, "i"), g)
        return lax.pmean(l, "i"), jax.tree_util.tree_map(lambda p, dp: p - lr * dp, params, g)
    return step


def train_mlp_data(d):
    """(params, x, y) of train_mlp.spmd on d devices: 64 points per device, 2-32-2."""
    keys = jax.random.split(jax.random.PRNGKey(42), 2)
    x = jax.random.uniform(keys[0], (d, 64, 2), minval=-1.0, maxval=1.0)
    y = (x[:, :, 0] * x[:, :, 1] > 0).astype(jnp.int32)
    ks = jax.random.split(keys[1], 2)
    params = ((jax.random.normal(ks[0], (2, 32)) * 0.5, jnp.zeros(32)),
              (jax.random.normal(ks[1], (32, 2)) * 0.5, jnp.zeros(2)))
    return params, x, y


def train_mlp_wide_data(d, batch):
    """(params, x, y) of train_mlp_wide.spmd on d devices: a global batch, 784-512-512-10."""
    keys = jax.random.split(jax.random.PRNGKey(42), 3)
    x = jax.random.uniform(keys[0], (d, batch // d, 784), minval=-1.0, maxval=1.0)
    y = jnp.argmax(x @ jax.random.normal(keys[2], (784, 10)), axis=2)
    ks = jax.random.split(keys[1], 3)
    params = ((jax.random.normal(ks[0], (784, 512)) * 0.05, jnp.zeros(512)),
              (jax.random.normal(ks[1], (512, 512)) * 0.05, jnp.zeros(512)),
              (jax.random.normal(ks[2], (512, 10)) * 0.05, jnp.zeros(10)))
    return params, x, y
