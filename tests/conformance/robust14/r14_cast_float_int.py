from r14_common import *
z = jnp.zeros([1])
nan = (z / z)[0]
inf = (1.0 / z)[0]
f = jnp.stack([nan, inf, -inf] + [jnp.float32(v) for v in [3e9, -3e9, 2147483520.0, 2147483648.0, -2147483904.0, 2.5, -2.5, -0.7, 4294967040.0, 5e9, -1.0, -0.0, 1e-45]])
print(A(f.astype(jnp.int32)))
print(A(f.astype(jnp.uint32)))
print(A(f.astype(jnp.bool_)))
print(A(f.astype(jnp.int32).astype(jnp.float32)), A(jnp.array([4294967295, 16777217, 0], jnp.uint32).astype(jnp.float32)))
print(A(jnp.array([4294967295, 2147483648, 7], jnp.uint32).astype(jnp.int32)), A(jnp.array([-1, -2147483648, 7], jnp.int32).astype(jnp.uint32)))
print(A(jnp.array([True, False]).astype(jnp.int32)), A(jnp.array([True, False]).astype(jnp.float32) * -1.0))
