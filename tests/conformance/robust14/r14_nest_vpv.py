from r14_common import *
x = jnp.arange(48, dtype=jnp.int32).reshape(3, 8, 2)
mesh = jax.sharding.Mesh(np.array(jax.devices()[:8]), ("i",))
def f(xv):
    return (lax.psum(xv, ('u', 'i', 'v')), lax.pmax(xv, ('v', 'u')), lax.psum(xv, 'i'),
            lax.all_gather(xv, 'v')[1], lax.pmin(xv * 2 - 40, ('u', 'i')), lax.axis_index(('v', 'i', 'u')))
def g(blk):  # blk: [3, 1, 2]
    out = jax.vmap(lambda xu: jax.vmap(f, axis_name='v')(xu[0]), axis_name='u')(blk)
    return jax.tree.map(lambda y: y[:, None], out)
r = jax.shard_map(g, mesh=mesh, in_specs=PS(None, 'i'), out_specs=PS(None, 'i'), check_vma=False)(x)
for k in range(6): print(A(r[k])[2])
