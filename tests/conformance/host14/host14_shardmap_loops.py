# JAX twin of host14_shardmap_loops.spmd (JAX 0.10.2, CPU, 8 host devices).
import os, sys; sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../golden'))
from host_twin import *
y = sm(lambda v: v * v, x, PS("rows", "cols"))
acc = jnp.zeros((12,))
for t in range(3): acc = acc + jnp.sum(y * jnp.float32(t + 1), axis=0)
P(acc, jnp.sum(acc))
u = y
for t in range(2): u = u - jnp.mean(u, axis=1, keepdims=True)
P(jnp.sum(u), jnp.mean(u * u))
