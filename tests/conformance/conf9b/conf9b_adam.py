from conf9b_common import *
x = jnp.sin(jnp.arange(64.0)).reshape(8, 4, 2)
y = jnp.cos(jnp.arange(32.0)).reshape(8, 4)
def model(p, x):
    w, b, s = p
    return jnp.tanh(x @ w + b) * s
loss = lambda p, x, y: jnp.mean((model(p, x) - y) ** 2)
p = (jnp.array([0.1, -0.2]), jnp.float32(0.0), jnp.float32(1.0))
m = jax.tree.map(lambda t: t * 0.0, p)
v = jax.tree.map(lambda t: t * 0.0, p)
for t in range(1, 5):
    gs = pm(lambda xs, ys: jax.tree.map(lambda g: lax.pmean(g, 'i'), jax.grad(loss)(p, xs, ys)), x, y)
    g = jax.tree.map(lambda a: a[0], gs)
    m = jax.tree.map(lambda a, b: 0.9 * a + 0.1 * b, m, g)
    v = jax.tree.map(lambda a, b: 0.999 * a + 0.001 * b * b, v, g)
    bc1 = 1.0 - 0.9 ** jnp.float32(t)
    bc2 = 1.0 - 0.999 ** jnp.float32(t)
    p = jax.tree.map(lambda a, mm, vv: a - 0.05 * (mm / bc1) / (jnp.sqrt(vv / bc2) + 1e-8), p, m, v)
    print(t, T(p))
print(T(m))
