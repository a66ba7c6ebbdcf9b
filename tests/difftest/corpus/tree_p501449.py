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
v0 = jnp.asarray(np.array(2.5, dtype=np.float32))
v1 = jnp.asarray(np.array([2.809999942779541, 0.17908573150634766], dtype=np.float32)).reshape((2, 1))
v2 = jnp.asarray(np.array([-3.0999999046325684, 3.5210879994763726e+20], dtype=np.float32))
v3 = jnp.asarray(np.array(-5.559999942779541, dtype=np.float32))
v4 = jnp.asarray(np.array([-5.199999809265137, -0.2306583672761917], dtype=np.float32)).reshape((2, 1))
v5 = jnp.asarray(np.array([3.9000000953674316, -5.630000114440918], dtype=np.float32))
v6 = (v0, (v1, v2))
v7 = (v3, (v4, v5))
v8 = jax.grad(lambda x, y: jnp.sum(x) * jnp.sum(y), argnums=1)(v0, v3)
P((v8).shape)
P(v8)
P(jnp.sum((v8) * 0 - 1))
