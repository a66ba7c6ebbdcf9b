import numpy as np
f32 = np.float32
L = 16
def kahan(acc1, acc2, err):
    y = acc1 - err
    t = acc2 + y
    e = (t - acc2) - y
    err = np.where(np.abs(e) < np.inf, e, f32(0)).astype(f32)
    return t, err
def k1(x):
    x = np.asarray(x, f32).reshape(-1); k = x.size
    z = np.zeros(L, f32)
    acc0 = z.copy(); acc1 = z.copy(); acc2 = z.copy(); err = z.copy()
    def block(seg):
        seg = np.concatenate([seg, np.zeros(64 - seg.size, f32)])
        loc = z.copy()
        for j in range(4): loc = (loc + seg[16*j:16*j+16]).astype(f32)
        return loc
    n256 = k // 256; n64 = (k - n256*256)//64; rest = k % 64
    def accum(clock):
        nonlocal acc0, acc1, acc2, err
        acc1 = (acc1 + acc0).astype(f32); acc0 = z.copy()
        if clock & 255 == 0:
            acc2, err = kahan(acc1, acc2, err); acc1 = z.copy()
    for t in range(n256):
        for q in range(4): acc0 = (acc0 + block(x[t*256+64*q: t*256+64*q+64])).astype(f32)
        accum((t+1)*64)
    for t in range(n64):
        acc0 = (acc0 + block(x[n256*256+64*t: n256*256+64*t+64])).astype(f32)
        accum(n256*64 + (t+1)*16)
    if rest: acc0 = (acc0 + block(x[n256*256+n64*64:])).astype(f32)
    accum(0)
    v = (z + acc2).astype(f32)
    w = L // 2
    while w >= 1:
        v = (v[:w] + v[w:2*w]).astype(f32); w //= 2
    return v[0]
def kn(rows):  # rows: [k, 16] -> 16
    rows = np.asarray(rows, f32); k = rows.shape[0]; n = rows.shape[1]
    z = np.zeros(n, f32)
    def local(r0, cnt):
        acc = z.copy()
        for j in range(4): acc = (acc + (rows[r0+j] if j < cnt else z)).astype(f32)
        return acc
    if k <= 4: return (z + local(0, k)).astype(f32)
    acc0 = z.copy(); acc1 = z.copy(); acc2 = z.copy(); err = z.copy()
    def accum(clock):
        nonlocal acc0, acc1, acc2, err
        acc1 = (acc1 + acc0).astype(f32); acc0 = z.copy()
        if clock & 255 == 0:
            acc2, err = kahan(acc1, acc2, err); acc1 = z.copy()
    for g in range(k // 4):
        acc0 = (acc0 + local(4*g, 4)).astype(f32)
        clock = (g+1)*4
        if clock & 15 == 0: accum(clock)
    if k % 4: acc0 = (acc0 + local(k//4*4, k % 4)).astype(f32)
    accum(0)
    return (z + acc2).astype(f32)
