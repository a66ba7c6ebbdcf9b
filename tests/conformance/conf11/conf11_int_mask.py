import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax, jax.numpy as jnp, numpy as np
A = np.asarray
v = jax.random.randint(jax.random.key(3), [8, 12], 0, 100)
def body(row):
    even = row % 2 == 0
    big = row > 50
    c = jnp.sum(jnp.where(even & big, 1, 0))
    s = jnp.sum(jnp.where(even, row // 3, -row % 7))
    return jax.lax.psum(c, 'i'), jax.lax.pmax(s, 'i'), s
r = jax.pmap(body, axis_name='i')(v)
print(A(r[0][0]), A(r[1][0]), A(r[2]))
pre = jnp.zeros([12], jnp.int32)
acc = jnp.int32(0)
for k in range(12):
    acc = acc + v[0, k]
    pre = pre.at[k].set(acc)
print(A(pre))
print(A(jnp.any(v == 0)), A(jnp.all(v < 100)), A(jnp.sum(v > 90, axis=1)))
print(A(jnp.where(v[1] > v[2], v[1] - v[2], v[2] - v[1])))
print(A(v[3].astype(jnp.uint32) * jnp.uint32(2654435761) % jnp.uint32(97)))
