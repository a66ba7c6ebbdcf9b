import jax, jax.numpy as jnp, numpy as np
A = np.asarray
xs = jax.random.uniform(jax.random.key(7), (128,), minval=-3.0, maxval=3.0).reshape(8, 16)
ys = jax.random.uniform(jax.random.key(8), (128,), minval=-3.0, maxval=3.0).reshape(8, 16)
pm = jax.pmap
print(A(pm(lambda x, y: (x * 1.7) * 2.4)(xs, ys)))
print(A(pm(lambda x, y: (x + 1.7) - 2.4)(xs, ys)))
print(A(pm(lambda x, y: 2.4 + (1.7 - x))(xs, ys)))
print(A(pm(lambda x, y: ((x - 0.3) + 1.1) - 2.9)(xs, ys)))
print(A(pm(lambda x, y: (x / 3.0) * 1.3)(xs, ys)))
print(A(pm(lambda x, y: 1.7 * (x * 0.4) + y)(xs, ys)))
print(A(pm(lambda x, y: (x * y + 1.2) + 0.7)(xs, ys)))
print(A(pm(lambda x, y: (1.7 - x * y) - 0.6)(xs, ys)))
print(A(pm(lambda x, y: (x + 1.5) - 1.5)(xs, ys)))
print(A(pm(lambda x, y: 1.7 - (x - 2.4))(xs, ys)))
print(A(pm(lambda x, y: (x * 1.7 + 2.4) * 1.3)(xs, ys)))
print(A((xs * 1.7) * 2.4), A((xs + 1.7) - 2.4))
