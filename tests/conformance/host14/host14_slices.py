# JAX twin of host14_slices.spmd (JAX 0.10.2, CPU, 8 host devices).
import os, sys; sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../golden'))
from host_twin import *
z = jax.pmap(lambda k: jr.uniform(k, (5, 3), minval=-1.0, maxval=2.0))(jr.split(jr.PRNGKey(11), 8))
P(jnp.sum(z[2:6]), jnp.mean(z[:, 1:4]), jnp.sum(z[:, :, 1]), jnp.max(z[::2]))
P(jnp.sum(z[1]), jnp.mean(z[:, 0, :], axis=0), jnp.sum(z[:4] * z[4:]))
P(jnp.sum(z[:, 2:, :], axis=(1, 2)))
