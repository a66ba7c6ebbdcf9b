from conf9c_common import *
n = jax.device_count()
ids = (jnp.arange(n * 3) * 11 % 17).reshape(n, 3)
feat = jnp.cos(jnp.arange(float(n * 3), dtype=jnp.float32)).reshape(n, 3)
fw = [(j, (j + 1) % n) for j in range(n)]
bw = [((j + 1) % n, j) for j in range(n)]
def body(a, b):
    me = lax.axis_index('i')
    gi = jnp.zeros((n, 3), jnp.int32); gf = jnp.zeros((n, 3))
    ci, cf = a, b
    for s in range(n):
        src = (me - s + n) % n
        gi = gi.at[src].set(ci); gf = gf.at[src].set(cf)
        ci = lax.ppermute(ci, 'i', fw)
        cf = lax.ppermute(cf, 'i', bw)
        cf = lax.ppermute(lax.ppermute(cf, 'i', fw), 'i', fw)
    return gi, jnp.all(gi == lax.all_gather(a, 'i')), gf, lax.psum(a > 8, 'i')
r = pm(body, ids, feat)
print(A(r[0][n - 1]))
print(A(r[1]))
print(A(r[2][0]))
print(A(r[3][0]))
