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
    h = jax.nn.sigmoid(x @ w1 + b1)
    z = h @ w2 + b2
    e = jnp.exp(z - jnp.max(z, axis=-1, keepdims=True))
    lp = jnp.log(e / jnp.sum(e, axis=-1, keepdims=True))
    return -jnp.mean(jnp.sum(jax.nn.one_hot(t, 5) * lp, axis=-1))
v0 = jax.random.normal(jax.random.key(1), (256,))[:24].reshape((12, 2)) * 0.5
v1 = jax.random.uniform(jax.random.key(123), (256,), minval=-1.0, maxval=1.0)[254:].reshape((2,)) * 0.1
v2 = jnp.asarray(np.array([-0.34299999475479126, -0.07999999821186066, 0.17399999499320984, -0.2199999988079071, -0.3700000047683716, -0.029999999329447746, -0.23499999940395355, 0.414000004529953, 0.36410099267959595, -0.13899999856948853], dtype=np.float32)).reshape((2, 5))
v3 = jax.random.normal(jax.random.fold_in(jax.random.key(123), 39), (256,))[:5].reshape((5,)) * 0.1
v4 = (v0, v1, v2, v3)
v5 = jax.random.uniform(jax.random.key(2024), (256,), minval=-1.0, maxval=1.0)[148:].reshape((9, 12))
v6 = jax.random.randint(jax.random.key(49909), (9,), 0, 5)
P((loss(v4, v5, v6)).shape)
P(loss(v4, v5, v6))
P(jnp.sum((loss(v4, v5, v6)) * 0 - 1))
v7 = jax.grad(loss)(v4, v5, v6)
P((v7[0]).shape)
P(v7[0])
P(jnp.sum((v7[0]) * 0 - 1))
P((v7[1]).shape)
P(v7[1])
P(jnp.sum((v7[1]) * 0 - 1))
P((v7[2]).shape)
P(v7[2])
P(jnp.sum((v7[2]) * 0 - 1))
P((v7[3]).shape)
P(v7[3])
P(jnp.sum((v7[3]) * 0 - 1))
q8 = v4
for step in range(3):
    q8 = jax.tree.map(lambda w, g: w - 0.01 * g, q8, jax.grad(loss)(q8, v5, v6))
P((loss(q8, v5, v6)).shape)
P(loss(q8, v5, v6))
P(jnp.sum((loss(q8, v5, v6)) * 0 - 1))
P((q8[0]).shape)
P(q8[0])
P(jnp.sum((q8[0]) * 0 - 1))
P((q8[1]).shape)
P(q8[1])
P(jnp.sum((q8[1]) * 0 - 1))
P((q8[2]).shape)
P(q8[2])
P(jnp.sum((q8[2]) * 0 - 1))
P((q8[3]).shape)
P(q8[3])
P(jnp.sum((q8[3]) * 0 - 1))
