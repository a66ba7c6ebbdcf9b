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
def norm(x):
    m = jnp.mean(x, axis=(0, 1), keepdims=True)
    c = x - m
    v = jnp.sum(c * c, axis=(0, 1), keepdims=True) / (x.size / m.size)
    return (x - m) * jax.lax.rsqrt(v + 0.1)
v0 = jax.random.uniform(jax.random.fold_in(jax.random.key(42), 28), (2048,), minval=-1.0, maxval=1.0)[1022:].reshape((38, 27))
v1 = jnp.asarray(np.array([-0.25999999046325684, -0.26344799995422363, -0.2070000022649765, 0.9300000071525574, -0.7200000286102295, -0.7710000276565552, -0.5600000023841858, 0.44600000977516174, -0.7900000214576721, 0.5799999833106995, -0.23199999332427979, 0.9155849814414978, 0.7200000286102295, -0.19200000166893005, -0.937080979347229, 0.03099999949336052, 0.14000000059604645, 0.6470000147819519, 0.44999998807907104, -0.09000000357627869, 0.07000000029802322, 0.30000001192092896, -0.05000000074505806, -0.6000000238418579, 0.3799999952316284, -0.22078900039196014, 0.5910000205039978], dtype=np.float32))
v2 = jax.random.normal(jax.random.fold_in(jax.random.key(7), 41), (256,))[229:].reshape((27,)) * 0.1
v3 = norm(v0) * v1 + v2
P((v3).shape)
P(v3)
P(jnp.sum((v3) * 0 - 1))
P((jnp.mean(v0, axis=(0, 1,))).shape)
P(jnp.mean(v0, axis=(0, 1,)))
P(jnp.sum((jnp.mean(v0, axis=(0, 1,))) * 0 - 1))
