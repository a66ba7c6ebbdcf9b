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
    h = jax.nn.relu(x @ w1 + b1)
    z = h @ w2 + b2
    m = jax.lax.stop_gradient(jnp.max(z, axis=-1, keepdims=True))
    lse = m + jnp.log(jnp.sum(jnp.exp(z - m), axis=-1, keepdims=True))
    lp = z - lse
    return -jnp.sum(jax.nn.one_hot(t, 5) * lp) / len(t)
v0 = jax.random.normal(jax.random.key(2024), (5, 5)) * 0.3
v1 = jax.random.normal(jax.random.key(123), (256,))[251:].reshape((5,)) * 0.1
v2 = jax.random.uniform(jax.random.fold_in(jax.random.key(2024), 42), (256,), minval=-1.0, maxval=1.0)[:25].reshape((5, 5)) * 0.3
v3 = jnp.asarray(np.array([-0.024454999715089798, -0.005948000121861696, 0.019999999552965164, -0.027091000229120255, 0.017999999225139618], dtype=np.float32))
v4 = (v0, v1, v2, v3)
v5 = jax.random.normal(jax.random.key(123), (256,))[:150].reshape((5, 6, 5))
v6 = jnp.asarray(np.array([1, 1, 0, 2, 2, 0, 1, 0, 4, 3, 4, 0, 4, 4, 4, 3, 2, 3, 1, 2, 4, 2, 4, 2, 0, 4, 2, 4, 1, 3], dtype=np.int32)).reshape((5, 6))
v7 = jax.pmap(lambda x, t: jax.tree.map(lambda u: jax.lax.pmean(u, 'i'), jax.grad(loss)(v4, x, t)), axis_name='i')(v5, v6)
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
v8 = jax.pmap(lambda x, t: jax.lax.pmean(loss(v4, x, t), 'i'), axis_name='i')(v5, v6)
P((v8).shape)
P(v8)
P(jnp.sum((v8) * 0 - 1))
v9 = jax.tree.map(lambda u: u[0], v7)
v10 = jax.tree.map(lambda w, g: w - 0.5 * g, v4, v9)
P((loss(v10, v5.reshape(30, 5), v6.reshape((30,)))).shape)
P(loss(v10, v5.reshape(30, 5), v6.reshape((30,))))
P(jnp.sum((loss(v10, v5.reshape(30, 5), v6.reshape((30,)))) * 0 - 1))
