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
n = 8
to_right = [(j, (j + 1) % n) for j in range(n)]
to_left = [((j + 1) % n, j) for j in range(n)]
v0 = jnp.asarray(np.array([0.5445364117622375, 0.746086597442627, -1.0, -0.5191972851753235, -2.880000114440918, 1.7999999523162842, 0.9472541213035583, -0.28614693880081177, -0.29386740922927856, 1.4019999504089355, 1.940000057220459, -0.9610685110092163, -8.6899995803833, 0.5, -2.5, 1.4195360782867062e+26, 0.30000001192092896, -1.0, -0.6959591507911682, 0.4962911009788513, -0.10712309926748276, 0.10388686507940292, 3.4100000858306885, -10.0, -5.0, -0.04906197637319565, -5954472.0, 0.33461013436317444, -1.2000000476837158, -0.5069506764411926, 1.9905483371734911e-16, 6779.85888671875, 0.32086145877838135, -207911696.0, -0.0241690743714571, 2.799999952316284, 7.70217737237715e+27, -0.0, 0.8334829211235046, 1.0], dtype=np.float32))
def update(b):
    return b[1:-1] + 0.25 * (b[:-2] - 2.0 * b[1:-1] + b[2:])
def step(s):
    from_left = jax.lax.ppermute(s[-1:], 'i', to_right)
    from_right = jax.lax.ppermute(s[:1], 'i', to_left)
    return update(jnp.concatenate([from_left, s, from_right]))
pstep = jax.pmap(step, axis_name='i')
board = v0.reshape(n, -1)
P(board)
for t in range(0):
    board = pstep(board)
    P(board)
P((board).shape)
P(board)
P(jnp.sum((board) * 0 - 1))
