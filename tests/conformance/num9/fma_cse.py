import jax, jax.numpy as jnp, numpy as np
A = np.asarray
xs = jax.random.uniform(jax.random.key(5), (128,), minval=-3.0, maxval=3.0).reshape(8, 16)
ys = jax.random.uniform(jax.random.key(6), (128,), minval=-3.0, maxval=3.0).reshape(8, 16)
pm = jax.pmap
print(A(pm(lambda x, y: (x * y + 1.5) * (y * x - 0.5))(xs, ys)))
print(A(pm(lambda x, y: (x * x + y) * (y - x * x))(xs, ys)))
print(A(pm(lambda x, y: (x * y + x) - (x * y) * 0.7)(xs, ys)))
print(A(pm(lambda x, y: ((x + 1.0) * y + 1.5) * ((x + 1.0) * y - 0.5))(xs, ys)))
print(A(pm(lambda x, y: (x * y) * (x * y) + 0.3)(xs, ys)))
# in two outputs (two loops): XLA computes the multiply in each, contracted
print("(" + ", ".join(str(A(v)) for v in pm(lambda x, y: (x * y + 1.5, x * y - 0.5))(xs, ys)) + ")")
