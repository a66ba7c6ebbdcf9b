from conf10a_common import *
ks = R.split(R.key(41), 2)
x = R.normal(ks[0], (8, 6, 3))
y = x @ jnp.array([0.5, -1.0, 2.0]) + 0.1
loss = lambda w, xi, yi: (jnp.sum(xi * w) - yi) ** 2
w = jnp.zeros(3)
for step in range(5):
    noise = R.normal(R.fold_in(R.key(7), step), (3,)) * 0.05
    def body(xb, yb):
        gs = jax.vmap(lambda xi, yi: jax.grad(loss)(w, xi, yi))(xb, yb)
        nrm = jnp.sqrt(jnp.sum(gs * gs, axis=1, keepdims=True))
        clipped = gs / jnp.maximum(nrm, 1.0)
        return lax.psum(jnp.sum(clipped, axis=0), 'i')
    g = pm(body, x, y)
    w = w - 0.1 * (g[0] + noise) / 48.0
    print(step, A(w))
gs0 = jax.vmap(lambda xi, yi: jax.grad(loss)(w, xi, yi))(x[0], y[0])
print(A(gs0[:2]), A(jnp.sqrt(jnp.sum(gs0 * gs0, axis=1))))
