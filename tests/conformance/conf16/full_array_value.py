# JAX twin of tests/golden/full_array_value.spmd (its .out is this program's output).
import os
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax, jax.numpy as jnp, numpy as np
P = lambda *a: print(*[np.asarray(x) for x in a])
u = jnp.array([7, 9], jnp.uint32)
P(jnp.full([2, 2], jnp.array([1.0, 2.0])), jnp.full([3, 2], jnp.arange(2)), jnp.full([2, 3], jnp.array([[1], [2]]), jnp.float32), jnp.full([2], jnp.array([True, False])))
P(u + jnp.full([2], jnp.array([1, 2])), u + jnp.full([2], jnp.array([1, 2], jnp.int32)), jnp.full([2, 2], jnp.array([5, 6], jnp.uint32)), jnp.full([1, 2], jnp.array([[3.5, 4.5]])))
P(jax.pmap(lambda v: jnp.full([2, 1], v))(jnp.arange(8.0).reshape(8, 1))[3])
