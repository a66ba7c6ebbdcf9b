# JAX twin of tests/golden/pow_div.spmd
import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax, jax.numpy as jnp, numpy as np
A = np.asarray
x = jax.random.uniform(jax.random.key(5), [8, 16], minval=0.1, maxval=3.0)
y = jax.random.normal(jax.random.key(6), [8, 16])
q = jnp.arange(8.0) * 0.25 + 0.3
print(A(jax.pmap(lambda p, a: p / a ** 1.5)(y, x)[:2]))
print(A(jax.pmap(lambda p, a: p / a ** 0.5)(y, x)[:2]))
print(A(jax.pmap(lambda p, a, e: p / a ** e)(y, x, q)[:2]))
print(A(jax.pmap(lambda p, a: p / a ** 2.0)(y, x)[:2]))
print(A(jax.pmap(lambda p, a: jnp.sum(p / (a * a + 0.1) ** 1.5))(y, x)))
print(A((y / x ** 1.5)[:2]))
