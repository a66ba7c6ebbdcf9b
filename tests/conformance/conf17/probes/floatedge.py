from common import *
f=lambda x: jnp.array(x, jnp.float32)
inf = jnp.float32(1.0) / 0.0
nan = inf - inf
x = jnp.stack([jnp.float32(v) for v in [1.0, nan, -1.0, inf, -inf, -0.0, 0.0, 1e-40, -1e-40, 3.0]])
fs = [jnp.exp, jnp.log, jnp.log1p, jnp.sqrt, jax.lax.rsqrt, jnp.sin, jnp.cos, jnp.tan, jnp.tanh, jax.nn.sigmoid, jax.nn.relu, jnp.abs, jnp.sign, jnp.floor, jnp.ceil, jnp.round]
for g in fs: P(g(x))
P(jnp.sum(x), jnp.mean(x), jnp.max(x), jnp.min(x), jnp.prod(x), jnp.argmax(x), jnp.argmin(x), jnp.all(x), jnp.any(x), jax.nn.logsumexp(x))
y = f([1.0, -np.inf, 2.0, -0.0, 0.0])
P(jnp.sum(y), jnp.max(y), jnp.min(y), jnp.argmax(y), jnp.argmin(y), jax.nn.logsumexp(y), jnp.prod(y))
w = f([-0.0, 0.0, -0.0])
P(jnp.max(w), jnp.min(w), jnp.sum(w), jnp.argmax(w), jnp.argmin(w), jnp.maximum(jnp.float32(-0.0), 0.0), jnp.minimum(jnp.float32(0.0), -0.0))
P(jnp.maximum(x, 0.0), jnp.minimum(x, 0.0), jnp.clip(x, -1.0, 1.0), jnp.where(x > 0.0, x, -x))
e = jnp.zeros([0])
P(jnp.sum(e), jnp.prod(e), jnp.mean(e), jnp.all(e), jnp.any(e), jax.nn.logsumexp(e))
P(jnp.max(jnp.zeros([3, 0]), axis=0), jnp.sum(jnp.zeros([3, 0]), axis=1), jnp.mean(jnp.zeros([2, 0]), axis=1))
P(jax.nn.logsumexp(f([np.inf, np.inf])), jax.nn.logsumexp(f([-np.inf, -np.inf])), jax.nn.logsumexp(f([np.nan, 1.0])), jax.nn.logsumexp(f([np.inf, -np.inf])))
P(jnp.round(f([0.5, 1.5, 2.5, -0.5, -2.5, 3.5])), f([0.1, 0.2]) + f([0.2, 0.1]), jnp.float32(16777217.0))
P(x.astype(jnp.int32), f([1.5, -1.5, 4e9, 5e9]).astype(jnp.uint32), f([3e9, -3e9, 2.9, -2.9]).astype(jnp.int32), x.astype(bool))
P(jnp.exp(f([88.7, 89.0, -104.0, -88.0])), jnp.log(f([1e-38, 1e-37, 3.4e38])), jnp.sqrt(f([1e-38, 2.0])))
P(x ** 0.0, x ** 2, jnp.float32(0.0) ** -1.0, jnp.float32(-8.0) ** (1.0 / 3.0), x ** nan)
