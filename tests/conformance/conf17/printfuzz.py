#!/usr/bin/env python3
"""conf17: random arrays printed by spmdrun against NumPy's str() of the same array (what
JAX prints). 400 f32 vectors mixing scales 1e-15..1e15, integers, nan, +-inf and -0.0;
200 2-D arrays of i32, u32, bool and f32 of several widths (line wrapping).

    /tmp/jaxenv/bin/python tests/conformance/conf17/printfuzz.py build/spmdrun [SEED]

Prints the number of differing lines (0 on 2026-12-02, seeds 7, 9 and 11) and the diff."""
import numpy as np, random, subprocess, sys, tempfile, os

def vectors(rng, S, E):
    S.append('let inf = f32(1.0) / 0.0\nlet nan = inf - inf')
    for _ in range(400):
        n = rng.choice([1, 2, 3, 5, 8, 12])
        scale = 10.0 ** rng.randint(-12, 12)
        vals = []
        for _ in range(n):
            r = rng.random()
            if r < 0.1: vals.append(rng.choice(['nan', 'inf', '-inf', '-0.0', '0.0']))
            elif r < 0.3: vals.append(repr(float(np.float32(rng.randint(-1000, 1000)))))
            else: vals.append(repr(float(np.float32(rng.uniform(-1, 1) * scale * 10.0 ** rng.randint(-3, 3)))))
        ex = lambda v: v if v in ('nan', 'inf', '-inf') else f'f32({v})'
        S.append('print(stack([' + ', '.join(ex(v) for v in vals) + ']))')
        E.append(str(np.array([float(v) for v in vals], dtype=np.float32)))

def matrices(rng, S, E):
    for _ in range(200):
        r, c = rng.choice([(1, 1), (2, 3), (3, 7), (4, 11), (2, 20), (1, 30), (5, 1)])
        kind = rng.choice(['i32', 'u32', 'f32', 'bool'])
        if kind == 'i32':
            b = 2 ** rng.randint(1, 31)
            a = np.array([rng.randint(-b, b - 1) for _ in range(r * c)], np.int32)
            src = f'i32({a.tolist()})'
        elif kind == 'u32':
            b = 2 ** rng.randint(1, 32)
            a = np.array([rng.randint(0, b - 1) for _ in range(r * c)], np.uint32)
            src = f'u32({a.tolist()})'
        elif kind == 'bool':
            a = np.array([rng.random() < 0.5 for _ in range(r * c)])
            src = str([bool(x) for x in a]).replace('True', 'true').replace('False', 'false')
        else:
            sc = 10.0 ** rng.randint(-6, 9)
            a = (np.array([rng.uniform(-1, 1) for _ in range(r * c)]) * sc).astype(np.float32)
            src = 'f32([' + ', '.join(f'f32({float(x)!r})' for x in a) + '])'
        S.append(f'print(reshape({src}, [{r}, {c}]))')
        E.append(str(a.reshape(r, c)))

def main():
    spmdrun = os.path.abspath(sys.argv[1])
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    rng = random.Random(seed)
    S, E = [], []
    vectors(rng, S, E)
    matrices(rng, S, E)
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, 'printfuzz.spmd')
        open(p, 'w').write('\n'.join(S) + '\n')
        got = subprocess.run([spmdrun, p], capture_output=True, text=True).stdout.splitlines()
    want = '\n'.join(E).splitlines()
    bad = [(g, w) for g, w in zip(got, want) if g != w] + [('', '(missing lines)')] * (len(got) != len(want))
    print(len(bad), 'differing lines of', len(want))
    for g, w in bad[:20]: print('spmdrun:', g, '\nnumpy:  ', w)
    sys.exit(1 if bad else 0)

main()
