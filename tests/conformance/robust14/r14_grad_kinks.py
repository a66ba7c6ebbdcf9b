from r14_common import *
x = jnp.array([0.0, -0.0, 1.0, -1.0, 2.0])
g = lambda f: A(jax.grad(f)(x))
print(g(lambda v: jnp.sum(jnp.abs(v))), g(lambda v: jnp.sum(jax.nn.relu(v))))
print(g(lambda v: jnp.sum(jnp.maximum(v, 1.0))), g(lambda v: jnp.sum(jnp.minimum(v, -v))))
print(g(lambda v: jnp.sum(jnp.clip(v, -1.0, 1.0))), g(lambda v: jnp.max(v * 0.0 + 2.0)))
print(g(lambda v: jnp.min(jnp.abs(v))), g(lambda v: jnp.sum(jnp.where(v > 0.0, v * v, -v))))
print(g(lambda v: jnp.sum(jnp.sqrt(v * v))), g(lambda v: jnp.sum(jnp.floor(v) + jnp.round(v) + jnp.sign(v))))
