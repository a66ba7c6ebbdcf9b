# JAX twin of host_slice_split.spmd (JAX 0.10.2, CPU, 8 host devices).
from host_twin import *
y = sm(lambda v: jnp.exp(v) * 0.5, x, PS("rows", "cols"))
P(jnp.sum(y[::2, :], axis=1), jnp.sum(y[2:6]), jnp.mean(y[1:5], axis=1), jnp.max(y[4:], axis=1))
P(jnp.sum(y[3]), jnp.mean(y[5] * 2.0), jnp.sum(y[:, 2:8], axis=0), jnp.sum(y[:, ::2]))
P(jnp.sum(y[:, 3]), jnp.sum(y[:, 6:], axis=0), jnp.sum(y[0:4, 0:6]))
for t in range(3):
    t = jnp.int32(t)
    P(jnp.sum(y[t]), jnp.sum(y[:, t + 4]), jnp.sum(y[t] - y[t + 1]))
w = sm(lambda v: jnp.cos(v) * 1.7, x.reshape(4, 2, 12), PS("rows", "cols", None))
P(jnp.sum(w[:, 0]), jnp.sum(w[1]), jnp.sum(w[:, :, 3]), jnp.sum(w[::2], axis=(0, 2)))
for t in range(1, 3):
    t = jnp.int32(t)
    P(jnp.sum(w[t]), jnp.mean(w[:, t - 1], axis=1))
z = jax.pmap(lambda k: jr.normal(k, (4, 6)))(jr.split(jr.PRNGKey(7), 8))
P(jnp.sum(z[2:6]), jnp.sum(z[::2, 1:3]), jnp.sum(z[:, 1:3]))
