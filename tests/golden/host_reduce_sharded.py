# JAX twin of host_reduce_sharded.spmd (JAX 0.10.2, CPU, 8 host devices): eager jnp
# reductions of jax.pmap results, which stay sharded over the devices.
import os
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax, jax.numpy as jnp, numpy as np
from jax import random as jr
P = lambda *a: print(*[np.asarray(x) if not isinstance(x, tuple) else x for x in a])
z = jax.pmap(lambda k: jr.normal(k, (3, 4)))(jr.split(jr.PRNGKey(32), 8))
P(jnp.mean(z), jnp.sum(z))
P(jnp.max(z), jnp.min(z), jnp.prod(z), jnp.argmax(z))
P(jnp.sum(z, axis=0))
P(jnp.sum(z, axis=(0, 1)), jnp.mean(z, axis=(0, 2)))
P(jnp.sum(z, axis=(1, 2)), jnp.sum(jnp.sum(z, axis=2)))
P(jnp.mean(z * 2.0), jnp.mean(jnp.exp(z) - 1.0), jnp.sum(z * z))
c = z - jnp.mean(z)
P(jnp.mean(c * c), jnp.sqrt(jnp.mean(c * c)))
P(jax.nn.logsumexp(z), jax.nn.logsumexp(z, axis=(1, 2)))
w = jax.pmap(lambda k: jr.uniform(k, (6,)), out_axes=1)(jr.split(jr.PRNGKey(5), 8))
P(w.shape, jnp.sum(w), jnp.mean(w, axis=1))
a, b = jax.pmap(lambda k: (jr.normal(k, (5,)), jax.lax.axis_index("i").astype(jnp.float32) + jr.normal(k, ())), axis_name="i")(jr.split(jr.PRNGKey(9), 8))
P(jnp.mean(a), jnp.sum(b), jnp.mean(a + b[0]))
t = 0.0
for step in range(3):
    t = t + jnp.sum(z * jnp.float32(step))
P(t)
acc = jax.pmap(lambda k: jnp.mean((jr.uniform(k, (64,)) > 0.3).astype(jnp.float32)))(jr.split(jr.PRNGKey(11), 8))
P(jnp.mean(acc), jnp.sum(jax.pmap(lambda x: x * 0.1)(jnp.arange(8.0).reshape(8, 1))))
nn = jax.pmap(lambda x: jnp.where(x == 5.0, x / 0.0 * 0.0, x))(jnp.arange(16.0).reshape(8, 2))
P(jnp.max(nn), jnp.min(nn), jnp.sum(nn))
m0 = jr.normal(jr.key(3), (8, 8))
mv = jax.pmap(lambda row: jnp.sum(row * 0.35355338))((m0 + m0.T) * 0.5)
P(mv / jnp.sqrt(jnp.sum(mv * mv)), mv / 3.0, 1.0 / mv, z[2] / jnp.sum(z))
from jax.sharding import Mesh, PartitionSpec as PS
mesh = Mesh(np.array(jax.devices()[:8]).reshape(4, 2), ("rows", "cols"))
y1 = jax.shard_map(lambda v: jnp.exp(v) * 0.5, mesh=mesh, in_specs=PS(("rows", "cols"), None), out_specs=PS(("rows", "cols"), None))(z.reshape(8, 12))
P(jnp.mean(y1), jnp.sum(y1), jnp.max(y1), jnp.mean(y1 * 2.0))
