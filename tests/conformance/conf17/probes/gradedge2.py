from common import *
from jax import lax
g = jax.grad; S = jnp.sum; F = lambda v: jnp.array(v, jnp.float32)
inf = np.inf
e = F([0.0, -0.0, inf, -inf, 1e-40])
P(g(lambda v: S(jnp.sqrt(v)))(e), g(lambda v: S(jnp.log(v)))(e), g(lambda v: S(jnp.abs(v)))(e), g(lambda v: S(jax.nn.relu(v)))(e))
P(g(lambda v: S(jnp.exp(v)))(e), g(lambda v: S(jnp.tanh(v)))(e), g(lambda v: S(jax.nn.sigmoid(v)))(e), g(lambda v: S(lax.rsqrt(v)))(e))
P(g(lambda v: S(jnp.where(v > 0.0, jnp.sqrt(v), 0.0)))(F([-1.0, 4.0])), g(lambda v: S(jnp.where(v > 0.0, jnp.log(v), v)))(F([-1.0, 0.0, 2.0])))
P(g(lambda v: S(v ** 0.5))(F([0.0, 4.0])), g(lambda v: S(v ** 2))(F([0.0, -0.0])), g(lambda v: S(v ** 0.0))(F([0.0, 2.0])), g(lambda v: S(v ** -1.0))(F([0.0, 2.0])))
P(g(jax.nn.logsumexp)(F([-inf, 0.0, -inf])), g(jax.nn.logsumexp)(F([-inf, -inf])), g(jnp.max)(F([inf, inf, 1.0])), g(lambda v: S(jnp.maximum(v, v)))(F([1.0, 2.0])))
P(g(lambda v: S(jnp.clip(v, 0.0, 1.0)))(F([0.0, 1.0, 0.5, -1.0])), g(lambda v: S(jnp.minimum(v, 1.0)))(F([1.0, 2.0])), g(lambda v: S(jnp.abs(v) * jnp.sign(v)))(F([0.0, -2.0])))
P(g(lambda v: S(v / v))(F([0.0, 2.0])), g(lambda v: S(v * 0.0))(F([inf, 1.0])), g(lambda v: S(jnp.log1p(v)))(F([-1.0, 0.0])), g(jnp.mean)(jnp.zeros([0])))
P(g(lambda v: S(jnp.sin(v) * jnp.cos(v) / jnp.tan(v)))(F([1e-20, 3.0])), g(jnp.prod)(F([inf, 0.0])), g(lambda v: S(2.0 ** v))(F([-inf, inf])), g(lambda v: S(v ** v))(F([0.0, 2.0])))
