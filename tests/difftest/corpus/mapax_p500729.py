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
v0 = jnp.asarray(np.array([-1.899999976158142, 3.5460000038146973, -4.610742568969727, -6.0, -3.9739999771118164, -0.20000000298023224, -0.3107108175754547, -3.9010000228881836], dtype=np.float32)).reshape((2, 4))
v1 = jnp.asarray(np.array([-1.7999999523162842, 1.0889999866485596, -0.012744308449327946, 0.6426183581352234, 1.9299999475479126, -0.2426784336566925, 1.5982998550363505e+18, 0.0751500129699707], dtype=np.float32)).reshape((2, 4))
v2 = jnp.asarray(np.array(-1.0, dtype=np.float32))
v3 = jax.pmap(lambda t: (lambda x, y: (jax.lax.all_gather(x, 'i')) * v2)(*t), axis_name='i', in_axes=((1, 1),), out_axes=2)((v0, v1))  # -1: JAX places it wrongly (README)
P((v3).shape)
P(v3)
P(jnp.sum((v3) * 0 - 1))
