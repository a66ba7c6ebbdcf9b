from r14_common import *
x = jnp.array([1e10, -1e10, 0.5, -0.5, 2147483648.0, -2147483648.0, 4294967296.0, -3.7, 1e-30, 99.99, 123456.9, -123456.9, 3e38, -3e38, 16777217.0, 7.0], jnp.float32).reshape(8, 2)
z = jnp.zeros([8, 2])
def body(v, w):
    n = w / w
    i32 = lambda t: t.astype(jnp.int32)
    u32 = lambda t: t.astype(jnp.uint32)
    return i32(v), u32(v), i32(v * n), u32(1.0 / w), lax.psum(i32(v) // 1000, 'i')
r = pm(body, x, z)
print(A(r[0]), A(r[1]), A(r[2]), A(r[3]), A(r[4]))
print(T(jax.vmap(lambda v: (v.astype(jnp.int32), v.astype(jnp.uint32)))(x)))
