# JAX twin of host_grad_sharded_div.spmd (JAX 0.10.2, CPU, 8 host devices).
from host_twin import *
m0 = jr.normal(jr.key(3), (8, 8))
mv = jax.pmap(lambda row: jnp.sum(row * 0.35355338))((m0 + m0.T) * 0.5)
nrm = jnp.sqrt(jnp.sum(mv * mv))
P(mv / nrm)
P(jax.grad(lambda s: jnp.sum(mv * s / nrm))(1.7))
P(jax.grad(lambda v: jnp.sum((v * 1.3) / nrm * mv))(mv))
P(jax.grad(lambda v: jnp.sum(jnp.sin(v / 0.7) * mv))(mv))
P(jax.grad(lambda n: jnp.sum(mv * 1.3 / n))(nrm))
P(jax.grad(lambda v: jnp.sum(v / nrm * 0.3))(mv))
P(jax.grad(lambda v: jnp.sum(v / nrm * 0.37))(mv))
P(jax.grad(lambda v: jnp.sum(v / 0.7 * 0.37))(mv))
P(jax.grad(lambda v: jnp.sum(jnp.sin(v / 0.7) * 2.7))(mv))
P(jax.grad(lambda s: jnp.sum(jnp.exp(mv * s) / nrm))(0.7))
w = jnp.sin(jnp.arange(8.0)) * 3.1
P(jax.grad(lambda v: jnp.sum(v / nrm * w))(mv))
P(jax.grad(lambda v: jnp.sum(v / nrm * (w * mv)))(mv))
