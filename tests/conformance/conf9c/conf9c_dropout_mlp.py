from conf9c_common import *
n = jax.device_count()
x = jnp.sin(jnp.arange(float(n * 8 * 3), dtype=jnp.float32) * 0.7).reshape(n, 8, 3)
y = (jnp.arange(n * 8) % 2).astype(jnp.float32).reshape(n, 8)
def init(k):
    ks = R.split(k, 2)
    return (R.normal(ks[0], (3, 6)) * 0.5, jnp.zeros(6), R.normal(ks[1], (6,)) * 0.5, 0.0)
def fwd(p, x, k, keep):
    w1, b1, w2, b2 = p
    h = jax.nn.relu(x @ w1 + b1)
    m = R.bernoulli(k, keep, h.shape)
    return jnp.where(m, h / keep, 0.0) @ w2 + b2
def loss(p, x, y, k):
    z = fwd(p, x, k, 0.75)
    return jnp.mean(jnp.maximum(z, 0.0) - z * y + jnp.log1p(jnp.exp(-jnp.abs(z))))
p = init(R.key(0))
for step in range(4):
    ks = R.fold_in(R.key(1), step)
    def body(xs, ys):
        l, g = jax.value_and_grad(loss)(p, xs, ys, R.fold_in(ks, lax.axis_index('i')))
        return lax.pmean(l, 'i'), jax.tree.map(lambda a, b: a - 0.5 * lax.pmean(b, 'i'), p, g)
    l, ps = pm(body, x, y)
    p = jax.tree.map(lambda t: t[0], ps)
    print("step", step, A(l[0]))
acc = pm(lambda xs, ys: lax.pmean(jnp.mean(((fwd(p, xs, R.key(0), 1.0) > 0.0) == (ys > 0.5)).astype(jnp.float32)), 'i'), x, y)
print(A(acc[0]))
