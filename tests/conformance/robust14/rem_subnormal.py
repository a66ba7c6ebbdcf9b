import os, sys; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from r14_common import *
x = jnp.array([1e-40, -1e-40, 2.5, -2.5, 1e-45, -3e-39], jnp.float32)
print(A(x % 1.0), A(x % 2.0))
print(A(x % -4.0), A(x % 0.75), A(x % 0.5))
print(T(pm(lambda v: (v % 1.0, v % 8.0), x.reshape(2, 3))))
