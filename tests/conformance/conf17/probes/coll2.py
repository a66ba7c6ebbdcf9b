from common import *
from jax import lax
pm = lambda f, **k: jax.pmap(f, axis_name='i', **k)
xs = jnp.arange(48.0).reshape(8, 2, 3)
P(pm(lambda x: lax.all_gather(x, 'i', axis=1))(xs)[1], pm(lambda x: lax.all_gather(x, 'i', axis=1, tiled=True))(xs)[2])
P(pm(lambda x: lax.all_to_all(x, 'i', 1, 0, tiled=True))(jnp.arange(128).reshape(8, 2, 8))[3])
P(pm(lambda x: lax.all_to_all(x, 'i', 0, 1, tiled=True))(jnp.arange(128).reshape(8, 8, 2))[5])
P(pm(lambda x: (x * 2.0, x[0]), out_axes=(0, 1))(xs))
P(pm(lambda x, y: x * y, out_axes=2)(xs, jnp.arange(8)))
P(pm(lambda a, b: lax.psum(a * b, 'i'))(xs, jnp.arange(8.0))[0], pm(lambda x: lax.pmax(x, 'i') - lax.pmin(x, 'i'))(xs)[4])
P(pm(lambda x: lax.ppermute(x, 'i', [(k, 7 - k) for k in range(8)]) + lax.ppermute(x, 'i', []))(jnp.arange(8.0)))
P(pm(lambda x: (lax.psum(1, 'i'), lax.psum(x > 3, 'i'), lax.pmean(x > 3, 'i'), lax.psum(x.astype(jnp.uint32), 'i'), lax.pmax(-x, 'i')))(jnp.arange(8)))
def nest(f):
    from jax.sharding import PartitionSpec as PS, NamedSharding
    def run(xs):
        r, c = xs.shape[:2]
        mesh = jax.make_mesh((r, c), ("r", "c"), devices=jax.devices()[:r * c])
        xs = jax.device_put(xs, NamedSharding(mesh, PS("r", "c")))
        g = lambda b: jax.tree.map(lambda y: y[None, None], f(b[0, 0]))
        return np.asarray(jax.shard_map(g, mesh=mesh, in_specs=PS("r", "c"), out_specs=PS("r", "c"), check_vma=False)(xs))
    return run
ys = jnp.arange(64.0).reshape(2, 4, 8)
P(nest(lambda z: lax.all_to_all(z, ('r', 'c'), 0, 0))(ys)[1, 2])
P(nest(lambda z: lax.psum_scatter(z, ('r', 'c')))(ys))
P(nest(lambda z: lax.ppermute(z, ('r', 'c'), [(k, (k + 1) % 8) for k in range(8)]))(ys)[0])
