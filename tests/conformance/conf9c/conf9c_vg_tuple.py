from conf9c_common import *
n = jax.device_count()
x = jnp.sin(jnp.arange(float(n * 6 * 2), dtype=jnp.float32)).reshape(n, 6, 2)
y = jnp.cos(jnp.arange(float(n * 6), dtype=jnp.float32)).reshape(n, 6)
def model(p, x):
    (w1, b1), (w2, b2) = p
    return jnp.tanh(x @ w1 + b1) @ w2 + b2
def loss(p, x, y): return jnp.mean((model(p, x) - y) ** 2)
tm = jax.tree.map
p = ((jnp.arange(8.0).reshape(2, 4) * 0.1, jnp.zeros(4)), (jnp.ones(4) * 0.2, 0.0))
m = tm(lambda t: t * 0.0, p)
for step in range(3):
    def body(xs, ys):
        l, g = jax.value_and_grad(loss)(p, xs, ys)
        g = tm(lambda t: lax.pmean(t, 'i'), g)
        m2 = tm(lambda mm, gg: 0.9 * mm + gg, m, g)
        return lax.pmean(l, 'i'), tm(lambda pp, mm: pp - 0.1 * mm, p, m2), m2
    l, ps, ms = pm(body, x, y)
    p = tm(lambda t: t[0], ps)
    m = tm(lambda t: t[0], ms)
    print("step", step, A(l[0]))
print(T(p))
def split_loss(a, b, x, y): return loss((a, b), x, y)
v, (ga, gb) = jax.value_and_grad(split_loss, argnums=(0, 1))(p[0], p[1], x[0], y[0])
print(A(v), A(ga[1]), A(gb[1]))
