from r14_common import *
x = jnp.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, -0.0, 8388609.0, 1e-40, -1e-40, 3e38], jnp.float32)
print(A(jnp.round(x)))
print(A(jnp.floor(x)), A(jnp.ceil(x)))
print(A(jnp.sign(x)), A(jnp.abs(x)))
print(A(jnp.round(x).astype(jnp.int32)), A(jnp.floor(-x).astype(jnp.int32)))
print(A(x // 1.0), A(x % 1.0), A(-x % 0.75))
