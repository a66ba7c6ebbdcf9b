# JAX twin of tests/golden/grad_prod_value.spmd (run from this folder).
import sys; sys.path.insert(0, 'probes')
from common import *
vg = jax.value_and_grad
g = jax.grad
u = jr.uniform(jr.key(11), [7], minval=0.5, maxval=1.5)
w = jr.uniform(jr.key(12), [4, 6], minval=0.5, maxval=1.5)
P(vg(lambda v: jnp.prod(v) * jnp.sum(v))(u))
P(vg(lambda v: jnp.prod(v) ** 2 + jnp.prod(v[:3]))(u))
P(vg(lambda v: jnp.sum(jnp.prod(v, axis=1) * jnp.prod(v, axis=0)[:4]))(w))
P(vg(lambda v: jnp.sum(jax.vmap(lambda r: jnp.prod(r) * r[0])(v)))(w))
P(vg(lambda v: jnp.sum(jax.pmap(lambda r: jnp.prod(r) * jax.lax.psum(jnp.prod(r), 'i'), axis_name='i')(v)))(w))
def lp(v):
    s = jnp.float32(0.0)
    for k in range(3): s = s + jnp.prod(v * s + 1.0)
    return s
P(vg(lp)(u))
P(vg(jnp.prod)(jnp.float32(3.0)), vg(jnp.prod)(jnp.zeros([0])), vg(lambda v: jnp.sum(jnp.prod(v, axis=1)))(jnp.zeros([2, 0])))
P(g(lambda v: jnp.sum(g(lambda q: jnp.prod(q) * q[0])(v)))(u))
P(g(lambda v: jnp.sum(g(lambda q: jnp.prod(q) ** 2)(v) * v))(u))
P(g(lambda v: jnp.sum(g(lambda q: jnp.sum(jnp.prod(q, axis=0) * jnp.prod(q, axis=1)[0]))(v)))(w))
P(g(lambda v: jnp.sum(g(lambda q: jnp.prod(q) * jnp.sum(q))(v)))(jnp.array([2.0])), g(g(lambda q: jnp.prod(q) * q))(jnp.float32(3.0)))
P(g(lambda v: jnp.sum(jax.vmap(lambda r: g(lambda q: jnp.prod(q) * q[1])(r))(v)))(w))
