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
v0 = jnp.asarray(np.array([0.6956279873847961, 1.5, -0.5419999957084656, 0.004492363892495632, 0.4000000059604645, -0.0, 3.0, -0.3793170154094696, 1.0000000272564224e+16, -0.44999998807907104, 1.4019999504089355, 1.2000000476837158, -2.0, float('nan'), -0.7113463282585144, 3.7116587337264126e-14, -2.0, 1.0, 9.999999682655225e-21, 1.0, 4.0, 7.250479476515806e+26, 0.37436380982398987, 2.5], dtype=np.float32)).reshape((2, 4, 3))
v1 = jnp.max(v0)
P((v1).shape)
P(v1)
P(jnp.sum((v1) * 0 - 1))
v2 = jnp.max(v0, axis=-3, keepdims=True)
P((v2).shape)
P(v2)
P(jnp.sum((v2) * 0 - 1))
v3 = jnp.min(v0, axis=(0, 1), keepdims=True)
P((v3).shape)
P(v3)
P(jnp.sum((v3) * 0 - 1))
