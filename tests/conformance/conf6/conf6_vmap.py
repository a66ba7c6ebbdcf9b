import jax, jax.numpy as jnp, numpy as np
A = np.asarray; lax = jax.lax
x = jnp.arange(24.0).reshape(4, 2, 3)
def pv(f): return jax.pmap(lambda u: jax.vmap(f, axis_name='j')(u), axis_name='i')(x)
a = pv(lambda v: v - lax.pmean(v, ('i', 'j')))
print(A(a[1]))
b = pv(lambda v: lax.psum(v, 'j') * lax.axis_index('i').astype(jnp.float32))
print(A(b[:, 0]))
c = pv(lambda v: lax.all_gather(v[0], 'i'))
print(A(c[3, 1]))
d = pv(lambda v: lax.axis_index(('i', 'j')).astype(jnp.float32) + lax.pmax(v[2], 'i'))
print(A(d))
e = jax.vmap(jax.vmap(lambda v: jnp.sum(v * v)))(x)
print(A(e))
# vmap k over pmap i: x[k] of shape [2, 3] pmapped over its 2 rows
f = jax.vmap(lambda u: jax.pmap(lambda v: lax.psum(v, 'i'), axis_name='i')(u) , axis_name='k')(x)
f2 = jax.vmap(lambda u: u[:, 0], axis_name='k')(x)
f = f + jnp.sum(f2, axis=0)[None, :, None]
print(A(f[2]))
r = jnp.arange(12).reshape(3, 4)
print(A(jax.vmap(lambda r: jnp.argmax(r * (r % 3 - 1)))(r)))
print(A(jax.vmap(lambda r, s: r / s + s)(jnp.arange(12.0).reshape(3, 4), jnp.array([1.0, 2.0, 3.0]))))
print(A(jax.vmap(lambda r: r[::-1], out_axes=1)(jnp.arange(12.0).reshape(3, 4))))
