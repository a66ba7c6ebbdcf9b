import jax, jax.numpy as jnp, numpy as np
A = np.asarray; a_ = jnp.array
st = (a_([1.0, 0.0]), 2.0)
for t in range(5): st = (st[0] * 0.5 + st[1], st[1] - 0.25)
print("(%s, %s)" % (A(st[0]), A(st[1])))
sc = (0.0, a_([1, 2, 3]))
for t in range(3): sc = (sc[0] + jnp.sum(sc[1]).astype(jnp.float32), sc[1] * 2)
print("(%s, %s)" % (A(sc[0]), A(sc[1])))
def model(p, x):
    w, (b, s) = p
    return jnp.tanh(x * w + b) * s
params = (a_([0.5, -0.25, 1.0]), (0.1, 2.0))
xs = jnp.linspace(-1.0, 1.0, 3)
def loss(p): return jnp.sum((model(p, xs) - a_([0.2, 0.0, -0.3])) ** 2)
p = params
hist = jnp.zeros(4)
for t in range(4):
    l, g = jax.value_and_grad(loss)(p)
    hist = hist.at[t].set(l)
    p = jax.tree_util.tree_map(lambda a, d: a - 0.1 * d, p, g)
print(A(hist))
print("(%s, (%s, %s))" % (A(p[0]), A(p[1][0]), A(p[1][1])))
l2, (g0, g1) = jax.value_and_grad(lambda w, b: jnp.sum(jax.nn.relu(w * xs - b)), argnums=(0, 1))(1.5, 0.25)
print(A(l2), A(g0), A(g1))
tm = jax.tree_util.tree_map(lambda a, b, c: a * b + c, (jnp.ones(2), (2, a_([3.0, 4.0]))), (3.0, (5, a_([1.0, 2.0]))), (1.0, (1, 0.5)))
print("(%s, (%s, %s))" % (A(tm[0]), tm[1][0], A(tm[1][1])))
q, (r0, r1) = tm
print(A(q + r1), r0 * 2)
t2 = jax.tree_util.tree_map(lambda a: jnp.int32(a) % 3 if not isinstance(a, jax.Array) else a.astype(jnp.int32) % 3, (a_([4, 5]), (7.9, -1)))
print("(%s, (%s, %s))" % (A(t2[0]), A(t2[1][0]), A(t2[1][1])))
