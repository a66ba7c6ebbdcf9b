import os
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import numpy as np, jax, jax.numpy as jnp
def loss(w, x, t): return jnp.mean((jnp.tanh(x @ w) - t) ** 2)
x = jax.random.normal(jax.random.key(1), (13, 5))
t = jax.random.normal(jax.random.key(2), (13, 3))
w = jax.random.normal(jax.random.key(3), (5, 3)) * 0.5
m = jnp.zeros((5, 3)); v = jnp.zeros((5, 3))
for s in range(4):
    s = jnp.int32(s)  # a run-time index, as spmdrun's loop index (weak in spmdrun; i32 here)
    g = jax.grad(loss)(w, x, t)
    m = 0.9 * m + 0.1 * g
    v = 0.999 * v + 0.001 * g * g
    mh = m / (1.0 - 0.9 ** (s + 1))
    vh = v / (1.0 - 0.999 ** (s + 1))
    w = w - 0.01 * mh / (jnp.sqrt(vh) + 1e-8)
    print(s, np.asarray(loss(w, x, t)))
print(np.asarray(w))
