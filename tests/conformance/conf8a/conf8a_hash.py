import jax, jax.numpy as jnp, numpy as np
A = np.asarray; a_ = jnp.array; u32 = jnp.uint32
seeds = (jnp.arange(8) * 7919 + 1).astype(u32)
def lcg(s): return s * u32(1664525) + u32(1013904223)
def mix(h):
    a = h ^ (h // u32(65536))
    b = a * u32(2246822507)
    c = b ^ (b // u32(8192))
    return c * u32(3266489909)
s = seeds
for t in range(3): s = lcg(s)
print(A(s))
print(A(mix(s)), A(mix(s) % 10), A(mix(s) // u32(1000000000)))
h = mix(seeds)
print(A(h & u32(255)), A(h | u32(1)), A((h ^ s) % u32(97)), A(jnp.max(h)), A(jnp.argmin(h)))
r = h.astype(jnp.float32) / 4294967296.0
print(A(r), A(jnp.mean(r) > 0.3), A(r < 0.5))
i = h.astype(jnp.int32)
print(A(i), A(i // 1000003), A(i % 1000003), A(i // -7), A(i % -7), A(-i // 7))
print(A(i * 3), A(i + 2147483647), A(jnp.abs(i) < 0), A(i - (h // u32(2)).astype(jnp.int32)))
k = jnp.arange(-6, 6)
print(A(k // 4), A(k % 4), A(k // -4), A(k % -4), A(k & 5), A(k | -8), A(k ^ -1), A(~k == -k - 1))
print(A(jnp.sum((h % u32(2) == u32(1)).astype(jnp.int32))), A(jnp.prod(k[7:] + 2)), A(jnp.sum(k[6:].astype(u32) * u32(1000000000))))
print(A(k * u32(3)), A(k.astype(u32) // 3), A(k + True), A(a_([2147483647]) + 1), A(a_([0], u32) - 1))
