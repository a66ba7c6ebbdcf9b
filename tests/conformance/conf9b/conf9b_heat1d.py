from conf9b_common import *
n = 8
u0 = jnp.exp(-((jnp.arange(40.0) - 20.0) / 4.0) ** 2).reshape(n, -1)
to_right = [(j, j + 1) for j in range(n - 1)]
to_left = [(j + 1, j) for j in range(n - 1)]
alpha = 0.2
def step(u):
    left = lax.ppermute(u[-1:], 'i', to_right)
    right = lax.ppermute(u[:1], 'i', to_left)
    ext = jnp.concatenate([left, u, right])
    return u + alpha * (ext[:-2] - 2.0 * u + ext[2:])
u = u0
for t in range(25):
    u = pm(step, u)
print(u.shape)
print(A(u))
print(A(jnp.sum(u)), A(jnp.sum(u0)))
v = pm(lambda s: fori(25, lambda t, w: step(w), s), u0)
print(A(v[4]))
print(A(jnp.max(jnp.abs(v - u))))
