"""The program classes of the difftest generator (see gen.py and README.md)."""
import random

import numpy as np

from gen import Prog, Reject, new_array, literal, fmt_float, rand_shape, DT_JAX

# Tolerances (rtol, atol), on top of the rounding unit of each printed number (compare.py).
# atol is at least the smallest normal f32: XLA flushes results below it to zero.
TOL_ARITH = (1e-6, 1.2e-38)       # + - * / of f32: JAX and spmdrun should give the same bits
TOL_TRANS = (4e-6, 1e-6)      # exp log sin ...: both round to within a few ulp
TOL_LONG = (2e-5, 1e-5)       # long sums of sin (a few ulp per element) and logsumexp

BINOPS = ["+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "==", "!=", "<", "<=", ">",
          ">=", "maximum", "minimum"]
PYOP = {"maximum": "jnp.maximum", "minimum": "jnp.minimum"}
UNARY = {"exp": "jnp.exp", "log": "jnp.log", "log1p": "jnp.log1p", "sqrt": "jnp.sqrt",
         "rsqrt": "jax.lax.rsqrt", "sin": "jnp.sin", "cos": "jnp.cos", "tan": "jnp.tan",
         "tanh": "jnp.tanh", "sigmoid": "jax.nn.sigmoid", "relu": "jax.nn.relu",
         "abs": "jnp.abs", "sign": "jnp.sign", "floor": "jnp.floor", "ceil": "jnp.ceil",
         "round": "jnp.round", "-": "jnp.negative", "~": "jnp.invert", "not": "jnp.logical_not"}
TRANSCENDENTAL = {"exp", "log", "log1p", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh",
                  "sigmoid"}
REDUCE = {"sum": "jnp.sum", "mean": "jnp.mean", "max": "jnp.max", "min": "jnp.min",
          "prod": "jnp.prod", "argmax": "jnp.argmax", "argmin": "jnp.argmin",
          "all": "jnp.all", "any": "jnp.any",
          "logsumexp": "jax.scipy.special.logsumexp"}


def binop(op, a, b):
    if op in PYOP:
        return "%s(%s, %s)" % (op, a, b), "%s(%s, %s)" % (PYOP[op], a, b)
    return "(%s %s %s)" % (a, op, b), "(%s %s %s)" % (a, op, b)


def xla_folds(p, op, lhs, rhs):
    """Whether XLA's rewrites change lhs op rhs from what IEEE arithmetic gives (README.md,
    deliberate differences): a bool array divided by something holding 0 (XLA's x / c is
    x * (1 / c), and a float times a bool is a select), 0 where IEEE gives nan."""
    if op != "/":
        return False
    n, d = np.asarray(p.try_eval(lhs)), np.asarray(p.try_eval(rhs))
    return n.dtype == np.bool_ and bool(np.any(d == 0))


def weak_literal(rng):
    """A weakly typed literal (spmd, JAX)."""
    if rng.random() < 0.5:
        v = rng.choice([0, 1, 2, 3, -1, -2, 7, 100])
        return str(v), str(v)
    v = rng.choice([0.5, 1.0, 2.0, -1.5, 0.0, 3.25, 1e-3, 10.0])
    return repr(v), repr(v)


def broadcast_partner(rng, shape):
    """A shape broadcast-compatible with shape."""
    out = list(shape)
    k = rng.random()
    if k < 0.3:
        return out
    if k < 0.5 and out:
        return out[rng.randrange(len(out)):]  # a suffix
    if k < 0.7:
        return [1 if rng.random() < 0.5 else d for d in out]
    if k < 0.8:
        return []
    return [rng.choice([1, 2])] + out


def gen_binop(p):
    rng = p.rng
    a = new_array(p)
    sa = list(p.val(a).shape)
    if rng.random() < 0.35:
        sb, jb = weak_literal(rng)
    else:
        b = new_array(p, shape=broadcast_partner(rng, sa))
        sb = jb = b
    for _ in range(rng.randint(1, 3)):
        op = rng.choice(BINOPS)
        lhs, rhs = (a, sb) if rng.random() < 0.7 else (sb, a)
        lv = np.asarray(p.try_eval(lhs))
        if op == "**" and lv.dtype.kind in "iu" and rng.random() < 0.6:
            # Integer powers that overflow and wrap, and exponents past jnp.power's 6 bits.
            dt = "u32" if lv.dtype.kind == "u" else "i32"
            es = [abs(v) if dt == "u32" else v
                  for v in (rng.randint(-3, 70) for _ in range(max(1, lv.size)))]
            se = "%s([%s])" % (dt, ", ".join(map(str, es)))
            je = "jnp.asarray(np.array([%s], dtype=%s))" % (
                ", ".join(map(str, es)), "np.uint32" if dt == "u32" else "np.int32")
            if lv.ndim != 1:
                se = "reshape(%s, %s)" % (se, list(lv.shape))
                je = "%s.reshape(%s)" % (je, tuple(lv.shape))
            try:
                rhs = p.bind(se, je)
            except Reject:
                continue
        s, j = binop(op, lhs, rhs)
        if xla_folds(p, op, lhs, rhs):
            continue
        try:
            r = p.bind(s, j)
        except Reject:
            continue
        if str(p.val(r).dtype) == "float32":
            p.loosen(*TOL_ARITH)
        p.show(r, r)


def gen_unary(p):
    rng = p.rng
    dt = rng.choice(["f32"] * 6 + ["i32", "u32", "bool"])
    a = new_array(p, dt=dt, special=0.5)
    if rng.random() < 0.3:  # a whole range sweep
        lo, hi = rng.choice([(-100.0, 100.0), (-1e4, 1e4), (-1e30, 1e30), (-90.0, 90.0),
                             (1.2e-38, 1.0), (-3.0, 3.0), (0.0, 200.0)])
        n = rng.choice([7, 33, 101])
        # (linspace is not used: XLA's is not correctly rounded, see README.md)
        a = p.bind("f32(arange(%d)) * %r + %r" % (n, (hi - lo) / (n - 1), lo),
                   "jnp.arange(%d).astype(jnp.float32) * %r + %r" % (n, (hi - lo) / (n - 1), lo))
    for _ in range(rng.randint(1, 3)):
        name = rng.choice(list(UNARY))
        if name == "not" and str(p.val(a).dtype) != "bool":
            continue  # the spec: logical operators take bools (JAX's logical_not takes any)
        if name in ("-", "~", "not"):
            s, j = "(%s%s%s)" % (name, " " if name == "not" else "", a), "%s(%s)" % (UNARY[name], a)
        else:
            s, j = "%s(%s)" % (name, a), "%s(%s)" % (UNARY[name], a)
        try:
            r = p.bind(s, j)
        except Reject:
            continue
        p.loosen(*(TOL_TRANS if name in TRANSCENDENTAL else TOL_ARITH))
        p.show(r, r)


def gen_reduce(p):
    rng = p.rng
    dt = rng.choice(["f32"] * 4 + ["i32", "u32", "bool"])
    shape = rand_shape(rng, 3, allow_empty=False) or [3]
    a = new_array(p, dt=dt, shape=shape, special=0.25)
    for _ in range(rng.randint(1, 3)):
        name = rng.choice(list(REDUCE))
        kw_s, kw_j = [], []
        nd = len(shape)
        if nd and rng.random() < 0.6:
            if rng.random() < 0.3 and nd > 1 and not name.startswith("arg"):
                ax = tuple(sorted(rng.sample(range(nd), rng.randint(1, nd))))
                ax = tuple(x - nd if rng.random() < 0.2 else x for x in ax)
                kw_s.append("axis=(%s%s)" % (", ".join(map(str, ax)), "," if len(ax) == 1 else ""))
                kw_j.append("axis=%r" % (ax,))
            else:
                ax = rng.randrange(-nd, nd)
                kw_s.append("axis=%d" % ax)
                kw_j.append("axis=%d" % ax)
            if rng.random() < 0.4:
                kw_s.append("keepdims=true")
                kw_j.append("keepdims=True")
        s = "%s(%s)" % (name, ", ".join([a] + kw_s))
        j = "%s(%s)" % (REDUCE[name], ", ".join([a] + kw_j))
        try:
            r = p.bind(s, j)
        except Reject:
            continue
        # f32 sum, mean and prod add in XLA:CPU's order (Note [XLA sum order]): same bits.
        p.loosen(*(TOL_TRANS if name == "logsumexp" else TOL_ARITH))
        p.show(r, r)


def gen_reduce_long(p):
    rng = p.rng
    n = rng.choice([1000, 4096, 10000, 65536, 100003])
    kind = rng.randrange(4)
    if kind == 0:
        a = p.bind("f32(arange(%d)) * 0.1" % n, "jnp.arange(%d).astype(jnp.float32) * 0.1" % n)
    elif kind == 1:
        a = p.bind("uniform(key(%d), [%d])" % (n, n), "jax.random.uniform(jax.random.key(%d), (%d,))" % (n, n))
    elif kind == 2:
        a = p.bind("f32(arange(%d)) * 0.001 - 1.0" % n, "jnp.arange(%d).astype(jnp.float32) * 0.001 - 1.0" % n)
    else:
        a = p.bind("sin(f32(arange(%d)))" % n, "jnp.sin(jnp.arange(%d).astype(jnp.float32))" % n)
    if rng.random() < 0.3:
        a = p.bind("reshape(%s, [%d, -1])" % (a, {1000: 8, 4096: 64, 10000: 100, 65536: 256, 100003: 1}[n]),
                   "%s.reshape(%d, -1)" % (a, {1000: 8, 4096: 64, 10000: 100, 65536: 256, 100003: 1}[n]))
    for _ in range(2):
        name = rng.choice(["sum", "mean", "logsumexp", "max", "min", "argmax", "argmin"])
        r = p.bind("%s(%s)" % (name, a), "%s(%s)" % (REDUCE[name], a))
        # Sums add in XLA:CPU's order (Note [XLA sum order]): the same bits, unless the
        # elements (sin) or the reduction (logsumexp) carry ulp differences.
        p.loosen(*(TOL_LONG if kind == 3 or name == "logsumexp" else TOL_ARITH))
        p.show(r, r)


def gen_nan_reduce(p):
    """inf and nan through every reduction, whole-array and along an axis."""
    rng = p.rng
    vals = [rng.choice([float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1.0, -2.0, 3.5])
            for _ in range(6)]
    s = "reshape(f32([%s]), [2, 3])" % ", ".join(fmt_float(v) for v in vals)
    j = "jnp.asarray(np.array([%s], dtype=np.float32)).reshape(2, 3)" % ", ".join(
        repr(v) if np.isfinite(v) else "float('%r')" % v for v in vals)
    a = p.bind(s, j)
    for name in rng.sample(list(REDUCE), 4):
        ax = rng.choice([None, 0, 1])
        s = "%s(%s%s)" % (name, a, "" if ax is None else ", axis=%d" % ax)
        j = "%s(%s%s)" % (REDUCE[name], a, "" if ax is None else ", axis=%d" % ax)
        try:
            r = p.bind(s, j)
        except Reject:
            continue
        p.loosen(*TOL_TRANS)
        p.show(r, r)


def gen_index(p):
    rng = p.rng
    shape = [rng.choice([1, 2, 3, 5, 6]) for _ in range(rng.choice([1, 2, 3]))]
    a = new_array(p, shape=shape, special=0.1)
    for _ in range(rng.randint(1, 3)):
        parts_s, parts_j = [], []
        for d in shape[: rng.randint(1, len(shape))]:
            k = rng.random()
            if k < 0.3:
                i = rng.randrange(-d, d)
                parts_s.append(str(i))
                parts_j.append(str(i))
            elif k < 0.4:
                parts_s.append(":")
                parts_j.append(":")
            else:
                def b():
                    return "" if rng.random() < 0.3 else str(rng.randint(-d - 1, d + 1))
                lo, hi = b(), b()
                st = rng.choice(["", "", "1", "2", "-1", "-2", "3"])
                sl = "%s:%s" % (lo, hi) + (":" + st if st else "")
                parts_s.append(sl)
                parts_j.append(sl)
        s = "%s[%s]" % (a, ", ".join(parts_s))
        j = "%s[%s]" % (a, ", ".join(parts_j))
        if rng.random() < 0.25:  # a dynamic (run-time) index, in range
            d = shape[0]
            i = rng.randrange(-d, d)
            s = "%s[i32(sum(ones([%d])) - %d)]" % (a, abs(i) + 1, abs(i) + 1 - i)
            j = "%s[%d]" % (a, i)
        if rng.random() < 0.2:  # set(x, index, value)
            d = shape[0]
            i = rng.randrange(-d, d)
            sv, jv = literal(rng, str(p.val(a).dtype).replace("float32", "f32").replace(
                "int32", "i32").replace("ui32", "u32").replace("bool", "bool"), [], 0.0)
            dyn = rng.random() < 0.5
            si = ("i32(sum(ones([%d])) - %d)" % (abs(i) + 1, abs(i) + 1 - i)) if dyn else str(i)
            s = "set(%s, %s, %s)" % (a, si, sv)
            j = "%s.at[%d].set(%s)" % (a, i, jv)
        try:
            r = p.bind(s, j)
        except Reject:
            continue
        p.show(r, r)


def gen_bool(p):
    rng = p.rng
    a = new_array(p, dt="bool")
    b = new_array(p, dt="bool", shape=broadcast_partner(rng, list(p.val(a).shape)))
    ops = ["+", "*", "-", "&", "|", "^", "==", "!=", "<", ">=", "and", "or", "//", "%", "**", "/"]
    for _ in range(rng.randint(2, 4)):
        op = rng.choice(ops + ["sum", "prod", "mean", "not", "~", "-u", "max", "argmax", "lit",
                               "i32", "f32", "u32", "where", "cumul"])
        if op in ("and", "or"):
            if p.val(a).shape or p.val(b).shape:
                s, j = "(%s %s %s)" % (a, "&" if op == "and" else "|", b), \
                    "jnp.logical_%s(%s, %s)" % (op, a, b)
            else:
                s, j = "(%s %s %s)" % (a, op, b), "jnp.logical_%s(%s, %s)" % (op, a, b)
        elif op in ops:
            if xla_folds(p, op, a, b):
                continue
            s, j = binop(op, a, b)
        elif op in ("sum", "prod", "mean", "max", "argmax"):
            s, j = "%s(%s)" % (op, a), "%s(%s)" % (REDUCE[op], a)
        elif op == "not":
            s, j = "(not %s)" % a, "jnp.logical_not(%s)" % a
        elif op == "~":
            s, j = "(~%s)" % a, "jnp.invert(%s)" % a
        elif op == "-u":
            s, j = "(-%s)" % a, "jnp.negative(%s)" % a
        elif op == "lit":
            ls, lj = weak_literal(rng)
            lop = rng.choice(["+", "*", "-", "/", "&", "|"])
            if xla_folds(p, lop, a, ls):
                continue
            s, j = binop(lop, a, ls)
        elif op == "where":
            s, j = "where(%s, %s, 2)" % (a, b), "jnp.where(%s, %s, 2)" % (a, b)
        elif op == "cumul":
            s, j = "(%s + %s + %s)" % (a, b, a), "(%s + %s + %s)" % (a, b, a)
        else:
            s, j = "%s(%s)" % (op, a), "(%s).astype(%s)" % (a, DT_JAX[op])
        try:
            r = p.bind(s, j)
        except Reject:
            continue
        p.loosen(*TOL_ARITH)
        p.show(r, r)


def gen_cast(p):
    """Casts of static values (literals, static arithmetic, static lists), which convert as
    JAX's scalar types convert Python numbers (jnp.uint32([0, 4294967295]); an integer or
    float the dtype cannot hold raises, so the program never has it), of arrays, and
    full() with a static integer (wrapped, as jnp.full wraps it)."""
    rng = p.rng
    ints = [0, 1, -1, 7, -13, 255, 65536, 2147483647, -2147483647, -2147483648, 2147483648,
            4294967295, 4294967296, 16777217, 2**40]
    floats = [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.7, 1e10, -1e10, 3e9, 4.5e9, 1e-30, 16777217.0,
              2147483520.0, 2147483647.5, 4294967295.0, 3.4e38, 1e300, -1.0]
    for _ in range(rng.randint(2, 4)):
        dt = rng.choice(["f32", "i32", "u32", "bool"])
        k = rng.random()
        if k < 0.25:
            v = rng.choice(ints)
            s, j = "%s(%d)" % (dt, v), "%s(%d)" % (DT_JAX[dt], v)
        elif k < 0.5:
            v = rng.choice(floats)
            s, j = "%s(%r)" % (dt, v), "%s(%r)" % (DT_JAX[dt], v)
        elif k < 0.55:
            v = rng.choice([True, False])
            s, j = "%s(%s)" % (dt, "true" if v else "false"), "%s(%r)" % (DT_JAX[dt], v)
        elif k < 0.65:  # static integer arithmetic, then a cast
            x, y = rng.randint(-50, 50), rng.randint(1, 9)
            op = rng.choice(["+", "*", "//", "%", "-"])
            s = "%s(%d %s %d)" % (dt, x, op, y)
            j = "%s(%d %s %d)" % (DT_JAX[dt], x, op, y)
        elif k < 0.8:  # a static list (nested, mixed kinds)
            def pick():
                r = rng.random()
                return (rng.choice(floats) if r < 0.15 else rng.choice([True, False]) if r < 0.25
                        else rng.choice(ints))
            shape = rng.choice([[2], [3], [2, 2], [1, 3], [0], [2, 0]])
            flat = [pick() for _ in range(int(np.prod(shape)))]

            def nest(xs, sh):
                if len(sh) == 1:
                    return xs
                m = len(xs) // sh[0]
                return [nest(xs[i * m:(i + 1) * m], sh[1:]) for i in range(sh[0])]

            def src(x):
                if isinstance(x, list):
                    return "[" + ", ".join(src(e) for e in x) + "]"
                if isinstance(x, bool):
                    return "true" if x else "false"
                return repr(x)  # a static float is a Python float (a double)
            lst = nest(flat, shape)
            s, j = "%s(%s)" % (dt, src(lst)), "%s(%r)" % (DT_JAX[dt], lst)
        elif k < 0.85:  # full with a static integer and a dtype (or none: i32, weak)
            v = rng.choice(ints)
            if rng.random() < 0.3:
                s, j = "full([2], %d)" % v, "jnp.full([2], %d)" % v
            else:
                s, j = "full([2], %d, %s)" % (v, dt), "jnp.full([2], %d, %s)" % (v, DT_JAX[dt])
        else:
            src_ = new_array(p, special=0.4)
            s, j = "%s(%s)" % (dt, src_), "(%s).astype(%s)" % (src_, DT_JAX[dt])
        try:
            r = p.bind(s, j)
        except Reject:
            continue
        p.show(r, r)


def gen_ifval(p):
    """if with a run-time condition used as a value (in a function, in a block, nested)."""
    rng = p.rng
    a = new_array(p, dt="f32", shape=[rng.choice([2, 3])], special=0.0)
    b = new_array(p, dt="f32", shape=list(p.val(a).shape), special=0.0)
    cs, cj = rng.choice([("sum(%s) > 0.0", "jnp.sum(%s) > 0.0"),
                         ("max(%s) < 1.0", "jnp.max(%s) < 1.0"),
                         ("%s[0] >= 0.0", "%s[0] >= 0.0")])
    form = rng.randrange(3)
    if form == 0:
        p.stmt("fn pick(x, y) { if %s { x * 2.0 } else { y - 1.0 } }" % (cs % "x"),
               "def pick(x, y):\n    return jnp.where(%s, x * 2.0, y - 1.0)" % (cj % "x"))
        r = p.bind("pick(%s, %s)" % (a, b), "pick(%s, %s)" % (a, b))
    elif form == 1:
        r = p.bind("1.0 + { if %s { %s } else { %s } }" % (cs % a, a, b),
                   "1.0 + jnp.where(%s, %s, %s)" % (cj % a, a, b))
    else:
        p.stmt("fn pick2(x) { if %s { x } else if %s { -x } else { x * 0.0 } }"
               % (cs % "x", cs % "(-x)"),
               "def pick2(x):\n    return jnp.where(%s, x, jnp.where(%s, -x, x * 0.0))"
               % (cj % "x", cj % "(-x)"))
        r = p.bind("pick2(%s) + pick2(%s)" % (a, b), "pick2(%s) + pick2(%s)" % (a, b))
    p.loosen(*TOL_ARITH)
    p.show(r, r)


def gen_shape_ops(p):
    rng = p.rng
    a = new_array(p, shape=[rng.choice([1, 2, 3]) for _ in range(rng.choice([1, 2, 3]))], special=0.1)
    sh = list(p.val(a).shape)
    nd = len(sh)
    ops = []
    perm = list(range(nd)); rng.shuffle(perm)
    ops.append(("transpose(%s, %s)" % (a, perm), "jnp.transpose(%s, %s)" % (a, tuple(perm))))
    ops.append(("transpose(%s)" % a, "jnp.transpose(%s)" % a))
    ops.append(("reshape(%s, [-1])" % a, "%s.reshape(-1)" % a))
    ops.append(("ravel(%s)" % a, "jnp.ravel(%s)" % a))
    ax = rng.randrange(-nd - 1, nd + 1)
    ops.append(("expand_dims(%s, %d)" % (a, ax), "jnp.expand_dims(%s, %d)" % (a, ax)))
    ax = rng.randrange(-nd, nd)
    ops.append(("concat([%s, %s], axis=%d)" % (a, a, ax), "jnp.concatenate([%s, %s], axis=%d)" % (a, a, ax)))
    ax = rng.randrange(-nd - 1, nd + 1)
    ops.append(("stack([%s, %s], axis=%d)" % (a, a, ax), "jnp.stack([%s, %s], axis=%d)" % (a, a, ax)))
    ops.append(("broadcast_to(%s, %s)" % (a, [2] + sh), "jnp.broadcast_to(%s, %s)" % (a, tuple([2] + sh))))
    ones_ax = [i for i, d in enumerate(sh) if d == 1]
    if ones_ax:
        ops.append(("squeeze(%s, %d)" % (a, ones_ax[0]), "jnp.squeeze(%s, %d)" % (a, ones_ax[0])))
        ops.append(("squeeze(%s)" % a, "jnp.squeeze(%s)" % a))
    ops.append(("%s @ transpose(%s)" % (a, a), "%s @ jnp.transpose(%s)" % (a, a)))
    for s, j in rng.sample(ops, min(3, len(ops))):
        try:
            r = p.bind(s, j)
        except Reject:
            continue
        if "@" in s:
            p.loosen(*TOL_TRANS)
        p.show(r, r)
