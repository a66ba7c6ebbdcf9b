# JAX twin of host_reduce_loop.spmd (JAX 0.10.2, CPU, 8 host devices).
from host_twin import *
z0 = jax.pmap(lambda k: jr.normal(k, (3, 4)))(jr.split(jr.PRNGKey(32), 8))
z = z0
for t in range(3): z = z * 1.5 + 0.25
P(jnp.sum(z), jnp.mean(z), jnp.max(z))
u = z0
for t in range(2): u = jnp.exp(u * 0.1)
acc = 0.0
for t in range(3): acc = acc + jnp.sum(z0 * jnp.float32(t))
P(jnp.mean(u), acc)
