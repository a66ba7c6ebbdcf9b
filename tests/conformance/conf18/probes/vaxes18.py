from common import *
from jax import lax
from jax.sharding import PartitionSpec as PS, NamedSharding, Mesh
v = jax.vmap
def nestw(f, xs, w):
    r, c = xs.shape[:2]
    mesh = Mesh(np.array(jax.devices()[:r * c]).reshape(r, c), ("r", "c"))
    xs = jax.device_put(xs, NamedSharding(mesh, PS("r", "c")))
    g = lambda b, w: jax.tree.map(lambda y: y[None, None], f(b[0, 0], w))
    return jax.jit(jax.shard_map(g, mesh=mesh, in_specs=(PS("r", "c"), PS()), out_specs=PS("r", "c"), check_vma=False))(xs, w)
def nest(f, xs, *extra):
    r, c = xs.shape[:2]
    mesh = Mesh(np.array(jax.devices()[:r * c]).reshape(r, c), ("r", "c"))
    xs = jax.device_put(xs, NamedSharding(mesh, PS("r", "c")))
    g = lambda b: jax.tree.map(lambda y: y[None, None], f(b[0, 0]))
    return jax.shard_map(g, mesh=mesh, in_specs=PS("r", "c"), out_specs=PS("r", "c"), check_vma=False)(xs)
m = jnp.arange(24.0).reshape(2, 3, 4) * 0.25 - 1.0
P(v(lambda c: jnp.sum(c * c), in_axes=1)(m))
P(v(lambda c: c[0] * 2.0, in_axes=2, out_axes=1)(m))
P(v(lambda c, w: c * w, in_axes=(1, 0), out_axes=0)(m, jnp.arange(3.0)))
P(v(lambda c: c.T, in_axes=2, out_axes=2)(m))
P(v(lambda a: v(lambda b: jnp.max(b) - jnp.min(b), in_axes=1)(a), in_axes=1)(m))
P(v(lambda a: v(lambda b: b + 1.0, in_axes=0, out_axes=1)(a), out_axes=1)(m))
P(v(lambda r: (r[:, 0], jnp.mean(r)), in_axes=1)(m))
P(jax.pmap(lambda c: c / lax.psum(jnp.sum(c), 'i'), axis_name='i', in_axes=1)(m))
P(jax.pmap(lambda c: c * lax.axis_index('i').astype(jnp.float32), axis_name='i', in_axes=1, out_axes=1)(jnp.arange(16.0).reshape(2, 8)))
P(v(lambda c: lax.psum(c, 'j'), in_axes=2, axis_name='j')(m))
P(v(lambda c: lax.all_gather(jnp.sum(c), 'j'), in_axes=2, out_axes=1, axis_name='j')(m))
w = jnp.arange(8.0).reshape(4, 2) * 0.1
xx = jnp.arange(16.0).reshape(2, 4, 2) * 0.3 - 2.0
xx4 = xx.reshape(2, 2, 2, 2)
def g1(w):
    return jnp.sum(nestw(lambda xc, w: lax.pmean(jnp.sum(jnp.tanh(xc * w[0]) * w[1]), 'r'), xx4, w))
P(jax.grad(g1)(w))
P(nest(lambda xc: jax.grad(lambda u: lax.psum(jnp.sum(u * u * xc), ('r', 'c')))(xc), xx4))
P(nest(lambda xc: jax.grad(lambda u: jnp.sum(lax.all_gather(u, 'c') * 2.0) + lax.pmax(lax.stop_gradient(u[0, 0]), 'r'))(xc), xx4))
P(nest(lambda xc: jax.grad(lambda u: jnp.sum(lax.ppermute(u, ('r', 'c'), [(0, 3), (3, 1), (1, 2), (2, 0)]) * xc))(xc), xx4))
P(nest(lambda xc: jax.grad(lambda u: jnp.sum(jnp.sin(lax.psum_scatter(u, 'c', tiled=True))))(xc), xx4))
def g2(w):
    return jnp.sum(nestw(lambda xc, w: lax.psum(jnp.sum(lax.all_to_all(xc * w[1], 'c', 0, 0)) ** 2.0, 'c'), xx4, w))
P(jax.grad(g2)(w))
