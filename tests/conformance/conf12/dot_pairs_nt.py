# JAX twin of tests/golden/dot_pairs_nt.spmd
import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax, jax.numpy as jnp, numpy as np
A = np.asarray
x = jax.random.uniform(jax.random.key(21), [6, 20], minval=-1.0, maxval=1.0)
w = jax.random.uniform(jax.random.key(22), [20, 40], minval=-1.0, maxval=1.0)
y = jax.random.uniform(jax.random.key(23), [5, 24], minval=-1.0, maxval=1.0)
v = jax.random.uniform(jax.random.key(24), [24, 33], minval=-1.0, maxval=1.0)
z = jax.random.uniform(jax.random.key(25), [4, 25], minval=-1.0, maxval=1.0)
u = jax.random.uniform(jax.random.key(26), [25, 10], minval=-1.0, maxval=1.0)
print(A(jax.grad(lambda a: jnp.sum(jax.nn.relu(a @ w)))(x)))
print(A(jax.grad(lambda a: jnp.sum(jnp.tanh(a @ v)))(y)))
print(A(jax.grad(lambda a: jnp.sum(jnp.tanh(a @ u)))(z)))
