"""dot18 dev tool: nn_model.py's model (ynn_split.py's tiles) against jax.jit at given
shapes, MxKxN (nt: a @ b.T; a trailing /B: B batches), with dot17's model alongside.

    /tmp/jaxenv/bin/python shapes.py 6x695x134 18x1414x513 40x33x260nt/3"""
import sys

import jax
import jax.numpy as jnp
import numpy as np
from nn_model import model

for s in sys.argv[1:]:
    s, _, nbat = s.partition("/")
    batch = int(nbat or 0)
    bt = s.endswith("nt")
    M, K, N = map(int, s.rstrip("nt").split("x"))
    sa = (M, K)
    sb = (N, K) if bt else (K, N)
    if batch:
        sa, sb = (batch,) + sa, (batch,) + sb
    a = jax.random.uniform(jax.random.key(1), sa, jnp.float32, -1, 1)
    b = jax.random.uniform(jax.random.key(2), sb, jnp.float32, -1, 1)
    w = np.asarray(jax.jit(lambda a, b: a @ (jnp.swapaxes(b, -1, -2) if bt else b))(a, b))
    A = np.asarray(a).reshape((-1, M, K))
    B = np.asarray(b).reshape((-1,) + sb[-2:])
    if bt:
        B = np.swapaxes(B, -1, -2).copy()
    W = w.reshape((-1, M, N))
    out = []
    for flat in (False, True):
        d = 0
        for i in range(A.shape[0]):
            g, o = model(A[i], B[i], bt, max(batch, 1), True, flat)
            d += int((g.view(np.int32) != W[i].view(np.int32)).sum())
        out.append((o, d))
    print(f"{s}{'/' + nbat if batch else ''}: tiles {out[0][0]} {out[0][1]} differ, "
          f"dot17's {out[1][0]} {out[1][1]} differ, of {w.size}")
