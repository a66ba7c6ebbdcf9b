"""dot18 dev tool: jax.jit(a.T @ b) (grad's dW; a [K, M], b [K, N]) on an AVX-512 host:
per band of columns, which one-chain k slice lengths fit (orders.py's chain, slices of L
added), and whether the whole product is one chain.

    /tmp/jaxenv/bin/python probe_tn.py 98x215x70 80x198x119 60x600x50 [eager]"""
import sys

import jax
import jax.numpy as jnp
import numpy as np
from nn_model import tile_sum

eager = "eager" in sys.argv
for s in [x for x in sys.argv[1:] if x != "eager"]:
    M, K, N = map(int, s.split("x"))
    a = jax.random.uniform(jax.random.key(1), (K, M), jnp.float32, -1, 1)
    b = jax.random.uniform(jax.random.key(2), (K, N), jnp.float32, -1, 1)
    f = lambda a, b: jax.lax.dot_general(a, b, (((0,), (0,)), ((), ())))  # noqa: E731
    w = np.asarray(f(a, b) if eager else jax.jit(f)(a, b))
    A, B = np.asarray(a).T.copy(), np.asarray(b)
    fits = {}
    for L in list(range(1, K + 1)):
        g = tile_sum(A, B, "1", L if L < K else 0)
        ok = (g.view(np.int32) == w.view(np.int32))
        for j in range(N):
            for i in range(M):
                if ok[i, j]:
                    fits.setdefault((i, j), []).append(L)
    whole = all(K in fits.get((i, j), []) for i in range(M) for j in range(N))
    bad = [(i, j) for i in range(M) for j in range(N) if not fits.get((i, j))]
    # summarise: per column, the common fitting L of its rows
    cols = []
    for j in range(N):
        common = None
        for i in range(M):
            st = set(fits.get((i, j), []))
            common = st if common is None else common & st
        cols.append(tuple(sorted(common))[:6] if common else None)
    runs = []
    for j, c in enumerate(cols):
        if runs and runs[-1][2] == c:
            runs[-1][1] = j
        else:
            runs.append([j, j, c])
    print(f"{s}: one chain {whole}; elements with no sliced chain {len(bad)}/{M * N}; "
          f"columns (first, last, least L fitting all rows): {runs[:12]}")
