# JAX twin of host_reduce_loop.spmd (JAX 0.10.2, CPU, 8 host devices).
import os
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax, jax.numpy as jnp, numpy as np
from jax import random as jr
P = lambda *a: print(*[np.asarray(x) for x in a])
z0 = jax.pmap(lambda k: jr.normal(k, (3, 4)))(jr.split(jr.PRNGKey(32), 8))
z = z0
for t in range(3): z = z * 1.5 + 0.25
P(jnp.sum(z), jnp.mean(z), jnp.max(z))
u = z0
for t in range(2): u = jnp.exp(u * 0.1)
acc = 0.0
for t in range(3): acc = acc + jnp.sum(z0 * jnp.float32(t))
P(jnp.mean(u), acc)
