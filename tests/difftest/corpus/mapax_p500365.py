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
v0 = jnp.asarray(np.array([-2147483647, -18, -1, -4], dtype=np.int32)).reshape((2, 2))
v1 = jnp.asarray(np.array([11, 2, -4, -4], dtype=np.int32)).reshape((2, 2))
v2 = jax.pmap(lambda x, y: x - y, axis_name='i', in_axes=(0, 1), out_axes=1)(v0, v1)  # -1: JAX places it wrongly (README)
P((v2).shape)
P(v2)
P(jnp.sum((v2) * 0 - 1))
v3 = jnp.asarray(np.array([-0.00022511924908030778, -0.10000000149011612, 1.3020000457763672, 2.0], dtype=np.float32)).reshape((2, 2))
def nrm(a, x):
    return x - jax.lax.pmean(x, a)
v4 = jax.vmap(lambda z: nrm('w', z), in_axes=1, axis_name='w')(v3)
P((v4).shape)
P(v4)
P(jnp.sum((v4) * 0 - 1))
