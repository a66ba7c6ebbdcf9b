# JAX twin of host14_stats.spmd (JAX 0.10.2, CPU, 8 host devices).
import os, sys; sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../golden'))
from host_twin import *
z = jax.pmap(lambda k: jr.normal(k, (16,)) * 3.0)(jr.split(jr.PRNGKey(9), 8))
P(jnp.mean(z), jnp.max(z), jnp.min(z), jnp.prod(z * 0.1 + 1.0))
P(jnp.sum(jnp.abs(z)), jnp.sum(z * z), jnp.sqrt(jnp.sum(z * z)), jnp.mean(jnp.exp(z * 0.1)))
n = z / jnp.sqrt(jnp.sum(z * z))
P(jnp.sum(n * n), jnp.max(n), n[3])
P(jnp.sum(jnp.clip(z, -1.0, 1.0)), jnp.mean(jnp.where(z > 0.0, z, 0.0)))
