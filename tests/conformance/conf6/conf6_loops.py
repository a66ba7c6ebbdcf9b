import jax, jax.numpy as jnp, numpy as np
A = np.asarray; a_ = jnp.array
def step(state):
    x, v = state
    return (x + 0.5 * v, v * 0.5 - 0.25 * x)
st = (a_([1.0, 0.0]), a_([0.0, 1.0]))
for t in range(6): st = step(st)
print("(%s, %s)" % (A(st[0]), A(st[1])))
acc = jnp.zeros(3)
for t in range(10):
    acc = acc + float(t) if t % 3 == 0 else acc * 0.5
print(A(acc))
x = jnp.float32(100.0); n = jnp.int32(0)
for t in range(20):
    if x > 1.0: x = x / 3.0; n = n + 1
print(A(x), A(n))
y = acc * 2.0 if jnp.sum(acc) > 5.0 else -acc
print(A(y))
print(A((jnp.eye(2) * 2.0) @ a_([1.5, -2.0])))
t2 = jax.tree_util.tree_map(lambda a, b: a * b + 1.0, (jnp.ones(2), (jnp.float32(2.0), a_([3.0, 4.0]))), (a_([5.0, 6.0]), (jnp.float32(7.0), a_([8.0, 9.0]))))
print("(%s, (%s, %s))" % (A(t2[0]), A(t2[1][0]), A(t2[1][1])))
p, (q, r) = t2
print(A(p + r), A(q))
total = 0
for i in range(4):
    for j in range(i, 4): total = total + i * j
print(total)
k = jax.random.key(0); draws = jnp.zeros(4)
for t in range(4):
    ks = jax.random.split(k, 2); k = ks[0]
    draws = draws.at[t].set(jax.random.uniform(ks[1], ()))
print(A(draws))
