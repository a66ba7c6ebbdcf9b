import jax, jax.numpy as jnp, numpy as np
A = np.asarray
a = [7, -7, 7, -7, 0, 1, -1, 2147483647, -2147483648]
b = [2, 2, -2, -2, 3, -3, 3, -1, 7]
x = jnp.array(a, dtype=jnp.int32)
y = jnp.array(b, dtype=jnp.int32)
print(A(x // y), A(x % y))
print(A(x // 3), A(x % 3), A(x // -3), A(x % -3))
print(-17 // 5, -17 % 5, 17 // -5, 17 % -5, -17 // -5, -17 % -5)
print(A(jnp.int32(-17) // 5), A(jnp.int32(-17) % 5), A(jnp.int32(17) // -5), A(jnp.int32(17) % -5))
u = jnp.array([7, 0, 4294967295, 2147483648, 10], dtype=jnp.uint32)
print(A(u // jnp.uint32(3)), A(u % jnp.uint32(3)), A(u // 2), A(u % 10))
print(A(x // 0), A(x % 0), A(u // jnp.uint32(0)), A(u % jnp.uint32(0)))
f = [7.5, -7.5, 7.5, -7.5, 0.0, -0.0]
g = [2.0, 2.0, -2.0, -2.0, 3.0, 3.0]
F = jnp.array(f, jnp.float32); G = jnp.array(g, jnp.float32)
print(A(F // G), A(F % G))
print(A(F % 0.0), A(F // 0.0), -0.0 // 1.0, 5.0 % -3.0)
print(A(x // True), A((x % 4 == 3) // 1), 7 // 2 * 2 + 7 % 2)
