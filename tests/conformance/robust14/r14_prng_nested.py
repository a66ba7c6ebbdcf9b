from r14_common import *
k = R.key(99)
ks = R.split(k, 8).reshape(2, 4)
# spmdrun's nest: pmap a over rows, vmap b over split(row[0], 3), pmap c over the row.
mesh = jax.sharding.Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ("a", "c"))
def g(kblk, k0blk):
    kc = kblk[0, 0]; ka0 = k0blk[0, 0]
    def inner(kb):
        kk = R.fold_in(R.fold_in(kc, lax.axis_index('a')), lax.axis_index('b'))
        u = R.uniform(kk, [])
        return u, lax.psum(u, ('a', 'c')), lax.psum(u, 'b'), R.normal(kk, [2])
    out = jax.vmap(inner, axis_name='b')(R.split(ka0, 3))
    return jax.tree.map(lambda y: y[None, None], out)
k0 = jnp.broadcast_to(ks[:, :1], (2, 4))
out = jax.shard_map(g, mesh=mesh, in_specs=(PS('a', 'c'), PS('a', 'c')), out_specs=PS('a', 'c'), check_vma=False)(ks, k0)
# out leaves: [2, 4, 3, ...] (a, c, b); spmdrun's result is [2, 3, 4, ...] (a, b, c)
out = [np.swapaxes(A(o), 1, 2) for o in out]
print(out[0])
print(out[1])
print(out[2])
print(out[3][1])
