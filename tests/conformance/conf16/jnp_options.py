# JAX twin of tests/golden/jnp_options.spmd (its .out is this program's output).
import os
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax, jax.numpy as jnp, numpy as np
P = lambda *a: print(*[np.asarray(x) for x in a])
x = jnp.arange(6.0).reshape(2, 3)
print(jnp.expand_dims(x, (0, 2)).shape, jnp.expand_dims(x, (-1, 0)).shape, jnp.expand_dims(x, (3, 1, 0)).shape, np.asarray(jnp.expand_dims(x, (0, -1))[0, 1]))
P(jnp.eye(3, k=1), jnp.eye(3, 4, k=-1), jnp.eye(2, k=5), jnp.eye(4, 3, k=2, dtype=jnp.int32), jnp.eye(3, dtype=bool, k=-2))
P(jax.nn.one_hot(jnp.array([1, 0, 3]), 3, dtype=jnp.int32), jax.nn.one_hot(jnp.array([[2], [0]], jnp.int32), 3, dtype=bool), jax.nn.one_hot(jnp.array([0.0, 1.5]), 2, dtype=jnp.uint32))
P(jax.vmap(lambda r: jax.nn.one_hot(jnp.argmax(r), 3, dtype=jnp.int32))(x))
