#!/usr/bin/env python3
"""Writes the expected output (random_*.out) of the random-number golden tests with JAX
itself (jax.random on CPU, x64 off, JAX's default threefry_partitionable mode), mirroring
each random_*.spmd line by line. Every value comes from JAX and is printed by NumPy, never
from spmdrun. `pip install jax && python3 tests/golden/gen_random_golden.py`.

It also checks that the tests can fail where it matters: the uniform test must contain
values whose printed form differs when f * (hi - lo) + lo is rounded twice instead of
once (XLA's fused multiply-add, docs/prng.md)."""
import os

import jax
import jax.numpy as jnp
import numpy as np
from jax import random as R

HERE = os.path.dirname(os.path.abspath(__file__))
assert not jax.config.jax_enable_x64 and jax.config.jax_threefry_partitionable
f32 = np.float32


def fmt(v):
    """As spmdrun prints a value: NumPy's str(np.asarray(x)); tuples as (a, b)."""
    if isinstance(v, tuple):
        return "(" + ", ".join(fmt(e) for e in v) + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, str):
        return v
    return str(np.asarray(v))


class Out:
    def __init__(self):
        self.lines = []

    def __call__(self, *vs):
        self.lines.append(" ".join(fmt(v) for v in vs))


def kd(k):
    return R.key_data(k)


def uniform(k, shape, lo=0.0, hi=1.0):
    return R.uniform(k, tuple(shape), jnp.float32, lo, hi)


def uniform_unfused(k, shape, lo, hi):
    """uniform with the multiply and add rounded separately (what spmdrun must NOT do)."""
    bits = np.asarray(R.bits(k, tuple(shape), jnp.uint32))
    f = ((bits >> np.uint32(9)) | np.uint32(0x3F800000)).view(f32) - f32(1)
    lo, hi = f32(lo), f32(hi)
    return np.maximum(lo, (f * (hi - lo)).astype(f32) + lo)


def random_keys(p):
    p(kd(R.key(0)), kd(R.key(42)))
    p(kd(R.key(2147483653)), kd(R.key(-7)), kd(R.key(-1)))
    p(kd(R.split(R.key(0), 2)))
    p(kd(R.split(R.key(42))))
    ks = R.split(R.key(2147483653), 5)
    p(kd(ks))
    p(kd(R.split(ks[3], 3)))
    p(kd(R.fold_in(R.key(0), 1)), kd(R.fold_in(R.key(42), 123456)))
    p(kd(R.fold_in(ks[1], 2147483647)))
    p(kd(R.fold_in(R.fold_in(R.key(-7), 3), 4)))
    p(uniform(R.key(0), [3]))


UNIFORM_CASES = [  # (seed, shape, lo, hi), in random_uniform.spmd's order
    (42, [5], -1.0, 1.0),
    (42, [2, 3], 0.5, 3.7),
    (-7, [5], 0.5, 3.7),
    (2147483653, [2, 3], -1.0, 1.0),
    (3, [], -3.0, 5.0),
    (1, [1000], 0.5, 3.7),
    (2, [1000], -1.0, 1.0),
]


def random_uniform(p):
    p(uniform(R.key(0), [3]))
    p(uniform(R.key(0), [2, 3]))
    changed = 0
    for seed, shape, lo, hi in UNIFORM_CASES:
        u = uniform(R.key(seed), shape, lo, hi)
        p(u)
        unf = uniform_unfused(R.key(seed), shape, lo, hi)
        changed += int(np.sum(np.asarray(u) != unf))
        if fmt(u) != fmt(unf):
            print(f"  uniform{(seed, shape, lo, hi)}: rounding twice changes the printed output")
    assert changed > 100, "the uniform cases must exercise the fused multiply-add"


NORMAL_PRINTED = [(0, [5]), (42, [2, 3])]       # bit-identical to JAX: printed
NORMAL_EXACT = [(0, [400]), (42, [400]), (-7, [400]), (2, [400]), (123, [3000])]


def random_normal(p):
    for seed, shape in NORMAL_PRINTED:
        p(R.normal(R.key(seed), tuple(shape)))
    for seed, shape in NORMAL_EXACT:
        v = np.asarray(R.normal(R.key(seed), tuple(shape)))
        p(v.shape, "ok")


def write_normal_spmd():
    """random_normal.spmd holds JAX's normal values as literals, compared exactly."""
    lines = ["# devices: cpu:4",
             "# normal: bit-identical to jax.random.normal (docs/prng.md): printed, and compared",
             "# exactly (rtol=0, atol=0). The literals and random_normal.out are JAX's values,",
             "# written by gen_random_golden.py (do not edit by hand)."]
    for seed, shape in NORMAL_PRINTED:
        lines.append(f"print(normal(key({seed}), {list(shape)}))")
    for seed, shape in NORMAL_EXACT:
        v = np.asarray(R.normal(R.key(seed), tuple(shape))).ravel()
        lits = ", ".join(str(np.float32(x)) for x in v)  # shortest round-trip f32
        lines.append(f"let n{seed if seed >= 0 else 'm' + str(-seed)} = normal(key({seed}), {list(shape)})")
        name = lines[-1].split()[1]
        lines.append(f"assert_close({name}, [{lits}], rtol=0.0, atol=0.0)")
        lines.append(f'print(shape({name}), "ok")')
    with open(os.path.join(HERE, "random_normal.spmd"), "w") as f:
        f.write("\n".join(lines) + "\n")


def random_discrete(p):
    p(R.bernoulli(R.key(3), 0.3, (20,)))
    p(R.bernoulli(R.key(0), 0.5, (2, 5)))
    p(R.bernoulli(R.key(42), 0.9, (12,)))
    p(R.randint(R.key(1), (10,), 0, 10))
    p(R.randint(R.key(2), (2, 5), -5, 100))
    p(R.randint(R.key(42), (8,), 0, 1000000007))
    p(R.randint(R.key(-7), (6,), -2147483647, 2147483647))


def random_maps(p):
    ks = R.split(R.key(0), 4)
    p(jnp.stack([uniform(k, [3]) for k in ks]))            # pmap: one key per device
    p(jnp.stack([uniform(k, [2], 0.5, 3.7) for k in ks]))
    p(jax.vmap(lambda k: uniform(k, [3], -1.0, 1.0))(ks))  # vmap over keys
    p(jax.vmap(lambda k: R.randint(k, (3,), 0, 10))(ks))
    p(jax.vmap(lambda k: R.bernoulli(k, 0.5, (4,)))(ks))
    p(jnp.stack([uniform(R.fold_in(k, i), [2], 0.5, 3.7) for i, k in enumerate(ks)]))
    p(kd(jnp.stack([R.split(k, 2) for k in ks])))
    acc = np.zeros(4, f32)
    for t in range(5):
        u = np.asarray(uniform(R.fold_in(R.key(9), t), [4], 0.5, 3.7))
        p(u)
        acc = acc + u
    p(acc)
    rows = []
    for k in ks:
        s = np.zeros(2, f32)
        for t in range(3):
            s = s + np.asarray(uniform(R.fold_in(k, t), [2], -1.0, 1.0))
        rows.append(s)
    p(np.stack(rows))


def random_bounds(p):
    k = R.key(7)
    lo = jnp.arange(4.0) - 1.0
    hi = lo * 3.0 + 2.0
    p(R.uniform(k, (4,), minval=lo, maxval=hi))
    p(R.uniform(k, (3, 4), minval=lo, maxval=10.0))
    p(R.uniform(k, (2, 4), minval=-1.0, maxval=hi))
    p(R.uniform(k, (3,), minval=lo[1], maxval=hi[2]))
    ilo = jnp.arange(5) * 100 - 200
    ihi = jnp.arange(5) * 1000 + 7
    p(R.randint(k, (5,), ilo, ihi))
    p(R.randint(k, (3, 5), ilo, 1000))
    p(R.randint(k, (5,), 3, ilo))
    p(R.randint(k, (2, 5), -2147483648, ihi * 2147483))
    p(R.randint(k, (4,), lo, hi))
    k3 = R.key(3)
    l4 = jnp.arange(4.0)
    p(jax.vmap(lambda l: R.uniform(k3, (2,), minval=l, maxval=5.0))(l4))
    p(jax.pmap(lambda l: R.randint(k3, (3,), l.astype(jnp.int32), 10))(l4)
      if jax.device_count() >= 4 else
      jax.vmap(lambda l: R.randint(k3, (3,), l.astype(jnp.int32), 10))(l4))
    ks = R.split(k3, 4)
    p(jax.vmap(lambda kk, l: R.uniform(kk, (), minval=l, maxval=l + 1.0))(ks, l4))


def write_log_exact():
    """log_exact.spmd: the language's log and log1p (XLA's algorithms on CPU, the ones
    inside normal()) against jnp.log and jnp.log1p, exactly; the edges printed. Writes
    the .spmd and its .out."""
    rng = np.random.default_rng(5)
    xs = np.concatenate([rng.uniform(0.001, 5, 300), np.exp(rng.uniform(-80, 80, 200)),
                         rng.uniform(0.5, 2, 200)]).astype(f32)
    ys = np.concatenate([rng.uniform(-0.9, 3, 300), rng.uniform(-0.45, 0.45, 200)]).astype(f32)
    lit = lambda a: "[" + ", ".join(str(f32(x)) for x in a) + "]"
    edges = [0.0, -0.0, -1.0, 1.0, 3e38, 1e-40, 0.70710677, 0.41421357]
    lines = ["# log and log1p are bit for bit JAX's on CPU (jnp.log, jnp.log1p; denormal",
             "# inputs flushed as XLA does). Written by gen_random_golden.py from JAX (do",
             "# not edit by hand).",
             f"let x = {lit(xs)}", f"let y = {lit(ys)}"]
    out = []
    for fn, arg, want in [("log", "x", jnp.log(xs)), ("log1p", "y", jnp.log1p(ys))]:
        lines.append(f"assert_close({fn}({arg}), {lit(np.asarray(want))}, rtol=0.0, atol=0.0)")
    lines.append('print("exact")')
    out.append("exact")
    e = np.array(edges, f32)
    lines.append(f"let e = {lit(e)}")
    lines.append("print(log(e), log(e * 10.0))")
    lines.append("print(log1p(e - 1.0))")
    out.append(str(np.asarray(jnp.log(e))) + " " + str(np.asarray(jnp.log(e * f32(10)))))
    out.append(str(np.asarray(jnp.log1p(e - f32(1)))))
    with open(os.path.join(HERE, "log_exact.spmd"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(HERE, "log_exact.out"), "w") as f:
        f.write("\n".join(out) + "\n")
    print("wrote log_exact.spmd and log_exact.out")


def main():
    write_log_exact()
    write_normal_spmd()
    for name in ["random_keys", "random_uniform", "random_normal", "random_discrete", "random_maps",
                 "random_bounds"]:
        p = Out()
        globals()[name](p)
        with open(os.path.join(HERE, name + ".out"), "w") as f:
            f.write("\n".join(p.lines) + "\n")
        print("wrote", name + ".out")


if __name__ == "__main__":
    main()
