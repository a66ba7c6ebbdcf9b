# The JAX program that wrote shard_map_mesh.out (after its first line, the mesh itself).
import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax, jax.numpy as jnp
from jax.sharding import PartitionSpec as P
grid = jax.make_mesh((4, 2), ('rows', 'cols'))
from jax.sharding import NamedSharding
x0 = jnp.arange(48.0, dtype=jnp.float32).reshape(8, 6)
x = jax.device_put(x0, NamedSharding(grid, P('rows', 'cols')))
s = jax.jit(jax.shard_map(lambda a: jax.lax.psum(jnp.sum(a, axis=1), 'cols'), mesh=grid, in_specs=P('rows', 'cols'), out_specs=P('rows')))(x)
print(s)
x = jax.device_put(x0, NamedSharding(grid, P(('rows', 'cols'), None)))
c = jax.jit(jax.shard_map(lambda a: a - jax.lax.pmean(jnp.mean(a, axis=0), ('rows', 'cols')), mesh=grid, in_specs=P(('rows', 'cols'), None), out_specs=P(('rows', 'cols'), None)))(x)
print(c)
g2 = jax.make_mesh((8,), ('cols',))
s = jax.device_put(s, NamedSharding(g2, P('cols')))
t = jax.jit(jax.shard_map(lambda a: a + jax.lax.axis_index('cols').astype(jnp.float32), mesh=g2, in_specs=P('cols'), out_specs=P('cols')))(s)
print(t)
