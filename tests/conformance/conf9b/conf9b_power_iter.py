from conf9b_common import *
b = jnp.sin(jnp.arange(256.0) * 0.13).reshape(16, 16)
a = b @ b.T / 16.0
def body(rows):
    def it(t, c):
        v, l = c
        local = rows @ v
        nrm = jnp.sqrt(lax.psum(jnp.sum(local * local), 'i'))
        v = lax.all_gather(local / nrm, 'i', tiled=True)
        me = lax.axis_index('i') * 2
        l = lax.psum(local[0] * v[me] + local[1] * v[me + 1], 'i')
        return v, l
    return fori(30, it, (jnp.ones(16) / 4.0, jnp.float32(0.0)))
vec, lam = pm(body, a.reshape(8, 2, 16))
print(A(vec[0]))
print(A(lam))
print(A(jnp.all(vec[0] == vec[7])))
