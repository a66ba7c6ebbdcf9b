from conf10a_common import *
ks = R.split(R.key(140), 3)
x = R.normal(ks[0], (8, 10, 2))
y = jnp.sin(x[:, :, 0]) + 0.5 * x[:, :, 1]
def loss(p, x, y):
    w1, b1, w2 = p
    return jnp.mean((jnp.tanh(x @ w1 + b1) @ w2 - y) ** 2)
p = (R.normal(ks[1], (2, 6)) * 0.5, jnp.zeros(6), R.normal(ks[2], (6,)) * 0.5)
mom = jax.tree.map(lambda t: t * 0.0, p)
for step in range(15):
    def body(xs, ys):
        l, g = jax.value_and_grad(loss)(p, xs, ys)
        return l, jax.tree.map(lambda t: lax.pmean(t, 'i'), g)
    ls, g = pm(body, x, y)
    mom = jax.tree.map(lambda m, d: 0.9 * m + d[0], mom, g)
    p = jax.tree.map(lambda w, m: w - 0.1 * m, p, mom)
    if step % 5 == 4: print(step, A(jnp.mean(ls)), A(jnp.max(ls)))
print(A(p[2]))
