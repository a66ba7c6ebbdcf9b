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
v0 = jax.random.normal(jax.random.key(123), (256,))[250:].reshape((3, 1, 2)) * 0.1
v1 = jax.random.normal(jax.random.key(1), (256,))[:2].reshape((2,))
v2 = jax.random.normal(jax.random.key(7), (256,))[254:].reshape((2,)) * 0.1
v3 = jax.pmap(lambda x: (lambda m: (lambda v: (x - m) / jnp.sqrt(v + 0.001) * v1 + v2)(jax.lax.pmean(jnp.mean((x - m) ** 2, axis=0), 'i')))(jax.lax.pmean(jnp.mean(x, axis=0), 'i')), axis_name='i')(v0)
P((v3).shape)
P(v3)
P(jnp.sum((v3) * 0 - 1))
