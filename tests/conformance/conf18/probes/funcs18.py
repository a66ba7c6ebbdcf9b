from common import *
from jax import lax
scale = 3.0
f = lambda x: x * scale
bias = 1.0
g = lambda x: x + bias
P(jnp.float32(f(2.0)), jnp.float32(g(2.0)))
bias = 5.0
P(jnp.float32(g(2.0)))
def outer(x):
    inner = lambda y: y * y + x
    return inner(x + 1.0) + inner(2.0)
P(jnp.float32(outer(1.5)), jax.grad(outer)(1.5))
def mse(pred, target): return jnp.mean((pred - target) ** 2)
P(mse(jnp.arange(3.0), target=jnp.ones([3])), mse(target=jnp.zeros([2]), pred=jnp.array([1.0, 3.0])))
def split2(x): return (x[0], x[1:])
h, t = split2(jnp.arange(4.0))
P(h, t)
params = (jnp.ones([2, 2]), jnp.zeros([2]))
def apply(p, x):
    w, b = p
    return jnp.tanh(w @ x + b)
gp = jax.grad(lambda p: jnp.sum(apply(p, jnp.array([0.5, -1.0]))))(params)
P(gp)
P(jax.tree.map(lambda p, d: p - 0.1 * d, params, gp))
P(jax.tree.map(lambda a: a * 2.0, (jnp.float32(1.0), (jnp.arange(2.0), jnp.float32(3.0)))))
twice = lambda x: f(f(x))
P(jnp.float32(twice(1.0)), jax.grad(twice)(1.0), jax.grad(jax.grad(lambda x: x * x * x))(2.0))
f = lambda x: x - 1.0
P(jnp.float32(f(10.0)))
def poly(x, c):
    acc = 0.0
    for k in range(c.shape[0]): acc = acc * x + c[k]
    return acc
c = jnp.array([1.0, 0.0, -1.0])
P(poly(jnp.float32(2.0), c), jax.grad(poly)(2.0, c), jax.grad(poly, argnums=1)(2.0, c))
stats = lambda x: (jnp.mean(x), jnp.max(x) - jnp.min(x))
P(jax.vmap(stats)(jnp.arange(6.0).reshape(2, 3)))
P(jax.value_and_grad(lambda x, y: jnp.sum(x * y), argnums=(0, 1))(jnp.arange(3.0), jnp.ones([3])))
P(jax.pmap(lambda v: v / jnp.sqrt(lax.psum(v * v, 'i')), axis_name='i')(jnp.arange(1.0, 5.0)))
