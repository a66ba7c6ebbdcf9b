"""dot17 dev tool: YNNPACK's fp32 kernel choice for `a @ b` on an AVX2 + FMA or an AVX-512
host, in Python (dot15's ynn_model.py with jaxlib 0.10.2's avx512 kernels added).

Kernels: the `dot_fp32_*` symbols of jaxlib 0.10.2's libjax_common.so, in kernels.inc
order (google/XNNPACK ynnpack/kernels/dot/kernels.inc: the avx512 files come first);
orders read off ynnpack/kernels/dot/generator/x86_fp32*.py. Order letters: 1 one FMA
chain, p pairs with FMA, 4 quads (four FMA chains over k mod 4, (c0 + c1) + (c2 + c3)),
m one chain without FMA, q pairs without FMA.

    python3 ynn_model.py [--avx2] 62x64x20 4x64x4      # MxKxN: the kernel and its order"""
import math
UNK = 2048
UA = 4
AVX512 = []  # (arch, block, tile, flags, order)
for bm, bn in [(1, 64), (2, 64), (3, 64), (4, 64), (5, 64), (1, 32), (2, 32), (3, 32), (4, 32),
               (5, 32), (5, 16)]:
    AVX512.append(("avx512", (bm, bn, 1), (1, 16, 1), UA, "1"))
for bm, bn in [(1, 32), (2, 32), (3, 32), (4, 32), (5, 32), (1, 16), (4, 16), (4, 8), (8, 8)]:
    AVX512.append(("avx512_k2", (bm, bn, 2), (1, 8, 2), 0, "p"))
for bm, bn in [(1, 32), (2, 32), (1, 16), (3, 16), (4, 16), (5, 16), (2, 8), (4, 8), (6, 8),
               (4, 4), (8, 4)]:
    AVX512.append(("avx512_k4", (bm, bn, 4), (1, 4, 4), 0, "4"))
AVX2 = []
for b in [(1, 32, 1), (2, 32, 1), (1, 16, 1), (2, 16, 1), (3, 16, 1), (4, 16, 1), (5, 16, 1),
          (6, 16, 1), (8, 8, 1)]:
    AVX2.append(("fma3", b, (1, 8, 1), UA, "1"))
for b in [(1, 16, 2), (2, 16, 2), (1, 8, 2), (3, 8, 2), (4, 8, 2), (5, 8, 2), (6, 8, 2),
          (4, 4, 2), (5, 4, 2), (6, 4, 2), (8, 4, 2)]:
    AVX2.append(("avx2_fma3", b, (1, 4, 2), 0, "p"))
for b in [(1, 32, 1), (2, 32, 1), (1, 16, 1), (2, 16, 1), (3, 16, 1), (4, 16, 1), (4, 8, 1),
          (6, 8, 1), (8, 8, 1)]:
    AVX2.append(("avx", b, (1, 8, 1), UA, "m"))
for b in [(1, 16, 2), (2, 16, 2), (1, 8, 2), (3, 8, 2), (4, 8, 2), (5, 8, 2), (6, 8, 2),
          (4, 4, 2), (5, 4, 2), (6, 4, 2), (8, 4, 2)]:
    AVX2.append(("avx2", b, (1, 4, 2), 0, "q"))
for b in [(1, 16, 1), (2, 16, 1), (3, 16, 1), (1, 8, 1), (2, 8, 1), (3, 8, 1), (4, 8, 1),
          (4, 4, 1), (6, 4, 1), (8, 4, 1)]:
    AVX2.append(("sse2", b, (1, 4, 1), 0, "m"))


def cost(m, n, k, b, t):
    bm, bn, bk = b
    tm, tn, tk = t
    blocks = math.ceil(m / bm) * math.ceil(n / bn) * math.ceil(k / bk)
    la = bm * bk // (tm * tk)
    lb = bn * bk // (tn * tk)
    return blocks * (la * 5 + lb * 11 + 9 + tm * tn * tk * 1e-4)


def best(K, m, n, k, req_tk=0, req_bn=0, req_flags=0):
    r = None
    maxbn = 0
    for kk in K:
        arch, b, t, fl, o = kk
        if (req_flags & fl) != req_flags:
            continue
        if (req_tk and t[2] != req_tk) or ((fl & UA) == 0 and req_bn % t[1] != 0):
            continue
        maxbn = max(maxbn, b[1])
        c = cost(m, n, k, b, t)
        if r is None or c < r[0]:
            r = (c, kk)
    return r, maxbn


def choose(M, N, Kd, b_transposed=False, batch=1, verbose=False, avx512=True):
    K = AVX512 + AVX2 if avx512 else AVX2
    (c0, k0), maxbn = best(K, UNK, N, Kd)
    if b_transposed:
        pack = True
    else:
        if k0[2][2] != 1:
            (cu, ku), _ = best(K, UNK, N, Kd, req_tk=1, req_flags=UA)
        else:
            cu, ku = c0, k0
        if not (ku[3] & UA):
            pack = True
        elif cu > c0 * 2:
            pack = True
        else:
            pack = not (math.ceil(M / ku[1][0]) * batch <= batch * 10)
    if pack:
        bn = min(math.ceil(N / k0[2][1]) * k0[2][1], maxbn)  # cache blocks ignored (>=1)
        bn = max(k0[2][1], bn)
        (c, kr), _ = best(K, M, N, Kd, req_tk=k0[2][2], req_bn=bn)
    else:
        (c, kr), _ = best(K, M, N, Kd, req_tk=1, req_bn=N, req_flags=UA)
    if verbose:
        print("init", k0, "pack", pack, "run", kr)
    return kr, pack


if __name__ == "__main__":
    import sys
    args = [a for a in sys.argv[1:] if a != "--avx2"]
    for s in args:
        M, Kd, N = map(int, s.split("x"))
        kr, p = choose(M, N, Kd, avx512="--avx2" not in sys.argv)
        print(s, kr[0], kr[1], "pack" if p else "", kr[4])
