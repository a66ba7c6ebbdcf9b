#!/usr/bin/env python3
"""Sweeps spmdrun's f32 transcendental functions over their whole range against JAX.

Dev tool (needs JAX, which CI lacks): for each function, builds inputs (random bit
patterns over every exponent, values near multiples of pi/2 for the trig functions,
huge values, subnormals, +-0, +-inf, nan and each function's interesting range), runs
them through spmdrun (`print` of 1000-element arrays, forced into scientific notation
so every float32 prints with the digits that identify it), and compares bit patterns
with jax.numpy on the CPU and with a float64 NumPy reference.

Results and known differences: sweep_math.md beside this file.

Usage: /tmp/jaxenv/bin/python tests/conformance/sweep_math.py SPMDRUN [--rows R]
       [--funcs sin,cos,...] [--seed S] [--show K] [--pmap]

--pmap applies the function inside a pmap body over 2 devices (the loop-vectorised
kernel path) instead of at host level.

Per function it prints: values compared, how many differ from JAX in any bit (NaNs
alike), max ulp distance from JAX (and where), how
many differ by more than 2 ulp, kind mismatches (NaN/inf/finite, sign of zero), and
the differences explained by XLA flushing subnormals to zero on the CPU (deliberate,
counted apart), and the max ulp distance of each side from the float64 reference.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

CHUNK = 999  # NumPy (and spmdrun) elide arrays above 1000 elements (one is added)


def f32bits(a):
    return np.asarray(a, np.float32).view(np.uint32)


def ordered(a):
    """float32 -> int64 monotone in the float's value (-0 and +0 adjacent)."""
    u = f32bits(a).astype(np.int64)
    return np.where(u >= 0x80000000, 0x80000000 - u, u)


def ulp_dist(a, b):
    """ulps between two float32 arrays; 0 for two NaNs; -1 where exactly one is NaN."""
    a = np.asarray(a, np.float32)
    b = np.asarray(b, np.float32)
    d = np.abs(ordered(a) - ordered(b)).astype(np.float64)
    na, nb = np.isnan(a), np.isnan(b)
    d[na & nb] = 0
    d[na ^ nb] = -1
    return d


SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, 2.0, 1e-45, -1e-45, 1e-40,
                    -1e-40, 1.1754944e-38, 3.4028235e38, -3.4028235e38, 1e-10, 3e-4, 88.72, 88.73,
                    -87.3, -103.9, -104.5, 1.5707964, 3.1415927, 1e5, 117435.99, 117436.0, 1e7,
                    1.4037388e23, 1e16, 1e30, 16367173 * 2.0**72, 8.6e37], np.float32)


def ranges(name):
    """Extra input blocks for `name`: (kind, lo, hi) with kind 'u' uniform in [lo, hi),
    'l' +-2^u for u uniform in [lo, hi), 'p' near k * 2^j * pi/2 (k < 2^24, j in
    [lo, hi)) and one or two ulps either side."""
    return {
        "sin": [("u", -10, 10), ("u", -2e5, 2e5), ("p", 0, 104), ("l", -150, 128)],
        "exp": [("u", -110, 90), ("u", -1, 1)],
        "log": [("u", 0, 10), ("l", -150, 128)],
        "log1p": [("u", -1, 1), ("l", -60, 128)],
        "tanh": [("u", -10, 10), ("l", -30, 5)],
        "sigmoid": [("u", -110, 110), ("u", -10, 10)],
    }.get({"cos": "sin", "tan": "sin", "sqrt": "log", "rsqrt": "log"}.get(name, name), [])


def lit(a):
    """A float32 array as an spmd list literal (inf and nan built by arithmetic)."""
    toks = []
    for v in np.asarray(a, np.float32):
        if np.isnan(v):
            toks.append("nan_")
        elif np.isinf(v):
            toks.append("inf_" if v > 0 else "-inf_")
        else:
            toks.append(repr(float(v)) if v == 0 else np.format_float_scientific(v, unique=True))
    return "[" + ", ".join(toks) + "]"


SPMD_FN = {"sin": "sin", "cos": "cos", "tan": "tan", "exp": "exp", "log": "log", "log1p": "log1p",
           "sqrt": "sqrt", "rsqrt": "rsqrt", "tanh": "tanh", "sigmoid": "sigmoid"}


def apply(name, arg, pmap, row=CHUNK):
    """`name` applied to the spmd expression `arg` (rows of `row` values), in a pmap body
    over 2 devices if `pmap`."""
    if not pmap:
        return f"{SPMD_FN[name]}({arg})"
    return (f"reshape(pmap i (v in reshape({arg}, [2, -1, {row}])) {{ {SPMD_FN[name]}(v) }},"
            f" [-1, {row}])")


def program(name, rows, seed, pmap=False):
    """A program that makes its inputs at run time (random bit patterns: sign, every
    exponent, mantissa; the blocks of ranges(name); the special values), applies the
    function and prints inputs and results row by row (999 + 1 values a row: the extra
    1e-30 forces scientific notation, so each float32 prints with all its digits)."""
    C = CHUNK
    L = [f"let k = split(key({seed}), 64)", "let inf_ = f32(1.0) / f32(0.0)", "let nan_ = inf_ - inf_",
         "let tiny = f32([1e-30])"]

    def rand_bits(i):
        return (f"f32(1 - 2 * randint(k[{i}], [{rows}, {C}], 0, 2)) * (f32(randint(k[{i + 1}], [{rows}, {C}], 0, 8388608)"
                f" + 8388608) * 2.0 ** f32(randint(k[{i + 2}], [{rows}, {C}], -150, 129) - 23))")

    blocks = [rand_bits(0)]
    i = 3
    for kind, lo, hi in ranges(name):
        if kind == "u":
            blocks.append(f"uniform(k[{i}], [{rows}, {C}], {float(lo)}, {float(hi)})")
        elif kind == "l":
            blocks.append(f"f32(1 - 2 * randint(k[{i}], [{rows}, {C}], 0, 2)) * 2.0 ** uniform(k[{i + 1}], [{rows}, {C}], {float(lo)}, {float(hi)})")
        else:
            base = (f"f32(f64(randint(k[{i}], [{rows}, {C}], 1, 16777216)) * 2.0 ** f64(randint(k[{i + 1}], [{rows}, {C}], {lo}, {hi}))"
                    f" * 1.5707963267948966)")
            blocks += [base] + [f"({base}) * f32({m})" for m in ("1.0000001", "0.9999999", "1.0000002", "0.9999998")]
        i += 2
    n = len(blocks) * rows
    L.append(f"let x = concat([{', '.join(blocks)}])")
    if name == "pow":
        L.append(f"let y = {rand_bits(i)}")
        L.append(f"let z = uniform(k[{i + 3}], [{rows}, {C}], -40.0, 40.0)")
        L.append("let fx = x ** y")
        L.append("let fz = abs(x) ** z")
    else:
        L.append(f"let fx = {apply(name, 'x', pmap)}")
    L.append(f"for t in 0..{n} {{")
    L.append("  print(concat([x[t], tiny]))")
    L.append("  print(concat([fx[t], tiny]))")
    if name == "pow":
        L.append(f"  print(concat([y[t % {rows}], tiny]))")
        L.append("  print(concat([abs(x[t]), tiny]))")
        L.append(f"  print(concat([z[t % {rows}], tiny]))")
        L.append("  print(concat([fz[t], tiny]))")
    L.append("}")
    if name != "pow":
        L.append(f"let s = f32({lit(SPECIAL)})")
        L.append("let s2 = concat([s, -s])")
        L.append("print(concat([s2, tiny]))")
        L.append(f"print(concat([{SPMD_FN[name]}(s2), tiny]))" if not pmap else
                 f"print(concat([{apply(name, 'reshape(concat([s2, s2]), [2, -1])', True, 2 * len(SPECIAL))}[0], tiny]))")
    return "\n".join(L) + "\n"


def parse(out):
    arrays = []
    for chunk in out.split("]")[:-1]:
        body = chunk[chunk.index("[") + 1:]
        arrays.append(np.array([float(t) for t in body.split()], np.float32))
    return arrays


def run_spmd(binary, src, devices=1):
    with tempfile.NamedTemporaryFile("w", suffix=".spmd", delete=False) as f:
        f.write(src)
        path = f.name
    try:
        r = subprocess.run([binary, "--devices", f"cpu:{devices}", path], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"spmdrun failed ({r.returncode}):\n{r.stderr[-3000:]}")
        return r.stdout
    finally:
        os.unlink(path)


def spmd_eval(binary, name, rows, seed, pmap=False):
    """(x, y, f(x, y)) as spmdrun computed them (y None but for pow)."""
    src = program(name, rows, seed, pmap)
    a = [v[:-1] for v in parse(run_spmd(binary, src, 2 if pmap else 1))]
    if name != "pow":
        return np.concatenate(a[0::2]), None, np.concatenate(a[1::2])
    # per row: x, x ** y, y, |x|, z, |x| ** z
    return (np.concatenate(a[0::6] + a[3::6]), np.concatenate(a[2::6] + a[4::6]),
            np.concatenate(a[1::6] + a[5::6]))


def jax_eval(name, xs, ys=None):
    import jax
    import jax.numpy as jnp
    f = {"sin": jnp.sin, "cos": jnp.cos, "tan": jnp.tan, "exp": jnp.exp, "log": jnp.log,
         "log1p": jnp.log1p, "sqrt": jnp.sqrt, "rsqrt": jax.lax.rsqrt, "tanh": jnp.tanh,
         "sigmoid": jax.nn.sigmoid, "pow": jnp.power}[name]
    args = (jnp.asarray(xs),) if ys is None else (jnp.asarray(xs), jnp.asarray(ys))
    return np.asarray(jax.jit(f)(*args))


def ref64(name, xs, ys=None):
    x = xs.astype(np.float64)
    with np.errstate(all="ignore"):
        if name == "pow":
            return np.power(x, ys.astype(np.float64)).astype(np.float32)
        f = {"sin": np.sin, "cos": np.cos, "tan": np.tan, "exp": np.exp, "log": np.log,
             "log1p": np.log1p, "sqrt": np.sqrt, "rsqrt": lambda v: 1 / np.sqrt(v), "tanh": np.tanh,
             "sigmoid": lambda v: 1 / (1 + np.exp(-v))}[name]
        return f(x).astype(np.float32)


def subnormal_or_zero(a):
    a = np.asarray(a, np.float32)
    return np.abs(a) < np.float32(2.0 ** -126)


def report(name, xs, got, want, exact, ys=None, show=3):
    d = ulp_dist(got, want)
    # XLA's CPU code flushes subnormal inputs and results to zero: differences where an
    # input or either result is subnormal are counted apart.
    ftz = subnormal_or_zero(xs) & (xs != 0)
    if ys is not None:
        ftz |= subnormal_or_zero(ys) & (ys != 0)
    ftz |= (subnormal_or_zero(got) | subnormal_or_zero(want)) & (d != 0)
    kind = (d < 0) | (np.isinf(got) != np.isinf(want)) | \
           ((got == 0) & (want == 0) & (np.signbit(got) != np.signbit(want)))
    cmp_ = ~ftz & ~kind
    dd = np.where(cmp_, d, 0)
    i = int(np.argmax(dd))
    # Against the float64 reference, subnormal exact results are left out too (XLA
    # flushes them; the sides differ from the reference there by design).
    near = ftz | (subnormal_or_zero(exact) & (exact != 0))
    de = np.where(~near, ulp_dist(got, exact), 0)
    dj = np.where(~near, ulp_dist(want, exact), 0)
    fin = lambda a: np.where(a < 0, 0, a)
    differ = int((d != 0).sum())
    print(f"{name:8s} n={len(xs):7d}  differ {differ:6d}  max ulp vs JAX {int(dd.max()):>6d}"
          f" (x={xs[i]!r}{'' if ys is None else f', y={ys[i]!r}'}: got {got[i]!r}, jax {want[i]!r})"
          f"  >2ulp: {int((dd > 2).sum())}  kind mismatches: {int((kind & ~ftz).sum())}"
          f"  ftz-only: {int((ftz & (d != 0)).sum())}"
          f"  | vs f64 ref: spmd {int(fin(de).max())}, jax {int(fin(dj).max())}")
    bad = np.nonzero((kind & ~ftz) | (dd > 2))[0]
    for j in bad[:show]:
        extra = "" if ys is None else f" y={ys[j]!r}"
        print(f"    x={xs[j]!r}{extra}: spmd {got[j]!r} jax {want[j]!r} f64 {exact[j]!r}")
    return differ, int(dd.max()), int((dd > 2).sum()), int((kind & ~ftz).sum())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("spmdrun")
    ap.add_argument("--rows", type=int, default=40, help="rows of 999 values per input block")
    ap.add_argument("--funcs", default="sin,cos,tan,exp,log,log1p,sqrt,rsqrt,tanh,sigmoid,pow")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--show", type=int, default=3)
    ap.add_argument("--pmap", action="store_true", help="apply the function in a pmap body")
    a = ap.parse_args()
    for name in a.funcs.split(","):
        if a.pmap and name == "pow":
            print("pow      (no --pmap variant)")
            continue
        xs, ys, got = spmd_eval(a.spmdrun, name, a.rows, a.seed, a.pmap)
        report(name, xs, got, jax_eval(name, xs, ys), ref64(name, xs, ys), ys, a.show)


if __name__ == "__main__":
    main()
