from r14_common import *
f = lambda v: jnp.array(v, jnp.float32)
s = f([1e-45, 1e-44, 1.4e-45, 1.1754942e-38, 1.17549435e-38])
print(A(s))
print(A(s * 1.0), A(f([1e-45, 1.0])), A(f([1e-40, 3e38])))
print(A(jnp.float32(1e-45)), A(-jnp.float32(1e-45)), A(f([0.0, 1e-45, -1e-45])))
print(A(f([1e-39, 2e-39, 5e-39]) * 2.0))
print(A(s.reshape(5, 1)))
