# JAX twin of host_reduce_mesh.spmd (JAX 0.10.2, CPU, 8 host devices): eager jnp
# reductions of jax.shard_map results, which stay sharded over the mesh.
import os
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax, jax.numpy as jnp, numpy as np
from jax import random as jr
from jax.sharding import Mesh, PartitionSpec as PS
P = lambda *a: print(*[np.asarray(x) for x in a])
mesh = Mesh(np.array(jax.devices()[:8]).reshape(4, 2), ("rows", "cols"))
sm = lambda f, x, spec: jax.shard_map(f, mesh=mesh, in_specs=spec, out_specs=spec)(x)
x = jr.normal(jr.key(150), (96,)).reshape(8, 12)
y = sm(lambda v: jnp.exp(v) * 0.5, x, PS("rows", "cols"))
P(jnp.mean(y), jnp.sum(y), jnp.max(y), jnp.min(y))
P(jnp.sum(y, axis=0))
P(jnp.sum(y, axis=1))
P(jnp.max(y, axis=1), jnp.mean(y, axis=0))
P(jnp.sum(jnp.sum(y, axis=0)), jnp.mean(jnp.sum(y, axis=1)))
P(jnp.prod(y * 0.7 + 0.5))
c = y - jnp.mean(y)
P(jnp.mean(c * c), jnp.sqrt(jnp.mean(c * c)))
t = sm(lambda v: jnp.sin(v) * 1.5, x, PS("cols", "rows"))
P(jnp.sum(t), jnp.mean(t, axis=0), jnp.sum(t, axis=1))
h = sm(lambda v: jnp.exp(v) * 0.5, x, PS("rows", None))
P(jnp.sum(h), jnp.sum(h, axis=0))
w = sm(jnp.cos, x.reshape(4, 2, 12), PS("rows", "cols", None))
P(jnp.sum(w), jnp.sum(w, axis=(0, 1)), jnp.mean(w, axis=(1, 2)))
l, g = jax.value_and_grad(lambda s: jnp.mean(sm(lambda v: jnp.exp(v * s) * 0.5, x, PS("rows", "cols"))))(1.3)
P(l, g)
