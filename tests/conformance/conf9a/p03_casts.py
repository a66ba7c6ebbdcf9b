import jax, jax.numpy as jnp, numpy as np
A = np.asarray
v = [-2.7, -0.5, -0.0, 0.5, 2.7, 1e10, -1e10, 3e9, 4294967296.0]
x = jnp.array(v, jnp.float32)
i32 = jnp.int32; u32 = jnp.uint32; f32 = jnp.float32; b_ = jnp.bool_
print(A(x.astype(i32)), A(x.astype(u32)), A(x.astype(b_)))
s = x / 0.0
print(A(s), A(s.astype(i32)), A(s.astype(u32)), A(s.astype(b_)))
print(A(jnp.log(jnp.array([0.0, -1.0], f32)).astype(i32)), A(jnp.exp(jnp.array([100.0], f32)).astype(u32)))
n = jnp.array([-1, 0, 1, 2147483647, -2147483648], i32)
print(A(n.astype(u32)), A(n.astype(f32)), A(n.astype(b_)), A(n.astype(u32).astype(i32)))
big = jnp.array([4294967295, 2147483648, 16777217], u32)
print(A(big.astype(f32)), A(big.astype(i32)), A(big.astype(f32).astype(i32)))
print(A(jnp.int32(16777217).astype(f32)), A(jnp.float32(16777217)), A(jnp.float32(16777217).astype(i32)))
print(A(jnp.bool_([0.0, -0.0, 1e-45, 0.1])), A(jnp.array([3, 0]).astype(b_).astype(i32)), A(jnp.float32(True)), A(jnp.uint32(False)))
print(A(jnp.int32(2.9)), A(jnp.int32(-2.9)), A(jnp.uint32(3.99)), A(jnp.float32(7)), A(jnp.bool_(0.0)), A(jnp.bool_(-3)))
