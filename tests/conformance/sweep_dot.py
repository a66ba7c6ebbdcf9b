#!/usr/bin/env python3
"""Sweeps spmdrun's f32 matrix products against jax.jit(jnp.matmul) on CPU, bit for bit.

Dev tool (needs JAX 0.10.2, which CI lacks). For each class of shapes users write
(vector.vector, matrix.vector, vector.matrix, small matrices, MLP layers, batched
products, transposed operands as grad produces them, products inside vmap and grad,
grad's dW = A^T @ dC),
random shapes with random uniform(-1, 1) operands (jax.random, the same bits in both)
are multiplied by spmdrun and by JAX; spmdrun prints each product times 2^30 in chunks
of 999 (scientific notation, so every float32 prints with digits that identify it) and
the bit patterns are compared. A shape "matches" when every element is bit-identical.

Usage: /tmp/jaxenv/bin/python tests/conformance/sweep_dot.py SPMDRUN [--per-class N]
       [--seed S] [--classes vv,mv,...] [--show]

Prints, per class, the shapes that match out of those tried, and with --show the
shapes that do not (with the share of differing elements and the max ulp distance).
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

CHUNK = 999
SCALE = 2.0 ** 30


def shapes(cls, rng):
    """One random case of a class: (spmd expression builder, JAX function, operand shapes)."""
    r = lambda lo, hi: int(rng.integers(lo, hi + 1))  # noqa: E731
    logr = lambda lo, hi: int(np.exp(rng.uniform(np.log(lo), np.log(hi + 1))))  # noqa: E731
    if cls == "vv":
        k = logr(1, 20000)
        return [(k,), (k,)], "a @ b", lambda a, b: a @ b
    if cls == "mv":
        return [(logr(1, 600), logr(1, 3000)), None], "a @ b", lambda a, b: a @ b
    if cls == "vm":
        return [(logr(1, 3000),), None], "a @ b", lambda a, b: a @ b
    if cls == "small":
        return [(r(1, 64), r(1, 64)), (None, r(1, 64))], "a @ b", lambda a, b: a @ b
    if cls == "mlp":
        m = r(32, 512)
        k, n = [(784, 512), (512, 128), (128, 10), (784, 128), (512, 10), (128, 128)][r(0, 5)]
        return [(m, k), (k, n)], "a @ b", lambda a, b: a @ b
    if cls == "bmm":
        bb, m, k, n = r(2, 8), r(1, 64), r(1, 128), r(1, 64)
        return [(bb, m, k), (bb, k, n)], "a @ b", lambda a, b: a @ b
    if cls == "trans":  # what grad of a @ b computes: dA = dC @ B^T, dB = A^T @ dC
        m, k, n = r(1, 128), r(1, 256), r(1, 128)
        if r(0, 1):
            return [(m, k), (n, k)], "a @ transpose(b)", lambda a, b: a @ b.T
        return [(k, m), (k, n)], "transpose(a) @ b", lambda a, b: a.T @ b
    if cls == "vmap":  # a matrix-vector product per row, batched by vmap
        bb, k, n = r(1, 64), r(1, 512), r(1, 64)
        return ([(bb, k), (k, n)], "vmap (x in a along 0) { x @ b }",
                jax.vmap(lambda x, b: x @ b, in_axes=(0, None)))
    if cls == "grad":
        m, k, n = r(1, 128), r(1, 256), r(1, 64)
        return ([(m, k), (k, n)], "grad(fn(x) { sum(relu(x @ b)) })(a)",
                lambda a, b: jax.grad(lambda x: jnp.sum(jax.nn.relu(x @ b)))(a))
    if cls == "gradw":  # grad's dW = A^T @ dC: a dot_general with lhs contracting dim 0
        m, k, n = r(1, 256), r(1, 128), r(1, 64)
        return ([(m, k), (k, n)], "grad(fn(w) { sum(relu(a @ w)) })(b)",
                lambda a, b: jax.grad(lambda w: jnp.sum(jax.nn.relu(a @ w)))(b))
    raise ValueError(cls)


CLASSES = ["vv", "mv", "vm", "small", "mlp", "bmm", "trans", "vmap", "grad", "gradw"]
# Classes compared with eager JAX, as host code runs (jit folds the transpose of gradw's
# dot_general(dC, A) into dot(A, dC), another order: Note [XLA dot order]).
EAGER = {"gradw"}


def fill(cls, sh):
    """Completes the operand shapes left open (None) so that the product is well-formed."""
    a, b = sh
    if cls == "mv":
        b = (a[1],)
    elif cls == "vm":
        b = (a[0], max(1, int(np.random.default_rng(a[0]).integers(1, 600))))
    elif cls == "small":
        b = (a[1], b[1])
    return a, b


def run(spmdrun, cases, seed):
    lines, want = [], []
    for i, (cls, (sa, sb), expr, jf) in enumerate(cases):
        ka, kb = seed * 1000 + 2 * i, seed * 1000 + 2 * i + 1
        a = jax.random.uniform(jax.random.key(ka), sa, jnp.float32, -1.0, 1.0)
        b = jax.random.uniform(jax.random.key(kb), sb, jnp.float32, -1.0, 1.0)
        want.append(np.asarray((jf if cls in EAGER else jax.jit(jf))(a, b)).reshape(-1))
        lines.append(f"let a = uniform(key({ka}), {list(sa)}, -1.0, 1.0)")
        lines.append(f"let b = uniform(key({kb}), {list(sb)}, -1.0, 1.0)")
        lines.append(f"let p = reshape({expr}, [-1]) * {SCALE}")
        n = want[-1].size
        for s in range(0, n, CHUNK):
            lines.append(f"print(p[{s}:{min(n, s + CHUNK)}])")
        if n == 0:
            lines.append("print(p)")
    with tempfile.NamedTemporaryFile("w", suffix=".spmd", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        path = f.name
    try:
        out = subprocess.run([spmdrun, "--devices", "cpu:1", path], capture_output=True,
                             text=True, timeout=1200)
    finally:
        os.unlink(path)
    if out.returncode != 0:
        sys.exit(f"spmdrun failed ({out.returncode}):\n{out.stderr[-3000:]}")
    toks = out.stdout.replace("[", " ").replace("]", " ").split()
    got = np.array([np.float32(float(t)) for t in toks], np.float32) / np.float32(SCALE)
    res, pos = [], 0
    for w in want:
        g = got[pos:pos + w.size]
        pos += w.size
        wb, gb = w.view(np.int32).astype(np.int64), g.view(np.int32).astype(np.int64)
        diff = wb != gb
        ulp = int(np.max(np.abs(wb - gb))) if diff.any() else 0
        res.append((int(diff.sum()), w.size, ulp))
    assert pos == got.size, (pos, got.size)
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("spmdrun")
    ap.add_argument("--per-class", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--classes", default=",".join(CLASSES))
    ap.add_argument("--show", action="store_true")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    total = [0, 0]
    for cls in args.classes.split(","):
        cases = []
        for _ in range(args.per_class):
            sh, expr, jf = shapes(cls, rng)
            cases.append((cls, fill(cls, sh), expr, jf))
        res = run(args.spmdrun, cases, args.seed)
        ok = sum(1 for d, _, _ in res if d == 0)
        total[0] += ok
        total[1] += len(res)
        print(f"{cls:6s} {ok:3d} / {len(res)} shapes bit-identical", flush=True)
        if args.show:
            for (c, (sa, sb), expr, _), (d, n, ulp) in zip(cases, res):
                if d:
                    print(f"    {sa} x {sb} ({expr}): {d} / {n} differ, max {ulp} ulp")
    print(f"total  {total[0]:3d} / {total[1]}")


if __name__ == "__main__":
    main()
