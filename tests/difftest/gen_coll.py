"""Program classes: collectives (pmap, nested pmap, named vmap), grad, PRNG, printing."""
import random
import sys

import numpy as np

from gen import Prog, Reject, new_array, literal, fmt_float, rand_shape, DT_JAX, SPECIAL_F
from gen_cases import TOL_ARITH, TOL_TRANS

NORMAL_TOL = (1e-6, 1e-7)  # normal() is within 2 ulp of JAX (spec section 9)


# Known and being fixed on another branch (issue 14): ppermute, all_to_all, psum_scatter
# and axis_index over a tuple of axes that mixes vmap and pmap axes. Not generated.
NOT_MIXED = ("ppermute", "all_to_all", "psum_scatter", "axis_index")


def collective(p, x, axes, size, rest, dt, mixed=False, has_nan=False):
    """One collective applied to per-replica value x (rest: its shape); (spmd, JAX).
    axes: list of (name, size) the collective may use; size: the product for tuples.
    has_nan: x holds a NaN somewhere."""
    rng = p.rng
    name, n = rng.choice(axes)
    k_pre = rng.choice(["psum", "pmean", "pmax", "pmin", "all_gather", "ppermute", "all_to_all",
                        "psum_scatter", "axis_index", "norm", "axis_size"])
    if len(axes) > 1 and rng.random() < 0.3 and not (mixed and k_pre in NOT_MIXED):
        names = [a for a, _ in axes]
        ax_s, ax_j, n = "(%s)" % ", ".join(names), repr(tuple(names)), int(np.prod([s for _, s in axes]))
    else:
        ax_s, ax_j = name, repr(name)
    k = k_pre
    single = ax_s == name
    if k in ("pmax", "pmin") and has_nan and ("i" in ax_s or "j" in ax_s):
        # XLA's all-reduce max/min on CPU drops NaN (spmdrun and vmap propagate it; README)
        raise Reject("NaN through a device pmax")
    if k in ("psum", "pmean", "pmax", "pmin"):
        return "%s(%s, %s)" % (k, x, ax_s), "jax.lax.%s(%s, %s)" % (k, x, ax_j)
    if k == "norm" and dt == "bool":
        raise Reject("XLA folds f32(bool) / y")  # see README.md, deliberate differences
    if k == "norm":
        return "%s / psum(%s, %s)" % (x, x, ax_s), "%s / jax.lax.psum(%s, %s)" % (x, x, ax_j)
    if k == "all_gather":
        tiled = rest and rng.random() < 0.4
        return ("all_gather(%s, %s%s)" % (x, ax_s, ", tiled=true" if tiled else ""),
                "jax.lax.all_gather(%s, %s, tiled=%r)" % (x, ax_j, bool(tiled)))
    if k == "axis_index":
        return "%s + axis_index(%s)" % (x, ax_s), "%s + jax.lax.axis_index(%s)" % (x, ax_j)
    if k == "axis_size":
        return "%s * axis_size(%s)" % (x, ax_s), "%s * %d" % (x, n)
    if not single:
        raise Reject("tuple axes for %s" % k)
    if k == "ppermute":
        src = list(range(n)); dst = list(range(n))
        rng.shuffle(src); rng.shuffle(dst)
        m = rng.randint(1, n)
        perm = list(zip(src[:m], dst[:m]))
        return ("ppermute(%s, %s, [%s])" % (x, name, ", ".join("(%d, %d)" % q for q in perm)),
                "jax.lax.ppermute(%s, %r, perm=%r)" % (x, name, perm))
    if k == "all_to_all":
        if not rest:
            raise Reject("scalar")
        tiled = rng.random() < 0.4
        cands = [d for d, s in enumerate(rest) if (s % n == 0 if tiled else s == n)]
        if not cands:
            raise Reject("no axis")
        sa = rng.choice(cands)
        ca = rng.randrange(len(rest) + (0 if tiled else 0))
        return ("all_to_all(%s, %s, %d, %d%s)" % (x, name, sa, ca, ", tiled=true" if tiled else ""),
                "jax.lax.all_to_all(%s, %r, %d, %d, tiled=%r)" % (x, name, sa, ca, tiled))
    if k == "psum_scatter":
        if not rest:
            raise Reject("scalar")
        tiled = rng.random() < 0.5
        cands = [d for d, s in enumerate(rest) if (s % n == 0 if tiled else s == n)]
        if not cands:
            raise Reject("no axis")
        d = rng.choice(cands)
        return ("psum_scatter(%s, %s, scatter_dimension=%d%s)" % (x, name, d, ", tiled=true" if tiled else ""),
                "jax.lax.psum_scatter(%s, %r, scatter_dimension=%d, tiled=%r)" % (x, name, d, tiled))
    raise Reject(k)


def rest_shape(rng, sizes):
    opts = [[], [2], [3], list(sizes[:1]), [sizes[0], 2], [2, sizes[-1]], [sizes[0] * 2]]
    return rng.choice(opts)


def gen_coll(p, mode):
    rng = p.rng
    dt = rng.choice(["f32", "f32", "f32", "i32", "u32", "bool"])
    if mode == "pmap":
        n = rng.randint(1, 8)
        axes = [("i", n)]
    elif mode == "nested":
        r = rng.choice([1, 2, 4, 2, 3])
        c = rng.choice([c for c in (1, 2, 4) if r * c <= 8])
        axes = [("i", r), ("j", c)]
    elif mode == "vmap":
        axes = [("v", rng.randint(1, 6))]
    else:  # vmap in pmap
        axes = [("i", rng.choice([2, 4])), ("v", rng.choice([1, 2, 3]))]
    sizes = [s for _, s in axes]
    rest = rest_shape(rng, sizes)
    xs = new_array(p, dt=dt, shape=sizes + rest, special=0.05)
    has_nan = dt == "f32" and bool(np.isnan(np.asarray(p.val(xs))).any())
    inner = "x"
    for _ in range(rng.randint(1, 2)):
        try:
            cs, cj = collective(p, inner, axes, sizes, rest, dt, mode == "vmap_in_pmap", has_nan)
        except Reject:
            continue
        inner_s, inner_j = cs, cj
        break
    else:
        inner_s, inner_j = "psum(x, %s)" % axes[0][0], "jax.lax.psum(x, %r)" % axes[0][0]
    if mode == "pmap":
        s = "pmap i (x in %s) { %s }" % (xs, inner_s)
        j = "jax.pmap(lambda x: %s, axis_name='i')(%s)" % (inner_j, xs)
    elif mode == "vmap":
        s = "vmap v (x in %s) { %s }" % (xs, inner_s)
        j = "jax.vmap(lambda x: %s, axis_name='v')(%s)" % (inner_j, xs)
    elif mode == "nested":
        s = "pmap i (r in %s) { pmap j (x in r) { %s } }" % (xs, inner_s)
        j = "pmap2(lambda x: %s, %s, %d, %d)" % (inner_j, xs, axes[0][1], axes[1][1])
    else:
        s = "pmap i (r in %s) { vmap v (x in r) { %s } }" % (xs, inner_s)
        j = ("jax.pmap(lambda r: jax.vmap(lambda x: %s, axis_name='v')(r), axis_name='i')(%s)"
             % (inner_j, xs))
    r = p.bind(s, j)
    p.loosen(*TOL_ARITH)
    p.show(r, r)


# ---------------------------------------------------------------------------------------
# grad

def grad_term(rng, x):
    """A differentiable-almost-everywhere f32 expression of x (spmd, JAX)."""
    c = rng.choice(["0.0", "1.0", "-1.0", "0.5"])
    terms = [
        ("relu(%s)", "jax.nn.relu(%s)"), ("abs(%s)", "jnp.abs(%s)"),
        ("maximum(%s, " + c + ")", "jnp.maximum(%s, " + c + ")"),
        ("minimum(%s, " + c + ")", "jnp.minimum(%s, " + c + ")"),
        ("maximum(%s, %s)", "jnp.maximum(%s, %s)"),
        ("clip(%s, -1.0, 1.0)", "jnp.clip(%s, -1.0, 1.0)"),
        ("sqrt(abs(%s))", "jnp.sqrt(jnp.abs(%s))"), ("sin(%s)", "jnp.sin(%s)"),
        ("exp(%s)", "jnp.exp(%s)"), ("tanh(%s)", "jnp.tanh(%s)"),
        ("sigmoid(%s)", "jax.nn.sigmoid(%s)"), ("%s * %s", "%s * %s"),
        ("%s ** 2", "%s ** 2"), ("%s ** 3.0", "%s ** 3.0"), ("floor(%s)", "jnp.floor(%s)"),
        ("round(%s)", "jnp.round(%s)"), ("sign(%s)", "jnp.sign(%s)"),
        ("where(%s > 0.0, %s, 0.0)", "jnp.where(%s > 0.0, %s, 0.0)"),
        ("max(%s)", "jnp.max(%s)"), ("min(%s)", "jnp.min(%s)"), ("prod(%s)", "jnp.prod(%s)"),
        ("logsumexp(%s)", "jax.scipy.special.logsumexp(%s)"), ("mean(%s)", "jnp.mean(%s)"),
        ("%s / (1.0 + %s * %s)", "%s / (1.0 + %s * %s)"), ("log1p(%s * %s)", "jnp.log1p(%s * %s)"),
    ]
    s, j = rng.choice(terms)
    k = s.count("%s")
    return s % ((x,) * k), j % ((x,) * k)


def gen_grad(p):
    rng = p.rng
    vals = [rng.choice([0.0, 0.0, 1.0, -1.0, 0.5, 2.0, -0.0, 1.5, -2.5]) for _ in range(rng.choice([1, 3, 4]))]
    n = len(vals)
    s_arr = "f32([%s])" % ", ".join(fmt_float(v) for v in vals)
    j_arr = "jnp.asarray(np.array(%r, dtype=np.float32))" % (vals,)
    a = p.bind(s_arr, j_arr)
    t1s, t1j = grad_term(rng, "x")
    if rng.random() < 0.5:
        u_s, u_j = grad_term(rng, "y")
        body_s = "{ let y = %s\n  sum(%s) }" % (t1s, u_s)
        body_j = "jnp.sum((lambda y: %s)(%s))" % (u_j, t1j)
    else:
        body_s = "sum(%s)" % t1s
        body_j = "jnp.sum(%s)" % t1j
    k = rng.random()
    if k < 0.6:
        s = "grad(fn (x) %s)(%s)" % ("= " + body_s if not body_s.startswith("{") else body_s, a)
        j = "jax.grad(lambda x: %s)(%s)" % (body_j, a)
        r = p.bind(s, j)
        p.loosen(*TOL_TRANS)
        p.show(r, r)
    elif k < 0.8:
        s = "value_and_grad(fn (x) %s)(%s)" % ("= " + body_s if not body_s.startswith("{") else body_s, a)
        j = "jax.value_and_grad(lambda x: %s)(%s)" % (body_j, a)
        r = p.bind(s, j)
        p.loosen(*TOL_TRANS)
        p.show("%s[0]" % r, "%s[0]" % r)
        p.show("%s[1]" % r, "%s[1]" % r)
    else:  # through a pmap with a collective
        m = n if n <= 8 else 1
        s = "grad(fn (x) = sum(pmap i (r in x) { %s * psum(r, i) }))(%s)" % (t1s.replace("x", "r"), a)
        j = ("jax.grad(lambda x: jnp.sum(jax.pmap(lambda r: %s * jax.lax.psum(r, 'i'), axis_name='i')(x)))(%s)"
             % (t1j.replace("x", "r"), a))
        r = p.bind(s, j)
        p.loosen(*TOL_TRANS)
        p.show(r, r)


# ---------------------------------------------------------------------------------------
# PRNG

def gen_prng(p):
    rng = p.rng
    seed = rng.choice([0, 1, 42, 7, 123456, 2147483647, 1000])
    k = p.bind("key(%d)" % seed, "jax.random.key(%d)" % seed)
    for _ in range(rng.randint(1, 2)):
        c = rng.random()
        if c < 0.3:
            n = rng.randint(1, 5)
            ks = p.bind("split(%s, %d)" % (k, n), "jax.random.split(%s, %d)" % (k, n))
            i = rng.randrange(n)
            k = p.bind("%s[%d]" % (ks, i), "%s[%d]" % (ks, i))
        elif c < 0.5:
            d = rng.choice([0, 1, 5, 2147483647, 12345])
            k = p.bind("fold_in(%s, %d)" % (k, d), "jax.random.fold_in(%s, %d)" % (k, d))
        else:
            k = p.bind("split(%s)[1]" % k, "jax.random.split(%s)[1]" % k)
    shape = rand_shape(rng, 2, 5, allow_empty=False)
    c = rng.randrange(8)
    if c == 0:
        lo, hi = rng.choice([(0.0, 1.0), (-1.0, 1.0), (-3.0, 5.0), (1e-3, 2e-3), (-100.0, 0.0)])
        s = "uniform(%s, %s, lo=%r, hi=%r)" % (k, shape, lo, hi)
        j = "jax.random.uniform(%s, %r, minval=%r, maxval=%r)" % (k, tuple(shape), lo, hi)
        p.loosen(1e-6, 1e-7)
    elif c == 1:
        s, j = "uniform(%s, %s)" % (k, shape), "jax.random.uniform(%s, %r)" % (k, tuple(shape))
    elif c == 2:
        s, j = "normal(%s, %s)" % (k, shape), "jax.random.normal(%s, %r)" % (k, tuple(shape))
        p.loosen(*NORMAL_TOL)
    elif c == 3:
        lo, hi = rng.choice([(0, 10), (-5, 5), (0, 2), (-2147483647, 2147483647), (100, 101), (0, 1000000)])
        s = "randint(%s, %s, %d, %d)" % (k, shape, lo, hi)
        j = "jax.random.randint(%s, %r, %d, %d)" % (k, tuple(shape), lo, hi)
    elif c == 4:
        pr = rng.choice([0.0, 0.5, 0.1, 1.0, 0.999])
        if rng.random() < 0.5:
            s, j = "bernoulli(%s, %r, %s)" % (k, pr, shape), "jax.random.bernoulli(%s, %r, %r)" % (k, pr, tuple(shape))
        else:
            pa = new_array(p, dt="f32", shape=shape, special=0.0)
            s, j = "bernoulli(%s, abs(%s) / 4.0)" % (k, pa), "jax.random.bernoulli(%s, jnp.abs(%s) / 4.0)" % (k, pa)
    elif c == 5:
        n = rng.randint(1, 6)
        s, j = "key_data(split(%s, %d))" % (k, n), "jax.random.key_data(jax.random.split(%s, %d))" % (k, n)
    elif c == 6:
        n = rng.randint(1, 8)
        f = rng.choice([("uniform(k, [2])", "jax.random.uniform(k, (2,))"),
                        ("normal(k, [3])", "jax.random.normal(k, (3,))"),
                        ("randint(k, [2], 0, 9)", "jax.random.randint(k, (2,), 0, 9)"),
                        ("key_data(fold_in(k, 3))", "jax.random.key_data(jax.random.fold_in(k, 3))")])
        if "normal" in f[0]:
            p.loosen(*NORMAL_TOL)
        mode = rng.choice(["vmap", "pmap"])
        if mode == "vmap":
            s = "vmap (k in split(%s, %d)) { %s }" % (k, n, f[0])
            j = "jax.vmap(lambda k: %s)(jax.random.split(%s, %d))" % (f[1], k, n)
        else:
            s = "pmap i (k in split(%s, %d)) { %s }" % (k, n, f[0])
            j = "jax.pmap(lambda k: %s, axis_name='i')(jax.random.split(%s, %d))" % (f[1], k, n)
    else:
        s, j = "%s" % k, "%s" % k
        p.show(s, j, probe=False)
        return
    r = p.bind(s, j)
    p.show(r, r)


# ---------------------------------------------------------------------------------------
# printing of edge values (compared as exact text)

def gen_print(p):
    rng = p.rng
    for _ in range(rng.randint(1, 3)):
        c = rng.randrange(6)
        if c == 0:
            vals = [rng.choice(SPECIAL_F + [1e-45, 1e-40]) for _ in range(rng.randint(1, 6))]
            s = "f32([%s])" % ", ".join(fmt_float(v) for v in vals)
            j = "jnp.asarray(np.array([%s], dtype=np.float32))" % ", ".join(
                repr(v) if np.isfinite(v) else "float('%r')" % v for v in vals)
        elif c == 1:
            v = rng.choice(SPECIAL_F + [1e-45])
            s = "f32(%s)" % fmt_float(v)
            j = "jnp.asarray(np.array(%s, dtype=np.float32))" % (repr(v) if np.isfinite(v) else "float('%r')" % v)
        elif c == 2:
            vals = [rng.choice([0, 1, -1, 2147483647, -2147483647, 100000, 99, -5]) for _ in range(rng.randint(1, 6))]
            s = "i32([%s])" % ", ".join(map(str, vals))
            j = "jnp.asarray(np.array(%r, dtype=np.int32))" % (vals,)
            if rng.random() < 0.4:
                s, j = "(%s - 1)" % s, "(%s - 1)" % j  # wraps at the limit
            elif rng.random() < 0.4:
                s, j = "u32(%s)" % s, "(%s).astype(jnp.uint32)" % j
        elif c == 3:
            n = rng.choice([999, 1000, 1001, 2000, 30, 12])
            base = rng.choice([("arange(%d)", "jnp.arange(%d)"),
                               ("f32(arange(%d)) * 0.37", "jnp.arange(%d).astype(jnp.float32) * 0.37"),
                               ("f32(arange(%d)) * 1e5", "jnp.arange(%d).astype(jnp.float32) * 1e5"),
                               ("arange(%d) %% 3 == 0", "jnp.arange(%d) %% 3 == 0")])
            s, j = base[0] % n, base[1] % n
            if rng.random() < 0.3 and n % 3 == 0:
                s, j = "reshape(%s, [3, -1])" % s, "(%s).reshape(3, -1)" % j
        elif c == 4:
            scale = rng.choice([1e-5, 1e-3, 1.0, 1e3, 1e8, 1e-30, 1e30])
            vals = [float(np.float32(rng.uniform(-1, 1) * scale)) for _ in range(rng.randint(1, 5))]
            s = "f32([%s])" % ", ".join(fmt_float(v) for v in vals)
            j = "jnp.asarray(np.array(%r, dtype=np.float32))" % (vals,)
        else:
            v = rng.choice([0.5, 2.5, 1e-05, 1e20, 3.0, 0.1, 123456.0, 1.5e-10])
            s, j = repr(v), "jnp.float32(%r)" % v
            p.show(s, j, probe=False)
            continue
        r = p.bind(s, j)
        p.show(r, r)


# ---------------------------------------------------------------------------------------
from gen_cases import (gen_binop, gen_unary, gen_reduce, gen_reduce_long, gen_nan_reduce,  # noqa
                       gen_index, gen_bool, gen_cast, gen_ifval, gen_shape_ops)

CLASSES = [  # (name, weight, generator)
    ("binop", 14, gen_binop), ("unary", 10, gen_unary), ("reduce", 9, gen_reduce),
    ("reduce_long", 3, gen_reduce_long), ("nan_reduce", 4, gen_nan_reduce),
    ("index", 8, gen_index), ("bool", 6, gen_bool), ("cast", 6, gen_cast),
    ("ifval", 3, gen_ifval), ("shape", 5, gen_shape_ops),
    ("pmap", 8, lambda p: gen_coll(p, "pmap")), ("nested_pmap", 5, lambda p: gen_coll(p, "nested")),
    ("vmap", 5, lambda p: gen_coll(p, "vmap")), ("vmap_in_pmap", 3, lambda p: gen_coll(p, "vmap_in_pmap")),
    ("grad", 8, gen_grad), ("prng", 8, gen_prng), ("print", 6, gen_print),
]


def make_program(seed, only=None):
    """The program for seed: its class drawn by weight, regenerated until JAX accepts it."""
    for attempt in range(50):
        rng = random.Random(seed * 1000 + attempt)
        cands = [c for c in CLASSES if only is None or c[0] in only]
        new = [c for c in CLASSES16 if only is None or c[0] in only]
        new17 = [c for c in CLASSES17 if only is None or c[0] in only]
        new18 = [c for c in CLASSES18 if only is None or c[0] in only]
        # The classes of gen18.py by a fourth draw, before the others, so that a seed
        # that does not draw one of them gives the program it gave before they existed.
        w_18 = sum(c[1] for c in new18)
        if new18 and (not cands + new + new17 or random.Random(seed * 1000 + attempt + 13 * 10**12)
                      .random() < w_18 / (w_18 + sum(c[1] for c in cands + new + new17))):
            cands, new, new17 = new18, [], []
        # The classes of gen17.py by a third draw, as gen16's below: a seed that does not
        # draw one of them gives the program it gave before they existed.
        w_17 = sum(c[1] for c in new17)
        w_all = sum(c[1] for c in cands + new) + w_17
        if new17 and (not cands + new or random.Random(seed * 1000 + attempt + 11 * 10**12)
                      .random() < w_17 / w_all):
            cands, new = new17, []
        # The classes of gen16.py are drawn by a second generator, so that a seed whose
        # draw does not pick one of them gives the program it gave before they existed.
        w_old, w_new = sum(c[1] for c in cands), sum(c[1] for c in new)
        if new and (not cands or random.Random(seed * 1000 + attempt + 7 * 10**12).random()
                    < w_new / (w_old + w_new)):
            cands = new
        name, _, fn = rng.choices(cands, weights=[c[1] for c in cands])[0]
        p = Prog(rng, name)
        try:
            fn(p)
        except Reject:
            continue
        except Exception as e:  # a bug of the generator: say so, try another program
            print("gen: seed %d attempt %d (%s): %r" % (seed, attempt, name, e), file=sys.stderr)
            continue
        if p.out.getvalue():
            return p
    raise RuntimeError("no program for seed %d" % seed)

from gen_more import gen_loop, gen_mapax, gen_shard, gen_tree, gen_builtin  # noqa: E402

CLASSES += [
    ("loop", 6, gen_loop), ("mapax", 6, gen_mapax), ("shard", 5, gen_shard),
    ("tree", 4, gen_tree), ("builtin", 6, gen_builtin),
]

from gen16 import gen_typedfn, gen_shard2, gen_nestmap  # noqa: E402

CLASSES16 = [("typedfn", 6, gen_typedfn), ("shard2", 6, gen_shard2), ("nestmap", 6, gen_nestmap)]

from gen17 import gen_mlp, gen_norm, gen_attn  # noqa: E402

CLASSES17 = [("mlp", 6, gen_mlp), ("norm", 5, gen_norm), ("attn", 5, gen_attn)]

from gen18 import gen_train, gen_keyloop, gen_nestodd, gen_halo, gen_poolmap  # noqa: E402

CLASSES18 = [("train", 6, gen_train), ("keyloop", 5, gen_keyloop), ("nestodd", 5, gen_nestodd),
              ("halo", 4, gen_halo), ("poolmap", 4, gen_poolmap)]
