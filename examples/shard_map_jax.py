"""Writes the expected output of the shard_map examples (examples/shard_*.out) by running
the same programs with jax.shard_map on 8 CPU devices. Run with a Python that has JAX:

    XLA_FLAGS=--xla_force_host_platform_device_count=8 python examples/shard_map_jax.py

(the script sets the flag itself). spmdrun prints arrays as NumPy does, so each result is
printed with print(np.asarray(...)).
"""
import io
import os
import sys
from contextlib import redirect_stdout
from pathlib import Path

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402
from jax.sharding import NamedSharding, PartitionSpec as P  # noqa: E402


def shard_map(f, axes, in_specs, out_specs, *args, check_vma=True):
    mesh = jax.make_mesh(tuple(n for _, n in axes), tuple(a for a, _ in axes))
    args = [jax.device_put(a, NamedSharding(mesh, s)) for a, s in zip(args, in_specs)]
    return jax.jit(jax.shard_map(f, mesh=mesh, in_specs=tuple(in_specs), out_specs=out_specs,
                                 check_vma=check_vma))(*args)


def show(x):
    print(np.asarray(x))


def shard_matmul():
    x = jnp.arange(48.0, dtype=jnp.float32).reshape(8, 6)
    w = jnp.arange(30.0, dtype=jnp.float32).reshape(6, 5) - 10.0
    y = shard_map(lambda a, b: lax.psum(a @ b, "cols"), [("rows", 4), ("cols", 2)],
                  [P("rows", "cols"), P("cols", None)], P("rows", None), x, w)
    show(y)
    show(y == x @ w)


def shard_scatter_gather():
    # JAX's check_vma types all_gather's result as still varying along the gathered axis
    # (it has no all_gather_invariant in this version), so it cannot see that the second
    # result is the same along `data`; spmdrun's check does (docs/language.md), so the
    # check is off here.
    g = jnp.arange(64.0, dtype=jnp.float32).reshape(8, 8)

    def body(b):
        s = lax.psum_scatter(b, "data", tiled=True)
        return s, lax.all_gather(s, "data", tiled=True)
    scattered, gathered = shard_map(body, [("data", 2), ("model", 4)], [P("data", "model")],
                                    (P("data", "model"), P(None, "model")), g, check_vma=False)
    show(scattered)
    show(gathered)
    show(g[:4] + g[4:])


def shard_normalize():
    x = jnp.arange(8.0, dtype=jnp.float32).reshape(4, 2)

    def body(v):
        return (v / lax.psum(v, "rows"), v / lax.psum(v, "cols"), v / lax.psum(v, ("rows", "cols")))
    spec = P("rows", "cols")
    a, b, c = shard_map(body, [("rows", 4), ("cols", 2)], [spec], (spec, spec, spec), x)
    show(a)
    show(jnp.sum(a, axis=0))
    show(b)
    show(c)


if __name__ == "__main__":
    here = Path(__file__).resolve().parent
    for fn in (shard_matmul, shard_scatter_gather, shard_normalize):
        buf = io.StringIO()
        with redirect_stdout(buf):
            fn()
        (here / f"{fn.__name__}.out").write_text(buf.getvalue())
        print(f"wrote examples/{fn.__name__}.out", file=sys.stderr)
