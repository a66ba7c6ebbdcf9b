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
    m = jnp.max(z, axis=-1, keepdims=True)
    lse = m + jnp.log(jnp.sum(jnp.exp(z - m), axis=-1, keepdims=True))
    lp = z - lse
    return -jnp.mean(jnp.sum(jax.nn.one_hot(t, 2) * lp, axis=-1))
v0 = jnp.asarray(np.array([0.00800000037997961, -0.19099999964237213], dtype=np.float32)).reshape((2, 1))
v1 = jax.random.normal(jax.random.fold_in(jax.random.key(2024), 37), (1,)) * 0.1
v2 = jnp.asarray(np.array([0.1665239930152893, -0.15700000524520874], dtype=np.float32)).reshape((1, 2))
v3 = jnp.asarray(np.array([-0.05267300084233284, 0.08602099865674973], dtype=np.float32))
lr = 0.05
params = (v0, v1, v2, v3)
v4 = jax.random.uniform(jax.random.fold_in(jax.random.key(123), 18), (256,), minval=-1.0, maxval=1.0)[:12].reshape((3, 2, 2))
v5 = jax.random.randint(jax.random.key(95472), (3, 2), 0, 2)
def body(params, xs, ys):
    l, g = jax.value_and_grad(loss)(params, xs, ys)
    g = jax.tree.map(lambda t: jax.lax.psum(t, 'i') / 3, g)
    return jax.lax.pmean(l, 'i'), jax.tree.map(lambda p, d: p - lr * d, params, g)
step_fn = jax.pmap(body, axis_name='i', in_axes=(None, 0, 0))
for step in range(4):
    l, stacked = step_fn(params, v4, v5)
    params = jax.tree.map(lambda p: p[0], stacked)
    if step % 5 == 0: P("step", step, "loss", l[0])
P(loss(params, v4.reshape(6, 2), v5.reshape((6,))))
