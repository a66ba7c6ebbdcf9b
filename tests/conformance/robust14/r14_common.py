# Shared by the robust14 twins: conf8b's helpers (JAX 0.10.2 on the CPU, 8 host devices,
# x64 off): A = np.asarray, nest/nestj (nested pmaps as a shard_map), T (tuples).
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conf8b"))
from conf8b_common import *  # noqa: E402,F401,F403


def pm(f, *xs, name="i"):
    return jax.pmap(f, axis_name=name)(*xs)


def pvp(f, x, sizes=(2, 3, 4)):
    """spmdrun's `pmap a { vmap b { pmap c { f } } }` over axes 0, 1, 2 of x: a shard_map
    over the mesh (a, c) whose body vmaps f over b (axis name 'b'). Results [A, B, C, ...]."""
    na, nb, nc = sizes
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:na * nc]).reshape(na, nc), ("a", "c"))
    def g(blk):
        out = jax.vmap(f, axis_name="b")(blk[0, :, 0])
        return jax.tree.map(lambda y: y[None, :, None], out)
    return jax.tree.map(np.asarray, jax.shard_map(g, mesh=mesh, in_specs=PS("a", None, "c"),
                                                  out_specs=PS("a", None, "c"), check_vma=False)(x))
