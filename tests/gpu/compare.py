#!/usr/bin/env python3
"""compare.py GOT WANT: whether two program outputs agree, as the GPU test needs it.

Texts that are equal agree. Otherwise they are split into tokens: words, punctuation and
integers must be equal; floating-point numbers (a '.', 'e', 'inf' or 'nan' in them) may
differ by the documented tolerance of GPU floats against CPU floats (docs/gpu.md): a
relative difference of 1e-4 or an absolute one of 1e-5 (sums reduced in another order,
cuBLAS products). Exit 0 when they agree, 1 with the first difference otherwise.
"""
import math
import re
import sys

TOKEN = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?inf|nan|\S")
RTOL, ATOL = 1e-4, 1e-5


def is_float(t):
    return any(c in t for c in ".eEn") and t not in ("e", "E", "n")


def close(a, b):
    x, y = float(a), float(b)
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if math.isinf(x) or math.isinf(y):
        return x == y
    return abs(x - y) <= ATOL + RTOL * abs(y)


def main():
    got, want = (open(p).read() for p in sys.argv[1:3])
    if got == want:
        return 0
    g, w = TOKEN.findall(got), TOKEN.findall(want)
    if len(g) != len(w):
        print(f"different token counts ({len(g)} vs {len(w)})")
        return 1
    for k, (a, b) in enumerate(zip(g, w)):
        if a == b:
            continue
        if is_float(a) and is_float(b) and re.match(r"[-+0-9.in]", a) and close(a, b):
            continue
        print(f"token {k}: {a!r} vs {b!r}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
