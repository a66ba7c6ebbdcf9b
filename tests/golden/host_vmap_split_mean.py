# JAX twin of host_vmap_split_mean.spmd (JAX 0.10.2, CPU, 8 host devices).
from host_twin import *
z = jax.pmap(lambda k: jr.normal(k, (16, 12)))(jr.split(jr.PRNGKey(32), 8))
zt = jnp.transpose(z, (1, 0, 2))
P(jnp.sum(jax.vmap(lambda r: r - jnp.mean(r))(zt)))
