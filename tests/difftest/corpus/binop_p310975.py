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
v0 = jnp.asarray(np.array([True, False, False, True, True, True, True, True, True, True, True, False, False, True, False, False, False, False, True, True, False, True, False, False], dtype=np.bool_)).reshape((2, 4, 3))
v1 = jnp.asarray(np.array([1.100000023841858, 0.31626659631729126, 9.999999682655225e-21, 1.8600000143051147, -0.0, -0.9228038787841797, 100.0, 9.999999682655225e-21, 3.3299999237060547, 3.8469998836517334, -0.8107126355171204, 0.2773416042327881, 0.5, 5.039999961853027, 0.243500217795372, 1.5, -2.823368627810904e+27, -2.5, -2.5, float('inf'), 100.0, 0.9846453070640564, float('inf'), -0.5634689927101135], dtype=np.float32)).reshape((2, 4, 3))
v2 = jnp.minimum(v0, v1)
P((v2).shape)
P(v2)
P(jnp.sum((v2) * 0 - 1))
v3 = (v0 != v1)
P((v3).shape)
P(v3)
P(jnp.sum((v3) * 0 - 1))
