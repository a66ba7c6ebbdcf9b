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
v0 = jnp.asarray(np.array([-0.0], dtype=np.float32))
v1 = jnp.asarray(np.array([4.150000095367432, -0.5942972302436829, -1.6460000276565552], dtype=np.float32))
v2 = jnp.asarray(np.array([0.9480000138282776, 2.0, -3.700000047683716, 7.312149497007425e-11, 1.1753737746887218e+26, -1.9299999475479126], dtype=np.float32)).reshape((3, 2))
v3 = jnp.asarray(np.array([-0.40092313289642334], dtype=np.float32))
v4 = jnp.asarray(np.array([3.053999900817871, 3.927965004123718e+20, 0.25962090492248535], dtype=np.float32))
v5 = jnp.asarray(np.array([8.705018785803986e-07, -0.8700189590454102, 1.0, 0.025973787531256676, 3.0, -0.13334724307060242], dtype=np.float32)).reshape((3, 2))
v6 = (v0, (v1, v2))
v7 = (v3, (v4, v5))
v8 = jax.grad(lambda x, y: jnp.sum(x) * jnp.sum(y), argnums=1)(v0, v3)
P((v8).shape)
P(v8)
P(jnp.sum((v8) * 0 - 1))
