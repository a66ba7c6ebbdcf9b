from common import *
x = jnp.arange(12.0).reshape(3, 4) * 0.37 - 1.1
m = jnp.max(x, axis=1, keepdims=True)
e = jnp.exp(x - m)
P(e / jnp.sum(e, axis=1, keepdims=True))
from jax.nn import logsumexp as lse
P(lse(x, axis=1), lse(x), lse(x, axis=0, keepdims=True))
P(lse(x, axis=-1), lse(x, axis=(0, 1)))
mu = jnp.mean(x, axis=-1, keepdims=True)
v = jnp.mean((x - mu) ** 2, axis=-1, keepdims=True)
P((x - mu) * jax.lax.rsqrt(v + 1e-5))
P((x - mu) / jnp.sqrt(v + 1e-5))
labels = jnp.array([0, 3, 1])
oh = jax.nn.one_hot(labels, 4)
P(oh, -jnp.mean(jnp.sum(oh * (x - lse(x, axis=1, keepdims=True)), axis=1)))
P(jax.nn.one_hot(jnp.array([0, -1, 4, 2]), 4), jax.nn.one_hot(jnp.array([[1, 2], [0, 3]], jnp.int32), 3))
q = jnp.arange(24.0).reshape(2, 3, 4) * 0.1
k = jnp.arange(24.0).reshape(2, 3, 4) * -0.05
s = q @ jnp.transpose(k, (0, 2, 1)) / jnp.sqrt(4.0)
w = jnp.exp(s - jnp.max(s, axis=-1, keepdims=True))
att = w / jnp.sum(w, axis=-1, keepdims=True)
P(att)
P(att @ q)
P(jnp.argmax(x, axis=1), jnp.argmin(x, axis=0), jnp.argmax(x), jnp.argmax(x, axis=1, keepdims=True))
P(jnp.mean(x, axis=0), jnp.max(x, axis=(0, 1)), jnp.min(x, axis=-1, keepdims=True))
P(jax.nn.sigmoid(x), jax.nn.relu(x))
P(jnp.tanh(x) * 0.5, jnp.clip(x, -0.5, 0.5))
