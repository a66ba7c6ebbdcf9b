"""Program classes for forms the classes of gen_cases.py, gen_coll.py and gen_more.py never
emitted (README.md, "What the generator does not emit"): functions with typed parameters
(`typedfn`), shard_map with two inputs, tuple outputs and under vmap, grad and an
enclosing pmap (`shard2`), and pmap inside vmap, vmap inside vmap (`nestmap`). Each is
built in both languages and run by JAX at generation, as in gen_cases.py."""
import numpy as np

from gen import Reject, new_array, DT_JAX
from gen_cases import TOL_ARITH, TOL_TRANS
from gen_coll import collective
from gen_more import pydef, _spec_s


# ---------------------------------------------------------------------------------------
# typedfn: `fn f(w: f32[n, m], x: f32[m]) -> f32[n] { ... }`: size names bound by the
# arguments and used as static values in the body, dtype-only annotations, a fixed size,
# the function called at two shapes, inside a vmap/pmap body, under grad and tree_map.

def _typed_fn(p, dt):
    """Defines f in both languages; returns (arg shapes as lists of size names, builder)."""
    rng = p.rng
    k = rng.randrange(6)
    t = dt
    if k == 0:  # a matrix-vector product, sizes reused
        body = rng.choice([("w @ x", "w @ x"),
                           ("w @ x + f32(m)" if dt == "f32" else "w @ x + m", "w @ x + m"),
                           ("w @ x * n", "w @ x * n")])
        p.stmt("fn f(w: %s[n, m], x: %s[m]) -> %s[n] { %s }" % (t, t, t, body[0]),
               "def f(w, x):\n    n, m = w.shape\n    return %s" % body[1])
        return [["n", "m"], ["m"]]
    if k == 1:  # elementwise with a scalar
        body = rng.choice([("x * y + x", "x * y + x"), ("maximum(x, y) - y", "jnp.maximum(x, y) - y"),
                           ("x[::-1] * y", "x[::-1] * y")])
        p.stmt("fn f(x: %s[n], y: %s[]) -> %s[n] { %s }" % (t, t, t, body[0]),
               "def f(x, y):\n    return %s" % body[1])
        return [["n"], []]
    if k == 2:  # sizes as static values: reshape, arange, a loop bound
        body = rng.choice([
            ("reshape(x, [m, n])", "x.reshape(m, n)"),
            ("sum(x, axis=1) + %s(arange(n))" % dt,
             "jnp.sum(x, axis=1) + jnp.arange(n).astype(x.dtype)"),
            ("{ var s = x[0]\n  for t in 1..n { s = s + x[t] }\n  s }",
             None),
            ("concat([x, x[:, :1]], axis=1)[:, m - 1:]", "jnp.concatenate([x, x[:, :1]], axis=1)[:, m - 1:]"),
            # a loop over a static list: r is static (a slice bound), unrolled
            ("{ var s = x[:1] * 0\n  for r in [n - 1, 0, n // 2] { s = s * 2 + x[r:r + 1, m - 1:] }\n  s }",
             "STATIC")])
        if body[1] == "STATIC":
            pj = ("def f(x):\n    n, m = x.shape\n    s = x[:1] * 0\n    for r in [n - 1, 0, n // 2]:\n"
                  "        s = s * 2 + x[r:r + 1, m - 1:]\n    return s")
        elif body[1] is None:
            body = (body[0], "s = x[0]\n    for t in range(1, n):\n        s = s + x[t]\n    return s")
            pj = "def f(x):\n    n, m = x.shape\n    %s" % body[1]
        else:
            pj = "def f(x):\n    n, m = x.shape\n    return %s" % body[1]
        p.stmt("fn f(x: %s[n, m]) { %s }" % (t, body[0]), pj)
        return [["n", "m"]]
    if k == 3:  # dtype only (any shape), and an untyped second parameter
        body = rng.choice([("x * 2 - y", "x * 2 - y"), ("sum(x) + y", "jnp.sum(x) + y")])
        p.stmt("fn f(x: %s, y) { %s }" % (t, body[0]), "def f(x, y):\n    return %s" % body[1])
        return [None, None]
    if k == 4:  # a fixed size and a named one
        body = rng.choice([("x @ transpose(w)", "x @ w.T"), ("x[1] + sum(w, axis=0)", "x[1] + jnp.sum(w, axis=0)")])
        p.stmt("fn f(x: %s[2, k], w: %s[n, k]) -> %s { %s }" % (t, t, t, body[0]),
               "def f(x, w):\n    return %s" % body[1])
        return [[2, "k"], ["n", "k"]]
    if k == 5 and rng.random() < 0.5:
        p.stmt("fn f[a](x: %s[n]) -> %s[n] { x * n - pmax(x, a) }" % (t, t),
               "def f(x):\n    return x * x.shape[0] - jax.lax.pmax(x, 'w')")
        return "axis"
    # a typed lambda bound by let
    p.stmt("let f = fn (x: %s[n]) -> %s[n] = x * len(x) - n" % (t, t),
           "f = lambda x: x * len(x) - x.shape[0]")
    return [["n"]]


def _shape_of(dims, env, rng):
    out = []
    for d in dims:
        if isinstance(d, int):
            out.append(d)
        else:
            if d not in env:
                env[d] = rng.choice([1, 2, 3, 4])
            out.append(env[d])
    return out


def gen_typedfn(p):
    rng = p.rng
    dt = rng.choice(["f32", "f32", "i32", "u32"])
    params = _typed_fn(p, dt)
    p.loosen(*(TOL_ARITH if dt != "f32" else TOL_TRANS))
    if params == "axis":
        zs = new_array(p, dt=dt, shape=[rng.choice([1, 2, 3]), rng.choice([1, 2, 4])], special=0.0)
        al = rng.choice([0, 1])
        r = p.bind("vmap w (z in %s%s) { f[w](z) }" % (zs, " along 1" if al else ""),
                   "jax.vmap(f, in_axes=%d, axis_name='w')(%s)" % (al, zs))
        p.show(r, r)
        return
    for _ in range(rng.randint(1, 3)):
        env = {}
        shapes = [_shape_of(d, env, rng) if d is not None else
                  (rng.choice([[], [2], [2, 3]]) if i == 0 else []) for i, d in enumerate(params)]
        mode = rng.choice(["call", "call", "vmap", "pmap", "grad", "tree"])
        if mode == "call":
            args = [new_array(p, dt=dt, shape=sh, special=0.0) for sh in shapes]
            r = p.bind("f(%s)" % ", ".join(args), "f(%s)" % ", ".join(args))
        elif mode in ("vmap", "pmap"):
            b = rng.choice([1, 2, 3]) if mode == "vmap" else rng.choice([1, 2, 4])
            args = [new_array(p, dt=dt, shape=[b] + shapes[0], special=0.0)]
            args += [new_array(p, dt=dt, shape=sh, special=0.0) for sh in shapes[1:]]
            # the first argument mapped; the others captured (in_axes=None)
            names = ["a0"] + args[1:]
            head = "vmap" if mode == "vmap" else "pmap i"
            r = p.bind("%s (a0 in %s) { f(%s) }" % (head, args[0], ", ".join(names)),
                       "jax.%s(lambda a0: f(%s)%s)(%s)" % (mode, ", ".join(names),
                                                          ", axis_name='i'" if mode == "pmap" else "",
                                                          args[0]))
        elif mode == "grad":
            if dt != "f32":
                continue
            args = [new_array(p, dt=dt, shape=sh, special=0.0) for sh in shapes]
            r = p.bind("grad(fn (a0) = sum(sin(f(a0%s))))(%s)" % ("".join(", " + a for a in args[1:]), args[0]),
                       "jax.grad(lambda a0: jnp.sum(jnp.sin(f(a0%s))))(%s)" % (
                           "".join(", " + a for a in args[1:]), args[0]))
        else:
            if len(shapes) != 1:
                continue
            a1 = new_array(p, dt=dt, shape=shapes[0], special=0.0)
            a2 = new_array(p, dt=dt, shape=shapes[0], special=0.0)
            r = p.bind("tree_map(f, (%s, %s))" % (a1, a2), "jax.tree.map(f, (%s, %s))" % (a1, a2))
            p.show(r, r, probe=False)
            continue
        p.show(r, r)


# ---------------------------------------------------------------------------------------
# shard2: shard_map with two inputs (different specs), tuple outputs, and a shard_map under
# vmap, under grad and inside a pmap (the JAX side: one shard_map over the pmap's axis and
# the mesh's). jax.sharding.Mesh (axis types Auto), so that it also traces under vmap/grad.

SMAP2_DEF = '''def smap2(f, xs, sizes, names, ins, out):
    from jax.sharding import PartitionSpec as PS, Mesh
    n = int(np.prod(sizes))
    mesh = Mesh(np.array(jax.devices()[:n]).reshape(tuple(sizes)), tuple(names))
    o = tuple(PS(*s) for s in out) if isinstance(out, list) else PS(*out)
    return jax.shard_map(f, mesh=mesh, in_specs=tuple(PS(*s) for s in ins), out_specs=o)(*xs)'''


def _axes_of(e):
    return () if e is None else (e if isinstance(e, tuple) else (e,))


def _rand_spec(rng, names, size, rank, mult=(1, 2, 3)):
    free = names[:]
    rng.shuffle(free)
    spec, shape = [], []
    for _ in range(rank):
        k = rng.random()
        if free and k < 0.3 and len(free) >= 2:
            e = tuple(free[:2]) if rng.random() < 0.7 else tuple(free[1::-1])
            free = free[2:]
        elif free and k < 0.8:
            e = free.pop(0)
        else:
            e = None
        spec.append(e)
        shape.append(int(np.prod([size[a] for a in _axes_of(e)])) * rng.choice(mult))
    return spec, shape


def _chain(p, es, ej, vary, rank, names, dt, allow_gather=True, block=None, size=None):
    """A few ops over a block value (gen_more.gen_shard's, and ppermute, psum_scatter and
    all_to_all over one axis when block, the block's shape, is known); returns es, ej,
    vary, rank."""
    rng = p.rng
    for _ in range(rng.randint(0, 2 if block is None else 3)):
        ax = rng.choice(names + [tuple(names)] if len(names) > 1 else names)
        ax_s = "(%s)" % ", ".join(ax) if isinstance(ax, tuple) else ax
        ax_set = set(ax) if isinstance(ax, tuple) else {ax}
        k = rng.randrange(13 if block is not None else 7)
        k = k - 3 if k >= 10 else k
        if k >= 7:
            a1 = rng.choice(names)
            n = size[a1]
            if k == 7:  # a ring or a random permutation over one axis
                if rng.random() < 0.5:
                    perm = [(q, (q + 1) % n) for q in range(n)]
                else:
                    src, dst = list(range(n)), list(range(n))
                    rng.shuffle(src)
                    rng.shuffle(dst)
                    perm = list(zip(src, dst))[:rng.randint(1, n)]
                es = "ppermute(%s, %s, [%s])" % (es, a1, ", ".join("(%d, %d)" % q for q in perm))
                ej = "jax.lax.ppermute(%s, %r, perm=%r)" % (ej, a1, perm)
                vary = vary | {a1}
            elif k == 8 and rank >= 1 and block[0] % n == 0:
                es = "psum_scatter(%s, %s, scatter_dimension=0, tiled=true)" % (es, a1)
                ej = "jax.lax.psum_scatter(%s, %r, scatter_dimension=0, tiled=True)" % (ej, a1)
                block = [block[0] // n] + block[1:]
                vary = vary | {a1}
            elif k == 9 and rank >= 1 and block[0] % n == 0:
                ca = rng.randrange(rank)
                es = "all_to_all(%s, %s, 0, %d, tiled=true)" % (es, a1, ca)
                ej = "jax.lax.all_to_all(%s, %r, 0, %d, tiled=True)" % (ej, a1, ca)
                block = block[:]
                block[0] //= n
                block[ca] *= n
                vary = vary | {a1}
            continue
        if block is not None and k in (4, 5) and rank >= 1:
            block = block[1:] if k == 4 else [block[0] * int(np.prod([size[a] for a in ax_set]))] + block[1:]
        if k == 0:
            es, ej = "psum(%s, %s)" % (es, ax_s), "jax.lax.psum(%s, %r)" % (ej, ax)
            vary = vary - ax_set
        elif k == 1:
            op = rng.choice(["pmax", "pmin", "pmean"])
            es, ej = "%s(%s, %s)" % (op, es, ax_s), "jax.lax.%s(%s, %r)" % (op, ej, ax)
            vary = vary - ax_set
        elif k == 2:
            es, ej = "%s + axis_index(%s)" % (es, ax_s), "%s + jax.lax.axis_index(%r)" % (ej, ax)
            vary = vary | ax_set
        elif k == 3:
            es, ej = ("sin(%s)" % es, "jnp.sin(%s)" % ej) if dt == "f32" else ("%s * 2 - 1" % es, "%s * 2 - 1" % ej)
        elif k == 4 and rank >= 1:
            es, ej = "sum(%s, axis=0)" % es, "jnp.sum(%s, axis=0)" % ej
            rank -= 1
        elif k == 5 and rank >= 1 and allow_gather:
            es, ej = ("all_gather(%s, %s, tiled=true)" % (es, ax_s),
                      "jax.lax.all_gather(%s, %r, tiled=True)" % (ej, ax))
            vary = vary | ax_set
    return es, ej, vary, rank


def _out_spec(rng, vary, names, rank):
    place = sorted(vary) + [a for a in names if a not in vary and rng.random() < 0.3]
    if place and rank == 0:
        raise Reject("varying scalar")
    rng.shuffle(place)
    out = [[] for _ in range(rank)]
    for a in place:
        out[rng.randrange(rank)].append(a)
    return [None if not e else (e[0] if len(e) == 1 else tuple(e)) for e in out]


def gen_shard2(p):
    rng = p.rng
    mode = rng.choice(["plain", "plain", "vmap", "grad", "pmap"])
    if mode == "pmap":
        outer = rng.choice([1, 2, 4])
        cap = 8 // outer
    else:
        outer, cap = None, 8
    if rng.random() < 0.35:
        mesh = [("rows", rng.choice([m for m in (1, 2, 4, 8) if m <= cap]))]
    else:
        r, c = rng.choice([(r, c) for r, c in [(2, 2), (2, 4), (4, 2), (1, 2), (2, 1), (2, 3), (3, 2), (1, 1)]
                           if r * c <= cap])
        mesh = [("rows", r), ("cols", c)]
    names = [m for m, _ in mesh]
    size = dict(mesh)
    dt = "f32" if mode == "grad" else rng.choice(["f32", "f32", "i32"])
    nin = rng.choice([1, 2, 2])
    specs, shapes = [], []
    matmul = nin == 2 and rng.random() < 0.3
    if matmul:  # a @ b with the contracted dimension split the same way in both
        k_ax = rng.choice(names + [None])
        m_ax = rng.choice([a for a in names if a != k_ax] + [None])
        kk = (size[k_ax] if k_ax else 1) * rng.choice([1, 2])
        specs = [[m_ax, k_ax], [k_ax, None]]
        shapes = [[(size[m_ax] if m_ax else 1) * rng.choice([1, 2]), kk], [kk, rng.choice([1, 3])]]
    else:
        for _ in range(nin):
            rank = rng.choice([1, 2, 2])
            sp, sh = _rand_spec(rng, names, size, rank)
            specs.append(sp)
            shapes.append(sh)
    # the JAX side's input shapes and specs, with the pmap's or vmap's axis in front
    batch = None
    if mode == "vmap":
        batch = rng.choice([1, 2, 3])
    full = [([outer] if outer else [batch] if batch else []) + sh for sh in shapes]
    xs = [new_array(p, dt=dt, shape=sh, special=0.0) for sh in full]
    vary = [set(a for e in sp for a in _axes_of(e)) for sp in specs]
    if matmul:
        es, ej = "a @ b", "a @ b"
        vr = vary[0] | vary[1]
        if specs[0][1] is not None and rng.random() < 0.8:
            es, ej = "psum(a @ b, %s)" % specs[0][1], "jax.lax.psum(a @ b, %r)" % specs[0][1]
            vr = vr - {specs[0][1]}
        results = [(es, ej, vr, 2)]
    else:
        results = []
        for q, v in enumerate("ab"[:nin]):
            block = [d // int(np.prod([size[a] for a in _axes_of(e)])) for d, e in zip(shapes[q], specs[q])]
            results.append(_chain(p, v, v, vary[q], len(specs[q]), names, dt, allow_gather=mode != "grad",
                                  block=block, size=size))
    tup = nin == 2 and not matmul and (rng.random() < 0.5 or mode == "grad")
    if not tup and nin == 2 and not matmul:
        # one result from both: a scalar of b joins a
        (e1, j1, v1, r1), (e2, j2, v2, r2) = results
        if r1 == r2 and rng.random() < 0.5:
            res = ("%s + %s" % (e1, e2), "%s + %s" % (j1, j2), v1 | v2, r1)
        else:
            res = ("%s * sum(%s)" % (e1, e2), "%s * jnp.sum(%s)" % (j1, j2), v1 | v2, r1)
        results = [res]
    outs = []
    for es, ej, vr, rank in results:
        if mode == "pmap" and rng.random() < 0.3:  # a collective over the enclosing pmap's axis
            es, ej = "psum(%s, i)" % es, "jax.lax.psum(%s, 'i')" % ej
        outs.append(_out_spec(rng, vr, names, rank))
    mesh_s = "(%s)" % ", ".join("%s=%d" % m for m in mesh)
    if rng.random() < 0.3 and mode != "grad":
        p.stmt("let grid = mesh%s" % mesh_s, "pass")
        mesh_s = "grid"
    ins_s = ", ".join("%s in %s %s" % (v, "x%d" % q if mode in ("vmap", "pmap") else xs[q], _spec_s(specs[q]))
                      for q, v in enumerate("ab"[:nin]))
    if len(results) == 2:
        body_s = "(%s, %s)" % (results[0][0], results[1][0])
        body_j = "(%s, %s)" % (results[0][1], results[1][1])
        out_s = "(%s, %s)" % (_spec_s(outs[0]), _spec_s(outs[1]))
    else:
        body_s, body_j, out_s = results[0][0], results[0][1], _spec_s(outs[0])
    sm = "shard_map %s (%s) -> %s { %s }" % (mesh_s, ins_s, out_s, body_s)
    if "smap2" not in p.ns:
        pydef(p, SMAP2_DEF)
    lam = "lambda %s: %s" % (", ".join("ab"[:nin]), body_j)
    sizes = [n for _, n in mesh]
    out_j = [tuple(o) for o in outs] if len(outs) == 2 else tuple(outs[0])
    if mode == "plain":
        s = sm
        j = "smap2(%s, [%s], %r, %r, %r, %r)" % (lam, ", ".join(xs), sizes, names,
                                                [tuple(sp) for sp in specs], out_j)
    elif mode == "vmap":
        # each input mapped along 0, or along 1 (moved there), or (the second) captured
        ins, args, axes_j, params = [], [], [], []
        for q, x in enumerate(xs):
            k = rng.random()
            if q == 1 and k < 0.25:
                xc = p.bind("%s[0]" % x, "%s[0]" % x)
                sm = sm.replace("b in x1 ", "b in %s " % xc)
                args.append(xc)
                axes_j.append(None)
                params.append("x1")
                continue
            if k > 0.7 and p.val(x).ndim >= 2:
                perm = [1, 0] + list(range(2, p.val(x).ndim))
                x = p.bind("transpose(%s, %s)" % (x, perm), "jnp.transpose(%s, %s)" % (x, perm))
                ins.append("x%d in %s along 1" % (q, x))
                axes_j.append(1)
            else:
                ins.append("x%d in %s" % (q, x))
                axes_j.append(0)
            args.append(x)
            params.append("x%d" % q)
        s = "vmap (%s) { %s }" % (", ".join(ins), sm)
        j = "jax.vmap(lambda %s: smap2(%s, [%s], %r, %r, %r, %r), in_axes=%r)(%s)" % (
            ", ".join(params), lam, ", ".join(params),
            sizes, names, [tuple(sp) for sp in specs], out_j, tuple(axes_j), ", ".join(args))
    elif mode == "grad":
        if len(results) == 2:
            s = "grad(fn (%s) { let t = %s\n  sum(t[0]) + sum(t[1] * t[1]) }, argnums=(0, 1))(%s)" % (
                ", ".join(xs), sm, ", ".join(xs))
            j = "jax.grad(lambda %s: (lambda t: jnp.sum(t[0]) + jnp.sum(t[1] * t[1]))(smap2(%s, [%s], %r, %r, %r, %r)), argnums=(0, 1))(%s)" % (
                ", ".join(xs), lam, ", ".join(xs), sizes, names, [tuple(sp) for sp in specs], out_j, ", ".join(xs))
        else:
            an = tuple(range(nin)) if nin == 2 and rng.random() < 0.5 else 0
            s = "grad(fn (%s) = sum(%s)%s)(%s)" % (", ".join(xs), sm, ", argnums=(0, 1)" if an != 0 else "",
                                               ", ".join(xs))
            j = "jax.grad(lambda %s: jnp.sum(smap2(%s, [%s], %r, %r, %r, %r))%s)(%s)" % (
                ", ".join(xs), lam, ", ".join(xs), sizes, names, [tuple(sp) for sp in specs], out_j,
                ", argnums=(0, 1)" if an != 0 else "", ", ".join(xs))
        # the lambda's parameters shadow the arrays bound outside: the body reads them
    else:  # inside a pmap: one shard_map over (i,) + the mesh's axes
        ins = ", ".join("x%d in %s" % (q, x) for q, x in enumerate(xs))
        s = "pmap i (%s) { %s }" % (ins, sm)
        lam1 = "lambda %s: jax.tree.map(lambda r: r[None], (%s)(%s))" % (
            ", ".join("ab"[:nin]), lam, ", ".join("%s[0]" % v for v in "ab"[:nin]))
        out_p = [("i",) + o for o in out_j] if isinstance(out_j, list) else ("i",) + out_j
        j = "smap2(%s, [%s], %r, %r, %r, %r)" % (lam1, ", ".join(xs), [outer] + sizes, ["i"] + names,
                                                [("i",) + tuple(sp) for sp in specs], out_p)
    r = p.bind(s, j)
    p.loosen(*(TOL_TRANS if dt == "f32" else TOL_ARITH))
    if isinstance(p.val(r), tuple):
        p.show("%s[0]" % r, "%s[0]" % r)
        p.show("%s[1]" % r, "%s[1]" % r)
    else:
        p.show(r, r)


# ---------------------------------------------------------------------------------------
# nestmap: vmap inside vmap (named or not, collectives over either axis or both), pmap
# inside vmap, and two vmaps inside a pmap.

def gen_nestmap(p):
    rng = p.rng
    dt = rng.choice(["f32", "f32", "f32", "i32", "u32"])
    mode = rng.choice(["vv", "vv", "pv", "pv", "pvv"])
    if mode == "vv":
        axes = [("a", rng.randint(1, 4)), ("b", rng.randint(1, 4))]
    elif mode == "pv":  # vmap k outside, pmap i inside
        axes = [("k", rng.randint(1, 3)), ("i", rng.choice([1, 2, 4, 8]))]
    else:
        axes = [("i", rng.choice([1, 2, 4])), ("a", rng.randint(1, 3)), ("b", rng.randint(1, 3))]
    sizes = [s for _, s in axes]
    rest = rng.choice([[], [2], [3], [sizes[-1]], [2, sizes[0]]])
    outer_along = rng.random() < 0.25 and mode != "pvv"
    shape = sizes + rest
    if outer_along:  # the outer axis mapped along 1
        shape = [sizes[1], sizes[0]] + rest
    xs = new_array(p, dt=dt, shape=shape, special=0.05)
    has_nan = dt == "f32" and bool(np.isnan(np.asarray(p.val(xs))).any())
    # collectives over the innermost axes; in pv, JAX's pmap inside vmap only knows i
    usable = axes if mode != "pv" else axes[1:]
    named = [True] * len(axes)
    if mode == "vv" and rng.random() < 0.3:
        named[0] = False
        usable = axes[1:]
    inner_s, inner_j = "x", "x"
    for _ in range(rng.randint(1, 2)):
        try:
            inner_s, inner_j = collective(p, "x", usable, [s for _, s in usable], rest, dt,
                                          mode != "vv", has_nan)
        except Reject:
            continue
        break
    else:
        inner_s, inner_j = "x * 2", "x * 2"
    if rng.random() < 0.3 and dt == "f32":
        inner_s, inner_j = "%s + sum(x)" % inner_s, "%s + jnp.sum(x)" % inner_j
    oa = " along 1" if outer_along else ""
    if mode == "vv":
        h0 = "vmap a" if named[0] else "vmap"
        s = "%s (u in %s%s) { vmap b (x in u) { %s } }" % (h0, xs, oa, inner_s)
        j = "jax.vmap(lambda u: jax.vmap(lambda x: %s, axis_name='b')(u), in_axes=%d%s)(%s)" % (
            inner_j, 1 if outer_along else 0, ", axis_name='a'" if named[0] else "", xs)
    elif mode == "pv":
        s = "vmap k (u in %s%s) { pmap i (x in u) { %s } }" % (xs, oa, inner_s)
        j = "jax.vmap(lambda u: jax.pmap(lambda x: %s, axis_name='i')(u), in_axes=%d, axis_name='k')(%s)" % (
            inner_j, 1 if outer_along else 0, xs)
    else:
        s = "pmap i (u in %s) { vmap a (w in u) { vmap b (x in w) { %s } } }" % (xs, inner_s)
        j = ("jax.pmap(lambda u: jax.vmap(lambda w: jax.vmap(lambda x: %s, axis_name='b')(w), "
             "axis_name='a')(u), axis_name='i')(%s)" % (inner_j, xs))
    if rng.random() < 0.3 and mode != "pvv":
        nd = p.try_eval(j).ndim
        if nd >= 2:
            k = rng.randrange(-nd, nd)
            s = s.replace(" { vmap b", " -> along %d { vmap b" % k).replace(" { pmap i", " -> along %d { pmap i" % k)
            j = j[:-len("(%s)" % xs)].rstrip(")") + ", out_axes=%d)(%s)" % (k, xs)
    r = p.bind(s, j)
    p.loosen(*TOL_ARITH)
    p.show(r, r)
