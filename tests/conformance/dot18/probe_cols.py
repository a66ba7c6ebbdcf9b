"""dot18 dev tool: per column block, which k slice lengths fit (probe_split's model).

    /tmp/jaxenv/bin/python probe_cols.py 48x415x221"""
import sys
import numpy as np
import jax
import jax.numpy as jnp
from probe_split import split_model, choose

for s in sys.argv[1:]:
    M, K, N = map(int, s.split("x"))
    a = jax.random.uniform(jax.random.key(1), (M, K), jnp.float32, -1, 1)
    b = jax.random.uniform(jax.random.key(2), (K, N), jnp.float32, -1, 1)
    w = np.asarray(jax.jit(lambda a, b: a @ b)(a, b))
    A, B = np.asarray(a), np.asarray(b)
    o = choose(M, N, K)[0][4]
    tk = {"1": 1, "p": 2, "4": 4}[o]
    fit = {}
    for L in range(tk, K + tk, tk):
        g = split_model(A, B, L, o)
        ok = (g.view(np.int32) == w.view(np.int32)).all(axis=0)
        for j in np.nonzero(ok)[0]:
            fit.setdefault(int(j), []).append(L)
    # group columns with the same fitting set
    runs = []
    for j in range(N):
        f = fit.get(j, [])
        key = (min(f), max(f)) if f else None
        if runs and runs[-1][2] == key:
            runs[-1][1] = j
        else:
            runs.append([j, j, key])
    print(s, o, [(r[0], r[1], r[2]) for r in runs])
