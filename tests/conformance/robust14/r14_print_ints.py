from r14_common import *
print(A(jnp.array([-2147483648, 0, 1, -1, 2147483647, 10], jnp.int32).reshape(2, 3)))
print(A(jnp.array([4294967295, 0, 3, 12], jnp.uint32).reshape(2, 2)), A((jnp.arange(12) - 6).reshape(2, 3, 2)))
print(A((jnp.arange(9) % 2 == 0).reshape(3, 3)), A(jnp.arange(4).reshape(4, 1)), A(jnp.arange(4).reshape(1, 4)))
print(A(jnp.arange(30) * 100000), A(-jnp.arange(26)))
