# JAX twin of host_reduce_kept.spmd (JAX 0.10.2, CPU, 8 host devices).
from host_twin import *
c0 = jax.pmap(lambda k: jr.normal(k, (8, 8)) * 1000.0 + 3.0)(jr.split(jr.PRNGKey(9), 8))
d0 = jax.pmap(lambda k: jr.normal(k, (8, 16)) * 1000.0 + 3.0)(jr.split(jr.PRNGKey(9), 8))
t = jnp.transpose; S = jnp.sum
c = t(c0, (1, 2, 0)); b = t(c0, (1, 0, 2)); d = t(d0, (1, 2, 0)); e = t(d0, (2, 1, 0))
P(S(c, axis=0)[3], S(c, axis=1)[3], S(c, axis=(0, 1)))
P(S(b, axis=0)[3], S(b, axis=2)[3], S(b, axis=(0, 2)))
P(S(d, axis=(0, 1)), S(e, axis=(0, 1)))
P(S(e, axis=0)[3], jnp.mean(e, axis=1)[3])
