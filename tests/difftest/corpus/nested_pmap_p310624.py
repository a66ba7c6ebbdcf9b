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
v0 = jnp.asarray(np.array([2.1559998989105225, 3.9000000953674316, 3.0, -0.0924076959490776, 1.4919999837875366, -0.07297828048467636, -0.38966959714889526, -3.0, 0.5029087662696838, -5.5, 3.0, -3.8752363665423053e+24, 0.7645887732505798, -0.5, -291.60540771484375, 0.4872328042984009, -1.8250000476837158, -3.0899999141693115, 25509926.0, -1.8370000123977661, -1.4670000076293945, float('nan'), -0.8970456719398499, 1.7146601068217568e-18, -0.2523305118083954, -0.21101921796798706, 1.9900000095367432, 0.8279321789741516, 0.5481275320053101, -6.552000045776367, 6.965000152587891, 0.16699999570846558], dtype=np.float32)).reshape((4, 2, 4))
v1 = pmap2(lambda x: jax.lax.all_to_all(x, 'j', 0, 0, tiled=True), v0, 4, 2)
P((v1).shape)
P(v1)
P(jnp.sum((v1) * 0 - 1))
