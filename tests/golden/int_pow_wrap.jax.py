# The JAX program that wrote int_pow_wrap.out.
import numpy as np, jax.numpy as jnp
a = jnp.array([-7, 7, -2147483648, 2147483647, 0, -1, 5, -5, 3, 3, -3, 2, 2, 7, 2, 1])
e = jnp.array([3, 3, 1, 2, 5, 7, 13, 14, 20, 21, 21, 31, 32, 12, 64, -1])
print(np.asarray(a ** e))
print(np.asarray(jnp.uint32([3, 3, 2, 2, 7, 4294967295, 0, 1]) ** jnp.uint32([20, 21, 31, 32, 12, 3, 0, 65])))
print(np.asarray(jnp.array([2, -2, 1, -1, 0, 0]) ** jnp.array([-1, -1, -1, -1, 0, -2])))
print(np.asarray(jnp.array([3, -3, 2]) ** 21), np.asarray(jnp.array([True, False, True]) ** jnp.array([False, True, True])))
