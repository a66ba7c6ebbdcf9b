# JAX twin of host14_shardmap_axes.spmd (JAX 0.10.2, CPU, 8 host devices).
import os, sys; sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../golden'))
from host_twin import *
y = sm(lambda v: jnp.tanh(v) + 0.25, x, PS("rows", "cols"))
P(jnp.mean(y, axis=1), jnp.max(y, axis=0), jnp.min(y, axis=1, keepdims=True))
P(jnp.sum(y, keepdims=True), jnp.mean(y * y, axis=0, keepdims=True))
P(jnp.argmax(y, axis=1), jnp.argmin(y))
m = jnp.mean(y, axis=0)
P(jnp.sum(y - m), jnp.mean((y - m) * (y - m), axis=0))
