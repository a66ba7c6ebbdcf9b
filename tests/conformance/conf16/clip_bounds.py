# JAX twin of tests/golden/clip_bounds.spmd (its .out is this program's output).
import os
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax, jax.numpy as jnp, numpy as np
P = lambda *a: print(*[np.asarray(x) for x in a])
x = jnp.array([-2.0, 0.5, 3.0, jnp.nan]); i = jnp.array([-3, 1, 5])
P(jnp.clip(x, 0.0), jnp.clip(x, max=1.0), jnp.clip(x, min=-1.0, max=1.0), jnp.clip(x), jnp.clip(i, 0), jnp.clip(i, max=2.5), jnp.clip(jnp.array([True, False]), max=0))
P(jnp.clip(x, max=1.0), jnp.clip(x, min=0.5), jnp.clip(2.5, 0, 1), jnp.clip(3), jax.pmap(lambda v: jnp.clip(v, max=3.5))(jnp.arange(8.0).reshape(8, 1)))
