from conf9b_common import *
mesh = jax.sharding.Mesh(np.array(jax.devices()), ("d",))
sm = lambda f, i, o: jax.shard_map(f, mesh=mesh, in_specs=i, out_specs=o, check_vma=False)
x = (jnp.arange(64.0) / 16.0 - 2.0).reshape(16, 4)
w = jnp.cos(jnp.arange(32.0)).reshape(4, 8)
ring = [(k, (k + 1) % 8) for k in range(8)]
def body(a, b):
    def it(t, c):
        blk, out = c
        src = (lax.axis_index('d') - t + 8) % 8
        part = blk @ b
        out = out.at[src * 2].set(part[0]).at[src * 2 + 1].set(part[1])
        return lax.ppermute(blk, 'd', ring), out
    return fori(8, it, (a, jnp.zeros((16, 1))))[1]
y = sm(body, (PS('d', None), PS(None, 'd')), PS(None, 'd'))(x, w)
print(y.shape)
print(A(y[3]))
z = sm(lambda a, b: lax.all_gather(a, 'd', tiled=True) @ b, (PS('d', None), PS(None, 'd')), PS(None, 'd'))(x, w)
print(A(jnp.all(jnp.abs(y - z) < 1e-6)), A(y[11] == z[11]))
tot = sm(lambda a: lax.psum(jnp.sum(a, axis=0), 'd'), (PS('d', None),), PS(None))(x)
print(A(tot), A(jnp.sum(x, axis=0)))
