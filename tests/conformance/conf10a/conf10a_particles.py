from conf10a_common import *
x0 = R.normal(R.key(130), (32,)).reshape(8, 4)
v0 = jnp.zeros((8, 4))
def body(xb, vb):
    def step(t, pq):
        p, q = pq
        allp = lax.all_gather(p, 'i').reshape(32)
        dx = allp.reshape(1, 32) - p.reshape(4, 1)
        f = jnp.sum(dx / (dx * dx + 0.1) ** 1.5, axis=1)
        q = q + 0.01 * f
        return p + 0.01 * q, q
    return fori(10, step, (xb, vb))
x, v = pm(body, x0, v0)
print(A(x[0]), A(v[0]))
print(A(jnp.mean(x)), A(jnp.sum(v)), A(0.5 * jnp.sum(v * v)), A(jnp.max(jnp.abs(x))))
