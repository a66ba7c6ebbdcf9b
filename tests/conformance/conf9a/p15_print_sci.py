import jax, jax.numpy as jnp, numpy as np
A = np.asarray
f = lambda v: jnp.array(v, jnp.float32)
print(A(f([1e-5, 1.0])), A(f([1e-4, 1.0])), A(f([1.0, 1e8])), A(f([1.0, 99999999.0])))
print(A(f([1e16, 1.0])), A(f([0.001, 1000.0])), A(f([0.0001, 1000.0])), A(f([0.0, 1e-8])))
print(A(f([-0.0, 0.0, 1.5])), A(-jnp.zeros([3])), A(f([-0.0]) * 1.0), A(-0.0 * jnp.ones([2])))
s = f([1.0, -1.0, 0.0]) / 0.0
print(A(s), A(f([1.0, 2.0]) * s[:2]), A(jnp.concatenate([s, f([1e-10])])), A(jnp.concatenate([s, f([123456789.0])])))
print(A(f([1.0, 2.0]) / 3.0), A(f([100.0, 2.0]) / 3.0), A(f([1e-3, 2.5e-3])), A(f([3.4028235e38, 1e-38])))
print(A(f([1.17549435e-38, 1.4e-45])), A(f([5e-324 + 0.0])), A(f([0.1, 0.25, 1e10])))
print(A(jnp.float32(3.0)), A(jnp.float32(-0.0)), A(jnp.float32(1e-7)), A(jnp.float32(1e16)), A(jnp.float32(123456789.0)), A(jnp.float32(0.1) + jnp.float32(0.2)))
print(A(f([1.0, 0.5, 0.25, 0.125]) * 1e-6), A(f([123.456, -7.0])), A(f([1e5, 1e-5]) * -1.0))
