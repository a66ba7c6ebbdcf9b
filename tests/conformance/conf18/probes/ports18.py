from common import *
from jax import lax
ks = jr.split(jr.key(7), 3)
xs = jr.normal(ks[0], [4, 16, 3])
wtrue = jnp.array([1.5, -2.0, 0.5])
ys = xs @ wtrue + 0.3 + 0.05 * jr.normal(ks[1], [4, 16])
def loss(p, x, y):
    w, b = p
    return jnp.mean((x @ w + b - y) ** 2)
p = (jnp.zeros([3]), jnp.float32(0.0))
for step in range(60):
    def body(x, y):
        l, g = jax.value_and_grad(loss)(p, x, y)
        g = jax.tree.map(lambda t: lax.pmean(t, 'i'), g)
        return lax.pmean(l, 'i'), jax.tree.map(lambda a, d: a - 0.1 * d, p, g)
    l, newp = jax.pmap(body, axis_name='i')(xs, ys)
    p = jax.tree.map(lambda t: t[0], newp)
    if step % 20 == 0: print("step", step, "loss", T(l[0]))
P(p)
n = 5
right = [(j, (j + 1) % n) for j in range(n)]
left = [((j + 1) % n, j) for j in range(n)]
u = jnp.zeros([20]).at[9].set(1.0).reshape(n, -1)
def heat(s):
    lh = lax.ppermute(s[-1:], 'i', right)
    rh = lax.ppermute(s[:1], 'i', left)
    e = jnp.concatenate([lh, s, rh])
    return s + 0.25 * (e[:-2] - 2.0 * s + e[2:])
for t in range(10): u = jax.pmap(heat, axis_name='i')(u)
P(u, jnp.sum(u))
pk = jr.split(jr.key(3), 8)
def mc(k):
    pts = jr.uniform(k, [1000, 2])
    return lax.psum(jnp.sum((jnp.sum(pts * pts, axis=1) <= 1.0).astype(jnp.float32)), 'i')
hits = jax.pmap(mc, axis_name='i')(pk)
P(hits[0], 4.0 * hits[0] / 8000.0)
pts = jr.normal(jr.key(11), [30, 2])
cent = pts[:3]
for it in range(5):
    assign = jax.vmap(lambda q: jnp.argmin(jnp.sum((cent - q) ** 2, axis=1)))(pts)
    oh = jax.nn.one_hot(assign, 3)
    cent = (oh.T @ pts) / jnp.maximum(jnp.sum(oh, axis=0), 1.0)[:, None]
P(cent)
wc = jr.normal(jr.key(12), [4, 3]) * 0.5
xc = jr.normal(jr.key(13), [10, 4])
probs = jax.vmap(lambda q: jnp.exp(q @ wc - jax.nn.logsumexp(q @ wc)))(xc)
P(probs, jnp.argmax(probs, axis=1), jnp.sum(probs, axis=1))
