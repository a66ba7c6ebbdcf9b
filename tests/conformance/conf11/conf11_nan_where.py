import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax, jax.numpy as jnp, numpy as np
A = np.asarray
x = jax.random.normal(jax.random.key(61), [8, 6]) * 3.0
def body(row):
    safe = jnp.where(row > 0.0, jnp.log(jnp.where(row > 0.0, row, 1.0)), -jnp.inf)
    q = row / jnp.where(jnp.abs(row) < 0.5, 0.0, row)
    bad = jnp.sum((q != q).astype(jnp.int32)) + jnp.sum((jnp.abs(q) == jnp.inf).astype(jnp.int32))
    m = jnp.max(jnp.where(q == q, q, -jnp.inf))
    g = jax.grad(lambda v: jnp.sum(jnp.where(v > 0.0, jnp.sqrt(jnp.where(v > 0.0, v, 1.0)), 0.0)))(row)
    return safe, q, jax.lax.psum(bad, 'i'), m, g
r = jax.pmap(body, axis_name='i')(x)
print(A(r[0][:3]))
print(A(r[1][:3]))
print(A(r[2][0]), A(r[3]))
print(A(r[4][:2]))
print(A(jnp.max(r[0])), A(jnp.min(r[0])), A(jnp.sum(r[3])))
