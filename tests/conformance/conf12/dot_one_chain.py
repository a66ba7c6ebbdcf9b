# JAX twin of tests/golden/dot_one_chain.spmd
import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax, jax.numpy as jnp, numpy as np
A = np.asarray
x = jax.random.uniform(jax.random.key(11), [6, 784], minval=-1.0, maxval=1.0)
w = jax.random.uniform(jax.random.key(12), [784, 10], minval=-1.0, maxval=1.0)
h = jax.random.uniform(jax.random.key(13), [4, 300], minval=-1.0, maxval=1.0)
v = jax.random.uniform(jax.random.key(14), [300, 20], minval=-1.0, maxval=1.0)
print(A(x @ w))
print(A(h @ v))
print(A(jax.vmap(lambda r: r @ v)(h)))
