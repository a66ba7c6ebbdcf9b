from conf10a_common import *
from jax.sharding import Mesh, PartitionSpec as P
shard_map = jax.shard_map
x = R.normal(R.key(150), (96,)).reshape(8, 12)
mesh = Mesh(np.array(jax.devices()[:8]).reshape(4, 2), ("rows", "cols"))
y = shard_map(lambda v: jnp.exp(v) * 0.5, mesh=mesh, in_specs=P("rows", "cols"), out_specs=P("rows", "cols"))(x)
print(A(jnp.mean(y)), A(jnp.sum(y)), A(jnp.max(y)))
print(A(jnp.sum(y, axis=0)))
z = pm(lambda r: jnp.exp(r) * 0.5, x)
print(A(jnp.mean(z)), A(jnp.sum(z)), A(jnp.sum(z, axis=0) == jnp.sum(y, axis=0)))
y1 = shard_map(lambda v: jnp.exp(v) * 0.5, mesh=mesh, in_specs=P(("rows", "cols"), None), out_specs=P(("rows", "cols"), None))(x)
print(A(jnp.mean(y1)), A(jnp.sum(y1)), A(jnp.max(y1)))
