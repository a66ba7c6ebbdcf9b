from common import *
def softmax(z):
    e = jnp.exp(z - jnp.max(z, axis=-1, keepdims=True)); return e / jnp.sum(e, axis=-1, keepdims=True)
def layernorm(x):
    m = jnp.mean(x, axis=-1, keepdims=True); return (x - m) * jax.lax.rsqrt(jnp.mean((x - m) ** 2, axis=-1, keepdims=True) + 1e-5)
def loss(params, x, y):
    w1, b1, w2 = params
    h = jnp.tanh(layernorm(x @ w1 + b1))
    logits = h @ w2
    return -jnp.mean(jnp.sum(jax.nn.one_hot(y, 3) * (logits - jax.nn.logsumexp(logits, axis=-1, keepdims=True)), axis=-1))
k = jr.split(jr.key(42), 4)
params = (jr.normal(k[0], [5, 8]) * 0.3, jnp.zeros([8]), jr.normal(k[1], [8, 3]) * 0.3)
xs = jr.normal(k[2], [8, 4, 5]); ys = jr.randint(k[3], [8, 4], 0, 3)
m = jax.tree.map(lambda p: p * 0.0, params)
for step in range(5):
    g = jax.pmap(lambda x, y, params: jax.tree.map(lambda t: jax.lax.pmean(t, 'i'), jax.grad(loss)(params, x, y)), axis_name='i', in_axes=(0, 0, None))(xs, ys, params)
    g0 = jax.tree.map(lambda t: t[0], g)
    m = jax.tree.map(lambda a, b: 0.9 * a + 0.1 * b, m, g0)
    params = jax.tree.map(lambda p, mm: p - 0.5 * mm, params, m)
    P(step, loss(params, xs.reshape(32, 5), ys.reshape(32)))
P(params[2])
q = jr.normal(jr.key(7), [2, 4, 6])
P(jax.vmap(lambda t: softmax(t @ t.T / jnp.sqrt(6.0)) @ t)(q))
P(jax.grad(lambda z: jnp.sum(softmax(z) * jnp.array([1.0, 2.0, 3.0])))(jnp.array([0.5, -1.0, 2.0])))
