# JAX twin of host14_normalize.spmd (JAX 0.10.2, CPU, 8 host devices).
import os, sys; sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../golden'))
from host_twin import *
z = jax.pmap(lambda k: jnp.exp(jr.normal(k, (3, 5))))(jr.split(jr.PRNGKey(5), 8))
s = jnp.sum(z, axis=2)
P(s, jnp.sum(s), jnp.mean(s, axis=0))
n = z / jnp.sum(z, axis=2, keepdims=True)
P(jnp.sum(n), jnp.sum(n, axis=(0, 1)), jnp.max(n))
P(jax.nn.logsumexp(z, axis=1), jax.nn.logsumexp(z, axis=0))
