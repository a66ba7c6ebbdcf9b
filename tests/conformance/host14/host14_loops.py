# JAX twin of host14_loops.spmd (JAX 0.10.2, CPU, 8 host devices).
import os, sys; sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../golden'))
from host_twin import *
z = jax.pmap(lambda k: jr.normal(k, (6,)))(jr.split(jr.PRNGKey(21), 8))
acc = 0.0
for t in range(4):
    acc = acc + jnp.sum(z * jnp.float32(t + 1))
    P(acc, jnp.mean(z - acc))
w = z
for t in range(3): w = w * 0.5 + jnp.max(w)
P(jnp.sum(w), w)
