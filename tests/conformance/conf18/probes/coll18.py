from common import *
from jax import lax
from jax.sharding import PartitionSpec as PS, NamedSharding
pm = lambda f, a='i': jax.pmap(f, axis_name=a)
def nest(f):
    def run(xs):
        r, c = xs.shape[:2]
        mesh = jax.make_mesh((r, c), ("r", "c"), devices=jax.devices()[:r * c])
        xs = jax.device_put(xs, NamedSharding(mesh, PS("r", "c")))
        g = lambda b: jax.tree.map(lambda y: y[None, None], f(b[0, 0]))
        return jax.shard_map(g, mesh=mesh, in_specs=PS("r", "c"), out_specs=PS("r", "c"), check_vma=False)(xs)
    return run
x3 = jnp.arange(12.0).reshape(3, 4) * 0.37 - 1.0
P(pm(lambda x: (lax.psum(x, 'i'), lax.pmean(x, 'i'), lax.pmax(x, 'i'), lax.pmin(x, 'i')))(x3))
P(pm(lambda x: lax.all_gather(x, 'i'))(x3)[2], pm(lambda x: lax.all_gather(x, 'i', tiled=True))(x3)[0])
P(pm(lambda x: lax.ppermute(x, 'i', [(j, (j + 1) % 3) for j in range(3)]))(x3))
P(pm(lambda x: lax.ppermute(x, 'i', [(0, 2)]))(x3))
P(pm(lambda x: lax.all_to_all(x, 'i', 0, 0, tiled=True))(jnp.arange(27).reshape(3, 9)))
P(pm(lambda x: lax.all_to_all(x, 'i', 0, 0))(jnp.arange(9).reshape(3, 3)))
P(pm(lambda x: lax.psum_scatter(x, 'i', tiled=True))(jnp.arange(18.0).reshape(3, 6)))
P(pm(lambda x: lax.psum_scatter(x, 'i'))(jnp.arange(9.0).reshape(3, 3)))
x5 = jnp.arange(20.0).reshape(5, 4) / 7.0
P(pm(lambda x: x / lax.psum(x, 'i'))(x5))
P(pm(lambda x: lax.pmean(jnp.sum(x * x), 'i'))(x5), pm(lambda x: (lax.axis_index('i'), 5))(x5))
P(pm(lambda x: lax.ppermute(x, 'i', [(j, (j + 2) % 5) for j in range(5)]))(x5))
P(pm(lambda x: lax.all_to_all(x, 'i', 0, 0))(jnp.arange(25).reshape(5, 5)))
x7 = jnp.arange(14.0).reshape(7, 2) - 6.5
P(pm(lambda x: (lax.psum(x, 'i'), lax.pmax(jnp.abs(x), 'i'), lax.all_gather(jnp.sum(x), 'i')))(x7))
P(pm(lambda x: lax.ppermute(x, 'i', [(j, 6 - j) for j in range(7)]))(x7))
P(pm(lambda x: lax.psum_scatter(x, 'i'))(jnp.arange(49.0).reshape(7, 7)))
y23 = jnp.arange(24.0).reshape(2, 3, 4) * 0.1
P(nest(lambda z: (lax.psum(z, 'r'), lax.psum(z, 'c'), lax.psum(z, ('r', 'c')), lax.axis_index('r') * 10 + lax.axis_index('c')))(y23))
P(A(nest(lambda z: lax.all_gather(z, ('r', 'c')))(y23))[1, 2])
P(A(nest(lambda z: lax.all_gather(z, ('c', 'r')))(y23))[0, 1])
P(nest(lambda z: lax.ppermute(z, 'c', [(j, (j + 1) % 3) for j in range(3)]))(y23))
P(nest(lambda z: lax.ppermute(z, ('r', 'c'), [(j, (j + 1) % 6) for j in range(6)]))(y23))
P(nest(lambda z: z - lax.pmean(z, 'r') + lax.pmax(z, 'c'))(y23))
y32 = jnp.arange(24).reshape(3, 2, 4)
P(nest(lambda z: (lax.psum(z, ('c', 'r')), lax.axis_index(('r', 'c')), lax.axis_index(('c', 'r'))))(y32))
P(A(nest(lambda z: lax.all_to_all(z, ("r", "c"), 0, 0, tiled=True))(jnp.arange(72).reshape(3, 2, 12)))[2])
y15 = jnp.arange(10.0).reshape(1, 5, 2)
P(nest(lambda z: lax.psum(z, 'r') + lax.psum(z, 'c'))(y15))
y71 = jnp.arange(14.0).reshape(7, 1, 2)
P(nest(lambda z: lax.psum(z, 'r') * lax.psum(z, 'c'))(y71))
