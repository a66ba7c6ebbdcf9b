# JAX twin of tests/golden/sum_div_contracted.spmd
import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax, jax.numpy as jnp, numpy as np
A = np.asarray
x = jax.random.normal(jax.random.key(5), [8, 6, 3]) * 3.0
print(A(jax.pmap(lambda g: jnp.sum(g / jnp.maximum(jnp.sqrt(jnp.sum(g * g, axis=1, keepdims=True)), 1.0), axis=0))(x)))
print(A(jax.pmap(lambda g: jnp.sum(g / jnp.sum(g * g, axis=0), axis=1))(x)))
print(A(jax.pmap(lambda g: jnp.sum(g / (1.0 + jnp.abs(g[0, 0]))))(x)))
print(A(jax.pmap(lambda g: jax.lax.psum(jnp.sum(g / jnp.maximum(jnp.sqrt(jnp.sum(g * g, axis=1, keepdims=True)), 1.0), axis=0), 'i'), axis_name='i')(x)))
y = jax.random.normal(jax.random.key(6), [8, 40, 5])
print(A(jax.pmap(lambda g: jnp.sum(g / jnp.sum(jnp.abs(g), axis=1, keepdims=True), axis=0))(y)))
