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
def loss(params, x, t):
    w1, b1, w2, b2 = params
    h = jnp.maximum(x @ w1 + b1, 0.0)
    z = h @ w2 + b2
    return 0.5 * jnp.sum((z - t) ** 2) / len(t)
v0 = jax.random.normal(jax.random.key(836866), (256,))[:49].reshape((7, 7)) * 0.3
v1 = jnp.asarray(np.array([-0.019999999552965164, 0.05000000074505806, 0.0560000017285347, 0.07875099778175354, 0.06300000101327896, -0.10000000149011612, -0.054999999701976776], dtype=np.float32))
v2 = jnp.asarray(np.array([0.24300000071525574, 0.10000000149011612, -0.006982999853789806, 0.07000000029802322, 0.08276800066232681, -0.01706700026988983, 0.22986599802970886, -0.08799999952316284, 0.052000001072883606, -0.009999999776482582, -0.25551900267601013, 0.14800000190734863, 0.16419699788093567, 0.30000001192092896, -0.09000000357627869, 0.10999999940395355, -0.14000000059604645, 0.20399999618530273, -0.2644129991531372, -0.1521340012550354, 0.2656239867210388], dtype=np.float32)).reshape((7, 3))
v3 = jax.random.uniform(jax.random.fold_in(jax.random.key(868778), 14), (3,), minval=-1.0, maxval=1.0) * 0.1
v4 = (v0, v1, v2, v3)
v5 = jnp.asarray(np.array([0.25, -0.17299999296665192, 0.8199999928474426, -0.46000000834465027, 0.5109999775886536, 0.5960000157356262, -0.17000000178813934, -0.9150000214576721, -0.9729999899864197, -0.18000000715255737, 0.06174299865961075, 0.7260000109672546, 0.20000000298023224, 0.47999998927116394, -0.06599999964237213, 0.23853600025177002, -0.23000000417232513, 0.7300000190734863, 0.17125000059604645, -0.6499999761581421, 0.7599999904632568, 0.019999999552965164, 0.621999979019165, -0.4059999883174896, 0.07199999690055847, -0.9150000214576721, -0.6299999952316284, -0.7551019787788391, 0.7879999876022339, 0.9862239956855774, 0.6228119730949402, 0.40344300866127014, 0.5669999718666077, 0.4444560110569, -0.38199999928474426], dtype=np.float32)).reshape((5, 7))
v6 = jnp.asarray(np.array([-0.8600000143051147, 0.1675329953432083, 0.675000011920929, -0.11403500288724899, 0.10300000011920929, -0.7200000286102295, -0.3199999928474426, -0.9334179759025574, -0.8040000200271606, -0.9922029972076416, -0.5879999995231628, -0.5099999904632568, 0.6620000004768372, 0.18589800596237183, 0.5099999904632568], dtype=np.float32)).reshape((5, 3))
P((loss(v4, v5, v6)).shape)
P(loss(v4, v5, v6))
P(jnp.sum((loss(v4, v5, v6)) * 0 - 1))
v7 = jax.value_and_grad(loss)(v4, v5, v6)
P((v7[0]).shape)
P(v7[0])
P(jnp.sum((v7[0]) * 0 - 1))
v8 = v7[1]
P((v8[0]).shape)
P(v8[0])
P(jnp.sum((v8[0]) * 0 - 1))
P((v8[1]).shape)
P(v8[1])
P(jnp.sum((v8[1]) * 0 - 1))
P((v8[2]).shape)
P(v8[2])
P(jnp.sum((v8[2]) * 0 - 1))
P((v8[3]).shape)
P(v8[3])
P(jnp.sum((v8[3]) * 0 - 1))
q9 = v4
for step in range(3):
    q9 = jax.tree.map(lambda w, g: w - 0.5 * g, q9, jax.grad(loss)(q9, v5, v6))
P((loss(q9, v5, v6)).shape)
P(loss(q9, v5, v6))
P(jnp.sum((loss(q9, v5, v6)) * 0 - 1))
