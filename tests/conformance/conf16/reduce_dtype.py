# JAX twin of tests/golden/reduce_dtype.spmd (its .out is this program's output).
import os
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax, jax.numpy as jnp, numpy as np
P = lambda *a: print(*[np.asarray(x) for x in a])
x = jnp.array([1.7, 1.7, -0.5]); b = jnp.array([True, True, False]); i = jnp.array([1, 2, 4])
P(jnp.sum(x, dtype=jnp.int32), jnp.sum(b, dtype=bool), jnp.sum(b, dtype=jnp.float32), jnp.sum(i, dtype=jnp.uint32), jnp.prod(x, dtype=jnp.int32), jnp.mean(i, dtype=jnp.float32), jnp.sum(i, axis=0, dtype=jnp.float32, keepdims=True))
P(jnp.mean(i, dtype=jnp.int32), jnp.mean(jnp.array([1.5, 2.0]), dtype=jnp.int32), jnp.prod(b, dtype=bool), jnp.mean(jnp.arange(6).reshape(2, 3), axis=1, dtype=jnp.float32), jnp.array([5], jnp.uint32) + jnp.sum(i, dtype=jnp.int32))
P(jnp.sum(jnp.array([1, -1]), dtype=bool), jnp.prod(jnp.array([2, 0]), dtype=bool), jnp.sum(jnp.array([0.0, 0.5]), dtype=bool))
P(jax.vmap(lambda r: jnp.sum(r, dtype=jnp.float32) / 2)(jnp.arange(6).reshape(3, 2)), jax.pmap(lambda r: jnp.mean(r * 3, dtype=jnp.int32))(jnp.arange(16).reshape(8, 2)))
