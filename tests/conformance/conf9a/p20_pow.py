import jax, jax.numpy as jnp, numpy as np
A = np.asarray
i32 = jnp.int32; u32 = jnp.uint32; f32 = jnp.float32
print(A(i32(-15) ** i32(2147483647)), A(i32(3) ** i32(40)), A(u32(7) ** u32(100)), A(i32(-2) ** i32(31)))
print(A(i32(2) ** 31), A(i32(-3) ** 19), A(u32(3) ** 21), A(jnp.array([2, 3], i32) ** 33), A(jnp.array([2, 3], i32) ** i32(33)))
print(A(jnp.arange(-3, 4) ** 2), A(jnp.arange(-3, 4) ** 3), A(jnp.arange(5) ** 0), A(jnp.arange(4) ** jnp.arange(4)))
e = jnp.sum(jnp.arange(4)).astype(i32)
print(A(i32(5) ** e), A(jnp.array([5, -5], i32) ** e), A(u32(9) ** e), A(f32(1.1) ** e), A(f32(2.0) ** i32(-3)))
print(A(f32(1.1) ** i32(3)), A(f32(1.1) ** 3), A(f32(1.1) ** 3.0), A(jnp.array([1.1, 0.9], f32) ** i32(7)))
print(A(f32(-8.0) ** (1.0 / 3.0)), A(jnp.array([0.0, -0.0], f32) ** -1.0), A(f32(0.0) ** 0.0), A(f32(-2.0) ** 2.0))
print(A(jnp.array([True, False]) ** 2), A(2 ** jnp.arange(5)), A(2.0 ** jnp.arange(5)), A(10.0 ** jnp.array([-3, 0, 3], f32)))
print(A(f32(2.0) ** 0.5), A(jnp.sqrt(2.0)), A(f32(1e10) ** 4), A(f32(1e-10) ** 5), A(f32(3.0) ** -2))
