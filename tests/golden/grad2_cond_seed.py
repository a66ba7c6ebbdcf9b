# JAX twin of grad2_cond_seed.spmd: the `if` is Python's (spmdrun's model, Note
# [Cotangents into a cond]); `python3 grad2_cond_seed.py cond` runs lax.cond instead, whose
# compiled branches differ in last digits (tests/conformance/conf18/README.md).
import sys, os
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax, jax.numpy as jnp, numpy as np
from jax import random as jr
def T(t):
    if isinstance(t, tuple): return "(" + ", ".join(T(e) for e in t) + ("," if len(t) == 1 else "") + ")"
    return str(np.asarray(t))
def P(*a): print(*[T(x) for x in a])
COND = len(sys.argv) > 1
def IF(c, t, e, *ops):
    if COND: return jax.lax.cond(c, t, e, *ops)
    return t(*ops) if c else e(*ops)
u = jr.uniform(jr.key(11), (7,), minval=0.5, maxval=1.5)
def f(v): return IF(jnp.sum(v) > 3.0, lambda v: jnp.sum(jnp.sin(v) * v) * v[0], lambda v: jnp.sum(v), v)
P(jax.grad(lambda v: jnp.sum(jax.grad(f)(v)))(u))
P(jax.grad(lambda v: jnp.sum(jax.grad(f)(v)))(u * 0.3))
def g(v):
    a = jnp.sum(v * v)
    b = IF(a > 1.0, lambda v, a: jnp.sum(jnp.cos(v) * v) * a, lambda v, a: a * 2.0, v, a)
    return b * v[1] + a
P(jax.grad(lambda v: jnp.sum(jax.grad(g)(v)))(u))
P(jax.grad(lambda v: jnp.sum(jax.grad(g)(v)))(u * 0.1))
w = jr.normal(jr.key(3), (7,))
P(jax.grad(lambda v: jnp.sum(jax.grad(f)(v) * w))(u))
def h(x, y): return IF(x > y, lambda x, y: jnp.sin(x) * y * x, lambda x, y: jnp.cos(y) * x, x, y)
P(jax.grad(lambda x, y: jax.grad(h)(x, y), argnums=(0, 1))(1.3, 0.7))
P(jax.grad(lambda x, y: jax.grad(h, argnums=1)(x, y), argnums=(0, 1))(0.3, 0.7))
val, gr = jax.value_and_grad(lambda v: jnp.sum(jax.grad(g)(v) * w))(u)
P(val, gr)
def f13(v):
    a = v + jnp.zeros(6)
    b = IF(jnp.sum(a) > 0.0, lambda v, a: a - v * a * (0.46 - a), lambda v, a: v * jnp.exp(v), v, a)
    return jnp.sum(jnp.cos(v) * (0.27 + b))
def f21(v):
    a = jnp.sin(v) * (v * 1.15) + jnp.zeros(6)
    b = IF(jnp.sum(a) > 100.0, lambda v, a: jnp.sin(v + a) * v, lambda v, a: a + jnp.zeros(6), v, a)
    return jnp.sum((b - v) * b)
z = jr.uniform(jr.key(5), (6,), minval=0.2, maxval=1.2)
P(jax.grad(f13)(z))
P(jax.grad(lambda v: jnp.sum(jax.grad(f13)(v)))(z))
P(jax.grad(f21)(z))
P(jax.grad(lambda v: jnp.sum(jax.grad(f21)(v)))(z))
