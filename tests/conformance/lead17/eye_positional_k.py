# JAX's twin of tests/golden/eye_positional_k.spmd.
import jax.numpy as jnp
import numpy as np
print(np.asarray(jnp.eye(3, 3, 1)))
print(np.asarray(jnp.eye(4, 3, -2)), np.asarray(jnp.eye(2, 2, 0)))
print(np.asarray(jnp.eye(3, 4, dtype=jnp.int32)))
print(np.asarray(jnp.eye(2, 5, 3, dtype=jnp.int32)))
print(np.asarray(jnp.eye(2, 3, 1, jnp.int32)), np.asarray(jnp.eye(2, 2, k=1, dtype=jnp.int32)))
