from common import *
x = jnp.float32(0.5)
hist = jnp.zeros([5])
for t in range(5):
    x = x * 0.9 + 0.1 * x * x
    hist = hist.at[t].set(x)
    if t % 2 == 0: print("step", t, T(jnp.float32(x)))
P(jnp.float32(x), hist)
acc = (jnp.zeros([2]), 0)
for t in range(4):
    a, n = acc
    acc = (a + jnp.float32(t), n + t)
P((acc[0], jnp.int32(acc[1])))
m = jnp.eye(3)
for i in range(3):
    for j in range(3):
        if i < j: m = m.at[i, j].set(jnp.float32(i * 10 + j))
P(m)
s = 0
for r in [3, 1, 4, 1, 5]: s = s * 10 + r
P(jnp.int32(s))
v = jnp.arange(8.0)
for t in range(3):
    v = jax.pmap(lambda c: c * 2.0 - jax.lax.psum(c, 'i') * 0.125, axis_name='i')(v.reshape(4, 2)).ravel()
P(v)
best = -1.0
arg = -1
for t in range(6):
    val = jnp.sin(jnp.float32(t) * 1.3)
    if val > best: best = val; arg = t
P(jnp.float32(best), jnp.int32(arg))
w = jnp.full([3], 2.0)
P(w)
y = jnp.float32(1.0)
if y > 0.5:
    y = y * 3.0 + 0.25; out = y * y
else: out = 0.0
P(jnp.float32(y), jnp.float32(out))
i = jnp.int32(0)
fib = (0, 1)
for t in range(20): fib = (fib[1], fib[0] + fib[1])
P((jnp.int32(fib[0]), jnp.int32(fib[1])), i)
z = jnp.uint32(1)
for t in range(40): z = z * jnp.uint32(3) + jnp.uint32(t)
P(z)
q = jnp.ones([2, 2])
for t in range(3): q = q @ jnp.arange(4.0).reshape(2, 2) + 0.5
P(q)
c = jnp.float32(0.0)
for t in range(10): c = c + 0.1
P(c, c == 1.0)
