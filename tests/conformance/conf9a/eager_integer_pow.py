# JAX twin of tests/golden/eager_integer_pow.spmd
import jax, jax.numpy as jnp, numpy as np
A = np.asarray
i32, u32, f32 = jnp.int32, jnp.uint32, jnp.float32
rt = lambda v: v
bi = jnp.array([0, 1, -1, 2, -2, 3, -15, 2147483647, -2147483648], i32)
bu = jnp.array([0, 1, 2, 3, 7, 4294967295, 2147483648], u32)
bf = jnp.array([0.0, -0.0, 1.0, -1.0, 1.1, 0.9, -2.5, 1e-3, 1.0000001], f32)
print(A(i32(-15) ** i32(2147483647)), A(i32(3) ** i32(40)), A(u32(7) ** u32(100)), A(i32(-2) ** u32(31)))
print(A(bi ** i32(65)), A(bi ** rt(i32(65))), A(bu ** i32(100)), A(bu ** rt(u32(4294967295))))
print(A(bf ** i32(7)), A(bf ** rt(i32(7))), A(bf ** u32(2147483648)), A(bf ** rt(i32(100))))
print(A(bf ** i32(-3)), A(bf ** rt(i32(-3))), A(bf ** rt(i32(-2147483648))), A(f32(2.0) ** i32(-1)))
print(A(2 ** i32(10)), A(2.0 ** rt(i32(3))), A(jnp.bool_(True) ** rt(i32(3))), A(jnp.array([True, False]) ** i32(0)))
print(A(u32(3) + 2 ** rt(i32(4))), A(u32(3) ** i32(2)), A(i32(3) ** u32(2)), A(f32(1.1) ** rt(i32(6))))
s = f32(1.5); t = u32(3); q = i32(-3)
for k in range(40):
    s = f32(1.01) ** k; t = u32(3) ** k; q = i32(-3) ** k
print(A(s), A(t), A(q))
print(A(jax.grad(lambda x: x ** rt(i32(3)))(f32(2.0))), A(jax.grad(lambda x: x ** i32(-2))(f32(2.0))))
print(A(jax.vmap(lambda x: x ** i32(2147483647))(jnp.array([-15, 3], i32))), A(jax.vmap(lambda x: x ** i32(7))(jnp.array([1.1, 0.9], f32))))
print(A(jax.vmap(lambda x, e: x ** e)(jnp.array([-15, 3], i32), jnp.array([2147483647, 100], i32))))
print(A(jax.pmap(lambda x: x ** i32(2147483647))(jnp.array([-15, 3], i32))))
