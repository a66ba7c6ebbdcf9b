# JAX twin of host_reduce_layouts.spmd (JAX 0.10.2, CPU, 8 host devices); the nest of three
# pmaps is a jitted shard_map over a 2 x 2 x 2 mesh (as conf7_nested's 2-D one).
from host_twin import *
y = sm(lambda v: jnp.exp(v) * 0.5, x, PS("rows", "cols"))
P(jnp.sum(y, axis=0, keepdims=True), jnp.mean(y, axis=-1, keepdims=True))
q = sm(lambda v: v * 2, (x * 10.0).astype(jnp.int32), PS("rows", "cols"))
P(jnp.sum(q), jnp.max(q, axis=0))
w = jax.pmap(lambda k: jr.normal(k, (6,)), out_axes=1)(jr.split(jr.PRNGKey(5), 8))
P(jnp.sum(w), jnp.mean(w, axis=1), jnp.sum(w.T @ jr.normal(jr.PRNGKey(2), (6, 3))))
mesh3 = Mesh(np.array(jax.devices()[:8]).reshape(2, 2, 2), ("i", "j", "k"))
n3 = jax.jit(jax.shard_map(lambda b: jnp.sin(b), mesh=mesh3, in_specs=PS("i", "j", "k"), out_specs=PS("i", "j", "k")))(jnp.arange(16.0).reshape(2, 2, 2, 2))
P(jnp.sum(n3), jnp.sum(n3, axis=(0, 2)))
e = sm(jnp.exp, x, PS(("cols", "rows"), None))
P(jnp.sum(e), jnp.sum(e, axis=1))
bz = jax.pmap(lambda k: jr.normal(k, (2, 3)))(jr.split(jr.PRNGKey(9), 8))
P(jnp.sum(bz @ jr.normal(jr.PRNGKey(1), (3, 3)) @ jr.normal(jr.PRNGKey(2), (3, 2))), jnp.sum(jr.normal(jr.PRNGKey(3), (4, 2)) @ bz))
