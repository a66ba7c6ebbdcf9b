import jax, jax.numpy as jnp, numpy as np
A = np.asarray
u32 = jnp.uint32
s = jnp.array([1, 2463534242, 4294967295, 123456789], u32)
def shl(x, k): return x * u32(2 ** k)
def shr(x, k): return x // u32(2 ** k)
def xorshift(x):
    a = x ^ shl(x, 13)
    b = a ^ shr(a, 17)
    return b ^ shl(b, 5)
h = s
for k in range(4): h = xorshift(h)
print(A(h), A(h % u32(1000)), A(h & u32(65535)), A(~h))
pc = jnp.zeros([4], u32)
v = s
for k in range(32):
    pc = pc + (v & u32(1)); v = shr(v, 1)
print(A(pc), A(pc % u32(2) == u32(1)))
i = jnp.array([-1, -2, 5, -2147483648], jnp.int32)
print(A(i & 255), A(i | 256), A(i ^ -1), A(~i), A(i & jnp.int32(-256)), A(i.astype(u32) // u32(16777216)))
print(A(jnp.array([True, False]) ^ jnp.array([True, True])), A(~jnp.array([True, False])), 12 & 10, 12 | 3, 12 ^ 5, ~5)
