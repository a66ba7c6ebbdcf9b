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
v0 = jnp.asarray(np.array([0.00018493433890398592, 1.7000000476837158, 1.7000000476837158, 1.100000023841858, 2223454237491200.0, -1.4199999570846558, -0.8025584816932678, 2.5230000019073486, -0.18799999356269836, 0.699999988079071, 0.4259999990463257, 0.8013045191764832, -1.2139999866485596, -0.11391671746969223], dtype=np.float32)).reshape((7, 1, 2))
def f(x):
    y = jnp.sin(x)
    def g(w):
        return jnp.sum(jax.vmap(lambda z: z * jax.lax.pmean(z * z, 'j') * jnp.sum(jnp.tanh(x)), axis_name='j')(w))
    return jax.grad(g)(x)
v1 = jnp.asarray(np.array([-0.6755914688110352, -0.10740479081869125, 2.0, 6.820000171661377, -0.2091415822505951, 1.9299999475479126], dtype=np.float32)).reshape((3, 2))
def h(x):
    return jax.vmap(lambda row: f(row) + jax.lax.psum(row, 'i'), axis_name='i')(x)
P((h(v1)).shape)
P(h(v1))
P(jnp.sum((h(v1)) * 0 - 1))
