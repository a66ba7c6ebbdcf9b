import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax, jax.numpy as jnp, numpy as np
A = np.asarray
x = jax.random.uniform(jax.random.key(33), [8, 10], minval=0.5, maxval=1.5)
def body(row):
    def step(k, c):
        mx, mn, cs, cp, s, p = c
        mx = jnp.maximum(mx, row[k]); mn = jnp.minimum(mn, row[k])
        s = s + row[k]; p = p * row[k]
        return mx, mn, cs.at[k].set(s), cp.at[k].set(p), s, p
    mx, mn, cs, cp, s, p = jax.lax.fori_loop(0, 10, step, (row[0], row[0], jnp.zeros(10), jnp.ones(10), jnp.float32(0.0), jnp.float32(1.0)))
    tot = jax.lax.all_gather(s, 'i')
    off = jnp.sum(jnp.where(jnp.arange(8) < jax.lax.axis_index('i'), tot, 0.0))
    return mx, mn, cs, cp, cs + off
r = jax.pmap(body, axis_name='i')(x)
print(A(r[0]), A(r[1]))
print(A(r[2][:2]))
print(A(r[3][:2]))
print(A(r[4][:, 9]))
print(A(jnp.argmax(r[2][:, 9])), A(jnp.argmin(r[3][:, 9])))
