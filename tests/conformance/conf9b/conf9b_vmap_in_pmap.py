import os; os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=32"  # an 8 x 4 mesh for ppermute
from conf9b_common import *
# jax.pmap + jax.vmap(axis_name='b') where JAX 0.10 supports the collective; ppermute over
# (i, b) fails there ("sources and destinations must be unique", docs/language.md), so it
# runs on an 8 x 4 mesh of 32 host devices.
x = (jnp.arange(64.0) * 0.37 % 5.0).reshape(8, 4, 2)
pv = lambda f, *a: jax.pmap(jax.vmap(f, axis_name='b'), axis_name='i', devices=jax.devices()[:8])(*a)
def body(e):
    return (e / lax.psum(e, 'i'), e - lax.pmean(e, 'b'), e / lax.psum(e, ('i', 'b')),
            lax.pmax(e[0], ('b', 'i')), lax.axis_index(('i', 'b')))
out = pv(body, x)
sh = nest(lambda e: lax.ppermute(e, ('i', 'b'), [(k, (k + 3) % 32) for k in range(32)]), x, shape=(8, 4), names=('i', 'b'))
print(A(out[0][2]))
print(A(out[1][5]))
print(A(out[2][7]))
print(A(out[3][0]))
print(sh[0])
print(A(out[4]))
# all_gather over (i, b) fails under pmap + vmap too ("axis size doesn't match"): the mesh
g = nest(lambda e: lax.all_gather(e[1], ('i', 'b'))[lax.axis_index('b') * 8 + lax.axis_index('i')], x, shape=(8, 4), names=('i', 'b'))
print(A(g))
