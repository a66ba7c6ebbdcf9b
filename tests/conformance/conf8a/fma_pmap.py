import jax, jax.numpy as jnp, numpy as np
A = np.asarray; pm = lambda f: jax.pmap(f, axis_name='i')
xs = jax.random.uniform(jax.random.key(3), (24,), minval=-3.0, maxval=3.0).reshape(8, 3)
ys = jax.random.uniform(jax.random.key(4), (24,), minval=-3.0, maxval=3.0).reshape(8, 3)
w = jnp.float32(1.3034097)
T = lambda t: "(" + ", ".join(str(A(v)) for v in t) + ")"
print(A(xs * w + 0.7), A(pm(lambda x: x * w + 0.7)(xs)))
print(T(pm(lambda x, y: (0.4 - x * y, x * y - 0.4, 0.4 + x * y))(xs, ys)))
print(T(pm(lambda x, y: (-(x * y) + 0.4, (-(x * x)) - y * 1.7, 0.4 - (-(x * y))))(xs, ys)))
print(T(pm(lambda x, y: (x * x + y * 1.7, x * 1.7 - y * y, x * y * 0.9 + y))(xs, ys)))
def f(x, y):
    m = x * y
    return (m + 0.4, m)
print(T(pm(f)(xs, ys)))
print(T(pm(lambda x, y: (jnp.max(x * w + 0.7 - y), jnp.min(x * y - 0.4), jnp.max(x * y + 1.1)))(xs, ys)))
def loss(p, x, y): return (x[0] * p + 0.25 - y[0]) ** 2 * 0.5 + x[1] * p
print(A(pm(lambda x, y: jax.lax.pmean(jax.grad(loss)(jnp.float32(0.3), x, y), 'i'))(xs, ys)))
