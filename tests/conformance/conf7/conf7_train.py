import jax, jax.numpy as jnp, numpy as np
A = np.asarray; lax = jax.lax; R = jax.random
k = R.key(11)
xs = R.uniform(k, (16,), minval=-1.0, maxval=1.0).reshape(4, 4)
ys = xs * 3.0 - 0.5 + R.uniform(R.fold_in(k, 1), (16,)).reshape(4, 4) / 10.0
def loss(p, x, y):
    w, b = p
    return jnp.mean((x * w + b - y) ** 2)
p = (0.0, 0.0)
lr = 0.5
for step in range(12):
    g = jax.pmap(lambda x, y: (lambda gw_gb: (lax.pmean(gw_gb[0], 'i'), lax.pmean(gw_gb[1], 'i')))(jax.grad(loss)(p, x, y)), axis_name='i')(xs, ys)
    p = (p[0] - lr * g[0][0], p[1] - lr * g[1][0])
    if step % 4 == 3: lr = lr / 2.0
print("(%s, %s)" % (A(p[0]), A(p[1])), lr)
l = jax.pmap(lambda x, y: lax.psum(loss(p, x, y), 'i') / 4.0, axis_name='i')(xs, ys)
print(A(l))
s = jnp.float32(100.0); n = jnp.int32(0)
for t in range(8):
    if s > 1.0: s = s / 3.0; n = n + 1
    else: s = s * 7.0
print(A(s), A(n), A(s / 7.0), A(jnp.array([s]) / 7.0), A(jnp.array([s, s]) / 7.0))
h = jax.vmap(lambda x: x[0] / 3.0)(xs)
print(A(h), A(jax.vmap(lambda x: x[0] / 3.0)(xs[:1])), A(jax.pmap(lambda x: x[0] / 3.0)(xs)))
def avg(v): return v / 3.0
print(A(avg(xs[1, 2])), A(avg(xs[1:2, 2])), A(avg(xs[1, 2:4])), A(jnp.mean(xs[1, :3])), A(jnp.sum(xs[1, :3]) / 3.0))
vg = jax.value_and_grad(lambda a: jnp.sum(a / 3.0))(xs[2])
print(A(jax.grad(lambda a: a * a / 3.0)(xs[0, 1])), "(%s, %s)" % (A(vg[0]), A(vg[1])))
print(A(jnp.linspace(0.0, 1.0, 7)), A(jnp.arange(5.0) / 9.0), A(1.0 / jnp.arange(1.0, 4.0)))
