import jax, jax.numpy as jnp, numpy as np
A = np.asarray
k = jax.random.key
xs = jax.random.uniform(k(9), (8 * 25,), minval=-4.0, maxval=4.0).reshape(8, 25)
ys = jax.random.uniform(k(10), (8 * 25,), minval=-4.0, maxval=4.0).reshape(8, 25)
us = jax.random.uniform(k(11), (8 * 240,), minval=-4.0, maxval=4.0).reshape(8, 20, 12)
vs = jax.random.uniform(k(12), (8 * 240,), minval=-4.0, maxval=4.0).reshape(8, 20, 12)
pm = jax.pmap
for f in [lambda x, y: jnp.sum(x * y), lambda x, y: jnp.sum(x[:6] * y[:6]),
          lambda x, y: jnp.mean((x - y) ** 2), lambda x, y: jnp.mean((x[:5] - y[:5]) ** 2),
          lambda x, y: jnp.sum(x * 1.7)]:
    for v in A(pm(f)(xs, ys)): print(v)
print(A(pm(lambda u, v: jnp.sum(u * v, axis=0))(us, vs)))
print(A(pm(lambda u, v: jnp.mean((u - v) ** 2, axis=0))(us, vs)))
# windowed (a side over 32): XLA computes the product apart, no fused multiply-add
print(A(pm(lambda u, v: jnp.sum(jnp.concatenate([u[0], v[0]]) * 1.3))(us, vs)))
# x ** 2 is XLA's multiply(x, x): contracted into an add like any multiply
print(A(pm(lambda x, y: (x - y) ** 2 + 1.3)(xs, ys)))
print(A(pm(lambda x, y: 0.7 - (x - y) ** 2)(xs, ys)))
