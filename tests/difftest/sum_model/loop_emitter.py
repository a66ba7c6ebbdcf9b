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

def tree_rewrite(x, axes):
    """Several reduced axes (not all) below 4096 elements with a reduced side over 32:
    XLA's TreeReductionRewriter puts a window of min(n, 32) on every reduced dim (SAME
    padding), each window summed in row-major order from 0, repeated while a reduced side
    is over 32; then each output adds its elements in row-major order. Exact on 5 of 5
    shapes ([33, 27, 4] over (0, 2), [40, 5, 9] (0, 2), [3, 70, 6] (1, 2), [50, 3, 20]
    (0, 1), [6, 4, 100] (0, 2)); not in spmdrun yet (LLVM may vectorise some windows, as
    for the 2-D whole sums of Note [XLA sum order]: test more shapes first)."""
    import itertools
    def padlo(n, w): return ((-(-n // w)) * w - n) // 2
    x = np.asarray(x, f32)
    while any(x.shape[a] > 32 for a in axes):
        w = [min(n, 32) if k in axes else 1 for k, n in enumerate(x.shape)]
        o = [-(-n // wk) for n, wk in zip(x.shape, w)]
        lo = [padlo(n, wk) for n, wk in zip(x.shape, w)]
        y = np.zeros(o, f32)
        for oi in itertools.product(*[range(v) for v in o]):
            sl = tuple(slice(max(0, oi[k]*w[k]-lo[k]), min(x.shape[k], oi[k]*w[k]-lo[k]+w[k]))
                       for k in range(x.ndim))
            y[oi] = seq(0.0, x[sl])
        x = y
    kept = [k for k in range(x.ndim) if k not in axes]
    xm = np.transpose(x, kept + list(axes))
    out = np.zeros(xm.shape[:len(kept)], f32)
    for idx in np.ndindex(out.shape): out[idx] = seq(0.0, xm[idx])
    return out


def fold_nd(x, mul=False):
    """A whole array (sums below 4096 elements, products at any size) as XLA's loop emitter
    folds it (Emit::foldND, Note [XLA sum order]): squeeze sides of 1; while a side is over
    32, one reduce_window pass with a window of 32 (SAME padding) on every side over 32 and
    the whole of every other side (dropped from the result); a window adds its elements in
    row-major order from the identity, or, when its last two sides are whole and it has 3 or
    more dimensions, slab by slab over them (LLVM's vectorisation, `slab`); the result of the
    passes slab by slab over its last two sides. Products use the same VF table, their other
    lanes starting at 1.0. Exact on 70 random 3-D/4-D sums below 4096 elements and 20
    products (1-D to 4-D, up to 240000 elements)."""
    import itertools
    one = f32(1.0 if mul else 0.0)
    op = (lambda a, b: f32(a * b)) if mul else (lambda a, b: f32(a + b))

    def sq(a):
        return a.reshape([n for n in a.shape if n != 1] or [1])

    def seq_(init, xs):
        acc = f32(init)
        for v in np.asarray(xs, f32).reshape(-1): acc = op(acc, v)
        return acc

    def slab_(init, m):
        a, c = m.shape
        vf = int(VF[a-2][c-2]) if 2 <= a <= 32 and 2 <= c <= 32 else 0
        if vf == 0: return seq_(init, m)
        main = a // vf * vf
        lanes = []
        for l in range(vf):
            acc = f32(init) if l == 0 else (one if mul else f32(-0.0))
            for i in range(l, main, vf):
                for j in range(c): acc = op(acc, m[i, j])
            lanes.append(acc)
        w = vf // 2
        while w >= 1:
            for q in range(w): lanes[q] = op(lanes[q], lanes[q+w])
            w //= 2
        out = lanes[0]
        for i in range(main, a):
            for j in range(c): out = op(out, m[i, j])
        return out

    def slabs(init, a):
        if a.ndim < 2: return seq_(init, a)
        acc = f32(init)
        for m in a.reshape((-1,) + a.shape[-2:]): acc = slab_(acc, m)
        return acc

    def padlo(n): return ((-(-n // 32)) * 32 - n) // 2
    x = sq(np.asarray(x, f32))
    while any(n > 32 for n in x.shape):
        w = [min(n, 32) for n in x.shape]
        o = [-(-n // wk) for n, wk in zip(x.shape, w)]
        lo = [padlo(n) if n > 32 else 0 for n in x.shape]
        inner = x.ndim >= 3 and x.shape[-1] <= 32 and x.shape[-2] <= 32
        y = np.zeros(o, f32)
        for oi in itertools.product(*[range(v) for v in o]):
            sl = tuple(slice(max(0, oi[k]*w[k]-lo[k]), min(x.shape[k], oi[k]*w[k]-lo[k]+w[k]))
                       for k in range(x.ndim))
            y[oi] = slabs(one, x[sl]) if inner else seq_(one, x[sl])
        x = sq(y)
    return slabs(one, x)
