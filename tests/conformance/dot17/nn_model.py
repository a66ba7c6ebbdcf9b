"""dot17 dev tool: ynn_model.py (AVX-512 host) against jax.jit(a @ b) (or a @ b.T with nt)
on random shapes, bit for bit; also counts how often one FMA chain alone matches.

    /tmp/jaxenv/bin/python nn_model.py SEED COUNT KMAX MMAX NMAX [nt] [batch=B]"""
import os
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../dot14"))
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from orders import chain, one_chain, pairs  # noqa: E402
from ynn_model import choose  # noqa: E402

f32 = np.float32


def quads(A, B):
    """Four FMA chains over k mod 4 (k below K - K % 4), (c0 + c1) + (c2 + c3); then the
    last K % 4 products rounded, as (p0 + p1) + p2, added to that."""
    K = A.shape[1]
    K4 = K - K % 4
    c = [chain(A, B, range(q, K4, 4)) for q in range(4)]
    s = ((c[0] + c[1]).astype(f32) + (c[2] + c[3]).astype(f32)).astype(f32)
    t = K % 4
    if t:
        p = [(A[:, K4 + q:K4 + q + 1] * B[K4 + q:K4 + q + 1, :]).astype(f32) for q in range(t)]
        tail = p[0] if t == 1 else (p[0] + p[1]).astype(f32)
        if t == 3:
            tail = (tail + p[2]).astype(f32)
        s = tail if K4 == 0 else (s + tail).astype(f32)
    return s


def by_order(A, B, o):
    if o == "1":
        return one_chain(A, B)
    if o == "m":
        return one_chain(A, B, False)
    if o == "p":
        return pairs(A, B, True)
    if o == "q":
        return pairs(A, B, False)
    if o == "4":
        return quads(A, B)


def model(A, B, bt=False, batch=1):
    M, K = A.shape
    N = B.shape[1]
    kr, _ = choose(M, N, K, b_transposed=bt, batch=batch)
    return by_order(A, B, kr[4]), kr[4]


def run(seed, n, kmax, mmax, nmax, bt=False, batch=0):
    rng = np.random.default_rng(seed)
    bad = 0
    cnt = {}
    okc = {}
    ocb = 0
    if batch:
        f = jax.jit(lambda a, b: a @ b)
    else:
        f = jax.jit(lambda a, b: a @ b.T) if bt else jax.jit(lambda a, b: a @ b)
    for t in range(n):
        M = int(rng.integers(1, mmax + 1))
        K = int(rng.integers(1, kmax + 1))
        N = int(rng.integers(2, nmax + 1))
        if max(M, N, K) < 8 or M == 1:
            continue
        sa = (batch, M, K) if batch else (M, K)
        sb = (batch, K, N) if batch else ((N, K) if bt else (K, N))
        a = jax.random.uniform(jax.random.key(t), sa, jnp.float32, -1, 1)
        b = jax.random.uniform(jax.random.key(t + 1000), sb, jnp.float32, -1, 1)
        w = np.asarray(f(a, b))
        A = np.asarray(a)
        B = np.asarray(b).T.copy() if bt else np.asarray(b)
        if batch:
            gs = [model(A[i], B[i], False, batch) for i in range(batch)]
            g, o = np.stack([x[0] for x in gs]), gs[0][1]
            oc = np.stack([one_chain(A[i], B[i]) for i in range(batch)])
        else:
            g, o = model(A, B, bt)
            oc = one_chain(A, B)
        d = (g.view(np.int32) != w.view(np.int32)).sum()
        ocd = (oc.view(np.int32) != w.view(np.int32)).sum()
        cnt[o] = cnt.get(o, 0) + 1
        okc[o] = okc.get(o, 0) + (d == 0)
        ocb += bool(ocd)
        if d:
            bad += 1
            print(f"  {M}x{K}x{N} model {o}: {d}/{w.size} differ (one chain {ocd})")
    tried = sum(cnt.values())
    print(f"matched {tried - bad} of {tried}; per order (matched/tried):",
          {o: f"{okc[o]}/{cnt[o]}" for o in cnt}, "; one chain alone", tried - ocb)


if __name__ == "__main__":
    a = [x for x in sys.argv if not x.startswith("batch=")]
    bb = [int(x[6:]) for x in sys.argv if x.startswith("batch=")]
    run(int(a[1]), int(a[2]), int(a[3]), int(a[4]), int(a[5]), len(a) > 6, bb[0] if bb else 0)
