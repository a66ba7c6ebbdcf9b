from conf10a_common import *
ks = R.split(R.key(11), 2)
x = R.normal(ks[0], (8, 32, 4))
y = (x @ jnp.array([1.0, -2.0, 0.5, 0.0]) + 0.3 * R.normal(ks[1], (8, 32)) > 0.0).astype(jnp.float32)
def loss(w, b, x, y):
    z = x @ w + b
    return jnp.mean(jnp.maximum(z, 0.0) - z * y + jnp.log1p(jnp.exp(-jnp.abs(z))))
w = jnp.zeros(4); b = jnp.float32(0.0)
for step in range(30):
    def body(xs, ys):
        l, g = jax.value_and_grad(loss, argnums=(0, 1))(w, b, xs, ys)
        return l, lax.pmean(g[0], 'i'), lax.pmean(g[1], 'i')
    ls, gw, gb = pm(body, x, y)
    w = w - 0.5 * gw[0]
    b = b - 0.5 * gb[0]
    if step % 10 == 0: print(step, A(jnp.mean(ls)), A(jnp.sum(ls)), A(ls[0]))
print(A(w), A(b))
