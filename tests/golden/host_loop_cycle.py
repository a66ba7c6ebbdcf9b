# JAX twin of host_loop_cycle.spmd (JAX 0.10.2, CPU, 8 host devices).
from host_twin import *
y0 = jax.pmap(lambda k: jr.normal(k, (8, 4)))(jr.split(jr.PRNGKey(7), 8))
y = y0
for t in range(0, 7):
    y = jnp.transpose(y, (1, 0, 2)) * 0.5 + jnp.reshape(jnp.mean(y, axis=(0, 2)), (8, 1)) - jnp.sum(y)
P(jnp.sum(y), jnp.mean(y, axis=(0, 2)))
c0 = jax.pmap(lambda k: jr.normal(k, (8, 8)))(jr.split(jr.PRNGKey(9), 8))
for m in [9, 10, 11]:
    c = c0
    for t in range(0, m):
        c = jnp.transpose(c, (1, 2, 0)) * 0.9 + jnp.mean(c, axis=0) + jnp.mean(c)
    P(jnp.sum(c), jnp.mean(c))
g = c0
for t in range(2, 10):
    g = jnp.transpose(g, (1, 2, 0)) * 0.9 + jnp.mean(g, axis=0) * jnp.float32(t)
P(jnp.sum(g), jnp.sum(g, axis=(1, 2)))
