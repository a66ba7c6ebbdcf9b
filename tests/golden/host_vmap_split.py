# JAX twin of host_vmap_split.spmd (JAX 0.10.2, CPU, 8 host devices).
from host_twin import *
z = jax.pmap(lambda k: jr.normal(k, (16, 12)))(jr.split(jr.PRNGKey(32), 8))
zt = jnp.transpose(z, (1, 0, 2))
h = jr.normal(jr.PRNGKey(3), (8, 12))
vm, S = jax.vmap, jnp.sum
P(S(vm(lambda r: r * 2.0)(zt)), S(vm(lambda r: jnp.exp(r) - r)(zt)))
P(S(vm(lambda r: S(r, axis=1))(zt)), S(vm(lambda r: r * 2.0, in_axes=1)(z)))
P(S(vm(lambda r: r * h)(zt)), S(vm(lambda r: r + 1.0, out_axes=2)(zt)))
P(S(vm(lambda r: vm(lambda q: q * 3.0)(r))(zt)))
P(jnp.mean(vm(jnp.exp, in_axes=2)(z), axis=(0, 2)))
