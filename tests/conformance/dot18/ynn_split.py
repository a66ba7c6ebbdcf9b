"""dot18 dev tool: YNNPACK's whole schedule of an f32 `a @ b` (or `a @ b.T`) in Python:
dot17's kernel choice (ynn_model.py) plus what slinky does with it (google/XNNPACK
ynnpack/subgraph/dot.cc as before 4728d1536e (2026-08-10), which changed the packing
block: jaxlib 0.10.2 still has that commit's old scalar kernel dot_fp32_1x128x1; read, not
copied):

- B's packing block (define_pack_b): block_n = align * max(1, 32768 // (align * K)),
  align the first kernel's block_n, then at most N rounded up to tile_n;
  unpacked, the split's block_n is max(16, the unpacked kernel's block_n);
- the task split (choose_split_factors): split_n from min(N, block_n), split_m from
  min(M, 16), doubled until the tile is big enough; the product is cut into tiles of
  split_m x split_n;
- per tile the kernel is chosen again for the tile's m and n (get_dot_kernel in
  make_dot_impl) among those compatible with B's layout;
- per tile, schedule_dot's L2 loop (cache_size_l2 = 128 KiB): k in slices of
  block_k * (131072 // (block_n * 4 * block_k)) when that is below K, block_n the packed
  block (packed) or the tile's n (unpacked); each slice summed from 0 in the kernel's
  order and added to C; then the K mod tile_k tail (dot17).

    python3 ynn_split.py 48x415x221 184x559x60      # MxKxN: tiles, kernels, slices"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../dot17"))
from ynn_model import AVX2, AVX512, UA, UNK, cost  # noqa: E402

L2 = 128 * 1024


def best(K, m, n, k, req_tk=0, req_bn=0, req_flags=0):
    r, maxbn = None, 0
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


def split_factors(m, n, k, block_n):
    k = min(k, 1024)
    min_area = min(m, 64) * min(n, 64)
    max_area, max_cost, aspect = 256 * 256, 1024 * 64, 4
    sn, sm = min(n, block_n), min(m, 16)
    while True:
        if sn * sm >= min_area and ((sm + sn) * k >= max_cost or sm * sn >= max_area):
            break
        if (aspect * sn <= sm or sm >= m) and sn < n:
            sn *= 2
        elif (sm <= aspect * sn or sn >= n) and sm < m:
            sm *= 2
        else:
            break
    return min(sm, 32768), min(sn, 65536)


def plan(M, N, Kd, b_transposed=False, batch=1, avx512=True, flat=False):
    """The tiles: a list of (m0, m1, n0, n1, order, slice) with slice the k slice length
    (0: all of k in one). flat: dot17's model (one kernel, no tiles, no slices)."""
    K = AVX512 + AVX2 if avx512 else AVX2
    (c0, k0), maxbn = best(K, UNK, N, Kd)
    if b_transposed:
        pack, ku = True, None
    else:
        if k0[2][2] != 1:
            (cu, ku), _ = best(K, UNK, N, Kd, req_tk=1, req_flags=UA)
        else:
            cu, ku = c0, k0
        if not (ku[3] & UA) or cu > c0 * 2:
            pack = True
        else:
            pack = not (math.ceil(M / ku[1][0]) * batch <= batch * 10)
    tk = k0[2][2] if pack else 1
    if pack:
        align = k0[1][1]
        bn = align * max(1, (L2 // 4) // (align * Kd))
        bn = max(k0[2][1], min(math.ceil(N / k0[2][1]) * k0[2][1], bn))
        ksplit = math.ceil(Kd / tk) * tk
    else:
        bn = max(16, ku[1][1])
        ksplit = Kd
    if flat:
        sm, sn = M, N
    else:
        sm, sn = split_factors(M, N, ksplit, bn)
    k1 = Kd - Kd % tk
    tiles = []
    for m0 in range(0, M, sm):
        for n0 in range(0, N, sn):
            m1, n1 = min(M, m0 + sm), min(N, n0 + sn)
            if pack:
                (c, kr), _ = best(K, m1 - m0, n1 - n0, k1, req_tk=tk, req_bn=bn)
                sched_bn = bn
            else:
                (c, kr), _ = best(K, m1 - m0, n1 - n0, k1, req_tk=1, req_bn=n1 - n0,
                                  req_flags=UA)
                sched_bn = n1 - n0
            bk = kr[1][2]
            blocks = L2 // (sched_bn * 4 * bk)
            sl = bk * blocks if blocks and k1 > bk * blocks and not flat else 0
            tiles.append((m0, m1, n0, n1, kr[4], sl, kr))
    return tiles, pack, bn, (sm, sn)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    for s in args:
        bt = s.endswith("nt")
        M, Kd, N = map(int, s.rstrip("nt").split("x"))
        tiles, pack, bn, sp = plan(M, N, Kd, bt, avx512="--avx2" not in sys.argv)
        print(s, "pack" if pack else "unpacked", "block_n", bn, "split", sp)
        for t in tiles:
            print("   rows %d..%d cols %d..%d: %s %s order %s slice %s" %
                  (t[0], t[1], t[2], t[3], t[6][0], t[6][1], t[4], t[5] or "-"))
