#!/usr/bin/env python3
"""Writes data/format_golden.txt: what NumPy prints for many arrays.

The C++ test (test_format.cpp) checks spmd::rt::formatArray against it byte for
byte; it needs no NumPy at run time. Re-run this only to add cases:

    python3 tests/unit/runtime/gen_format_golden.py

File format, one block per case:

    case <name>
    dtype <code>          # runtime/spmdrt.h: 0 bool, 1 i32, 2 u32, 3 f32, 4 f64, 5 key
    shape <rank> <d0> <d1> ...
    data <hex of the raw little-endian bytes, row-major; may be empty>
    expect <number of lines>
    <that many lines of str(np.asarray(x))>
"""
import os
import struct

import numpy as np

DTYPES = {0: np.bool_, 1: np.int32, 2: np.uint32, 3: np.float32, 4: np.float64}
F32, F64 = 3, 4

cases = []


def add(name, arr, code):
    """One case: `arr` converted to the dtype of `code` (key: uint32 [..., 2])."""
    with np.errstate(over="ignore"):  # 1e300 and friends become inf in float32
        _add(name, arr, code)


def _add(name, arr, code):
    if code == 5:
        a = np.ascontiguousarray(arr, dtype=np.uint32)
        assert a.shape[-1] == 2
        shape = a.shape[:-1]
    else:
        a = np.ascontiguousarray(arr, dtype=DTYPES[code])
        shape = a.shape
    text = str(a)
    cases.append((name, code, shape, a.tobytes().hex(), text))


def f32_from_bits(bits):
    return np.array(bits, dtype=np.uint32).view(np.float32)


def f64_from_bits(bits):
    return np.array(bits, dtype=np.uint64).view(np.float64)


rng = np.random.default_rng(20240611)
nan, inf = float("nan"), float("inf")

# ---- rank-0 scalars -------------------------------------------------------------
scalar_values = [0.0, -0.0, 1.0, -1.0, 0.1, 0.5, 6.0, 1 / 3, 2 / 3, 1e-5, 1e-4, 1e-3,
                 1e20, 1e16, 1.5e16, 1e15, 1e6, 999999.0, 999999.94, 100000.0,
                 123456.789, 3.14159265358979, -2.5, 1e-38, 1e-45, 3.4e38, 1e-300,
                 1.7976931348623157e308, 5e-324, nan, -nan, inf, -inf, 2.0 ** -9,
                 2.0 ** 24, 2.0 ** 60, 0.3, 1.1, 9.999999e-5, 65504.0, 1e8, 1e7,
                 12345678.9, 0.000123, 7e-10, 4.0, 1e-7]
for i, v in enumerate(scalar_values):
    add(f"f32 scalar {i} ({v!r})", np.array(v), F32)
    add(f"f64 scalar {i} ({v!r})", np.array(v), F64)
for v in [np.nextafter(np.float32(1e-4), np.float32(1)), np.nextafter(np.float32(1e-4), np.float32(0)),
          np.nextafter(np.float32(1e6), np.float32(0))]:
    add(f"f32 scalar boundary {v!r}", v, F32)
add("f64 scalar just below 1e16", np.nextafter(1e16, 0), F64)
add("f64 scalar just below 1e-4", np.nextafter(1e-4, 0), F64)
for i, b in enumerate(rng.integers(0, 2 ** 32, 40, dtype=np.uint64)):
    v = f32_from_bits([b])[0]
    add(f"f32 scalar random bits {i}", v, F32)
for i, b in enumerate(rng.integers(0, 2 ** 63, 20, dtype=np.uint64)):
    v = f64_from_bits([b])[0]
    add(f"f64 scalar random bits {i}", v, F64)
for i, v in enumerate(rng.standard_normal(15)):
    add(f"f32 scalar normal {i}", np.float32(v * 10.0 ** rng.integers(-6, 8)), F32)
for v in [0, 3, -3, 2 ** 31 - 1, -2 ** 31, 42]:
    add(f"i32 scalar {v}", np.int32(v), 1)
for v in [0, 7, 2 ** 32 - 1]:
    add(f"u32 scalar {v}", np.uint32(v), 2)
add("bool scalar True", np.bool_(True), 0)
add("bool scalar False", np.bool_(False), 0)
add("key scalar", np.array([0, 42], dtype=np.uint32), 5)

# ---- 1-d float arrays -------------------------------------------------------------
hand = {
    "arange/6": np.arange(4) / 6,
    "ones": [1.0, 1.0],
    "half": [0.0, 0.5, 2.0],
    "neg and pos": [-1.0, 2.0],
    "single": [3.5],
    "zeros": [0.0, 0.0, 0.0],
    "neg zero": [-0.0, 0.0, 1.0],
    "only neg zero": [-0.0],
    "tenth": [0.1, 0.2, 0.3],
    "third": [1 / 3, 2 / 3, 1.0],
    "tiny": [1e-5, 2e-5, 3e-5],
    "tiny mixed": [1e-5, 1.0],
    "huge": [1e20, 2e20],
    "huge mixed": [1e20, 1.0, -3.0],
    "ratio just 1000": [1.0, 1000.0],
    "ratio above 1000": [1.0, 1000.5],
    "ratio 1001": [1.0, 1001.0],
    "min 1e-4": [1e-4, 0.5],
    "below 1e-4": [9.9e-5, 0.5],
    "cutoff 1e6": [1e6],
    "below 1e6": [999999.0, 1.0],
    "1e8": [1e8, 1.0],
    "just below 1e8": [99999999.0],
    "nan only": [nan],
    "inf only": [inf],
    "neg inf only": [-inf],
    "nan inf": [nan, inf],
    "nan neg inf": [nan, -inf],
    "nan and numbers": [nan, 1.0, 2.5],
    "inf and numbers": [inf, 1.0, 2.5],
    "neg inf and numbers": [-inf, 1.0, 2.5],
    "neg inf and small": [-inf, 0.5],
    "nan with sci": [nan, 1e-10, 1.0],
    "inf with sci": [inf, -inf, 1e10, 1e-3],
    "nan wide": [nan, 123.456, -7.25],
    "integers": [0.0, 1.0, 4.0, 9.0, 16.0, 25.0, 36.0],
    "negative integers": [-1.0, -10.0, -100.0],
    "powers of two": [2.0 ** k for k in range(-8, 9)],
    "k/512": [k / 512 for k in range(1, 8)],
    "rounding to 8": [0.123456789, 0.987654321],
    "rounding carry": [0.999999999, 1.5],
    "half ties": [0.125, 0.375, 0.625],
    "1e-8 step": [1.0, 1.00000001],
    "sci exponent 3 digits": [1e-100, 1e100],
    "sci negative": [-1e-7, 2e-7],
    "sci precision": [1.0000001e-10, 1.23456789e-10],
    "sci mix int": [1e10, 2.0],
    "denormal": [1e-40, 1e-44],
    "max": [3.4028235e38, -3.4028235e38],
    "pi e": [np.pi, np.e],
    "money": [19.99, 5.0, 0.01],
}
for name, vals in hand.items():
    for code in (F32, F64):
        add(f"{'f32' if code == F32 else 'f64'} 1d {name}", np.array(vals, dtype=np.float64), code)

scales = [1e-12, 1e-6, 1e-4, 1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6, 1e7, 1e9, 1e15]
for code in (F32, F64):
    tag = "f32" if code == F32 else "f64"
    for s in scales:
        for n in (3, 10):
            add(f"{tag} 1d normal*{s} n={n}", rng.standard_normal(n) * s, code)
        add(f"{tag} 1d uniform*{s}", rng.uniform(0, s, 6), code)
    for n in (20, 30, 75, 100, 150):
        add(f"{tag} 1d long row n={n}", rng.standard_normal(n), code)
    add(f"{tag} 1d long sci row", rng.standard_normal(40) * 1e-6, code)
    add(f"{tag} 1d arange 50", np.arange(50.0), code)
    add(f"{tag} 1d linspace", np.linspace(-1, 1, 21), code)
    add(f"{tag} 1d wide magnitudes", 10.0 ** np.arange(-10, 11), code)
for i in range(12):
    bits = rng.integers(0, 2 ** 32, 5, dtype=np.uint64)
    vals = f32_from_bits(bits)
    add(f"f32 1d random bits {i}", vals, F32)
for i in range(6):
    bits = rng.integers(0, 2 ** 63, 4, dtype=np.uint64)
    add(f"f64 1d random bits {i}", f64_from_bits(bits), F64)
for i in range(8):
    # Powers of two beside other values exercise Dragon4's unequal margins.
    e = rng.integers(-40, 40, 4)
    vals = np.concatenate([2.0 ** e, rng.standard_normal(2) * 10.0 ** rng.integers(-5, 5)])
    add(f"f32 1d powers of two mix {i}", vals, F32)
    add(f"f64 1d powers of two mix {i}", vals, F64)

# ---- multi-dimensional ----------------------------------------------------------
for code in (F32, F64):
    tag = "f32" if code == F32 else "f64"
    add(f"{tag} 2d small", np.arange(4.0).reshape(2, 2), code)
    add(f"{tag} 2d 3x4 normal", rng.standard_normal((3, 4)), code)
    add(f"{tag} 2d wide rows", rng.standard_normal((3, 12)), code)
    add(f"{tag} 2d column", rng.standard_normal((5, 1)), code)
    add(f"{tag} 2d with nan", np.array([[1.0, nan], [-inf, 0.25]]), code)
    add(f"{tag} 3d", rng.standard_normal((2, 3, 4)), code)
    add(f"{tag} 3d wide", rng.standard_normal((2, 2, 15)) * 1e3, code)
    add(f"{tag} 4d", np.arange(24.0).reshape(2, 3, 2, 2) / 7, code)
    add(f"{tag} 2d 1x1", [[5.0]], code)
    add(f"{tag} 3d 1x1x1", [[[-0.5]]], code)
    add(f"{tag} summarised 1001", np.arange(1001.0), code)
    add(f"{tag} summarised 2000 normal", rng.standard_normal(2000), code)
    add(f"{tag} summarised widths", np.concatenate([[1.5, 2.0, 3.0], np.full(1000, 1e-9), [4.0, 5.0, 6.0]]), code)
    add(f"{tag} summarised nan inside", np.concatenate([[1.0], np.full(1000, nan), [2.0]]), code)
    add(f"{tag} summarised 2d 40x40", rng.standard_normal((40, 40)), code)
    add(f"{tag} summarised 2d 3x400", rng.standard_normal((3, 400)), code)
    add(f"{tag} summarised 2d 400x3", rng.standard_normal((400, 3)), code)
    add(f"{tag} summarised 3d 11x11x11", np.arange(1331.0).reshape(11, 11, 11), code)
    add(f"{tag} summarised 3d 2x2x300", rng.standard_normal((2, 2, 300)) * 100, code)
    add(f"{tag} summarised 2d 2x6x100", rng.standard_normal((2, 6, 100)), code)
    add(f"{tag} not summarised 1000", np.arange(1000.0) / 8, code)
    add(f"{tag} empty", np.zeros(0), code)
    add(f"{tag} empty 2d", np.zeros((2, 0)), code)

# ---- integers, booleans, keys ------------------------------------------------------
add("i32 squares", np.arange(7) ** 2, 1)
add("i32 negative", [-1, 2, -300], 1)
add("i32 extremes", [-2 ** 31, 2 ** 31 - 1, 0], 1)
add("i32 2d", np.arange(4).reshape(2, 2), 1)
add("i32 3d", np.arange(24).reshape(2, 3, 4) - 12, 1)
add("i32 long row", np.arange(100) * 37, 1)
add("i32 summarised", np.arange(2000), 1)
add("i32 summarised 2d", np.arange(2000).reshape(2, 1000), 1)
add("i32 summarised 3d", np.arange(3000).reshape(10, 10, 30) - 1500, 1)
add("i32 random", rng.integers(-2 ** 31, 2 ** 31, 30), 1)
add("i32 single", [5], 1)
add("i32 empty", np.zeros(0), 1)
add("u32 basic", [0, 1, 2 ** 32 - 1], 2)
add("u32 random", rng.integers(0, 2 ** 32, 40, dtype=np.uint64), 2)
add("u32 2d", np.arange(12).reshape(3, 4), 2)
add("u32 summarised", np.arange(1500), 2)
add("bool 1d", [True, False], 0)
add("bool all true", [True, True, True], 0)
add("bool 2d", [[True, False, True], [False, False, True]], 0)
add("bool long", rng.integers(0, 2, 60), 0)
add("bool summarised", rng.integers(0, 2, 1200), 0)
add("bool 3d", rng.integers(0, 2, (2, 2, 3)), 0)
add("key 1d", [[0, 42], [1, 7], [4294967295, 0]], 5)
add("key 2d", rng.integers(0, 2 ** 32, (2, 3, 2), dtype=np.uint64), 5)
add("key summarised", rng.integers(0, 2 ** 32, (600, 2), dtype=np.uint64), 5)

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "format_golden.txt")
os.makedirs(os.path.dirname(out), exist_ok=True)
with open(out, "w") as f:
    f.write(f"# Generated by gen_format_golden.py with NumPy {np.__version__}; do not edit.\n")
    for name, code, shape, hexdata, text in cases:
        lines = text.split("\n")
        f.write(f"case {name}\ndtype {code}\nshape {len(shape)}"
                + "".join(f" {d}" for d in shape) + "\n")
        f.write(f"data {hexdata}\nexpect {len(lines)}\n")
        f.write("".join(line + "\n" for line in lines))
print(f"wrote {len(cases)} cases to {out}")
