from common import *
from jax import lax
g = jax.grad
F = lambda v: jnp.array(v, jnp.float32)
x = F([0.5, -1.5, 2.0, 0.0])
S = jnp.sum
fs = [lambda v: S(jnp.exp(v)), lambda v: S(jnp.log(jnp.abs(v) + 1.0)), lambda v: S(jnp.log1p(v * v)), lambda v: S(jnp.sqrt(v * v + 1.0)), lambda v: S(lax.rsqrt(v * v + 1.0)), lambda v: S(jnp.sin(v)), lambda v: S(jnp.cos(v)), lambda v: S(jnp.tan(v)), lambda v: S(jnp.tanh(v)), lambda v: S(jax.nn.sigmoid(v)), lambda v: S(jax.nn.relu(v)), lambda v: S(jnp.abs(v)), lambda v: S(jnp.sign(v)), lambda v: S(jnp.floor(v)), lambda v: S(jnp.ceil(v)), lambda v: S(jnp.round(v))]
for k in range(4): P(*[g(fs[4 * k + j])(x) for j in range(4)])
P(g(lambda v: jnp.max(v))(x), g(lambda v: jnp.min(v))(x), g(lambda v: jnp.prod(v))(x), g(lambda v: jnp.mean(v))(x), g(lambda v: jax.nn.logsumexp(v))(x))
P(g(lambda v: jnp.max(F([1.0, 3.0, 3.0]) * v))(jnp.float32(1.0)), g(lambda v: S(jnp.max(v.reshape(2, 2), axis=1)))(F([1.0, 1.0, 2.0, 1.0])))
P(g(lambda v: S(jnp.maximum(v, 0.0)))(x), g(lambda v: S(jnp.minimum(v, F([0.5, 0.0, 3.0, 0.0]))))(x), g(lambda v: S(jnp.clip(v, -1.0, 0.5)))(x))
P(g(lambda v: S(jnp.where(v > 0.0, v * v, -v)))(x), g(lambda v: S(v ** 3))(x), g(lambda v: S(v ** 0.5))(jnp.abs(x)), g(lambda v: S(2.0 ** v))(x))
P(g(lambda v: S(v / 3.0 - v // 1.0 + v % 2.0))(x), g(lambda v: S(v.astype(jnp.int32).astype(jnp.float32)))(x))
m = jnp.arange(6.0).reshape(2, 3)
P(g(lambda a: S(a @ a.T))(m), g(lambda a: S(a.reshape(3, 2)[1:] * 2.0))(m), g(lambda a: S(jnp.concatenate([a, a * 2.0], axis=1)))(m))
P(g(lambda a: S(jnp.stack([a[0], a[1]]) ** 2))(m), g(lambda a: a[1, 2] + a[-1, 0])(m), g(lambda a: S(jnp.broadcast_to(a[0], [4, 3])))(m), g(lambda a: S(a.at[0, 1].set(0.0)))(m))
P(g(lambda a: S(jnp.expand_dims(jnp.squeeze(a[:1]), 0)) + S(jnp.ravel(a)[::2]))(m), g(lambda a: jnp.dot(a[0], a[1]))(m), g(lambda a: S(jnp.transpose(a, [1, 0])[::-1, 0]))(m))
P(g(lambda a, b: S(a * b), argnums=(0, 1))(x, x + 1.0), g(lambda a, b: S(a * b), argnums=1)(x, 2.0))
P(jax.value_and_grad(lambda a: S(a * a))(x), jax.value_and_grad(lambda a, b: S(a / b), argnums=(1,))(x, F([1.0, 2.0, 4.0, 8.0])))
P(g(lambda t: t[0] * S(t[1]))((jnp.float32(2.0), x)), g(lambda v: S(jax.tree.map(lambda a: a * a, (v, v))[1]))(x))
def loop(v):
    s = v
    for k in range(3): s = s * v + 1.0
    return S(s)
P(g(loop)(x), g(g(lambda v: v * v * v))(jnp.float32(2.0)))
P(g(lambda v: S(jax.vmap(lambda r: r * S(r))(v.reshape(2, 2))))(x))
pm = lambda f: jax.pmap(f, axis_name='i')
P(g(lambda v: S(pm(lambda r: r * lax.psum(r, 'i'))(v.reshape(4, 1))))(x))
P(g(lambda v: S(pm(lambda r: lax.pmean(r * r, 'i') + lax.all_gather(r, 'i')[0])(v.reshape(4, 1))))(x))
P(g(lambda v: S(pm(lambda r: lax.ppermute(r, 'i', [(0, 1), (1, 2)]) * lax.axis_index('i'))(v)))(x))
P(g(lambda v: S(pm(lambda r: lax.psum_scatter(lax.all_gather(r, 'i') * F([[1.0], [2.0], [3.0], [4.0]]), 'i', tiled=True))(v.reshape(4, 1))))(x))
P(g(lambda v: S(jax.pmap(lambda r, v: lax.all_to_all(r * v, 'i', 0, 0) * r, axis_name='i', in_axes=(0, None))(jnp.arange(16.0).reshape(4, 4), v)))(x))
P(g(lambda v: S(jnp.exp(v) / S(jnp.exp(v))) + S(jax.nn.one_hot(jnp.array([1, 3]), 4) * v))(x))
