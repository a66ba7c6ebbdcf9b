# JAX twin of host14_shardmap_index.spmd (JAX 0.10.2, CPU, 8 host devices).
import os, sys; sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../golden'))
from host_twin import *
y = sm(lambda v: jnp.exp(v) * 0.5, x, PS("rows", "cols"))
P(y[1:5, 2:8], jnp.sum(y[:, 6:]), jnp.mean(y[3]))
P(jnp.sum(y[:, 0]), jnp.max(y[:, 1:3], axis=0), jnp.sum(y[::2, :], axis=1))
for t in range(3):
    t = jnp.int32(t)
    P(jnp.sum(y[t]), jnp.sum(y[:, t] * 2.0))
