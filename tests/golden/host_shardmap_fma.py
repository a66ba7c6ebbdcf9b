# JAX twin of host_shardmap_fma.spmd (JAX 0.10.2, CPU, 8 host devices).
from host_twin import *
h = sm(lambda v: v * 1.5 - 0.5, x, PS("rows", None))
P(jnp.mean(h, axis=0), jnp.max(h, axis=1), jnp.sum(h[2:6], axis=0))
P(jnp.sum(h.T), jnp.mean(h.T, axis=1), jnp.sum(jnp.reshape(h, (4, 24)), axis=1))
c = sm(jnp.exp, x, PS(None, "cols"))
P(jnp.sum(c), jnp.sum(c, axis=0), jnp.mean(c, axis=1), jnp.min(c))
P(h[2:6, 10])
