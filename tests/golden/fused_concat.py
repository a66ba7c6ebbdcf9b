import os
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax, jax.numpy as jnp, numpy as np
from jax import lax
n = jax.device_count()
x = jnp.arange(40.0)
right = [(j, (j + 1) % n) for j in range(n)]
left = [((j + 1) % n, j) for j in range(n)]
def heat(s):
    c = jnp.concatenate([lax.ppermute(s[-1:], 'i', right), s, lax.ppermute(s[:1], 'i', left)])
    return c[1:-1] + 0.25 * (c[:-2] - 2.0 * c[1:-1] + c[2:])
print(np.asarray(jax.pmap(heat, axis_name='i')((x * x).reshape(n, -1))))
def wide(s):
    c = jnp.concatenate([lax.ppermute(s[-2:], 'i', right), s, lax.ppermute(s[:2], 'i', left)])
    return c[::2][:3] * 10.0 + c[::-1][2:5] - c[4:7]
print(np.asarray(jax.pmap(wide, axis_name='i')(x.reshape(n, -1))))
y = jnp.arange(24).reshape(4, 6)
z = jnp.concatenate([y[:, 3:], jnp.zeros([4, 1], jnp.int32), y[:, :3]], axis=1)
print(np.asarray(z[:, 1:] * 2 - z[:, :-1]))
print(np.asarray(jnp.transpose(z, [1, 0])[2:5] + 1))
w = jnp.concatenate([jnp.arange(3), jnp.zeros([0], jnp.int32), jnp.arange(5) * 7, jnp.arange(2) - 9], 0)
print(np.asarray(w[1:] - w[:-1]), np.asarray(w))
def vf(r):
    c = jnp.concatenate([r[-1:], r, r[:1]])
    return c[:-2] * c[2:] + c[1:-1]
print(np.asarray(jax.vmap(vf)(jnp.arange(12.0).reshape(3, 4))))
b = jnp.zeros([64], bool).at[32].set(True).reshape(n, -1)
def st(s):
    c = jnp.concatenate([lax.ppermute(s[-1:], 'i', right), s, lax.ppermute(s[:1], 'i', left)])
    return c[:-2] ^ (c[1:-1] | c[2:])
f = jax.pmap(st, axis_name='i')
for t in range(20):
    b = f(b)
print(np.asarray(b.astype(jnp.int32).reshape(-1)))
