from conf9b_common import *
x = (jnp.cos(jnp.arange(128.0)) * 4.0).reshape(8, 16)
def body(v):
    part = lax.psum_scatter(v, 'i', tiled=True)
    return part, lax.all_gather(part, 'i', tiled=True), lax.psum(v, 'i')
rs, full, ref = pm(body, x)
print(A(rs[5]))
print(A(full[5]))
print(A(ref[5]))
print(A(jnp.all(full == ref)), A(jnp.max(jnp.abs(full - ref))))
k = jnp.arange(64).reshape(8, 8) % 5
print(A(pm(lambda v: lax.psum_scatter(v, 'i'), k)))
print(A(pm(lambda v: lax.all_gather(lax.psum_scatter(v, 'i'), 'i'), k)[0]))
y = (jnp.arange(64.0) / 8.0).reshape(4, 2, 8)
def b2(b):
    p = lax.psum_scatter(b, ('i', 'j'), tiled=True)
    return p, lax.all_gather(p, ('i', 'j'), tiled=True)
z = nest(b2, y)
print(z[0][:, :, 0])
print(z[1][3, 1])
