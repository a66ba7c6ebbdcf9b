import os
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import numpy as np, jax, jax.numpy as jnp
jax.config.update("jax_enable_x64", False)
def fmt(x):
    if isinstance(x, tuple):
        return "(" + ", ".join(fmt(e) for e in x) + ("," if len(x) == 1 else "") + ")"
    if isinstance(x, (bool, int, str)):
        return str(x)
    if hasattr(x, "dtype") and jnp.issubdtype(x.dtype, jax.dtypes.prng_key):
        return str(x)
    return str(np.asarray(jnp.asarray(x)))
def P(*xs):
    print(*[fmt(x) for x in xs])
def pmap2(f, xs, r, c):
    # nested pmaps over axes i (size r) and j (size c): a shard_map over an r x c mesh of
    # devices (JAX 0.10's pmap is built on shard_map and does not nest)
    from jax.sharding import PartitionSpec as PS, NamedSharding
    mesh = jax.make_mesh((r, c), ("i", "j"), devices=jax.devices()[:r * c])
    xs = jax.device_put(xs, NamedSharding(mesh, PS("i", "j")))
    g = lambda b: jax.tree.map(lambda y: y[None, None], f(b[0, 0]))
    return jax.shard_map(g, mesh=mesh, in_specs=PS("i", "j"), out_specs=PS("i", "j"),
                         check_vma=False)(xs)
v0 = jnp.asarray(np.array([-1.0, -0.7282675504684448, -12.393956184387207, 2.0, -0.9569587707519531, -143766749184.0, -4.0, -0.4874204099178314, -1.5390000343322754, 2.4000000953674316, -0.06541583687067032, -1.341187168679676e+21, -0.28279587626457214, -3.0], dtype=np.float32)).reshape((1, 7, 2))
def outer(r):
    return jax.vmap(lambda v: (jax.lax.psum(v, ('rows',)), v * jax.lax.axis_index(('rows',)).astype(jnp.float32), jax.lax.pmin(v, ('rows',)), v * 2.0), axis_name='cols')(r)
(a1_0, a1_1, a1_2, a1_3) = jax.vmap(outer, axis_name='rows')(v0)
P((a1_0).shape)
P(a1_0)
P(jnp.sum((a1_0) * 0 - 1))
P((a1_1).shape)
P(a1_1)
P(jnp.sum((a1_1) * 0 - 1))
P((a1_2).shape)
P(a1_2)
P(jnp.sum((a1_2) * 0 - 1))
P((a1_3).shape)
P(a1_3)
P(jnp.sum((a1_3) * 0 - 1))
