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
v0 = jnp.zeros((1,), jnp.int32)
P((v0).shape)
P(v0)
P(jnp.sum((v0) * 0 - 1))
v1 = jnp.asarray(np.array([12, 3, 14, 2147483647, -8, 14, -13, 16, 6, -18, 3, -15], dtype=np.int32)).reshape((4, 3))
v2 = jnp.sum(jnp.arange(v1.size))
P((v2).shape)
P(v2)
P(jnp.sum((v2) * 0 - 1))
v3 = jnp.asarray(np.array([3, 3], dtype=np.int32))
v4 = jax.nn.one_hot(v3, 4)
P((v4).shape)
P(v4)
P(jnp.sum((v4) * 0 - 1))
v5 = jnp.asarray(np.array([0.5242815017700195, -0.1336337774991989, 0.9010000228881836, -2.009999990463257, 1.7699999809265137, -0.8754637241363525, 0.800000011920929, -0.36709123849868774, 0.4743278920650482, -0.6853441596031189, 2.552000045776367, 7.634691449680405e+29], dtype=np.float32)).reshape((1, 4, 3))
P(2 ** len(v5) - 7 % 3)
