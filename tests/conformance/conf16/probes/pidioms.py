from common import *
from jax import lax
x = jnp.arange(48.0).reshape(8, 6) * 0.13 - 2.0
lab = jnp.array([0, 5, 2, 3, 1, 4, 0, 2])
def body(r, l):
    m = lax.pmax(jnp.max(r), 'i')
    e = jnp.exp(r - m)
    z = lax.psum(jnp.sum(e), 'i')
    lp = r - m - jnp.log(z)
    ce = -lax.pmean(jnp.sum(jax.nn.one_hot(l, 6) * lp), 'i')
    return (e / z, ce, jnp.argmax(r), lax.axis_index('i') * 2 + l)
P(jax.pmap(body, axis_name='i')(x, lab))
def vb(r, l):
    lse = jax.nn.logsumexp(r)
    return (r - lse, -jnp.sum(jax.nn.one_hot(l, 6) * (r - lse)), jnp.argmax(r), jnp.max(r) - jnp.min(r))
P(jax.vmap(vb)(x, lab))
def lnf(r):
    mu = jnp.mean(r); d = r - mu
    return d / jnp.sqrt(jnp.mean(d * d) + 1e-5)
P(jax.vmap(lnf)(x))
def af(q):
    s = q @ q.T / jnp.sqrt(3.0)
    a = jnp.exp(s - jnp.max(s, axis=-1, keepdims=True))
    return a / jnp.sum(a, axis=-1, keepdims=True) @ q
P(jax.vmap(af)(x.reshape(8, 2, 3)))
P(jax.vmap(lambda r: jnp.sum(r * r), in_axes=1)(x), jax.vmap(lambda r: r[0:2], out_axes=1)(x))
