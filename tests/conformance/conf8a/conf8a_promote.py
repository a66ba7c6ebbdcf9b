import jax, jax.numpy as jnp, numpy as np
A = np.asarray; a_ = jnp.array; f32, i32, u32 = jnp.float32, jnp.int32, jnp.uint32
x = a_([0.5, -1.25, 3.0], f32)
k = a_([3, -4, 7], i32)
u = a_([1, 2, 4000000000], u32)
b = a_([True, False, True])
def scale(v, s): return v * s + 1
print(A(scale(x, 2)), A(scale(k, 2)), A(scale(u, 2)), A(scale(b, 2).astype(i32)), A(scale(k, 0.5).astype(f32)), scale(2, 3))
print(A(jnp.where(b, k, 0.5).astype(f32)), A(jnp.where(b, u, 7)), A(jnp.where(b, x, k)), A(jnp.where(k > 0, k, u).astype(i32)), A(jnp.where(b, True, 0).astype(i32)))
print(A(jnp.clip(k, 0, 5)), A(jnp.clip(u, 2, 3)), A(jnp.clip(x, -1, 1)), A(jnp.clip(k, -1.5, 2.5).astype(f32)), A(jnp.clip(b, 0, 1).astype(i32)))
print(A(jnp.maximum(k, u).astype(i32)), A(jnp.minimum(x, k)), A(jnp.maximum(b, k)), A(jnp.maximum(u, 0.5).astype(f32)), A(jnp.minimum(b, b)))
acc = 0
for t in range(3): acc = acc + k[t]
print(A(acc), A(acc * 1.5).astype(f32), A(acc // 2), A(-acc % 5))
fa = f32(0)
for t in range(3): fa = fa + k[t]
print(A(fa), A(fa / 3))
y = k * 2 if jnp.sum(k) > 5 else k - 1
print(A(y), A(x if jnp.sum(x) > 0.0 else -x))
print(A((k / 2).astype(f32)), A((k / k).astype(f32)), A((u / 400000000).astype(f32)), A((b / 2).astype(f32)), A((k // 2.0).astype(f32)), A((u % 3.5).astype(f32)), A((k ** 2.0).astype(f32)), A(b.astype(i32) ** 2))
print(A(k.astype(f32) * 1e10), A((k.astype(f32) * 1e10).astype(i32)), A((k.astype(f32) * 1e9).astype(u32)), A(u.astype(i32)), A(k.astype(u32)), A(k.astype(bool)), A((x - 0.5).astype(bool)))
print(A((jnp.sum(k) / 2).astype(f32)), A(jnp.mean(u).astype(f32)), A(jnp.sum(b) * 1.5).astype(f32), A(jnp.prod(k) * 1.0).astype(f32), A(jnp.max(u) + 1), A(jnp.min(b) + 1))
