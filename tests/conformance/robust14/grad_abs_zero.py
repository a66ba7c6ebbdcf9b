import os, sys; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from r14_common import *
x = jnp.array([0.0, -0.0, 1.0, -1.0, 2.0])
print(A(jax.grad(lambda v: jnp.min(jnp.abs(v)))(x)), A(jax.grad(lambda v: jnp.sum(jnp.abs(v) * v))(x)), A(jax.grad(jax.grad(lambda u: jnp.abs(u) * u * u))(-1.5)))
xs = (jnp.arange(16.0) - 8.0).reshape(8, 2)
print(A(pm(jax.grad(lambda w: jnp.min(jnp.abs(w))), xs)))
print(A(pm(jax.grad(lambda w: jnp.sum(jnp.abs(w) * w)), xs)))
print(A(jax.vmap(jax.grad(lambda w: jnp.min(jnp.abs(w))))((jnp.arange(6.0) - 3.0).reshape(3, 2))))
