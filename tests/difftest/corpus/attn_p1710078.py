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
    return jnp.exp(z - jax.scipy.special.logsumexp(z, axis=-1, keepdims=True))
def attn(q, k, v):
    s = q @ k.T / jnp.sqrt(jnp.float32(q.shape[-1]))
    return softmax(s) @ v
v0 = jnp.asarray(np.array([0.4951609969139099, 0.6183270215988159, -0.07999999821186066, 0.7074260115623474, 0.8500000238418579], dtype=np.float32)).reshape((1, 5))
v1 = jax.random.normal(jax.random.fold_in(jax.random.key(140469), 9), (1, 5))
v2 = jax.random.uniform(jax.random.key(1), (256,), minval=-1.0, maxval=1.0)[:5].reshape((1, 5))
v3 = jnp.asarray(np.array([-0.7505490183830261, 0.13600000739097595, -0.492000013589859, 0.3930000066757202, 0.23999999463558197], dtype=np.float32)).reshape((1, 5))
v4 = jax.grad(lambda a, b, c: jnp.sum(attn(a, b, c) * v3), argnums=1)(v0, v1, v2)
P((v4).shape)
P(v4)
P(jnp.sum((v4) * 0 - 1))
