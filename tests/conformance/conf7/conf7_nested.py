import jax, jax.numpy as jnp, numpy as np
A = np.asarray; lax = jax.lax
def nest(f, xs):
    # nested pmaps over i (4) and j (2): a shard_map over a 4 x 2 mesh (JAX 0.10's pmap
    # does not nest), as tests/difftest/gen.py's pmap2
    from jax.sharding import PartitionSpec as PS
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:8]).reshape(4, 2), ("i", "j"))
    g = lambda b: jax.tree.map(lambda y: y[None, None], f(b[0, 0]))
    # jitted: one XLA computation, as a pmap is (an eager shard_map runs op by op, and
    # XLA then fuses no multiply into an add or a sum: Note [FMA contraction])
    return jax.jit(jax.shard_map(g, mesh=mesh, in_specs=PS("i", "j"), out_specs=PS("i", "j"),
                                 check_vma=False))(xs)
def nestA(f, xs):  # the results as NumPy arrays, indexed by NumPy
    return jax.tree.map(np.asarray, nest(f, xs))
x = jnp.arange(24.0).reshape(4, 2, 3) * 0.25 - 2.0
def body(v):
    s = lax.psum(v, 'i')
    t = lax.pmax(v, 'j') - lax.pmin(v, ('i', 'j'))
    g = lax.all_gather(v[0], ('i', 'j'))
    ix = lax.axis_index(('j', 'i')) * 10 + lax.axis_index('i')
    return s, t, g, ix
r = nestA(body, x)
print(A(r[0][3]), A(r[1][1, 0]))
print(A(r[2][2, 1]), A(r[3]))
ring = nestA(lambda v: lax.ppermute(v, ('i', 'j'), [(k, (k + 3) % 8) for k in range(8)]), x)
print(A(ring[:, :, 0]))
a2a = nestA(lambda v: lax.all_to_all(v, 'i', 0, 0), jnp.arange(32.0).reshape(4, 2, 4))
print(A(a2a[:, 1]))
sc = nestA(lambda v: lax.psum_scatter(v, 'i', tiled=True) + lax.axis_index('j').astype(jnp.float32), jnp.arange(64.0).reshape(4, 2, 8))
print(A(sc[3]))
def loss(w):
    y = nest(lambda v: lax.pmean(jnp.sum(jnp.sin(v * w) * w), ('i', 'j')), x)
    return jnp.sum(y) / 8.0
l, gw = jax.value_and_grad(loss)(1.5)
print(A(l), A(jnp.abs(gw + 0.8422186) < 2e-7))
print(A(jax.grad(lambda xs: jnp.sum(nest(lambda v: lax.psum(v * v, 'j') * v, xs)))(x)[1]))
tiled = nestA(lambda v: lax.all_gather(v, 'j', tiled=True), x)
print(tiled.shape, A(tiled[3, 0]))
