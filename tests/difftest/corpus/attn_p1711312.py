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
def softmax(z):
    return jax.nn.softmax(z, axis=-1)
def attn(q, k, v):
    s = q @ k.T * 0.5
    return softmax(s) @ v
v0 = jnp.asarray(np.array([-0.8464229702949524, -0.2199999988079071, -0.09000000357627869, -0.48126500844955444, -0.328000009059906, -0.6600369811058044, -0.9399999976158142, -0.17000000178813934, 0.5017650127410889, 0.45575401186943054, -0.8600000143051147, 0.6150000095367432], dtype=np.float32)).reshape((3, 4))
v1 = jax.random.normal(jax.random.key(2024), (256,))[:12].reshape((3, 4))
v2 = jnp.asarray(np.array([0.9766659736633301, 0.7442700266838074, 0.22927099466323853, -0.8579999804496765, 0.7929999828338623, 0.14000000059604645, -0.5799999833106995, 0.6700000166893005, 0.6069999933242798, -0.8500000238418579, -0.4000000059604645, -0.7099999785423279], dtype=np.float32)).reshape((3, 4))
v3 = jnp.asarray(np.array([0.5887110233306885, -0.9958590269088745, -0.30000001192092896, 0.14000000059604645, -0.7391359806060791, -0.786657989025116, 0.4269050061702728, -0.30000001192092896, -0.9200000166893005, -0.47999998927116394, -0.5978720188140869, -0.32899999618530273], dtype=np.float32)).reshape((3, 4))
v4 = jax.grad(lambda a, b, c: jnp.sum(attn(a, b, c) * v3), argnums=0)(v0, v1, v2)
P((v4).shape)
P(v4)
P(jnp.sum((v4) * 0 - 1))
