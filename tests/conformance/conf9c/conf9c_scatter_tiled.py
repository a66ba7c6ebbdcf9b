from conf9c_common import *
g = jnp.cos(jnp.arange(256.0)).reshape(8, 4, 8)
ps = lax.psum_scatter
def body(v):
    s0 = ps(v, 'i', scatter_dimension=1)
    s1 = ps(v, 'i', scatter_dimension=1, tiled=True)
    s2 = ps(v.reshape(8, 4), 'i', tiled=True)
    return s0, s1, s2, lax.all_gather(s1, 'i', axis=1, tiled=True) == lax.psum(v, 'i')
r = pm(body, g)
print(A(r[0][2]))
print(A(r[1][5]))
print(A(r[2][7]))
print(A(jnp.all(r[3])))
k = (jnp.arange(128) % 7 - 3).reshape(8, 16)
ki = pm(lambda v: (ps(v, 'i', tiled=True), ps(v.reshape(2, 8), 'i', scatter_dimension=1)), k)
print(A(ki[0]))
print(A(ki[1][3]))
print(A(pm(lambda v: ps(v * jnp.uint32(1000000000), 'i'), jnp.arange(64).reshape(8, 8).astype(jnp.uint32))))
