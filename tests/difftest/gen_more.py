"""Program classes for the language forms the first classes never emitted (README.md, "What
the generator does not emit"): loops and vars, pmap/vmap with `along` (in_axes/out_axes),
several and tuple inputs and results, shard_map with partition specs, tuples and tree_map,
and the creation and host builtins. Each is built in both languages and run by JAX at
generation, as in gen_cases.py."""
import numpy as np

from gen import Reject, new_array, literal, rand_shape, DT_JAX
from gen_cases import TOL_ARITH, TOL_TRANS


def pydef(p, src):
    """A definition on the JAX side only (the spmd side writes it inline)."""
    try:
        exec(src, p.ns)
    except Exception as e:
        raise Reject(str(e)[:200])
    p.jax.append(src)


def _ind(lines, n=1):
    return ["    " * n + l for l in lines]


# ---------------------------------------------------------------------------------------
# loop: for loops over static ranges, vars, run-time if statements, set with the loop index,
# nested loops, loops in functions, in a pmap body and under grad.

def _loop_stmt(p, st, dt, a, depth):
    """One statement of a loop body updating var st ((spmd, [python lines]))."""
    rng = p.rng
    t = "t%d" % depth
    f = dt == "f32"
    c = "1.5" if f else "3"
    k = rng.randrange(9 if depth < 1 else 7)
    if k == 0:
        return "%s = %s * %s + %s" % (st, st, "0.5" if f else "2", a), \
            ["%s = %s * %s + %s" % (st, st, "0.5" if f else "2", a)]
    if k == 1:
        return "%s = %s + %s" % (st, st, t), ["%s = %s + %s" % (st, st, t)]
    if k == 2:
        return "%s = %s - f32(%s) * %s" % (st, st, t, c) if f else "%s = %s - %s * %s" % (st, st, t, c), \
            ["%s = %s - jnp.float32(%s) * %s" % (st, st, t, c) if f else "%s = %s - %s * %s" % (st, st, t, c)]
    if k == 3:
        return "%s = maximum(%s, %s * %s)" % (st, st, a, t), \
            ["%s = jnp.maximum(%s, %s * %s)" % (st, st, a, t)]
    if k == 4:  # a run-time if statement, with or without else
        thr = rng.choice(["0.0", "2.5", "-1.0", "10.0"]) if f else rng.choice(["0", "5", "-3"])
        cs, cj = rng.choice([("sum(%s) > %s", "jnp.sum(%s) > %s"),
                             ("max(%s) < %s", "jnp.max(%s) < %s"),
                             ("min(%s) >= %s", "jnp.min(%s) >= %s")])
        s1, j1 = _loop_stmt(p, st, dt, a, depth) if rng.random() < 0.5 else (
            "%s = %s * 2" % (st, st), ["%s = %s * 2" % (st, st)])
        if rng.random() < 0.6:
            s2, j2 = "%s = %s - %s" % (st, st, a), ["%s = %s - %s" % (st, st, a)]
            return ("if %s { %s } else { %s }" % (cs % (st, thr), s1, s2),
                    ["if %s:" % (cj % (st, thr))] + _ind(j1) + ["else:"] + _ind(j2))
        return "if %s { %s }" % (cs % (st, thr), s1), ["if %s:" % (cj % (st, thr))] + _ind(j1)
    if k == 5 and p.loop_shape:  # set at a run-time index computed from t
        n = p.loop_shape[0]
        v = rng.choice(["1.0", "-2.5"]) if f else rng.choice(["7", "-1"])
        return ("%s = set(%s, (%s * 2 + 1) %% %d, %s)" % (st, st, t, n, v),
                ["%s = %s.at[(%s * 2 + 1) %% %d].set(%s)" % (st, st, t, n, v)])
    if k == 6:
        s = "%s = %s %s %s" % (st, st, rng.choice(["+", "*", "-"]), a)
        return s, [s]
    # an inner loop
    lo, hi = rng.choice([(0, 2), (1, 3), (0, 0), (2, 1), (0, 3)])
    inner = [_loop_stmt(p, st, dt, a, depth + 1) for _ in range(rng.randint(1, 2))]
    inner = [(s, j if j is not None else [s]) for s, j in inner]
    return ("for t%d in %d..%d { %s }" % (depth + 1, lo, hi, "; ".join(s for s, _ in inner)),
            ["for t%d in range(%d, %d):" % (depth + 1, lo, hi)] + _ind(sum((j for _, j in inner), [])))


def _loop(p, st, dt, a, lo, hi, depth=0):
    stmts = []
    for _ in range(p.rng.randint(1, 3)):
        s, j = _loop_stmt(p, st, dt, a, depth)
        stmts.append((s, j if j is not None else [s]))
    return ("for t%d in %s..%s {\n%s\n}" % (depth, lo, hi, "\n".join("  " + s for s, _ in stmts)),
            ["for t%d in range(%s, %s):" % (depth, lo, hi)] + _ind(sum((j for _, j in stmts), [])))


def gen_loop(p):
    rng = p.rng
    dt = rng.choice(["f32", "f32", "i32", "u32"])
    shape = rng.choice([[], [3], [2], [2, 3], [4]])
    a = new_array(p, dt=dt, shape=shape, special=0.0)
    p.loop_shape = shape
    lo = rng.choice(["0", "0", "1", "2"])
    hi = rng.choice(["0", "1", "3", "5", "len(%s)" % a if shape else "3"])
    hj = "len(%s)" % a if hi.startswith("len") else hi
    form = rng.randrange(4)
    if dt == "i32":
        p.loosen(*TOL_ARITH)
    else:
        p.loosen(*TOL_TRANS)
    if form == 0:  # top level
        p.stmt("var s = %s" % a, "s = %s" % a)
        ls, lj = _loop(p, "s", dt, a, lo, hi)
        lj = [l.replace("len(%s)" % a, hj) for l in lj]
        if rng.random() < 0.5:
            p.stmt("var k = i32(0)", "k = jnp.int32(0)")
            ls = ls[:-1] + "  k = k + 1\n}"
            lj = lj + ["    k = k + 1"]
            p.stmt(ls, "\n".join(lj))
            p.show("k", "k")
        else:
            p.stmt(ls, "\n".join(lj))
        p.show("s", "s")
    elif form == 1:  # in a function (loop index bounds from the argument's length)
        ls, lj = _loop(p, "s", dt, "x", lo, hi.replace(a, "x"))
        p.stmt("fn f(x) {\n  var s = x * 2\n%s\n  s\n}" % "\n".join("  " + l for l in ls.split("\n")),
               "def f(x):\n    s = x * 2\n%s\n    return s" % "\n".join(_ind(lj)))
        r = p.bind("f(%s)" % a, "f(%s)" % a)
        p.show(r, r)
    elif form == 2:  # in a pmap body, with a collective in the carry
        n = rng.choice([2, 4, 8])
        xs = new_array(p, dt=dt, shape=[n] + shape, special=0.0)
        op = rng.choice(["psum", "pmax", "pmin"])
        body = "s = %s(s, i) %s x" % (op, rng.choice(["-", "+"]))
        m = rng.randint(0, 3)
        s = "pmap i (x in %s) {\n  var s = x\n  for t in 0..%d { %s }\n  s\n}" % (xs, m, body)
        pydef(p, "def body(x):\n    s = x\n    for t in range(%d):\n        %s\n    return s"
              % (m, body.replace("%s(s, i)" % op, "jax.lax.%s(s, 'i')" % op)))
        r = p.bind(s, "jax.pmap(body, axis_name='i')(%s)" % xs)
        p.show(r, r)
    else:  # under grad
        if dt != "f32":
            raise Reject("grad of ints")
        m = rng.randint(0, 4)
        g = rng.choice([("sin(s) * x", "jnp.sin(s) * x"), ("s * s + x", "s * s + x"),
                        ("tanh(s + x)", "jnp.tanh(s + x)"), ("maximum(s, x) * 0.5", "jnp.maximum(s, x) * 0.5")])
        s = "grad(fn (x) {\n  var s = x\n  for t in 0..%d { s = %s }\n  sum(s)\n})(%s)" % (m, g[0], a)
        pydef(p, "def gl(x):\n    s = x\n    for t in range(%d):\n        s = %s\n    return jnp.sum(s)"
              % (m, g[1]))
        r = p.bind(s, "jax.grad(gl)(%s)" % a)
        p.show(r, r)


# ---------------------------------------------------------------------------------------
# mapax: pmap and vmap with `along K` on inputs and results (JAX's in_axes and out_axes),
# several inputs, tuple inputs and results, captured values, unnamed and nested vmaps,
# axis-parametric functions.

def _body(p, names, dt, ax):
    """A per-example expression of the mapped names (spmd, JAX); ax: the axis name or None."""
    rng = p.rng
    x = names[0]
    y = names[1] if len(names) > 1 else names[0]
    opts = [("%s * 2 + %s" % (x, y), "%s * 2 + %s" % (x, y)),
            ("%s - %s" % (x, y), "%s - %s" % (x, y)),
            ("%s[::-1]" % x, "%s[::-1]" % x),
            ("sum(%s, axis=0)" % x, "jnp.sum(%s, axis=0)" % x),
            ("transpose(%s)" % x, "jnp.transpose(%s)" % x),
            ("maximum(%s, %s)" % (x, y), "jnp.maximum(%s, %s)" % (x, y))]
    if ax:
        opts += [("psum(%s, %s)" % (x, ax), "jax.lax.psum(%s, %r)" % (x, ax)),
                 ("%s + axis_index(%s)" % (x, ax), "%s + jax.lax.axis_index(%r)" % (x, ax)),
                 ("all_gather(%s, %s)" % (x, ax), "jax.lax.all_gather(%s, %r)" % (x, ax))]
    return rng.choice(opts)


def gen_mapax(p):
    rng = p.rng
    dt = rng.choice(["f32", "f32", "i32"])
    mode = rng.choice(["vmap", "vmap", "vmapn", "pmap"])
    n = rng.choice([1, 2, 3, 4]) if mode != "pmap" else rng.choice([1, 2, 4, 8])
    other = [rng.choice([2, 3]) for _ in range(rng.randint(0, 2))]
    k1 = rng.randrange(len(other) + 1)
    sh1 = other[:k1] + [n] + other[k1:]
    xs = new_array(p, dt=dt, shape=sh1, special=0.0)
    ins_s, ins_j, names, args = ["x in %s%s" % (xs, " along %d" % k1 if k1 or rng.random() < 0.2 else "")], [k1], ["x"], [xs]
    k2 = None
    if rng.random() < 0.5:  # a second input, mapped along another axis
        k2 = rng.randrange(len(other) + 1)
        sh2 = other[:k2] + [n] + other[k2:]
        ys = new_array(p, dt=dt, shape=sh2, special=0.0)
        if rng.random() < 0.3:  # a tuple input: both leaves along the same axis
            if sh2 != sh1:
                raise Reject("tuple leaves differ")
            ins_s = ["(x, y) in (%s, %s)%s" % (xs, ys, " along %d" % k1 if k1 else "")]
            ins_j = [(k1, k1)]
            names, args = ["x", "y"], ["(%s, %s)" % (xs, ys)]
        else:
            ins_s.append("y in %s%s" % (ys, " along %d" % k2 if k2 else ""))
            ins_j.append(k2)
            names.append("y")
            args.append(ys)
    ax = {"vmap": "v", "pmap": "i"}.get(mode) if mode != "vmap" or rng.random() < 0.5 else None
    bs, bj = _body(p, names, dt, ax)
    tup = rng.random() < 0.25
    if rng.random() < 0.2:  # a captured value (in_axes=None)
        c = new_array(p, dt=dt, shape=[], special=0.0)
        bs, bj = "(%s) * %s" % (bs, c), "(%s) * %s" % (bj, c)
    if tup:
        bs, bj = "(%s, %s + 1)" % (bs, names[0]), "(%s, %s + 1)" % (bj, names[0])
    out_nd = None
    try:
        pyf = "lambda %s: %s" % (", ".join(names) if ins_j != [(k1, k1)] else "t", bj)
        if ins_j == [(k1, k1)]:
            pyf = "lambda t: (lambda x, y: %s)(*t)" % bj
        probe = p.try_eval("jax.vmap(%s, in_axes=%r%s)(%s)" % (
            pyf, tuple(ins_j), ", axis_name=%r" % ax if ax else "", ", ".join(args)))
        first = probe[0] if tup else probe
        out_nd = first.ndim
    except Reject:
        raise
    ok = None
    if rng.random() < 0.5:
        ok = rng.randrange(-out_nd, out_nd)
        if tup:
            ok2 = rng.randrange(out_nd - 1 + 1)
            outs, outj = " -> along (%d, %d)" % (ok, ok2), (ok, ok2)
        else:
            outs, outj = " -> along %d" % ok, ok
    else:
        outs, outj = "", 0
    head = {"vmap": "vmap%s" % (" v" if ax else ""), "vmapn": "vmap v", "pmap": "pmap i"}[mode]
    s = "%s (%s)%s { %s }" % (head, ", ".join(ins_s), outs, bs)
    if mode == "pmap":
        # jax.pmap places a negative out_axes wrongly (README.md, deliberate differences:
        # out_axes=-1 of f32[3] over 2 devices is (6, 1)); the spec's meaning is vmap's.
        pos = (lambda k: k + out_nd if k < 0 else k)
        outp = tuple(pos(k) for k in outj) if isinstance(outj, tuple) else pos(outj)
        j = "jax.pmap(%s, axis_name='i', in_axes=%r, out_axes=%r)(%s)" % (
            pyf, tuple(ins_j), outp, ", ".join(args))
    else:
        j = "jax.vmap(%s, in_axes=%r, out_axes=%r%s)(%s)" % (
            pyf, tuple(ins_j), outj, ", axis_name=%r" % ax if ax else "", ", ".join(args))
    r = p.bind(s, j)
    p.loosen(*TOL_ARITH)
    if tup:
        p.show("%s[0]" % r, "%s[0]" % r)
        p.show("%s[1]" % r, "%s[1]" % r)
    else:
        p.show(r, r)
    if rng.random() < 0.3:  # an axis-parametric function called under a named vmap
        m = rng.choice([2, 3])
        zs = new_array(p, dt="f32", shape=[m, 2], special=0.0)
        p.stmt("fn nrm[a](x) { x - pmean(x, a) }", "def nrm(a, x):\n    return x - jax.lax.pmean(x, a)")
        r = p.bind("vmap w (z in %s along 1) { nrm[w](z) }" % zs,
                   "jax.vmap(lambda z: nrm('w', z), in_axes=1, axis_name='w')(%s)" % zs)
        p.show(r, r)


# ---------------------------------------------------------------------------------------
# shard: shard_map over a 1-D or 2-D mesh with partition specs (axes, tuples of axes, _),
# collectives in the body, results placed by an output spec (jax.shard_map, check_vma on).

SMAP_DEF = '''def smap(f, xs, sizes, names, ins, out):
    from jax.sharding import PartitionSpec as PS
    import jax.sharding
    n = int(np.prod(sizes))
    mesh = jax.make_mesh(tuple(sizes), tuple(names), devices=jax.devices()[:n])
    xs = [jax.device_put(x, jax.sharding.NamedSharding(mesh, PS(*s))) for x, s in zip(xs, ins)]
    return jax.shard_map(f, mesh=mesh, in_specs=tuple(PS(*s) for s in ins),
                         out_specs=PS(*out))(*xs)'''


def _spec_s(spec):
    def one(e):
        if e is None:
            return "_"
        if isinstance(e, tuple):
            return "(%s)" % ", ".join(e)
        return e
    return "[%s]" % ", ".join(one(e) for e in spec)


def gen_shard(p):
    rng = p.rng
    if rng.random() < 0.35:
        mesh = [("rows", rng.choice([1, 2, 4, 8]))]
    else:
        r, c = rng.choice([(2, 2), (2, 4), (4, 2), (1, 2), (2, 1), (2, 3), (3, 2), (1, 1)])
        mesh = [("rows", r), ("cols", c)]
    names = [m for m, _ in mesh]
    size = dict(mesh)
    rank = rng.choice([1, 2, 2])
    free = names[:]
    rng.shuffle(free)
    spec, shape = [], []
    for d in range(rank):
        k = rng.random()
        if free and k < 0.35 and len(free) >= 2:
            e = tuple(free[:2]) if rng.random() < 0.7 else tuple(free[1::-1])
            free = free[2:]
        elif free and k < 0.8:
            e = free.pop(0)
        else:
            e = None
        ax = () if e is None else (e if isinstance(e, tuple) else (e,))
        spec.append(e)
        shape.append(int(np.prod([size[a] for a in ax])) * rng.choice([1, 2, 3]))
    dt = rng.choice(["f32", "f32", "i32"])
    x = new_array(p, dt=dt, shape=shape, special=0.0)
    vary = set(a for e in spec if e for a in (e if isinstance(e, tuple) else (e,)))
    body_s, body_j = "a", "a"
    out_rank = rank
    for _ in range(rng.randint(1, 2)):
        ax = rng.choice(names + [tuple(names)] if len(names) > 1 else names)
        ax_s = "(%s)" % ", ".join(ax) if isinstance(ax, tuple) else ax
        ax_set = set(ax) if isinstance(ax, tuple) else {ax}
        k = rng.randrange(7)
        if k == 0:
            body_s, body_j = "psum(%s, %s)" % (body_s, ax_s), "jax.lax.psum(%s, %r)" % (body_j, ax)
            vary -= ax_set
        elif k == 1:
            op = rng.choice(["pmax", "pmin", "pmean"])
            body_s, body_j = "%s(%s, %s)" % (op, body_s, ax_s), "jax.lax.%s(%s, %r)" % (op, body_j, ax)
            vary -= ax_set
        elif k == 2:
            body_s, body_j = ("%s + axis_index(%s)" % (body_s, ax_s),
                              "%s + jax.lax.axis_index(%r)" % (body_j, ax))
            vary |= ax_set
        elif k == 3:
            body_s, body_j = "%s * 2 - 1" % body_s, "%s * 2 - 1" % body_j
        elif k == 4 and out_rank >= 1:
            body_s, body_j = "sum(%s, axis=0)" % body_s, "jnp.sum(%s, axis=0)" % body_j
            out_rank -= 1
        elif k == 5 and out_rank >= 1:
            body_s, body_j = ("all_gather(%s, %s, tiled=true)" % (body_s, ax_s),
                              "jax.lax.all_gather(%s, %r, tiled=True)" % (body_j, ax))
            vary |= ax_set  # JAX's check_vma keeps it varying (README.md, docs/language.md)
        else:
            c = new_array(p, dt=dt, shape=[], special=0.0)
            body_s, body_j = "(%s - %s)" % (body_s, c), "(%s - %s)" % (body_j, c)
    # the output spec: every axis the result varies along, maybe more
    place = sorted(vary) + [a for a in names if a not in vary and rng.random() < 0.3]
    if place and out_rank == 0:
        raise Reject("varying scalar")
    rng.shuffle(place)
    out = [[] for _ in range(out_rank)]
    for a in place:
        out[rng.randrange(out_rank)].append(a)
    out = [None if not e else (e[0] if len(e) == 1 else tuple(e)) for e in out]
    mesh_s = "(%s)" % ", ".join("%s=%d" % m for m in mesh)
    if rng.random() < 0.3:
        p.stmt("let grid = mesh%s" % mesh_s, "pass")
        mesh_s = "grid"
    s = "shard_map %s (a in %s %s) -> %s { %s }" % (mesh_s, x, _spec_s(spec), _spec_s(out), body_s)
    if "smap" not in p.ns:
        pydef(p, SMAP_DEF)
    j = "smap(lambda a: %s, [%s], %r, %r, [%r], %r)" % (
        body_j, x, [n for _, n in mesh], names, tuple(spec), tuple(out))
    r = p.bind(s, j)
    p.loosen(*TOL_ARITH)
    p.show(r, r)


# ---------------------------------------------------------------------------------------
# tree: tuples as values (printed, indexed, destructured), tree_map over nested tuples,
# grad and value_and_grad with argnums and tuple parameters.

def gen_tree(p):
    rng = p.rng
    sh = [rand_shape(rng, 2, 3, allow_empty=False) for _ in range(3)]
    a, b, c = (new_array(p, dt="f32", shape=s, special=0.0) for s in sh)
    a2, b2, c2 = (new_array(p, dt="f32", shape=s, special=0.0) for s in sh)
    t1 = p.bind("(%s, (%s, %s))" % (a, b, c), "(%s, (%s, %s))" % (a, b, c))
    t2 = p.bind("(%s, (%s, %s))" % (a2, b2, c2), "(%s, (%s, %s))" % (a2, b2, c2))
    p.loosen(*TOL_TRANS)
    for _ in range(rng.randint(1, 3)):
        k = rng.randrange(7)
        if k == 0:
            f = rng.choice([("x * y + 1.0", "x * y + 1.0"), ("maximum(x, y)", "jnp.maximum(x, y)"),
                            ("x - 2.0 * y", "x - 2.0 * y")])
            r = p.bind("tree_map(fn (x, y) = %s, %s, %s)" % (f[0], t1, t2),
                       "jax.tree.map(lambda x, y: %s, %s, %s)" % (f[1], t1, t2))
            p.show(r, r, probe=False)
        elif k == 1:
            f = rng.choice([("sum(x)", "jnp.sum(x)"), ("x * 2", "x * 2"), ("i32(x)", "x.astype(jnp.int32)"),
                            ("x > 0.0", "x > 0.0")])
            r = p.bind("tree_map(fn (x) = %s, %s)" % (f[0], t1),
                       "jax.tree.map(lambda x: %s, %s)" % (f[1], t1))
            p.show(r, r, probe=False)
        elif k == 2:
            p.stmt("let (u, (_, w)) = %s" % t2, "u, (_, w) = %s" % t2)
            p.show("u", "u")
            p.show("w", "w")
        elif k == 3:
            p.show("%s[1][0]" % t1, "%s[1][0]" % t1)
        elif k == 4:
            r = p.bind("grad(fn (x, y) = sum(x * x) + sum(sin(y)), argnums=(0, 1))(%s, %s)" % (a, b),
                       "jax.grad(lambda x, y: jnp.sum(x * x) + jnp.sum(jnp.sin(y)), argnums=(0, 1))(%s, %s)"
                       % (a, b))
            p.show(r, r, probe=False)
        elif k == 5:
            r = p.bind("value_and_grad(fn (t) = sum(t[0]) * 2.0 + sum(t[1][1] * t[1][1]))(%s)" % t1,
                       "jax.value_and_grad(lambda t: jnp.sum(t[0]) * 2.0 + jnp.sum(t[1][1] * t[1][1]))(%s)"
                       % t1)
            p.show(r, r, probe=False)
        else:
            n = rng.choice([0, 1])
            r = p.bind("grad(fn (x, y) = sum(x) * sum(y), argnums=%d)(%s, %s)" % (n, a, a2),
                       "jax.grad(lambda x, y: jnp.sum(x) * jnp.sum(y), argnums=%d)(%s, %s)" % (n, a, a2))
            p.show(r, r)


# ---------------------------------------------------------------------------------------
# builtin: creation (arange with start and step, linspace, eye, zeros/ones/full with
# dtypes), one_hot, dot, clip, where with mixed dtypes, static values (len, size, shape,
# device_count, static arithmetic, comprehensions), strings and render.

def gen_builtin(p):
    rng = p.rng
    dts = ["f32", "i32", "u32", "bool"]
    for _ in range(rng.randint(2, 4)):
        k = rng.randrange(13)
        probe = True
        if k == 12:  # keyword forms and plain lists where an array is expected
            x = new_array(p, dt="f32", shape=[3], special=0.0)
            s, j = rng.choice([
                ("key_data(split(key(%d), n=%d))" % (rng.randint(0, 9), rng.randint(0, 3)), None),
                ("concat([%s, %s], axis=-1)" % (x, x), "jnp.concatenate([%s, %s], axis=-1)" % (x, x)),
                ("[1.0, 2.0, -0.5] * %s" % x, "jnp.asarray([1.0, 2.0, -0.5]) * %s" % x),
                ("[[1, 2], [3, 4]] @ [1, -1]", "jnp.asarray([[1, 2], [3, 4]]) @ jnp.asarray([1, -1])"),
                ("sum([[1.5, 2.0]], axis=1)", "jnp.sum(jnp.asarray([[1.5, 2.0]]), axis=1)")])
            if j is None and s.startswith("key_data"):
                kk, nn = s[len("key_data(split(key("):].split("), n=")
                j = "jax.random.key_data(jax.random.split(jax.random.key(%s), num=%s))" % (kk, nn.rstrip("))"))
        elif k == 0:
            if rng.random() < 0.5:
                lo, hi, st = rng.randint(-5, 5), rng.randint(-5, 12), rng.choice([1, 2, 3, -1, -2])
            else:
                lo = rng.choice([0.0, 0.5, -1.0, 1.25])
                hi = rng.choice([1.0, 2.0, 3.3, -1.0, 5])
                st = rng.choice([0.1, 0.25, 0.3, 1, -0.5, 0.7])
            s, j = "arange(%r, %r, %r)" % (lo, hi, st), "jnp.arange(%r, %r, %r)" % (lo, hi, st)
        elif k == 1:
            a_, b_ = rng.choice([0.0, -1.0, 2.5, 10]), rng.choice([1.0, 3, -2.0, 100.0])
            n = rng.choice([0, 1, 2, 5, 7, 10])
            s, j = "linspace(%r, %r, %d)" % (a_, b_, n), "jnp.linspace(%r, %r, %d)" % (a_, b_, n)
            # Open (README.md): XLA's CPU code contracts start * (1 - s) + i * (stop / div)
            # into an fma one way or the other per element; 2 ulp of the larger bound.
            p.loosen(TOL_ARITH[0], 2.4e-7 * max(abs(a_), abs(b_)))
        elif k == 2:
            n = rng.choice([0, 1, 3])
            s, j = "eye(%d)" % n, "jnp.eye(%d)" % n
        elif k == 3:
            dt = rng.choice(dts)
            sh = rand_shape(rng, 2)
            f = rng.choice(["zeros", "ones"])
            s, j = "%s(%s, %s)" % (f, sh, dt), "jnp.%s(%r, %s)" % (f, tuple(sh), DT_JAX[dt])
        elif k == 4:
            v = rng.choice(["2.5", "true", "-3", "0.1"])
            jv = {"true": "True"}.get(v, v)
            if rng.random() < 0.5:
                dt = rng.choice(dts)
                s, j = "full([2, 2], %s, %s)" % (v, dt), "jnp.full((2, 2), %s, %s)" % (jv, DT_JAX[dt])
            else:
                s, j = "full([3], %s)" % v, "jnp.full((3,), %s)" % jv
        elif k == 5:
            labels = [rng.randint(-2, 5) for _ in range(rng.randint(1, 5))]
            n = rng.choice([1, 3, 4])
            lab = p.bind("i32(%s)" % labels, "jnp.asarray(np.array(%r, dtype=np.int32))" % labels)
            s, j = "one_hot(%s, %d)" % (lab, n), "jax.nn.one_hot(%s, %d)" % (lab, n)
        elif k == 6:
            sa, sb = rng.choice([([3], [3]), ([2, 3], [3]), ([3], [3, 2]), ([2, 3], [3, 4]),
                                 ([1], [1, 2]), ([2, 2], [2, 2])])
            dt = rng.choice(["f32", "f32", "i32"])
            x = new_array(p, dt=dt, shape=sa, special=0.0)
            y = new_array(p, dt=rng.choice(["f32", "i32"]), shape=sb, special=0.0)
            s, j = "dot(%s, %s)" % (x, y), "jnp.dot(%s, %s)" % (x, y)
            p.loosen(*TOL_TRANS)
        elif k == 7:
            x = new_array(p, dt=rng.choice(["f32", "i32", "u32"]), shape=[rng.randint(1, 5)], special=0.1)
            lo, hi = rng.choice([("0", "3"), ("-1.5", "2.5"), ("1", "0"), ("0.0", "1e30")])
            s, j = "clip(%s, %s, %s)" % (x, lo, hi), "jnp.clip(%s, %s, %s)" % (x, lo, hi)
            p.loosen(*TOL_ARITH)
        elif k == 8:
            c = new_array(p, dt="bool", shape=[rng.choice([1, 3])], special=0.0)
            x = new_array(p, dt=rng.choice(dts), shape=rng.choice([[], [3], [1]]), special=0.1)
            y = rng.choice(["2", "0.5", "true"]) if rng.random() < 0.5 else \
                new_array(p, dt=rng.choice(dts), shape=rng.choice([[], [3], [2, 1]]), special=0.1)
            s, j = "where(%s, %s, %s)" % (c, x, y), "jnp.where(%s, %s, %s)" % (c, x, {"true": "True"}.get(y, y))
            p.loosen(*TOL_ARITH)
        elif k == 9:  # static values
            x = new_array(p, shape=rand_shape(rng, 3, allow_empty=False) or [2], special=0.0)
            s, j = rng.choice([("len(%s) * 3 - size(%s)" % (x, x), "len(%s) * 3 - %s.size" % (x, x)),
                               ("shape(%s)" % x, "%s.shape" % x),
                               ("shape(%s)[-1] // 2" % x, "%s.shape[-1] // 2" % x),
                               ("device_count() %% 5 + len(%s)" % x, "jax.device_count() %% 5 + len(%s)" % x),
                               ("2 ** len(%s) - 7 %% 3" % x, "2 ** len(%s) - 7 %% 3" % x),
                               ("f32([j * j - 3 for j in 0..len(%s)])" % x,
                                "jnp.float32([j * j - 3 for j in range(len(%s))])" % x),
                               ("sum(arange(size(%s)))" % x, "jnp.sum(jnp.arange(%s.size))" % x)])
            if "f32(" not in s and "sum(" not in s:
                p.show(s, j, probe=False)
                continue
        elif k == 10:  # strings and several arguments
            x = new_array(p, shape=rand_shape(rng, 2), special=0.1)
            word = rng.choice(["loss:", "x =", "", "a b"])
            s_ = '"%s", %s' % (word, x)
            txt = "%s %s" % (word, p.ns["fmt"](p.val(x)))
            p.out.write(txt + "\n")
            p.prints.append(txt + "\n")
            p.spmd.append("print(%s)" % s_)
            p.jax.append("P(%s)" % s_)
            continue
        else:
            b = new_array(p, dt="bool", shape=[rng.randint(0, 9)])
            on, off = rng.choice([("#", "."), ("X", " "), ("1", "0")])
            p.show('render(%s, "%s", "%s")' % (b, on, off),
                   '"".join("%s" if v else "%s" for v in np.asarray(%s).ravel())' % (on, off, b),
                   probe=False)
            continue
        try:
            r = p.bind(s, j)
        except Reject:
            continue
        p.show(r, r, probe=probe)
