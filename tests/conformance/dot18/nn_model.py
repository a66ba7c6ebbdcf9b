"""dot18 dev tool: ynn_split.py's schedule (tiles, per-tile kernels, k slices) against
jax.jit(a @ b) (`nt`: a @ b.T; `batch=B`: [B, M, K] @ [B, K, N]) on random shapes, bit
for bit; dot17's model (one kernel, no slices) counted alongside. The random shapes and
operands are dot17's nn_model.py's for the same arguments.

    /tmp/jaxenv/bin/python nn_model.py SEED COUNT KMAX MMAX NMAX [nt] [batch=B] [avx2]"""
import os
import sys

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "../dot14"))
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from orders import chain  # noqa: E402
from ynn_split import plan  # noqa: E402

f32 = np.float32
TK = {"1": 1, "m": 1, "p": 2, "q": 2, "4": 4}


def slice_sum(A, B, k0, k1, o):
    fused = o not in "mq"
    if o in "1m":
        return chain(A, B, range(k0, k1), fused)
    if o in "pq":
        e, d = chain(A, B, range(k0, k1, 2), fused), chain(A, B, range(k0 + 1, k1, 2), fused)
        return (e + d).astype(f32)
    c = [chain(A, B, range(k0 + q, k1, 4)) for q in range(4)]
    return ((c[0] + c[1]).astype(f32) + (c[2] + c[3]).astype(f32)).astype(f32)


def tail_sum(A, B, k0, K, o):
    """The K mod tile_k products (a zero-padded tile): pairs p0 (+ 0), quads
    (p0 + p1) + (p2 + 0)."""
    p = [(A[:, k0 + q:k0 + q + 1] * B[k0 + q:k0 + q + 1, :]).astype(f32) for q in range(K - k0)]
    if len(p) == 1:
        return p[0]
    s = (p[0] + p[1]).astype(f32)
    return s if len(p) == 2 else (s + p[2]).astype(f32)


def tile_sum(A, B, o, sl):
    K = A.shape[1]
    tk = TK[o]
    k1 = K - K % tk
    C = None
    for k0 in range(0, k1, sl or max(k1, 1)):
        s = slice_sum(A, B, k0, min(k1, k0 + (sl or k1)), o)
        C = s if C is None else (C + s).astype(f32)
    if k1 < K:
        s = tail_sum(A, B, k1, K, o)
        C = s if C is None else (C + s).astype(f32)
    return C


def model(A, B, bt=False, batch=1, avx512=True, flat=False):
    M, K = A.shape
    N = B.shape[1]
    tiles, pack, bn, sp = plan(M, N, K, bt, batch, avx512, flat)
    C = np.zeros((M, N), f32)
    for m0, m1, n0, n1, o, sl, _ in tiles:
        C[m0:m1, n0:n1] = tile_sum(A[m0:m1], B[:, n0:n1], o, sl)
    desc = "".join(sorted({t[4] for t in tiles})) + ("s" if any(t[5] for t in tiles) else "")
    return C, desc


def run(seed, n, kmax, mmax, nmax, bt=False, batch=0, avx512=True):
    rng = np.random.default_rng(seed)
    tried = ok = okflat = 0
    per = {}
    if batch:
        f = jax.jit(lambda a, b: a @ jnp.swapaxes(b, 1, 2)) if bt else jax.jit(lambda a, b: a @ b)
    else:
        f = jax.jit(lambda a, b: a @ b.T) if bt else jax.jit(lambda a, b: a @ b)
    for t in range(n):
        M = int(rng.integers(1, mmax + 1))
        K = int(rng.integers(1, kmax + 1))
        N = int(rng.integers(2, nmax + 1))
        if max(M, N, K) < 8 or M == 1:
            continue
        sa = (batch, M, K) if batch else (M, K)
        sb = (N, K) if bt else (K, N)
        sb = (batch,) + sb if batch else sb
        a = jax.random.uniform(jax.random.key(t), sa, jnp.float32, -1, 1)
        b = jax.random.uniform(jax.random.key(t + 1000), sb, jnp.float32, -1, 1)
        w = np.asarray(f(a, b))
        A = np.asarray(a)
        B = np.asarray(b)
        B = np.swapaxes(B, -1, -2).copy() if bt else B
        if batch:
            gs = [model(A[i], B[i], bt, batch, avx512) for i in range(batch)]
            g, o = np.stack([x[0] for x in gs]), gs[0][1]
            gf = np.stack([model(A[i], B[i], bt, batch, avx512, True)[0] for i in range(batch)])
        else:
            g, o = model(A, B, bt, 1, avx512)
            gf = model(A, B, bt, 1, avx512, True)[0]
        d = int((g.view(np.int32) != w.view(np.int32)).sum())
        df = int((gf.view(np.int32) != w.view(np.int32)).sum())
        tried += 1
        ok += d == 0
        okflat += df == 0
        per.setdefault(o, [0, 0])
        per[o][0] += d == 0
        per[o][1] += 1
        if d:
            print(f"  {M}x{K}x{N} model {o}: {d}/{w.size} differ (dot17's model {df})")
    print(f"matched {ok} of {tried} (dot17's model {okflat}); per order (matched/tried):",
          {o: f"{v[0]}/{v[1]}" for o, v in per.items()})


if __name__ == "__main__":
    a = [x for x in sys.argv if not x.startswith("batch=") and x != "avx2"]
    bb = [int(x[6:]) for x in sys.argv if x.startswith("batch=")]
    run(int(a[1]), int(a[2]), int(a[3]), int(a[4]), int(a[5]), len(a) > 6, bb[0] if bb else 0,
        "avx2" not in sys.argv)
