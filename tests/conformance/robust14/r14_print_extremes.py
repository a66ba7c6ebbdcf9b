from r14_common import *
f = lambda v: jnp.array(v, jnp.float32)
print(A(f([3.4028235e38, -3.4028235e38, 1.0])))
print(A(f([1e16, 1.0])), A(f([9999999.0, 0.5])), A(f([1e-4, 1.0])), A(f([0.0001, 1000.0])), A(f([1e-5, 1e5])))
print(A(f([-0.0, 1e20])), A(f([-0.0, 0.001])), A(f([-0.0, 0.0, -0.0])))
z = jnp.zeros([1])
nan = (z / z)[0]
inf = (1.0 / z)[0]
print(A(jnp.stack([nan, 1e10, 1.0])), A(jnp.stack([inf, -inf, 1e-10])), A(jnp.stack([nan, -0.0, 2.5])))
print(A(jnp.float32(3)), A(jnp.int32(-2147483648)), A(jnp.uint32(4294967295)), True, A(-0.0 * jnp.ones([])), A(jnp.zeros([], bool)))
print(A(jnp.stack([1e-8, 123456.0])), A(jnp.stack([0.1, 0.2 + 0.1]) * 1.0), A(f([1.0, 2.0, 3.5e-8])))
print(A((jnp.arange(6.0) * 1e7).reshape(2, 3)), A((jnp.arange(6.0) * 1e-7).reshape(3, 2)))
