# The JAX program that wrote static_casts.out.
import numpy as np, jax.numpy as jnp
p = lambda *a: print(*[np.asarray(x) for x in a])
p(jnp.uint32([0, 4294967295]))
p(jnp.uint32([[1, 2], [3, 4294967295]]))
p(jnp.int32([0, 2**31 - 1, -2**31]))
p(jnp.uint32([1.5, 4294967295]), jnp.uint32([-0.5, 2.0]), jnp.int32([2.9, -2.9]), jnp.int32(2147483647.5))
p(jnp.float32([1, 2**62]), jnp.float32([16777217, 0.5]), jnp.float32([1e300, 1.0]))
p(jnp.bool_([0, 5, -1]), jnp.bool_(2**40), jnp.uint32(4294967295.0), jnp.uint32([]))
p(jnp.full([2], -1, jnp.uint32), jnp.full([2], 2**40, jnp.uint32), jnp.full([2], 3000000000))
p(jnp.full([2], 3000000000) + jnp.uint32(1), jnp.full([2], -2**31 - 1, jnp.int32), jnp.full([2], 2.5, jnp.int32))
