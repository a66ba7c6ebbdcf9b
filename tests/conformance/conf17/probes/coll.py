from common import *
from jax import lax
pm = lambda f, a='i': jax.pmap(f, axis_name=a)
xs = jnp.arange(32.0).reshape(8, 4)
P(pm(lambda x: (lax.psum(x, 'i'), lax.pmean(x, 'i'), lax.pmax(x, 'i'), lax.pmin(x, 'i')))(xs))
P(pm(lambda x: lax.all_gather(x, 'i'))(xs)[3], pm(lambda x: lax.all_gather(x, 'i', tiled=True))(xs)[2])
P(pm(lambda x: lax.ppermute(x, 'i', [(j, (j + 3) % 8) for j in range(8)]))(xs))
P(pm(lambda x: lax.ppermute(x, 'i', [(0, 1), (1, 0)]))(xs))
P(pm(lambda x: lax.all_to_all(x, 'i', 0, 0))(jnp.arange(64).reshape(8, 8)))
P(pm(lambda x: lax.all_to_all(x, 'i', 0, 0, tiled=True))(jnp.arange(128).reshape(8, 16)))
P(pm(lambda x: lax.all_to_all(x, 'i', 0, 1))(jnp.arange(128).reshape(8, 8, 2))[1])
P(pm(lambda x: lax.all_to_all(x, 'i', 1, 0))(jnp.arange(128).reshape(8, 2, 8))[2])
P(pm(lambda x: lax.psum_scatter(x, 'i'))(jnp.arange(64).reshape(8, 8)))
P(pm(lambda x: lax.psum_scatter(x, 'i', tiled=True))(jnp.arange(128).reshape(8, 16)))
P(pm(lambda x: lax.psum_scatter(x, 'i', scatter_dimension=1))(jnp.arange(128).reshape(8, 2, 8)))
P(pm(lambda x: lax.psum_scatter(x, 'i', scatter_dimension=1, tiled=True))(jnp.arange(128).reshape(8, 2, 8)))
P(pm(lambda x: (lax.axis_index('i'), 8))(xs))
ys = jnp.arange(32).reshape(4, 2, 4)
def nest(f):
    from jax.sharding import PartitionSpec as PS, NamedSharding
    def run(xs):
        r, c = xs.shape[:2]
        mesh = jax.make_mesh((r, c), ("r", "c"), devices=jax.devices()[:r * c])
        xs = jax.device_put(xs, NamedSharding(mesh, PS("r", "c")))
        g = lambda b: jax.tree.map(lambda y: y[None, None], f(b[0, 0]))
        return jax.shard_map(g, mesh=mesh, in_specs=PS("r", "c"), out_specs=PS("r", "c"), check_vma=False)(xs)
    return run
P(nest(lambda z: (lax.psum(z, 'r'), lax.psum(z, 'c'), lax.psum(z, ('r', 'c')), lax.axis_index('r') * 10 + lax.axis_index('c')))(ys))
P(A(nest(lambda z: lax.all_gather(z, ('r', 'c')))(ys))[1, 1])
P(nest(lambda z: lax.pmax(z, ('c', 'r')) + lax.pmin(z, 'r'))(ys))
P(pm(jax.vmap(lambda z: (lax.psum(z, 'c'), lax.pmean(z, ('r', 'c')), lax.all_gather(z, 'c'), lax.axis_index('c')), axis_name='c'), 'r')(ys))
P(jax.vmap(pm(lambda z: lax.psum(z, ('v', 'c')), 'c'), axis_name='v')(ys))
P(pm(lambda x: (lax.psum(x, 'i'), lax.pmax(x, 'i')))(jnp.arange(8, dtype=jnp.uint32)), pm(lambda x: (lax.psum(x, 'i'), lax.pmax(x, 'i'), lax.pmin(x, 'i')))(jnp.arange(8) > 3))
P(pm(lambda x: lax.pmean(x, 'i'))(jnp.arange(8)), jnp.moveaxis(pm(lambda x: x * 2)(jnp.arange(16).reshape(8, 2)), 0, 1))
P(jax.pmap(lambda x: x, in_axes=1)(jnp.arange(16).reshape(2, 8)))
P(pm(lambda x: lax.all_gather(x, 'i'))(jnp.arange(8.0))[0])
