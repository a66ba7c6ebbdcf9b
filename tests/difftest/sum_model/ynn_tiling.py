import numpy as np, itertools
from ynn_kernels import *
def merge(shape, axes):
    dims = []
    for k, n in enumerate(shape):
        if n == 1: continue
        red = k in axes
        if dims and dims[-1][1] == red: dims[-1][0] *= n
        else: dims.append([n, red])
    return dims
def ynn_untiled(x, axes):
    """hypothesis: merged dims; innermost group is the kernel; outer reduced loop accumulates."""
    dims = merge(x.shape, axes)
    xs = x.reshape([d[0] for d in dims]) if dims else x.reshape(())
    kept = [i for i, d in enumerate(dims) if not d[1]]
    redd = [i for i, d in enumerate(dims) if d[1]]
    if not redd:
        return np.asarray(x, f32).reshape([dims[i][0] for i in kept]) + f32(0)
    outshape = [dims[i][0] for i in kept]
    out = np.zeros(outshape, f32)
    inner_red = dims[-1][1]
    if inner_red:
        outer_red = redd[:-1]
        for ko in itertools.product(*[range(dims[i][0]) for i in kept]):
            acc = f32(0)
            for ro in itertools.product(*[range(dims[i][0]) for i in outer_red]):
                idx = [0]*len(dims)
                for i, v in zip(kept, ko): idx[i] = v
                for i, v in zip(outer_red, ro): idx[i] = v
                acc = f32(acc + k1(xs[tuple(idx[:-1])]))
            out[ko] = acc
    else:
        # innermost kept group C; the reduced group right before it is the kn rows
        C = dims[-1][0]; rr = redd[-1]
        outer_red = redd[:-1]
        okept = kept[:-1]
        for ko in itertools.product(*[range(dims[i][0]) for i in okept]):
            acc = np.zeros(C, f32)
            for ro in itertools.product(*[range(dims[i][0]) for i in outer_red]):
                idx = [slice(None)]*len(dims)
                for i, v in zip(okept, ko): idx[i] = v
                for i, v in zip(outer_red, ro): idx[i] = v
                sub = xs[tuple(idx)]  # remaining dims: between rr and end (kept between?)
                # sub dims: dims from rr.. with kept middle dims? assume rr is second to last
                sub = sub.reshape(dims[rr][0], -1, C) if sub.ndim > 2 else sub.reshape(dims[rr][0], 1, C)
                for m in range(sub.shape[1]):
                    pass
                acc = (acc + kn(sub[:, 0, :])).astype(f32) if sub.shape[1] == 1 else None
            out[ko] = acc
    return out

def ynn(x, axes, area=32768):
    dims = merge(x.shape, axes)
    if not dims: return x.reshape(()).astype(f32)
    ns = [d[0] for d in dims]; reds = [d[1] for d in dims]
    xs = x.reshape(ns)
    t = [0]*len(ns); p = 1
    for i in range(len(ns) - 1, -1, -1):
        t[i] = max(1, min(ns[i], area // p)); p *= t[i]
    split = any(reds[i] and t[i] < ns[i] for i in range(len(ns)))
    rax = tuple(i for i in range(len(ns)) if reds[i])
    if not split:
        return ynn_untiled(xs, rax)
    cnt = [-(-ns[i] // t[i]) for i in range(len(ns))]
    pshape = [cnt[i] if reds[i] else ns[i] for i in range(len(ns))]
    parts = np.zeros(pshape, f32)
    for tix in itertools.product(*[range(c) for c in cnt]):
        sl = tuple(slice(tix[i]*t[i], min(ns[i], (tix[i]+1)*t[i])) for i in range(len(ns)))
        tile = xs[sl]
        pr = ynn_untiled(np.ascontiguousarray(tile), rax)
        psl = tuple(slice(tix[i], tix[i]+1) if reds[i] else sl[i] for i in range(len(ns)))
        parts[psl] = pr.reshape(parts[psl].shape)
    return ynn_untiled(parts, rax)

def ynn2(x, axes, area=32768):
    ns = list(x.shape); reds = [i in axes for i in range(len(ns))]
    xs = x
    t = [0]*len(ns); p = 1
    for i in range(len(ns) - 1, -1, -1):
        t[i] = max(1, min(ns[i], area // p)); p *= t[i]
    split = any(reds[i] and t[i] < ns[i] for i in range(len(ns)))
    rax = tuple(i for i in range(len(ns)) if reds[i])
    if not split:
        return ynn_untiled(xs, rax)
    cnt = [-(-ns[i] // t[i]) for i in range(len(ns))]
    pshape = [cnt[i] if reds[i] else ns[i] for i in range(len(ns))]
    parts = np.zeros(pshape, f32)
    for tix in itertools.product(*[range(c) for c in cnt]):
        sl = tuple(slice(tix[i]*t[i], min(ns[i], (tix[i]+1)*t[i])) for i in range(len(ns)))
        tile = xs[sl]
        pr = ynn_untiled(np.ascontiguousarray(tile), rax)
        psl = tuple(slice(tix[i], tix[i]+1) if reds[i] else sl[i] for i in range(len(ns)))
        parts[psl] = pr.reshape(parts[psl].shape)
    return ynn_untiled(parts, rax)

def splits_new(ns, reds, area=32768):
    # slinky order: innermost first
    e = ns[::-1]; k = reds[::-1]; rank = len(e)
    al = [None]*rank
    al[0] = max(1, min(256, e[0]))
    if not k[0]:
        prefix = al[0]
        for i in range(1, rank):
            if k[i]: break
            al[i] = max(1, min(-(-256 // prefix), e[i])); prefix *= al[i]
    kc = 1
    for i in range(rank):
        if not k[i]: continue
        if i > 0: al[i] = max(1, min(-(-256 // kc), e[i]))
        kc *= al[i]
    al = [a if a is not None else 1 for a in al]
    so = 1
    for a in al: so *= a
    s = [0]*rank
    for d in range(rank):
        blocks = area // so
        s[d] = max(al[d], min(al[d]*blocks, e[d]))
        so *= -(-s[d] // al[d])
    return s[::-1]

def ynn3(x, axes, area=32768):
    ns = list(x.shape); reds = [i in axes for i in range(len(ns))]
    xs = x
    t = splits_new(ns, reds, area)
    split = any(reds[i] and t[i] < ns[i] for i in range(len(ns)))
    rax = tuple(i for i in range(len(ns)) if reds[i])
    if not split:
        return ynn_untiled(xs, rax)
    cnt = [-(-ns[i] // t[i]) for i in range(len(ns))]
    pshape = [cnt[i] if reds[i] else ns[i] for i in range(len(ns))]
    parts = np.zeros(pshape, f32)
    for tix in itertools.product(*[range(c) for c in cnt]):
        sl = tuple(slice(tix[i]*t[i], min(ns[i], (tix[i]+1)*t[i])) for i in range(len(ns)))
        tile = xs[sl]
        pr = ynn_untiled(np.ascontiguousarray(tile), rax)
        psl = tuple(slice(tix[i], tix[i]+1) if reds[i] else sl[i] for i in range(len(ns)))
        parts[psl] = pr.reshape(parts[psl].shape)
    return ynn_untiled(parts, rax)

def ynn_groups(x, axes, area=32768):
    """Note [YNNPACK groups] (XlaSumGroups.cpp): squeeze, fuse only the innermost run of
    one kind, tile, partials per tile, then an untiled (fully fused) reduce of them."""
    sq = [(n, k in axes) for k, n in enumerate(x.shape) if n != 1]
    if not sq: return x.reshape(()).astype(f32)
    ns = [n for n, _ in sq]; reds = [r for _, r in sq]
    while len(ns) >= 2 and reds[-2] == reds[-1]:
        ns[-2] *= ns[-1]; ns.pop(); reds.pop()
    xs = x.reshape(ns)
    t = [0]*len(ns); p = 1
    for i in range(len(ns) - 1, -1, -1):
        t[i] = max(1, min(ns[i], area // p)); p *= t[i]
    rax = tuple(i for i in range(len(ns)) if reds[i])
    if not any(reds[i] and t[i] < ns[i] for i in range(len(ns))):
        return ynn_untiled(xs, rax)
    cnt = [-(-ns[i] // t[i]) for i in range(len(ns))]
    pshape = [cnt[i] if reds[i] else ns[i] for i in range(len(ns))]
    parts = np.zeros(pshape, f32)
    for tix in itertools.product(*[range(c) for c in cnt]):
        sl = tuple(slice(tix[i]*t[i], min(ns[i], (tix[i]+1)*t[i])) for i in range(len(ns)))
        pr = ynn_untiled(np.ascontiguousarray(xs[sl]), rax)
        psl = tuple(slice(tix[i], tix[i]+1) if reds[i] else sl[i] for i in range(len(ns)))
        parts[psl] = pr.reshape(parts[psl].shape)
    return ynn_untiled(parts, rax)
