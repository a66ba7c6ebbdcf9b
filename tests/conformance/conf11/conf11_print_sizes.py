import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax, jax.numpy as jnp, numpy as np
A = np.asarray
x = jax.random.normal(jax.random.key(21), [8, 130])
r = jax.pmap(lambda row: (row * 1000.0, (row * 100.0).astype(jnp.int32), row > 0.5))(x)
print(A(r[0][0, :7]))
print(A(r[1][:3, :30]))
print(A(r[2][:2, :40]))
print(A(r[0][:2]))
print(A(jnp.reshape(r[1], [8, 10, 13])[:2, :3]))
print(A(r[0][:, 0] / 1e6), A(r[0][:, 1] * 1e3))
print(A(jnp.reshape(jnp.arange(1200.0), [4, 300]) * 0.5))
print(A(jnp.reshape(jnp.arange(2002), [2, 1001]).astype(jnp.int32) - 1000))
