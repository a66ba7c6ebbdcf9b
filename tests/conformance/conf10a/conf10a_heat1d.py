from conf10a_common import *
u0 = jnp.exp(-((jnp.arange(48.0) - 20.0) / 6.0) ** 2).reshape(8, 6)
right = [(j, (j + 1) % 8) for j in range(8)]
left = [((j + 1) % 8, j) for j in range(8)]
def body(b):
    def step(t, v):
        l = lax.ppermute(v[5], 'i', right)
        r = lax.ppermute(v[0], 'i', left)
        padded = jnp.concatenate([l.reshape(1), v, r.reshape(1)])
        return v + 0.2 * (padded[:6] - 2.0 * v + padded[2:])
    return fori(50, step, b)
u = pm(body, u0)
print(A(u[2:4]))
print(A(jnp.sum(u)), A(jnp.mean(u)), A(jnp.max(u)), A(jnp.sum(u0)))
print(A(jnp.mean((u - jnp.mean(u)) ** 2)), A(jnp.sum(u, axis=0)))
