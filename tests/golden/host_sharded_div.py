# JAX twin of host_sharded_div.spmd (JAX 0.10.2, CPU, 8 host devices).
from host_twin import *
z = jnp.exp(jax.pmap(lambda k: jr.normal(k, (5,)))(jr.split(jr.PRNGKey(77), 8)))
P(z / jnp.sum(z, axis=0, keepdims=True))
P(z / jnp.sum(z, axis=0), z / jnp.sum(z))
P(z / jnp.sum(z, axis=1, keepdims=True))
w = jnp.exp(jax.pmap(lambda k: jr.normal(k, (3, 5)))(jr.split(jr.PRNGKey(78), 8)))
P(jnp.sum(w / jnp.sum(w, axis=0, keepdims=True), axis=(1, 2)), (w / jnp.sum(w, axis=0))[5])
P((w / jnp.sum(w, axis=(0, 1), keepdims=True))[2], (w / jnp.sum(w, axis=2, keepdims=True))[7])
P((w / jnp.sum(w, axis=(1, 2), keepdims=True))[3])
y = sm(lambda v: jnp.exp(v) * 0.5, x, PS("rows", "cols"))
P(y / jnp.sum(y, axis=0, keepdims=True), y / jnp.max(y, axis=1, keepdims=True))
h = sm(lambda v: jnp.exp(v) * 0.5, x, PS("rows", None))
P(h / jnp.sum(h, axis=0, keepdims=True), jnp.sum(h / jnp.sum(h, axis=1, keepdims=True), axis=1))
