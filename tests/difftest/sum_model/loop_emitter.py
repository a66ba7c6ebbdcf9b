import numpy as np
from vf import VF
f32 = np.float32
def seq(init, xs):
    acc = f32(init)
    for v in np.asarray(xs, f32).reshape(-1): acc = f32(acc + v)
    return acc
def slab(init, m, op=None):
    m = np.asarray(m, f32); a, c = m.shape
    vf = int(VF[a-2][c-2]) if 2 <= a <= 32 and 2 <= c <= 32 else 0
    if vf == 0: return seq(init, m)
    main = a // vf * vf
    lanes = []
    for l in range(vf):
        acc = f32(init) if l == 0 else f32(-0.0)
        for i in range(l, main, vf):
            for j in range(c): acc = f32(acc + m[i, j])
        lanes.append(acc)
    w = vf // 2
    while w >= 1:
        for q in range(w): lanes[q] = f32(lanes[q] + lanes[q+w])
        w //= 2
    out = lanes[0]
    for i in range(main, a):
        for j in range(c): out = f32(out + m[i, j])
    return out
