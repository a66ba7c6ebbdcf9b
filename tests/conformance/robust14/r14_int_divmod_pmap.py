from r14_common import *
a = jnp.array([-7, 7, -7, 7, -8, 0, -2147483648, 2147483647, -1, 5, -9, 9, 13, -13, 1, -1], jnp.int32).reshape(8, 2)
b = jnp.array([2, 2, -2, -2, 3, 5, -1, -1, 3, 0, 4, -4, 0, 0, -1, -1], jnp.int32).reshape(8, 2)
r = pm(lambda x, y: (x // y, x % y, x // -3, lax.psum(x % 4, 'i')), a, b)
print(A(r[0]), A(r[1]), A(r[2]), A(r[3]))
print(A(jax.vmap(lambda x, y: x // y + x % y)(a, b)))
