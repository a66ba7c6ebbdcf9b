# JAX twin of host14_vmap_dot.spmd (JAX 0.10.2, CPU, 8 host devices).
import os, sys; sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../golden'))
from host_twin import *
z = jax.pmap(lambda k: jr.normal(k, (4, 4)))(jr.split(jr.PRNGKey(41), 8))
v = jax.vmap(lambda r: r @ r.T)(z)
P(jnp.sum(v), jnp.mean(v, axis=0))
t = jax.vmap(lambda r: jnp.max(r, axis=1) - jnp.min(r, axis=1))(z)
P(t, jnp.sum(t), jnp.mean(t))
P(jnp.sum(jax.vmap(lambda r: jnp.mean(r))(z)), jnp.max(jax.vmap(lambda r: jnp.sum(r * r))(z)))
