#!/usr/bin/env python3
"""Computes the expected output (NAME.out) of the golden run tests independently of
spmdrun, with NumPy in float32/int32, mirroring each NAME.spmd line by line. Run it from
anywhere: `python3 tests/golden/gen_golden.py` rewrites the .out files it knows."""
import os
import numpy as np

f32, i32, u32 = np.float32, np.int32, np.uint32
HERE = os.path.dirname(os.path.abspath(__file__))


def fmt(v):
    """As spmdrun prints a value: arrays as NumPy's str(np.asarray(x)), tuples as (a, b),
    static Python values as Python prints them."""
    if isinstance(v, tuple):
        return "(" + ", ".join(fmt(e) for e in v) + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, np.ndarray) or isinstance(v, np.generic):
        return str(np.asarray(v))
    return str(v)


class Out:
    def __init__(self):
        self.lines = []

    def __call__(self, *vs):
        self.lines.append(" ".join(fmt(v) for v in vs))


def ar(*a, dtype=None):
    """arange with spmdrun's dtype rule: f32 when any bound is a float."""
    if dtype is None:
        dtype = f32 if any(isinstance(x, float) for x in a) else i32
    return np.arange(*a).astype(dtype)


def indexing(p):
    x = ar(10)
    p(x[-1], x[2:5], x[:-2], x[::2])
    p(x[::-1], x[7:2:-2], x[-3:], x[100:])
    m = ar(12.0).reshape(3, 4)
    p(m[:, 0])
    p(m[1])
    p(m[-1, 1:3])
    p(m[::-1, ::2])
    p(m[1:, -1])
    i = np.argmax(m.sum(axis=1)).astype(i32)
    p(m[i], x[i], x[i - 5])
    y = x.copy(); y[3] = 100; p(y)
    n = m.copy(); n[1, 2] = -1.0; p(n)
    n = m.copy(); n[i] = 0; p(n)


def reductions(p):
    m = ar(24.0).reshape(2, 3, 4)
    p(m.sum())
    p(m.sum(axis=1))
    p(m.mean(axis=(0, 2)))
    p(m.max(axis=-1, keepdims=True))
    p(m.min(axis=0))
    p(np.prod(ar(1.0, 6.0)), np.prod(ar(1, 6)).astype(i32))
    p(np.argmax(m, axis=2).astype(i32), np.argmin(-m[0], axis=0).astype(i32))
    p(np.all(ar(3) > 0), np.any(ar(3) > 1), np.all(ar(1, 4) > 0, axis=0))
    p(np.ones((2, 3), bool).sum(axis=1).astype(i32), m.sum(axis=(0, 1), keepdims=True))
    p((1, 3, 4), f32(ar(4).mean()))


def elementwise(p):
    x = np.linspace(-2.0, 2.0, 5).astype(f32)
    p(np.where(x > 0, x, f32(0)))
    p(np.where(ar(4) % 2 == 0, 1, -1).astype(i32))
    p(np.clip(x, f32(-1), f32(0.5)), np.clip(ar(6), 1, 3).astype(i32))
    p(np.eye(3, dtype=f32)[[0, 2, 1]])
    p(np.eye(3, dtype=f32)[ar(4) % 3])
    p(np.maximum(x, f32(0.5)), np.minimum(ar(4), 2).astype(i32))
    p(np.abs(x), np.sign(x), np.floor(x / f32(3)), np.ceil(x / f32(3)))
    p(np.round(x / f32(4)), np.maximum(x, f32(0)))
    p(x.astype(i32), ar(3).astype(f32) / f32(2), ar(3).astype(bool), ar(3).astype(u32) + u32(1))
    p(ar(-5, 5) // 3, ar(-5, 5) % 3, -7.5 // 2.0)
    p((2 ** ar(5)).astype(i32), ar(4.0) ** 2, (ar(4) & 1) | 4, ~ar(3))


def matmul(p):
    a = ar(6.0).reshape(2, 3)
    b = ar(12.0).reshape(3, 4)
    v = ar(3.0)
    p(v @ b)
    p(a @ v)
    p(a @ b)
    t = ar(24.0).reshape(2, 3, 4)
    u = ar(8.0).reshape(2, 4, 1)
    p(t @ u)
    p((t @ u).shape, t @ ar(4.0))
    p(t @ ar(8.0).reshape(4, 2))
    p(np.dot(v, v), np.dot(a, b))
    p(ar(3) @ ar(6).reshape(3, 2))


def static_print(p):
    p((8, 2, 4), 8, (10000,), (1, 2.5, True), [1, 2])
    p(1.5, 2.0, 1e-3, 1e20, 0.1 + 0.2, 7 / 2, 10 // 3, -7 % 3, 2 ** 40)
    p("n =", 8, "devices:", 4)
    p(())
    p(f32(3), i32(2), i32(6), ar(3.0) / f32(3))
    p(True, (ar(3), 1.5))
    p([(j, (j + 1) % 4) for j in range(4)])


def loops_if(p):
    s = np.zeros(3, f32); k = 0
    for t in range(10):
        s = s + f32(t) * ar(3.0); k += t
    p(s, i32(k))
    fib = (0, 1)
    for _ in range(10):
        fib = (fib[1], fib[0] + fib[1])
    p(tuple(i32(x) for x in fib))
    p(i32(sum(a * b for a in range(3) for b in range(1, 4))))
    p(f32(10.0) if ar(5).sum() > 8 else f32(0.0))
    q = ar(3)
    p(q * 2 if q.sum() > 100 else q + 1)
    p(i32(sum(t for t in range(10) if t % 2 == 0)))
    p(24.0)  # a loop over a static list is unrolled at compile time: a static float


def collectives(p):
    xs = ar(8.0).reshape(4, 2)
    n = 4
    p(np.stack([xs.sum(0)] * n))
    p(np.stack([xs.mean(0)] * n))
    p(np.stack([xs.max(0) - xs.min(0)] * n))
    p(np.stack([xs] * n))
    p(np.stack([xs.reshape(-1)] * n))
    perm = [(j, (j + 1) % 4) for j in range(4)]
    out = np.zeros_like(xs)
    for s, d in perm:
        out[d] = xs[s]
    p(out)
    out = np.zeros_like(xs)
    for s, d in [(0, 1), (1, 2)]:
        out[d] = xs[s]
    p(out)
    m = ar(16.0).reshape(4, 4)
    p(m.T)
    m = ar(32.0).reshape(4, 8)
    p(m.sum(0).reshape(4, 2))
    m = ar(16.0).reshape(4, 4)
    p(m.sum(0))
    p((ar(4) * 10 + xs[:, 0].astype(i32)).astype(i32))
    p(xs / xs.sum())
    p(xs * f32(2))
    u = ar(8.0).reshape(2, 2, 2)
    w = f32(100)
    res = np.zeros_like(u)
    for r in range(2):
        for c in range(2):
            res[r, c] = u[:, c].sum(0) + w * u[r, :].sum(0) + u.sum((0, 1))
    p(res)
    p(xs - xs.mean(0))


def shapes(p):
    x = ar(6)
    p(x.reshape(2, -1), x.reshape(-1))
    m = ar(24).reshape(2, 3, 4)
    p(m.T.shape, m.transpose(1, 0, 2).shape, m.transpose(2, 0, 1)[1])
    p(np.concatenate([x, x * 10]), np.concatenate([x.reshape(2, 3), np.ones((2, 1), i32)], axis=1))
    p(np.stack([x, -x]), np.stack([x, -x], axis=1)[4])
    p((1, 6), (6, 1), np.ones((1, 3, 1), f32).squeeze(0))
    p(np.broadcast_to(ar(3.0), (2, 3)), x.reshape(3, 2).ravel())
    p(np.eye(3, dtype=f32), np.full((2, 2), 7, i32), np.full((2,), 1.5, f32), np.linspace(0, 1, 4).astype(f32))
    p(np.zeros(2, bool), np.ones(2, u32), ar(2.0, 3.0, 0.25), ar(5, 0, -2))
    v = ar(8.0).reshape(4, 2)
    p((v * 2).T, v.sum(1))  # a stacked along 1, b (a scalar per replica) along 0
    r = ar(6.0).reshape(2, 3)
    p(r[0] - r[1])


def pmap_loop_grad(p):
    s = ar(4.0)
    for t in range(3):
        s = np.full(4, s.sum() / f32(4) + f32(t), f32)
    p(s)
    p((3.0, ar(2.0) + f32(1)))
    w, x = ar(3.0), f32(2.0)
    p(np.sum((w * x) ** 2), 2 * w * x * x)    # d/dw sum((w x)^2) = 2 w x^2
    p((2 * w * x * x, np.sum(2 * w * w * x)))  # d/dx = sum(2 w^2 x)


def main():
    for name, fn in [("indexing", indexing), ("reductions", reductions), ("elementwise", elementwise),
                     ("matmul", matmul), ("static_print", static_print), ("loops_if", loops_if),
                     ("collectives", collectives), ("shapes", shapes),
                     ("pmap_loop_grad", pmap_loop_grad)]:
        out = Out()
        fn(out)
        with open(os.path.join(HERE, name + ".out"), "w") as f:
            f.write("\n".join(out.lines) + "\n")


if __name__ == "__main__":
    main()
