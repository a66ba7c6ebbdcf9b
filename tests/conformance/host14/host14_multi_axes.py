# JAX twin of host14_multi_axes.spmd (JAX 0.10.2, CPU, 8 host devices).
import os, sys; sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../golden'))
from host_twin import *
z = jax.pmap(lambda k: jr.normal(k, (2, 3, 4)))(jr.split(jr.PRNGKey(3), 8))
P(jnp.sum(z, axis=(1, 3)), jnp.mean(z, axis=(0, 3)), jnp.max(z, axis=(2, 3)))
P(jnp.sum(jnp.transpose(z, (3, 1, 2, 0)), axis=3), jnp.mean(z, axis=(0, 1, 2)))
P(jnp.sum(jnp.reshape(z, (16, 12)), axis=1), jnp.sum(jnp.reshape(z, (8, 24)), axis=0))
