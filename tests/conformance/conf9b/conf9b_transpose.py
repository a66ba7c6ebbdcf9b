from conf9b_common import *
m = jnp.arange(128).reshape(8, 2, 8) * 3 - 50
t = pm(lambda blk: lax.all_to_all(blk, 'i', 1, 0, tiled=True).T, m)
print(t.shape)
print(A(t.reshape(8, 16) == m.reshape(16, 8).T))
f = (jnp.arange(64.0) / 4.0).reshape(8, 8)
u = pm(lambda row: lax.all_to_all(row, 'i', 0, 0), f)
print(A(u == f.T))
print(A(u[3]))
x = jnp.arange(32.0).reshape(4, 2, 2, 2)
y = nest(lambda b: lax.all_to_all(b, 'j', 0, 1, tiled=True), x)
print(y[2])
z = pm(lambda v: lax.all_to_all(v, 'i', 0, 0, tiled=True), jnp.arange(128).reshape(8, 16))
print(A(z))
