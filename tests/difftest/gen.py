#!/usr/bin/env python3
"""Seeded generator of random, well-typed .spmd programs and their JAX equivalents.

Usage (needs JAX; see README.md):
    gen.py SEED [COUNT] OUTDIR      writes OUTDIR/pNNNNNN.{spmd,py,json}

Every program is built statement by statement in both languages at once. The JAX side is
executed while it is generated (JAX on CPU, 8 host devices, x64 off), so a statement that
JAX rejects is never emitted, dtypes and shapes are known exactly, and the expected output
(what print would show, NumPy's formatting of np.asarray) comes out of the same run.
The .json holds the expected stdout and the tolerance used to compare it (see run.py).
"""
import io
import json
import os
import random
import sys
import contextlib

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

jax.config.update("jax_enable_x64", False)

JAX_PRELUDE = """\
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
"""

DT_JAX = {"f32": "jnp.float32", "i32": "jnp.int32", "u32": "jnp.uint32", "bool": "jnp.bool_"}


class Reject(Exception):
    pass


class Prog:
    """One program under construction: spmd lines, JAX lines, a live JAX namespace."""

    def __init__(self, rng, cls):
        self.rng = rng
        self.cls = cls
        self.spmd = []
        self.jax = []
        self.ns = {}
        exec(JAX_PRELUDE, self.ns)
        self.out = io.StringIO()
        self.prints = []  # the expected text of each print statement, in order
        self.nvar = 0
        self.tol = None  # None: exact text; else (rtol, atol)
        self.devices = 8

    def loosen(self, rtol, atol=0.0):
        if self.tol is None:
            self.tol = (rtol, atol)
        else:
            self.tol = (max(self.tol[0], rtol), max(self.tol[1], atol))

    def try_eval(self, jx):
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                return eval(jx, self.ns)
        except Exception as e:  # JAX rejects it: not a well-typed program
            raise Reject(str(e)[:200])

    def bind(self, s, jx, name=None):
        """let NAME = s  /  NAME = jx; returns NAME. Raises Reject if JAX rejects jx."""
        val = self.try_eval(jx)
        if name is None:
            name = "v%d" % self.nvar
            self.nvar += 1
        self.ns[name] = val
        self.spmd.append("let %s = %s" % (name, s))
        self.jax.append("%s = %s" % (name, jx))
        return name

    def stmt(self, s, jx):
        """A statement (fn definition, ...) in both languages, executed on the JAX side."""
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                exec(jx, self.ns)
        except Exception as e:
            raise Reject(str(e)[:200])
        self.spmd.append(s)
        self.jax.append(jx)

    def val(self, name):
        return self.ns[name]

    def show(self, s, jx, probe=True):
        """print the value (and its shape and a dtype probe when it is a numeric array)."""
        v = self.try_eval(jx)
        is_arr = hasattr(v, "dtype") and not jnp.issubdtype(v.dtype, jax.dtypes.prng_key)
        fmt = self.ns["fmt"]
        if is_arr and probe:
            # shape, the value, and sum(x * 0 - 1): -n for i32 and bool, 2^32-n for u32,
            # -n.0 for f32 (nan if x holds inf or nan), so even an empty array's dtype shows.
            # The probe is computed here with NumPy (no JAX compile), as JAX would give it.
            a = np.asarray(v)
            n = a.size
            if a.dtype == np.float32:
                pr = np.float32(np.nan) if not np.all(np.isfinite(a)) else np.float32(-n)
            elif a.dtype == np.uint32:
                pr = np.uint32((2**32 - n) % 2**32)
            elif a.dtype in (np.int32, np.bool_):
                pr = np.int32(-n)
            else:
                raise Reject("dtype %s" % a.dtype)
            lines = [(s and "shape(%s)" % s, "(%s).shape" % jx, str(tuple(a.shape))),
                     (s, jx, fmt(v)),
                     ("sum(%s * 0 - 1)" % s, "jnp.sum((%s) * 0 - 1)" % jx, str(np.asarray(pr)))]
        else:
            lines = [(s, jx, fmt(v))]
        for a_s, a_j, text in lines:
            self.out.write(text + "\n")
            self.prints.append(text + "\n")
            self.spmd.append("print(%s)" % a_s)
            self.jax.append("P(%s)" % a_j)

    def files(self):
        spmd = "# difftest class: %s\n" % self.cls + "\n".join(self.spmd) + "\n"
        py = JAX_PRELUDE + "\n".join(self.jax) + "\n"
        meta = {"class": self.cls, "expected": self.out.getvalue(), "tol": self.tol,
                "devices": self.devices, "prints": self.prints}
        if getattr(self, "nomin", False):  # prints inside a loop (gen18.block)
            meta["nomin"] = True
        return spmd, py, meta


# ----------------------------------------------------------------------------------------
# Literal values

# No denormal operands: XLA on CPU flushes them to zero (FTZ/DAZ), spmdrun keeps IEEE
# gradual underflow (README.md, "Deliberate differences"). Printing covers them.
SPECIAL_F = [0.0, -0.0, float("inf"), -float("inf"), float("nan"), 1.1754944e-38,
             3.4028235e38, 1e-20, 1e20, 0.5, -0.5, 1.5, 2.5, -2.5, 1.0, -1.0, 3.0, 100.0,
             65504.0, 16777217.0, 1e-4, 1e16]
INT_POOL = [0, 1, -1, 2, -2, 3, 7, -7, 13, -13, 100, 255, 65536, 2147483647, -2147483647,
            1000000, -1000000, 46341]


def fmt_float(v):
    """An f32 value as spmd source: inf and nan by log (no literal exists, and a static
    0.0 / 0.0 is an error, as Python's ZeroDivisionError)."""
    if np.isnan(v):
        return "log(-1.0)"
    if np.isinf(v):
        return "-log(0.0)" if v > 0 else "log(0.0)"
    if v == 0.0 and np.signbit(v):
        return "-0.0"
    r = repr(float(np.float32(v)))
    return r


def rand_float(rng, special=0.3):
    if rng.random() < special:
        return float(np.float32(rng.choice(SPECIAL_F)))
    kind = rng.random()
    if kind < 0.5:
        return float(np.float32(round(rng.gauss(0, 3), rng.choice([0, 1, 2, 3]))))
    if kind < 0.8:
        return float(np.float32(rng.uniform(-1, 1)))
    return float(np.float32(rng.choice([-1, 1]) * 10.0 ** rng.uniform(-18, 30)))


def rand_int(rng, dt):
    if dt == "bool":
        return rng.random() < 0.5
    v = rng.choice(INT_POOL) if rng.random() < 0.3 else rng.randint(-20, 20)
    if dt == "u32":
        v = abs(v)
    return v


def rand_shape(rng, maxrank=3, maxdim=4, allow_empty=True):
    rank = rng.choice([0, 1, 1, 2, 2, 3][: maxrank + 3])
    rank = min(rank, maxrank)
    dims = []
    for _ in range(rank):
        d = rng.choice([1, 2, 3, 4, 5, 8][: max(1, maxdim)] + ([0] if allow_empty and rng.random() < 0.05 else []))
        dims.append(d)
    return dims


def literal(rng, dt, shape, special=0.3):
    """(spmd source, JAX source) of an array of dtype dt and shape."""
    n = int(np.prod(shape)) if shape else 1
    if n == 0:
        return ("zeros(%s, %s)" % (list(shape), dt),
                "jnp.zeros(%s, %s)" % (tuple(shape), DT_JAX[dt]))
    if dt == "f32":
        vals = [rand_float(rng, special) for _ in range(n)]
        s_items = [fmt_float(v) for v in vals]
        j_items = [repr(v) if np.isfinite(v) else "float('%r')" % v for v in vals]
    elif dt == "bool":
        vals = [rng.random() < 0.5 for _ in range(n)]
        s_items = ["true" if v else "false" for v in vals]
        j_items = [repr(v) for v in vals]
    else:
        vals = [rand_int(rng, dt) for _ in range(n)]
        s_items = [str(v) for v in vals]
        j_items = [str(v) for v in vals]
    npdt = {"f32": "np.float32", "i32": "np.int32", "u32": "np.uint32", "bool": "np.bool_"}[dt]
    if not shape:
        return ("%s(%s)" % (dt, s_items[0]),
                "jnp.asarray(np.array(%s, dtype=%s))" % (j_items[0], npdt))
    s = "%s([%s])" % (dt, ", ".join(s_items))
    j = "jnp.asarray(np.array([%s], dtype=%s))" % (", ".join(j_items), npdt)
    if len(shape) != 1:
        s = "reshape(%s, %s)" % (s, list(shape))
        j = "%s.reshape(%s)" % (j, tuple(shape))
    return s, j


def new_array(p, dt=None, shape=None, special=0.3, maxrank=3):
    rng = p.rng
    dt = dt or rng.choice(["f32", "f32", "i32", "u32", "bool"])
    shape = rand_shape(rng, maxrank) if shape is None else shape
    s, j = literal(rng, dt, shape, special)
    return p.bind(s, j)


def main():
    from gen_coll import make_program
    seed = int(sys.argv[1])
    count = int(sys.argv[2]) if len(sys.argv) > 3 else 1
    outdir = sys.argv[-1]
    os.makedirs(outdir, exist_ok=True)
    only = os.environ.get("DIFFTEST_ONLY") or None
    only = set(only.split(",")) if only else None
    for k in range(count):
        s = seed + k
        try:
            p = make_program(s, only)
        except RuntimeError as e:
            print(e, file=sys.stderr)
            continue
        spmd, py, meta = p.files()
        base = os.path.join(outdir, "p%06d" % s)
        with open(base + ".spmd", "w") as f:
            f.write(spmd)
        with open(base + ".py", "w") as f:
            f.write(py)
        with open(base + ".json", "w") as f:
            json.dump(meta, f)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
