import jax, jax.numpy as jnp, numpy as np
A = np.asarray
a = jnp.array([2.0, 10.0, 0.25, 1e6, 1e-6], jnp.float32)
x = a
for k in range(8): x = 0.5 * (x + a / x)
print(A(x), A(x - jnp.sqrt(a)), A(x * x - a))
def cubic(t): return t * t * t - 2.0 * t - 5.0
def dcubic(t): return 3.0 * t * t - 2.0
r = jnp.float32(2.0)
for k in range(6): r = r - cubic(r) / dcubic(r)
print(A(r), A(cubic(r)))
c = jnp.array([0.0, 0.5, 1.0], jnp.float32)
for k in range(50): c = jnp.cos(c)
print(A(c), A(c - jnp.cos(c)))
coef = jnp.array([1.0, -3.0, 0.5, 2.0])
t = jnp.linspace(-1.0, 1.0, 5)
p = jnp.zeros([5])
for k in range(4): p = p * t + coef[k]
print(A(p), A(((t - 3.0) * t + 0.5) * t + 2.0 + t * t * t * 0.0))
g = jnp.int32(27)
steps = 0
for k in range(200):
    if g != 1:
        g = jnp.where(g % 2 == 0, g // 2, 3 * g + 1); steps = steps + 1
print(A(g), A(steps))
