from conf8b_common import *
from jax.sharding import PartitionSpec as P
x = jnp.arange(48.0).reshape(8, 6) / 8.0
w = (jnp.arange(30.0) / 10.0 - 1.0).reshape(6, 5)
mesh = jax.sharding.Mesh(np.array(jax.devices()).reshape(4, 2), ("rows", "cols"))
sm = lambda f, i, o: jax.shard_map(f, mesh=mesh, in_specs=i, out_specs=o, check_vma=False)
y = sm(lambda a, b: lax.psum(a @ b, 'cols'), (P('rows', 'cols'), P('cols', None)), P('rows', None))(x, w)
print(A(y[5]))
z = sm(lambda a: lax.ppermute(a, ('rows', 'cols'), [(k, (k + 1) % 8) for k in range(8)]), P(('rows', 'cols'), None), P(('rows', 'cols'), None))(x)
print(A(z[:, 0]))
print(A(sm(lambda a: lax.pmax(a, 'rows'), P('rows', None), P(None, None))(x)))
t = sm(lambda a: a.T * lax.axis_index('cols').astype(jnp.float32), P(None, 'cols'), P('cols', None))(x)
print(t.shape, A(t[3:5]))
s = sm(lambda a: (a - lax.pmean(a, ('rows', 'cols')), lax.psum(jnp.sum(a), ('rows', 'cols'))), P('rows', 'cols'), (P('rows', 'cols'), P()))(x)
print(A(s[0][7]), A(s[1]))
mesh1 = jax.sharding.Mesh(np.array(jax.devices()), ("k",))
print(A(jax.shard_map(lambda a: lax.ppermute(a, 'k', [(0, 7), (7, 0), (3, 4)]), mesh=mesh1, in_specs=P('k'), out_specs=P('k'))(jnp.arange(16))))
g = sm(lambda a: jnp.expand_dims(lax.all_gather(a[:, :2], 'rows', tiled=True)[:, 1 - lax.axis_index('cols')], 1), P('rows', None), P(None, 'cols'))(x)
print(A(g[:3]))
