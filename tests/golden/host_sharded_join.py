# JAX twin of host_sharded_join.spmd (JAX 0.10.2, CPU, 8 host devices).
from host_twin import *
z = jax.pmap(lambda k: jr.normal(k, (3, 4)))(jr.split(jr.PRNGKey(32), 8))
h = jr.normal(jr.PRNGKey(3), (8, 3, 4))
cat = jnp.concatenate
P(jnp.sum(cat([z, z * 2.0])), jnp.sum(cat([h, z])), jnp.sum(cat([z, z, z])))
P(jnp.sum(cat([h, z], axis=1)), jnp.sum(cat([z, h[:2]])))
v = jax.vmap(lambda r: r * 2.0)(z)
P(jnp.sum(v), jnp.sum(jax.vmap(lambda r: jnp.sum(r, axis=0))(z)), jnp.sum(jax.vmap(lambda r: r * 2.0, out_axes=1)(z)))
s = z
if jnp.sum(z) < 0.0: s = z * 2.0
else: s = z + 1.0
P(jnp.sum(s), jnp.mean(s, axis=(0, 1)))
c = z * 3.0 if jnp.max(z) > 1.0 else jnp.exp(z)
P(jnp.sum(c))
P(jnp.sum(jnp.where(h > 0.0, h, z)), jnp.sum(jnp.maximum(h, z)), jnp.sum(jnp.where(z > h, 1.0, 0.0) * z))
for t in range(1, 3):
    t = jnp.int32(t)
    P(jnp.sum(z[:, t]), jnp.sum(z[t]), jnp.mean(z[:, :, t]))
