import jax
jax.config.update("jax_enable_x64", True)  # f64 is a real double in spmdrun: compare with x64 on
import jax.numpy as jnp, numpy as np
A = np.asarray
f64 = jnp.float64
x = jnp.arange(4.0).astype(f64) / 3.0
print(A(x), A(f64(1.0) / 3.0), A(f64(0.1) + f64(0.2)))
print(A(jnp.zeros([2], f64)), A(jnp.ones([2], f64) * 1e-40), A(jnp.array([1, 2], jnp.int32).astype(f64)), A(jnp.sum(jnp.array([1e8, 1.0, -1e8], f64))))
print(A(f64(16777217)), A(f64(3) * jnp.uint32(2)), A(x.astype(jnp.float32) == x))
