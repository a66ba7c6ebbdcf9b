from r14_common import *
u = jnp.array([1, 4294967295, 7], jnp.uint32)
i = jnp.array([-1, 2, -2147483648], jnp.int32)
print(A(u + i), A(u * i), A(i - u))
print(A(jnp.array([True, False, True]) + i), A(u + True))
print(A(u * 2), A(i * 2.5), A(u / jnp.uint32(2)), A(i / 2))
print(A(u + 1.5), A(u.astype(jnp.float32) + i.astype(jnp.float32)))
