# JAX twin of tests/golden/dot_folded_transpose.spmd
import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax, jax.numpy as jnp, numpy as np
A = np.asarray
q = jax.random.uniform(jax.random.key(31), [8, 8, 24], minval=-1.0, maxval=1.0)
k = jax.random.uniform(jax.random.key(32), [8, 8, 24], minval=-1.0, maxval=1.0)
w = jax.random.uniform(jax.random.key(33), [8, 20, 33], minval=-1.0, maxval=1.0)
print(A(jax.pmap(lambda a, b: a @ b.T)(q, k)[:2]))
print(A(jax.pmap(lambda a, b: jnp.tanh(a @ b.T) @ b)(q, k)[1]))
print(A(jax.pmap(lambda a, b: a @ b.T)(w, w)[0]))
print(A((q[0] @ k[0].T)))
