import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax, jax.numpy as jnp, numpy as np
A = np.asarray
x = jax.random.uniform(jax.random.key(9), [8], minval=-5.0, maxval=5.0)
def body(v):
    i = jax.lax.axis_index('i')
    a = v
    for kk in range(1, 4):
        for jj in range(kk):
            k = 2 ** kk
            j = 2 ** (kk - 1 - jj)
            other = jax.lax.ppermute(a, 'i', [(p, p ^ j) for p in range(8)])
            up = (i // k) % 2 == 0
            low = (i // j) % 2 == 0
            a = jnp.where(up == low, jnp.minimum(a, other), jnp.maximum(a, other))
    return a
s = jax.pmap(body, axis_name='i')(x)
print(A(x))
print(A(s))
print(A(jnp.all(s[1:] >= s[:-1])))
