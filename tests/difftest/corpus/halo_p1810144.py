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
n = 1
to_right = [(j, (j + 1) % n) for j in range(n)]
to_left = [((j + 1) % n, j) for j in range(n)]
def update(b):
    l, c, r = b[:-2], b[1:-1], b[2:]
    return (c | r) & ~(l & c & r)
def step(s):
    from_left = jax.lax.ppermute(s[-1:], 'i', to_right)
    from_right = jax.lax.ppermute(s[:1], 'i', to_left)
    return update(jnp.concatenate([from_left, s, from_right]))
pstep = jax.pmap(step, axis_name='i')
board = jnp.zeros([2], bool).at[1].set(True).reshape(n, -1)
P("".join("1" if v else "0" for v in np.asarray(board).ravel()))
for t in range(0):
    board = pstep(board)
    if t % 2 == 1: P(t, "".join("1" if v else "0" for v in np.asarray(board).ravel()))
P((board).shape)
P(board)
P(jnp.sum((board) * 0 - 1))
