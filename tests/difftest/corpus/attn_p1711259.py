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
    s2 = jnp.where(jnp.arange(14)[:, None] >= jnp.arange(14)[None, :], s, -1e9)
    return softmax(s2) @ v
v0 = jnp.asarray(np.array([0.06199999898672104, -0.47999998927116394, -0.8441680073738098, -0.6215789914131165, -0.1899999976158142, 0.20999999344348907, -0.304394006729126, -0.9120000004768372, -0.2034280002117157, -0.2267560064792633, -0.8100000023841858, 0.20000000298023224, 0.34525999426841736, 0.6899999976158142, -0.2800000011920929, -0.7300000190734863, -0.6000000238418579, 0.6299999952316284, 0.09000000357627869, 0.9639999866485596, 0.640999972820282, -0.8650000095367432, -0.08605799823999405, 0.01899999938905239, -0.4952569901943207, 0.914247989654541, 0.49000000953674316, -0.20900000631809235, 0.8963059782981873, -0.16771100461483002, -0.8462589979171753, 0.7604740262031555, 0.18000000715255737, -0.39661499857902527, -0.2329999953508377, 0.1653990000486374, -0.2199999988079071, 0.05999999865889549, 0.17020000517368317, 0.37299999594688416, -0.09000000357627869, -0.12664200365543365, -0.5299999713897705, -0.35899999737739563, 0.8579999804496765, 0.4776650071144104, -0.5699999928474426, -0.16300000250339508, -0.5799999833106995, 0.7200000286102295, 0.800000011920929, 0.13183699548244476, 0.41499999165534973, -0.7384099960327148, -0.04600000008940697, -0.15275299549102783], dtype=np.float32)).reshape((4, 14, 1))
v1 = jax.random.normal(jax.random.key(171626), (256,))[255:].reshape((1, 1)) * 0.3
v2 = jax.random.uniform(jax.random.fold_in(jax.random.key(7), 45), (256,), minval=-1.0, maxval=1.0)[255:].reshape((1, 1)) * 0.3
v3 = jnp.asarray(np.array([-0.24500000476837158], dtype=np.float32)).reshape((1, 1))
v4 = jax.pmap(lambda x: jax.vmap(attn)((x @ v1).reshape(14, 1, 1).transpose(1, 0, 2), (x @ v2).reshape(14, 1, 1).transpose(1, 0, 2), (x @ v3).reshape(14, 1, 1).transpose(1, 0, 2)), axis_name='i')(v0)
P((v4).shape)
P(v4)
P(jnp.sum((v4) * 0 - 1))
