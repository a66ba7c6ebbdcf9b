# The JAX program that wrote print_list_arrays.out.
import numpy as np, jax.numpy as jnp
nan = jnp.log(-1.0)
i = jnp.array([1, -2], jnp.int32)
u = jnp.uint32([1, 2])
print(*[np.asarray(v) for v in [jnp.array([nan, nan]), jnp.array([1.5, nan]), jnp.array([i, u]), jnp.array([[i, i], [i, i]]), jnp.array([i, [7, 8]])]])
