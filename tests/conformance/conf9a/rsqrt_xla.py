# JAX twin of tests/golden/rsqrt_xla.spmd
import jax, jax.numpy as jnp, numpy as np
A = np.asarray
f32 = jnp.float32
rsqrt = jax.lax.rsqrt
x = jnp.array([1000.0, 89.0, 2.0, 3.0, 0.3, 6471.895, 7.2148835e-18, 5.2535431e-15, 1e-30, 7.7e20], f32)
print(A(rsqrt(x)), A(rsqrt(f32(1000.0))), A(rsqrt(f32(89.0))))
print(A(rsqrt(jnp.array([0.0, -0.0, -1.0, 1.17549435e-38, 3.4028235e38], f32))), A(rsqrt(jnp.array([1.0, -1.0], f32) / 0.0)))
v = jnp.array([1.0, 4.0, 9.0, 16.0, 25.0], f32) + jnp.arange(5.0) * 0.37
print(A(v * rsqrt(jnp.mean(v * v) + 1e-5)), A(jax.pmap(rsqrt)(jnp.reshape(x, [2, 5]))))
print(A(jax.grad(lambda t: jnp.sum(rsqrt(t)))(jnp.array([2.0, 1000.0], f32))))
