# JAX twin of tests/golden/dot_pairs_blis.spmd
import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax, jax.numpy as jnp, numpy as np
A = np.asarray
a = jax.random.uniform(jax.random.key(41), [2, 40, 301], minval=-1.0, maxval=1.0)
b = jax.random.uniform(jax.random.key(42), [2, 40, 301], minval=-1.0, maxval=1.0)
c = jax.pmap(lambda x, y: x @ y.T)(a, b)
print(A(c[0][:2, :6]))
print(A(c[1][39, 32:]))
m = jax.random.uniform(jax.random.key(43), [2, 1000, 1200], minval=-1.0, maxval=1.0)
r = jax.pmap(lambda x: x @ x.T)(m)
print(A(r[1][997, 990:]))
