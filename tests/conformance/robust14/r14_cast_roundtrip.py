from r14_common import *
i = jnp.array([16777217, 16777219, -16777217, 2147483647, -2147483648, 33554435, 123456789], jnp.int32)
F, I, U = jnp.float32, jnp.int32, jnp.uint32
print(A(i.astype(F)), A(i.astype(F).astype(I)), A(i.astype(F).astype(I) - i))
u = jnp.array([16777217, 4294967295, 4294967040, 2147483649], U)
print(A(u.astype(F)), A(u.astype(F).astype(U)), A(u.astype(F).astype(I)))
print(A(jnp.array([0, -1, 2], I).astype(bool)), A(jnp.array([0, 1], U).astype(bool)), A((-jnp.zeros([2])).astype(I)), A((-jnp.zeros([2])).astype(U)), A((-jnp.zeros([2])).astype(I).astype(F)))
print(A(jnp.array([-0.5, -1.0, -2147483648.0, 4294967295.0], F).astype(U)))
