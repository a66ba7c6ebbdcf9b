# JAX twin of host_reduce_reshaped.spmd (JAX 0.10.2, CPU, 8 host devices).
from host_twin import *
g = Mesh(np.array(jax.devices()[:8]), ("r",))
y = jax.shard_map(lambda a: jnp.exp(a) * 0.5, mesh=g, in_specs=PS("r", None), out_specs=PS("r", None))(x)
P(jnp.sum(jnp.reshape(y, (-1,))), jnp.mean(jnp.reshape(y, (24, 4)), axis=1), jnp.sum(jnp.reshape(y, (1, 8, 12)), axis=2))
h = Mesh(np.array(jax.devices()[:8]).reshape(4, 2), ("r", "c"))
sm = lambda spec: jax.shard_map(lambda a: jnp.exp(a) * 0.5, mesh=h, in_specs=spec, out_specs=spec)(x)
q = sm(PS("r", "c")); e = sm(PS(("r", "c"), None)); f = sm(PS(("c", "r"), None))
P(jnp.sum(jnp.reshape(q, (-1,))), jnp.sum(jnp.reshape(e, (-1,))), jnp.sum(jnp.reshape(e, (16, 6)), axis=1), jnp.sum(jnp.reshape(f, (-1,))))
p = jax.pmap(lambda k: jr.normal(k, (6,)))(jr.split(jr.PRNGKey(5), 8))
P(jnp.sum(jnp.reshape(p, (-1,))), jnp.sum(jnp.reshape(p, (48,))))
