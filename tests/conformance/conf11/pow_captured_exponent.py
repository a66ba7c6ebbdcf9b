# JAX twin of tests/golden/pow_captured_exponent.spmd
import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax, jax.numpy as jnp, numpy as np
A = np.asarray
am = jnp.int32(jnp.argmax(jnp.array([1.0, 0.0])))
n = am + 2147483647
m = am - 1
k = am + 7
u = jnp.uint32(am) + jnp.uint32(4294967295)
xi = jnp.array([-15, 3, -1, 2, 0, 1, 5, -7], jnp.int32)
xf = xi.astype(jnp.float32) * 0.1 + 1.0
pm = jax.pmap
print(A(pm(lambda x: x ** n)(xi)))
print(A(pm(lambda x: x ** (n + 0))(xi)))
print(A(pm(lambda x: x ** (m + 0))(xi)))
print(A(pm(lambda x: x ** u)(xi.astype(jnp.uint32))), A(pm(lambda x: x ** u)(xi)))
print(A(pm(lambda x: x ** k)(xf)))
print(A(pm(lambda x: x ** (k + 0))(xf)))
print(A(pm(lambda x: x ** m)(xf)))
print(A(jax.vmap(lambda x: x ** n)(xi)))
print(A(jax.vmap(lambda x: x ** k)(xf)))
print(A(pm(lambda x: jax.vmap(lambda y: y ** n)(x * jnp.array([1, 2], jnp.int32)))(xi)))
print(A(pm(lambda x: x ** jax.lax.psum(k, 'i'), axis_name='i')(xi)))
