# JAX twin of host_loop_peel.spmd (JAX 0.10.2, CPU, 8 host devices): eager jnp ops in
# Python loops, each iteration on its carries as the one before left them.
from host_twin import *
z0 = jax.pmap(lambda k: jr.normal(k, (3, 4)))(jr.split(jr.PRNGKey(32), 8))
w = z0
for t in range(2): w = jnp.reshape(jnp.reshape(w, (4, 24)) * 0.5, (8, 3, 4)) + jnp.mean(w)
P(jnp.sum(w), jnp.mean(w))
a = jr.normal(jr.PRNGKey(3), (8, 3, 4))
for t in range(4): a = a * 0.5 + z0 + jnp.mean(a) * jnp.float32(t)
P(jnp.sum(a), jnp.mean(a, axis=(0, 2)))
y0 = jax.pmap(lambda k: jr.normal(k, (8, 4)))(jr.split(jr.PRNGKey(7), 8))
y = y0
for t in range(1, 4): y = jnp.transpose(y, (1, 0, 2)) * 0.75 + jnp.mean(y, axis=0) + jnp.float32(t)
P(jnp.sum(y), jnp.sum(y, axis=(1, 2)))
u = z0
for t in range(3): u = jnp.exp(u * 0.1) + jnp.mean(u)
P(jnp.sum(u))
