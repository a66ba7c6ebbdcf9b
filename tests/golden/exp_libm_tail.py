import os
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax, jax.numpy as jnp, numpy as np
u = jax.random.uniform(jax.random.key(7), [16])
for n in [1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 14, 15, 16]:
    x = (u[:n] - 0.3) * 60.0
    print(n, np.asarray(jnp.exp(x)))
    print(n, np.asarray(jnp.log(u[:n] * 1000.0 + 0.001)))
y = (u[:14] * 30.0).reshape(2, 7)
print(np.asarray(jnp.exp(y)), np.asarray(jnp.exp(y[1]) * 2.0))
print(np.asarray(jax.vmap(jnp.exp)(u[:5] * 40.0)))
print(np.asarray(jax.grad(lambda v: jnp.sum(jnp.exp(v)))(u[:3] * 40.0)))
print(np.asarray(jax.pmap(lambda r: jnp.exp(r[:1]) + jnp.exp(r))((u * 40.0).reshape(8, 2))))
