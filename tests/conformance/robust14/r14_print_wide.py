from r14_common import *
print(A(jnp.arange(1000) - 500))
print(A((jnp.arange(1001) - 500).reshape(7, 143)))
print(A((jnp.arange(2400.0) / 7.0).reshape(4, 6, 100)))
print(A(jnp.arange(3 * 4 * 5 * 20).reshape(3, 4, 5, 20) % 3 == 0))
print(A(jnp.arange(1500).astype(jnp.uint32) * jnp.uint32(2863311531)))
print(A(jnp.arange(1024.0).reshape(1024, 1)))
