# JAX twin of tests/golden/div_sqrt.spmd
import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax, jax.numpy as jnp, numpy as np
A = np.asarray
x = jax.random.uniform(jax.random.key(3), [8, 16], minval=0.01, maxval=4.0)
print(A(jax.pmap(lambda v: 0.5 / jnp.sqrt(v))(x)[:2]))
print(A(jax.pmap(lambda v: v / jnp.sqrt(v + 1.0))(x)[:2]))
print(A(jax.pmap(lambda v: jax.grad(lambda u: jnp.sum(jnp.sqrt(u)))(v))(x)[:2]))
def two(v):
    s = jnp.sqrt(v)
    return (v / s) * s
print(A(jax.pmap(two)(x)[:2]))
print(A((0.5 / jnp.sqrt(x))[:2]))
