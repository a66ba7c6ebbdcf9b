# JAX twin of host14_grad_div.spmd (JAX 0.10.2, CPU, 8 host devices).
import os, sys; sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../golden'))
from host_twin import *
z = jax.pmap(lambda k: jr.normal(k, (5,)))(jr.split(jr.PRNGKey(77), 8))
w = jr.normal(jr.PRNGKey(78), (5, 3))
p = z @ w
P(jnp.sum(p, axis=0), jnp.mean(p), jnp.max(p, axis=1))
g = jax.grad(lambda s: jnp.mean(jnp.tanh(z * s)))(0.7)
P(g, jnp.sum(jnp.exp(z) / jnp.sum(jnp.exp(z), axis=1, keepdims=True)), jnp.sum(jnp.exp(z) / jnp.sum(jnp.exp(z), axis=0, keepdims=True), axis=1))
