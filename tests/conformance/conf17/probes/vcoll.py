from common import *
from jax import lax
v = lambda f, **k: jax.vmap(f, axis_name='v', **k)
m = jnp.arange(24.0).reshape(4, 6)
P(v(lambda r: lax.all_gather(r, 'v', tiled=True))(m)[1], v(lambda r: lax.all_gather(r, 'v', axis=1))(m)[2])
P(v(lambda r: lax.all_to_all(r, 'v', 0, 1))(jnp.arange(64).reshape(4, 4, 4))[1])
P(v(lambda r: lax.psum_scatter(r, 'v', tiled=True))(jnp.arange(32.0).reshape(4, 8)), v(lambda r: lax.psum_scatter(r, 'v'))(jnp.arange(16.0).reshape(4, 4)))
P(v(lambda r: (lax.pmean(r, 'v'), lax.pmax(r[0], 'v'), lax.pmin(r, 'v')[1], 4))(m))
P(jax.pmap(jax.vmap(lambda r: (lax.psum(r, 'j'), lax.psum(r, ('i', 'j'))), axis_name='j'), axis_name='i')(jnp.arange(48.0).reshape(8, 2, 3))[1])
P(jax.vmap(jax.pmap(lambda x: (lax.psum(x, ('u', 'i')), lax.all_gather(x, 'u')), axis_name='i'), axis_name='u')(jnp.arange(32.0).reshape(2, 8, 2))[1])
P(jax.grad(lambda w: jnp.sum(v(lambda r: r * lax.pmean(r * w, 'v'))(m)))(jnp.float32(2.0)), jax.grad(lambda w: jnp.sum(v(lambda r: lax.all_gather(r * w, 'v', tiled=True) * r[0])(m)))(jnp.float32(1.5)))
