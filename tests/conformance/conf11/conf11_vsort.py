import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax, jax.numpy as jnp, numpy as np
A = np.asarray
x = jax.random.randint(jax.random.key(51), [8, 8], -50, 50)
def body(row):
    def step(t, a):
        lo = a[0:7]; hi = a[1:8]
        sw = lo > hi
        even = jnp.arange(7) % 2 == t % 2
        do = sw & even
        nlo = jnp.where(do, hi, lo); nhi = jnp.where(do, lo, hi)
        first = jnp.concatenate([nlo[0:1], jnp.where(even[1:], nlo[1:], nhi[0:6])])
        return jnp.concatenate([first, nhi[6:7]])
    a = jax.lax.fori_loop(0, 8, step, row)
    al = jax.lax.all_gather(a, 'i')
    rank = jnp.sum((jnp.reshape(al, [64]) < a[0]).astype(jnp.int32))
    return a, rank, jax.lax.pmin(a[0], 'i'), jax.lax.pmax(a[7], 'i')
r = jax.pmap(body, axis_name='i')(x)
print(A(r[0]))
print(A(r[1]), A(r[2][0]), A(r[3][0]))
print(A(jnp.all(r[0][:, 1:] >= r[0][:, :-1])))
