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
v0 = jnp.asarray(np.array([-0.8045710921287537, 5.099999904632568, float('inf'), -1.287780234141945e+19, 3.0, 4.173427436970911e-10, -2.633156626075106e-08, 2.9800000190734863, 0.6754464507102966, -3.0280001163482666, 7.0, 0.3241414427757263, -0.0, 0.5926758646965027, 1.75, -0.580424964427948, 0.49024829268455505, -14707.482421875, -3.5999999046325684, -0.28999999165534973, -0.7300000190734863, -7.663088013032393e-07, -8.649999618530273, -0.4063389301300049, 3.2929999828338623, -6.495181967636346e+26, 2.7931877053270424e-14, 0.8748316168785095, 1.9700000286102295, -0.045558586716651917, 2.6500000953674316, -0.5], dtype=np.float32)).reshape((4, 1, 8))
v1 = jax.pmap(lambda r: jax.vmap(lambda x: jax.lax.ppermute(x, 'i', perm=[(3, 2), (2, 3), (0, 0), (1, 1)]), axis_name='v')(r), axis_name='i')(v0)
P((v1).shape)
P(v1)
P(jnp.sum((v1) * 0 - 1))
