from conf9c_common import *
U = jnp.uint32
def body(x, y, u):
    j = lax.axis_index('i')
    return (x * 2, x * 2.5, x + y, u * 3, u - 5, x / 3, x // 3, (x - 4) % 3, (x - 4) // 3,
            u + j, y * j, (x > 3) + 1, (x > 3) + 1.5, (x > 3) * y, -x, j - 10)
r = pm(body, jnp.arange(8), jnp.arange(8.0) * 0.5, jnp.arange(8).astype(U))
for k in range(8): print(A(r[k]))
for k in range(8, 16): print(A(r[k]))
print(T(pm(lambda u: (u * U(7), u + U(3000000000), lax.psum(u, 'i')), jnp.arange(8).astype(U) * U(1000000000))))
print(T(pm(lambda x: (x ** 2, x ** 2.0, 2 ** x, 2.0 ** x, x ** -1.0), jnp.arange(8))))
print(T(pm(lambda x: (x.astype(jnp.float32) / 0.0, jnp.int32(-2.7) + x, x.astype(U) // U(3), jnp.abs(x - 4), jnp.maximum(x - 4, 0)), jnp.arange(8))))
