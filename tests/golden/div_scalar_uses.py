# JAX twin of div_scalar_uses.spmd (JAX 0.10.2, CPU, 8 host devices).
import os
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax, jax.numpy as jnp, numpy as np
from jax import lax
x = jnp.reshape(jnp.sin(jnp.arange(48.0) * 1.7) * 30.0, (8, 6))
def run(f, xs=x):
    r = jax.pmap(f, axis_name='i')(xs)
    print(*[np.asarray(v)[3] for v in (r if isinstance(r, tuple) else (r,))])
e = lambda z: jnp.exp(z - lax.pmax(jnp.max(z), 'i'))
S = lambda z: lax.psum(jnp.sum(e(z)), 'i')
run(lambda z: e(z) / S(z))
run(lambda z: (lambda s: (e(z) / s, jnp.log(s)))(S(z)))
run(lambda z: (lambda s: (e(z) / s, jnp.cos(z) / s))(S(z)))
run(lambda z: (lambda s: (e(z) / s, jnp.cos(z[:3]) / s))(S(z)))
run(lambda z: (lambda s: (e(z) / s, s * 2.0))(S(z)))
run(lambda z: (lambda s: (e(z).reshape(2, 3) / s.reshape(2, 1), s))(jnp.sum(e(z).reshape(2, 3), axis=1)))
run(lambda z: (lambda s: (e(z).reshape(2, 3) / s.reshape(2, 1)))(jnp.sum(e(z).reshape(2, 3), axis=1)))
x2 = x + 31.0
run(lambda z: (lambda v: (z.reshape(2, 3) / v, v))(jnp.exp(z[:3]) * 0.37), x2)
run(lambda z: (lambda v: (z.reshape(2, 3) / v))(jnp.exp(z[:3]) * 0.37), x2)
run(lambda z: (lambda m: (z.reshape(2, 3) / m, m))(jnp.exp(jnp.mean(z.reshape(2, 3), axis=1, keepdims=True))), x2)
run(lambda z: (lambda m: (z.reshape(2, 3) / m))(jnp.exp(jnp.mean(z.reshape(2, 3), axis=1, keepdims=True))), x2)
