from common import *
x = jnp.arange(4.0); k = jr.key(0); b = x > 1.0
print(jnp.transpose(k))
P(jax.nn.relu(b), jnp.abs(b), jnp.floor(b), jax.nn.logsumexp(b), jnp.prod(b), jnp.sum(b), jnp.argmax(b), jnp.max(b))
P(jr.uniform(k), jr.normal(k), jr.bernoulli(k), jnp.dot(x, -7), jnp.clip(jnp.int32(3), x), jnp.maximum(jnp.int32(3), x))
print(jr.split(k))
P(jnp.log(b), jnp.sqrt(b), jnp.tanh(b), jnp.mean(b), jnp.clip(b), jnp.exp(b))
