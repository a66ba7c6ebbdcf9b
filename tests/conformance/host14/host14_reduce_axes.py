# JAX twin of host14_reduce_axes.spmd (JAX 0.10.2, CPU, 8 host devices).
import os, sys; sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../golden'))
from host_twin import *
z = jax.pmap(lambda k: jr.normal(k, (4, 6)))(jr.split(jr.PRNGKey(7), 8))
P(jnp.mean(z, axis=0), jnp.max(z, axis=(0, 2)), jnp.min(z, axis=0, keepdims=True))
P(jnp.sum(z, axis=(0, 2), keepdims=True), jnp.mean(z, axis=(1, 2)))
P(jnp.sum(z, axis=0, keepdims=True) * 2.0, jnp.mean(z, keepdims=True))
P(jnp.argmax(z, axis=0), jnp.argmin(z, axis=2), jnp.argmax(jnp.sum(z, axis=2)))
