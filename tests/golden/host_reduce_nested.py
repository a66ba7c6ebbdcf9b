# JAX twin of host_reduce_nested.spmd (JAX 0.10.2, CPU, 8 host devices). JAX 0.10's pmap
# does not nest: the nest is a jitted shard_map over a 4 x 2 mesh, as conf7_nested.py.
from host_twin import *
def nest(f, xs):
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:8]).reshape(4, 2), ("i", "j"))
    g = lambda b: jax.tree.map(lambda y: y[None, None], f(b[0, 0]))
    return jax.jit(jax.shard_map(g, mesh=mesh, in_specs=PS("i", "j"), out_specs=PS("i", "j"), check_vma=False))(xs)
x = jr.normal(jr.key(7), (24,)).reshape(4, 2, 3)
y = nest(lambda v: jnp.exp(v) * 0.5, x)
P(jnp.mean(y), jnp.sum(y), jnp.max(y))
P(jnp.sum(y, axis=0), jnp.sum(y, axis=(0, 1)))
P(jnp.sum(y, axis=1), jnp.mean(y, axis=2))
