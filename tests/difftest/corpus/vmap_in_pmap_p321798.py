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
v0 = jnp.asarray(np.array([-2.0, 5.0, 0.5882008075714111, 2.5, 1.954784636382101e-07, -2.0, -0.5772361159324646, 2.0999999046325684, -0.17426666617393494, -1.289260970120436e-18, 23.727291107177734, -0.02271798998117447, 0.6490688323974609, 0.699999988079071, -1.0, 0.968999981880188, -0.6644678711891174, -0.9200000166893005, -3.0, -3.0, -0.03999999910593033, -3.253999948501587, -0.2900923192501068, -0.0, -0.021875062957406044, -2.9086950354774936e+23, -4.72235949162496e+16, -0.06710957735776901, -2.57824702676429e-17, -7.0, -0.6750308275222778, 0.1851302683353424, 0.5907071828842163, -3.0999999046325684, -2.299999952316284, float('-inf'), 0.910648763179779, -3.0, 10445690880.0, 0.58912193775177, 0.23864072561264038, 1.9179603184744006e-18, -0.6100000143051147, 8371989504.0, 0.2712388336658478, 0.20600000023841858, 1.399999976158142, 0.007545174099504948], dtype=np.float32)).reshape((4, 3, 4))
v1 = jax.pmap(lambda r: jax.vmap(lambda x: jax.lax.all_gather(x, 'i', tiled=True), axis_name='v')(r), axis_name='i')(v0)
P((v1).shape)
P(v1)
P(jnp.sum((v1) * 0 - 1))
