"""Program classes of difftest18 (issue 14): the shapes of /work/shared/spec/examples/ that
the earlier classes never emitted. `train`: training loops as train_mlp.spmd writes them
(a `var` parameter tuple, a pmap body returning a tuple (loss, updated params) taken apart
by `tree_map(fn (p) = p[0], ..)`, and `print` inside the loop under a run-time `if`);
`keyloop`: PRNG keys threaded through loops (`split`, `fold_in` by the loop index, keys
returned from a pmap and fed back, keys in a vmap body's loop); `nestodd`: nested pmaps
over meshes the nested_pmap class never drew (r x c with 3, 5, 6 or 7 devices), returning
tuples destructured by `let (a, b, c) = ..`, collectives over one axis or both, and grad
through a pmap nested inside a pmap (grad_nested.spmd).

Built in both languages and run by JAX at generation, as gen_cases.py. A statement that
prints inside a loop records the loop's whole output as one print and marks the program
`nomin` (run.py then files it whole: its prints cannot be cut one by one)."""
import contextlib
import io

import numpy as np

from gen import Reject, new_array
from gen_cases import TOL_ARITH, TOL_TRANS
from gen_more import pydef
from gen_coll import collective
from gen17 import TOL_ML, _dim, data, labels, show_tree, _mlp_def

NORMAL_TOL = (1e-6, 1e-7)


def block(p, s, jx, nomin=True):
    """A statement that prints (a loop): its output, captured from the JAX side, is one
    print of the program."""
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            exec(jx, p.ns)
    except Exception as e:
        raise Reject(str(e)[:200])
    p.spmd.append(s)
    p.jax.append(jx)
    text = buf.getvalue()
    p.out.write(text)
    p.prints.append(text)
    if nomin:
        p.nomin = True


def _ind(src, n=1):
    return "\n".join("    " * n + l for l in src.split("\n"))


# ---------------------------------------------------------------------------------------
# train: a loop of SGD steps, data parallel in a pmap body (train_mlp.spmd), at host level
# with momentum, or with per-example gradients from a vmap.

def gen_train(p):
    rng = p.rng
    p.loosen(*TOL_ML)
    d, h = _dim(rng, 1, 12), _dim(rng, 1, 16)
    ce = rng.random() < 0.6
    o = rng.randint(2, 6) if ce else _dim(rng, 1, 6)
    two = rng.random() < 0.7
    np_ = _mlp_def(p, d, h, o, ce, two)
    sc = rng.choice([0.3, 0.5])
    if two:
        ps = [data(p, [d, h], sc), data(p, [h], 0.1), data(p, [h, o], sc), data(p, [o], 0.1)]
    else:
        ps = [data(p, [d, o], sc), data(p, [o], 0.1)]
    lr = rng.choice([0.1, 0.05, 0.3])
    steps = rng.randint(1, 8)
    every = rng.choice([1, 2, 3, 5])
    mode = rng.choice(["pmap", "pmap", "host", "vmap"])
    p.stmt("let lr = %r" % lr, "lr = %r" % lr)
    pr = "params"
    p.stmt("var params = (%s)" % ", ".join(ps), "params = (%s)" % ", ".join(ps))
    if mode == "pmap":
        n = rng.choice([1, 2, 3, 4, 5, 8, 8])
        b = _dim(rng, 1, 16)
        xs = data(p, [n, b, d])
        ts = labels(p, [n, b], o) if ce else data(p, [n, b, o])
        red = rng.choice(["pmean", "pmean", "psum"])
        rs, rj = (("pmean(t, i)", "jax.lax.pmean(t, 'i')") if red == "pmean" else
                  ("psum(t, i) / %d" % n, "jax.lax.psum(t, 'i') / %d" % n))
        vg = rng.random() < 0.7
        if vg:
            s_vg = ["    let (l, g) = value_and_grad(loss)(params, xs, ys)"]
            j_vg = ["    l, g = jax.value_and_grad(loss)(params, xs, ys)"]
        else:
            s_vg = ["    let l = loss(params, xs, ys)", "    let g = grad(loss)(params, xs, ys)"]
            j_vg = ["    l = loss(params, xs, ys)", "    g = jax.grad(loss)(params, xs, ys)"]
        pydef(p, "\n".join(["def body(params, xs, ys):"] + j_vg + [
            "    g = jax.tree.map(lambda t: %s, g)" % rj,
            "    return jax.lax.pmean(l, 'i'), jax.tree.map(lambda p, d: p - lr * d, params, g)",
            "step_fn = jax.pmap(body, axis_name='i', in_axes=(None, 0, 0))"]))
        s = "\n".join(["for step in 0..%d {" % steps,
                       "  let (l, stacked) = pmap i (xs in %s, ys in %s) {" % (xs, ts)] + s_vg + [
                       "    let g = tree_map(fn (t) = %s, g)" % rs,
                       "    (pmean(l, i), tree_map(fn (p, d) = p - lr * d, params, g))",
                       "  }",
                       "  params = tree_map(fn (p) = p[0], stacked)",
                       "  if step %% %d == 0 { print(\"step\", step, \"loss\", l[0]) }" % every,
                       "}"])
        j = "\n".join(["for step in range(%d):" % steps,
                       "    l, stacked = step_fn(params, %s, %s)" % (xs, ts),
                       "    params = jax.tree.map(lambda p: p[0], stacked)",
                       "    if step %% %d == 0: P(\"step\", step, \"loss\", l[0])" % every])
        block(p, s, j)
        xa = "reshape(%s, [%d, %d])" % (xs, n * b, d), "%s.reshape(%d, %d)" % (xs, n * b, d)
        ta = ("reshape(%s, %s)" % (ts, [n * b] if ce else [n * b, o]),
              "%s.reshape(%s)" % (ts, (n * b,) if ce else (n * b, o)))
    elif mode == "host":
        b = _dim(rng, 1, 24)
        xs = data(p, [b, d])
        ts = labels(p, [b], o) if ce else data(p, [b, o])
        beta = rng.choice([0.0, 0.9, 0.5])
        p.stmt("var vel = tree_map(fn (p) = p * 0.0, params)",
               "vel = jax.tree.map(lambda p: p * 0.0, params)")
        s = "\n".join([
            "for step in 0..%d {" % steps,
            "  let (l, g) = value_and_grad(loss)(params, %s, %s)" % (xs, ts),
            "  vel = tree_map(fn (v, d) = %r * v + d, vel, g)" % beta,
            "  params = tree_map(fn (p, v) = p - lr * v, params, vel)",
            "  if step %% %d == 0 { print(\"step\", step, \"loss\", l) }" % every,
            "}"])
        j = "\n".join([
            "for step in range(%d):" % steps,
            "    l, g = jax.value_and_grad(loss)(params, %s, %s)" % (xs, ts),
            "    vel = jax.tree.map(lambda v, d: %r * v + d, vel, g)" % beta,
            "    params = jax.tree.map(lambda p, v: p - lr * v, params, vel)",
            "    if step %% %d == 0: P(\"step\", step, \"loss\", l)" % every])
        block(p, s, j)
        xa, ta = (xs, xs), (ts, ts)
    else:  # per-example gradients from a vmap, averaged
        b = _dim(rng, 1, 12)
        xs = data(p, [b, d])
        ts = labels(p, [b], o) if ce else data(p, [b, o])
        tsh = [1] if ce else [1, o]
        pydef(p, "pe = jax.jit(lambda params, xs, ts: jax.vmap(lambda x, t: jax.grad(loss)("
                 "params, x.reshape(1, %d), t.reshape(%s)))(xs, ts))" % (d, tuple(tsh)))
        s = "\n".join([
            "for step in 0..%d {" % steps,
            "  let g = vmap (x in %s, t in %s) { grad(loss)(params, reshape(x, [1, %d]), "
            "reshape(t, %s)) }" % (xs, ts, d, tsh),
            "  params = tree_map(fn (p, d) = p - lr * mean(d, axis=0), params, g)",
            "  if step %% %d == 0 { print(step, loss(params, %s, %s)) }" % (every, xs, ts),
            "}"])
        j = "\n".join([
            "for step in range(%d):" % steps,
            "    g = jax.vmap(lambda x, t: jax.grad(loss)(params, x.reshape(1, %d), "
            "t.reshape(%s)))(%s, %s)" % (d, tuple(tsh), xs, ts),
            "    params = jax.tree.map(lambda p, d: p - lr * jnp.mean(d, axis=0), params, g)",
            "    if step %% %d == 0: P(step, loss(params, %s, %s))" % (every, xs, ts)])
        block(p, s, j)
        xa, ta = (xs, xs), (ts, ts)
    p.show("loss(%s, %s, %s)" % (pr, xa[0], ta[0]), "loss(%s, %s, %s)" % (pr, xa[1], ta[1]),
           probe=False)
    if rng.random() < 0.4:
        show_tree(p, pr, np_)


# ---------------------------------------------------------------------------------------
# keyloop: a key carried by a loop (`k = split(k)[0]`, `k = fold_in(k, t)`), draws from the
# other half accumulated into a var; keys returned from a pmap and fed back; a loop in a
# vmap body over a batch of keys.

DRAWS = ["normal", "normal", "uniform", "bernoulli", "randint"]


def _draw(rng, k, shape):
    """A draw from key k accumulated into f32 x: (spmd, JAX) of the new x."""
    f = rng.choice(DRAWS)
    sh, shj = list(shape), tuple(shape)
    if f == "normal":
        c = rng.choice([1.0, 0.5, 0.1])
        return ("x + normal(%s, %s) * %r" % (k, sh, c),
                "x + jax.random.normal(%s, %r) * %r" % (k, shj, c))
    if f == "uniform":
        lo, hi = rng.choice([(0.0, 1.0), (-1.0, 1.0), (2.0, 3.5)])
        return ("x * 0.5 + uniform(%s, %s, lo=%r, hi=%r)" % (k, sh, lo, hi),
                "x * 0.5 + jax.random.uniform(%s, %r, minval=%r, maxval=%r)" % (k, shj, lo, hi))
    if f == "bernoulli":
        q = rng.choice([0.5, 0.8, 0.25])
        return ("where(bernoulli(%s, %r, %s), x + 1.0, x * 0.5)" % (k, q, sh),
                "jnp.where(jax.random.bernoulli(%s, %r, %r), x + 1.0, x * 0.5)" % (k, q, shj))
    hi = rng.choice([3, 10, 100])
    return ("x + f32(randint(%s, %s, 0, %d))" % (k, sh, hi),
            "x + jax.random.randint(%s, %r, 0, %d).astype(jnp.float32)" % (k, shj, hi))


def _advance(rng, k):
    """(spmd lines, JAX lines, the key to draw from) for one step of key k."""
    c = rng.randrange(3)
    if c == 0:
        return (["let ks = split(%s)" % k, "%s = ks[0]" % k], ["ks = jax.random.split(%s)" % k,
                "%s = ks[0]" % k], "ks[1]")
    if c == 1:
        m = rng.choice([3, 4])
        return (["let ks = split(%s, %d)" % (k, m), "%s = ks[%d]" % (k, m - 1)],
                ["ks = jax.random.split(%s, %d)" % (k, m), "%s = ks[%d]" % (k, m - 1)], "ks[1]")
    return (["%s = fold_in(%s, t)" % (k, k)], ["%s = jax.random.fold_in(%s, t)" % (k, k)], k)


def gen_keyloop(p):
    rng = p.rng
    p.loosen(*TOL_TRANS)
    steps = rng.randint(0, 6)
    shape = rng.choice([[], [3], [2, 2], [5]])
    seed = rng.choice([0, 1, 42, rng.randint(0, 10**5)])
    mode = rng.choice(["host", "host", "pmap", "vmap"])
    if mode == "host":
        p.stmt("var k = key(%d)" % seed, "k = jax.random.key(%d)" % seed)
        p.stmt("var x = zeros(%s)" % shape, "x = jnp.zeros(%r)" % (tuple(shape),))
        ls, lj, kd = _advance(rng, "k")
        ds, dj = _draw(rng, kd, shape)
        pr = rng.random() < 0.5
        every = rng.choice([1, 2])
        s = ["for t in 0..%d {" % steps] + ["  " + l for l in ls] + ["  x = %s" % ds]
        j = ["for t in range(%d):" % steps] + ["    " + l for l in lj] + ["    x = %s" % dj]
        if pr:
            s.append("  if t %% %d == 0 { print(t, x) }" % every)
            j.append("    if t %% %d == 0: P(t, x)" % every)
        s.append("}")
        if steps == 0:
            j.append("    pass")
        if pr:
            block(p, "\n".join(s), "\n".join(j))
        else:
            p.stmt("\n".join(s), "\n".join(j))
        p.show("x", "x")
        p.show("key_data(k)", "jax.random.key_data(k)", probe=False)
        return
    if mode == "pmap":
        n = rng.randint(1, 8)
        p.stmt("var keys = split(key(%d), %d)" % (seed, n),
               "keys = jax.random.split(jax.random.key(%d), %d)" % (seed, n))
        p.stmt("var acc = zeros(%s)" % ([n] + shape), "acc = jnp.zeros(%r)" % (tuple([n] + shape),))
        fi = rng.random() < 0.4
        ks = "fold_in(kk, axis_index(i))" if fi else "kk"
        kj = "jax.random.fold_in(kk, jax.lax.axis_index('i'))" if fi else "kk"
        ds, dj = _draw(rng, "s[1]", shape)
        red = rng.choice([None, "psum", "pmean", "pmax"])
        rs = "%s(y, i)" % red if red else "y"
        rj = "jax.lax.%s(y, 'i')" % red if red else "y"
        pydef(p, "def kbody(kk, x):\n    s = jax.random.split(%s)\n    y = %s\n"
                 "    return (%s, s[0])\nkstep = jax.pmap(kbody, axis_name='i')" % (kj, dj, rj))
        s = "\n".join([
            "for t in 0..%d {" % steps,
            "  let (a, nk) = pmap i (kk in keys, x in acc) {",
            "    let s = split(%s)" % ks,
            "    let y = %s" % ds,
            "    (%s, s[0])" % rs,
            "  }",
            "  acc = a",
            "  keys = nk",
            "}"])
        j = "\n".join(["for t in range(%d):" % steps, "    acc, keys = kstep(keys, acc)"])
        p.stmt(s, j)
        p.show("acc", "acc")
        p.show("key_data(keys)", "jax.random.key_data(keys)", probe=False)
        return
    m = rng.randint(1, 5)
    ls, lj, kd = _advance(rng, "c")
    ds, dj = _draw(rng, kd, shape)
    pydef(p, "\n".join(["def vbody(kk):", "    c = kk", "    x = jnp.zeros(%r)" % (tuple(shape),),
                        "    for t in range(%d):" % steps] + ["        " + l for l in lj] +
                       ["        x = %s" % dj, "    return x, c"]))
    s = "\n".join(["vmap (kk in split(key(%d), %d)) {" % (seed, m), "  var c = kk",
                   "  var x = zeros(%s)" % shape, "  for t in 0..%d {" % steps] +
                  ["    " + l for l in ls] + ["    x = %s" % ds, "  }", "  (x, c)", "}"])
    r = p.bind(s, "jax.vmap(vbody)(jax.random.split(jax.random.key(%d), %d))" % (seed, m))
    p.show("%s[0]" % r, "%s[0]" % r)
    p.show("key_data(%s[1])" % r, "jax.random.key_data(%s[1])" % r, probe=False)


# ---------------------------------------------------------------------------------------
# nestodd: nested pmaps over r x c meshes with 3, 5, 6 or 7 devices (and the others),
# tuple results destructured, collectives over rows, cols or both; grad through a pmap
# nested in a pmap. JAX's twin: vmap with axis names (JAX 0.10's pmap does not nest; a
# named vmap has the same collective semantics).

MESHES = [(3, 1), (1, 3), (3, 2), (2, 3), (5, 1), (1, 5), (7, 1), (1, 7), (6, 1), (1, 6),
          (2, 2), (2, 4), (4, 2), (1, 1)]


def _coll(rng, x, r, c):
    """A collective of f32 value x over rows, cols or both: (spmd, JAX)."""
    ax = rng.choice([("rows",), ("cols",), ("rows", "cols"), ("cols", "rows")])
    axs = ax[0] if len(ax) == 1 else "(%s)" % ", ".join(ax)
    k = rng.choice(["psum", "pmean", "pmax", "pmin", "norm", "index", "gather"])
    if k == "norm":
        return "%s / psum(%s, %s)" % (x, x, axs), "%s / jax.lax.psum(%s, %r)" % (x, x, ax)
    if k == "index":
        return ("%s * f32(axis_index(%s))" % (x, axs),
                "%s * jax.lax.axis_index(%r).astype(jnp.float32)" % (x, ax))
    if k == "gather":
        return ("sum(all_gather(%s, %s), axis=0)" % (x, axs),
                "jnp.sum(jax.lax.all_gather(%s, %r), axis=0)" % (x, ax))
    return "%s(%s, %s)" % (k, x, axs), "jax.lax.%s(%s, %r)" % (k, x, ax)


def gen_nestodd(p):
    rng = p.rng
    r, c = rng.choice(MESHES)
    rest = rng.choice([[], [], [2], [3]])
    p.loosen(*TOL_TRANS)
    x = new_array(p, dt="f32", shape=[r, c] + rest, special=0.0)
    if rng.random() < 0.7:
        nt = rng.randint(1, 3)
        es = []
        for _ in range(nt):
            try:  # gen_coll's collectives (ppermute, all_to_all, psum_scatter, ...)
                if rng.random() < 0.4:
                    es.append(collective(p, "v", [("rows", r), ("cols", c)], [r, c], rest, "f32"))
                    continue
            except Reject:
                pass
            es.append(_coll(rng, "v", r, c))
        if rng.random() < 0.3:
            es.append(("v * 2.0", "v * 2.0"))
        if len(es) == 1:
            s_res, j_res = es[0][0], es[0][1]
        else:
            s_res = "(%s)" % ", ".join(e[0] for e in es)
            j_res = "(%s)" % ", ".join(e[1] for e in es)
        pre_s, pre_j = "", ""
        if rng.random() < 0.4:  # a value of the outer body used in the inner one
            pre_s = "let m = sum(r); "
            pre_j = "    m = jnp.sum(r)\n"
            s_res = s_res.replace("v", "(v + m)")
            j_res = j_res.replace("v", "(v + m)")
        pydef(p, "def outer(r):\n%s    return jax.vmap(lambda v: %s, axis_name='cols')(r)"
                 % (pre_j, j_res))
        s = "pmap rows (r in %s) { %spmap cols (v in r) { %s } }" % (x, pre_s, s_res)
        j = "jax.vmap(outer, axis_name='rows')(%s)" % x
        if len(es) == 1:
            res = p.bind(s, j)
            p.show(res, res)
        else:
            names = ["a%d_%d" % (p.nvar, k) for k in range(len(es))]
            p.nvar += 1
            p.stmt("let (%s) = %s" % (", ".join(names), s), "(%s) = %s" % (", ".join(names), j))
            for nm in names:
                p.show(nm, nm)
        return
    # grad through a pmap nested inside a pmap (grad_nested.spmd)
    f1 = rng.choice([("sin(x)", "jnp.sin(x)"), ("x * x", "x * x"), ("tanh(x)", "jnp.tanh(x)")])
    g1 = rng.choice([("cos(z) * tan(sum(y))", "jnp.cos(z) * jnp.tan(jnp.sum(y))"),
                     ("z * z * sum(y)", "z * z * jnp.sum(y)"),
                     ("sin(z) * psum(z, j)", "jnp.sin(z) * jax.lax.psum(z, 'j')"),
                     ("z * pmean(z * z, j)", "z * jax.lax.pmean(z * z, 'j')")])
    tail = rng.choice([("", ""), (" * sum(tanh(x))", " * jnp.sum(jnp.tanh(x))")])
    s_f = ("fn f(x) {\n  let y = %s\n  fn g(w) = sum(pmap j (z in w) { %s%s })\n  grad(g)(x)\n}"
           % (f1[0], g1[0], tail[0]))
    j_f = ("def f(x):\n    y = %s\n    def g(w):\n        return jnp.sum(jax.vmap(lambda z: %s%s, "
           "axis_name='j')(w))\n    return jax.grad(g)(x)" % (f1[1], g1[1], tail[1]))
    p.stmt(s_f, j_f)
    outer = rng.choice([("f(row)", "f(row)"), ("f(row) + psum(row, i)", "f(row) + jax.lax.psum(row, 'i')")])
    rr = rng.choice([1, 2, 3, 4])
    cc = rng.choice([k for k in (1, 2, 3, 4, 5, 7) if rr * k <= 8] or [1])
    xx = new_array(p, dt="f32", shape=[rr, cc], special=0.0)
    p.stmt("fn h(x) = pmap i (row in x) { %s }" % outer[0],
           "def h(x):\n    return jax.vmap(lambda row: %s, axis_name='i')(x)" % outer[1])
    p.show("h(%s)" % xx, "h(%s)" % xx)
    if rng.random() < 0.6:
        p.show("grad(fn (x) = sum(h(x)))(%s)" % xx, "jax.grad(lambda x: jnp.sum(h(x)))(%s)" % xx)


# ---------------------------------------------------------------------------------------
# halo: rule30.spmd's shape: a `var` board split over n devices, a loop whose body is a
# pmap calling an axis-parametric step[i](s) that exchanges halo cells by ppermute (a ring
# from a static comprehension, or open ends where the edge replicas receive zeros), a rule
# on the padded board, and render or print of the board inside the loop.

RULES = [  # (spmd, JAX) of the new cells from l, c, r (bool)
    ("l ^ (c | r)", "l ^ (c | r)"),  # rule 30
    ("l ^ r", "l ^ r"),  # rule 90
    ("(c | r) & ~(l & c & r)", "(c | r) & ~(l & c & r)"),  # rule 110
    ("(l & c) | (~l & r)", "(l & c) | (~l & r)"),  # rule 184-like
]


def gen_halo(p):
    rng = p.rng
    n = rng.choice([1, 2, 3, 4, 5, 8, 8])
    w = rng.randint(1, 6)
    steps = rng.randint(0, 6)
    ring = rng.random() < 0.7
    heat = rng.random() < 0.35
    if n == 8 and rng.random() < 0.5:
        p.stmt("let n = device_count()", "n = 8")
    else:
        p.stmt("let n = %d" % n, "n = %d" % n)
    if ring:
        p.stmt("let to_right = [(j, (j + 1) % n) for j in 0..n]\n"
               "let to_left = [((j + 1) % n, j) for j in 0..n]",
               "to_right = [(j, (j + 1) % n) for j in range(n)]\n"
               "to_left = [((j + 1) % n, j) for j in range(n)]")
    else:
        p.stmt("let to_right = [(j, j + 1) for j in 0..n - 1]\n"
               "let to_left = [(j + 1, j) for j in 0..n - 1]",
               "to_right = [(j, j + 1) for j in range(n - 1)]\n"
               "to_left = [(j + 1, j) for j in range(n - 1)]")
    if heat:
        p.loosen(*TOL_ARITH)
        a = rng.choice([0.25, 0.1, 0.5])
        upd_s = ("fn update(b) = b[1:-1] + %r * (b[:-2] - 2.0 * b[1:-1] + b[2:])" % a)
        upd_j = ("def update(b):\n    return b[1:-1] + %r * (b[:-2] - 2.0 * b[1:-1] + b[2:])" % a)
        init = new_array(p, dt="f32", shape=[n * w], special=0.0)
        init_s, init_j = "reshape(%s, [n, -1])" % init, "%s.reshape(n, -1)" % init
        show_s, show_j = "board", "board"
    else:
        rule = rng.choice(RULES)
        upd_s = "fn update(b) {\n  let l = b[:-2]\n  let c = b[1:-1]\n  let r = b[2:]\n  %s\n}" % rule[0]
        upd_j = ("def update(b):\n    l, c, r = b[:-2], b[1:-1], b[2:]\n    return %s" % rule[1])
        if rng.random() < 0.5:
            pos = rng.randrange(n * w)
            init_s = "reshape(set(zeros([%d], bool), %d, true), [n, -1])" % (n * w, pos)
            init_j = "jnp.zeros([%d], bool).at[%d].set(True).reshape(n, -1)" % (n * w, pos)
        else:
            init = new_array(p, dt="bool", shape=[n * w])
            init_s, init_j = "reshape(%s, [n, -1])" % init, "%s.reshape(n, -1)" % init
        on, off = rng.choice([("*", " "), ("#", "."), ("1", "0")])
        show_s = 'render(board, "%s", "%s")' % (on, off)
        show_j = '"".join("%s" if v else "%s" for v in np.asarray(board).ravel())' % (on, off)
    p.stmt(upd_s, upd_j)
    p.stmt("fn step[i](s) {\n"
           "  let from_left = ppermute(s[-1:], i, to_right)\n"
           "  let from_right = ppermute(s[:1], i, to_left)\n"
           "  update(concat([from_left, s, from_right]))\n}",
           "def step(s):\n"
           "    from_left = jax.lax.ppermute(s[-1:], 'i', to_right)\n"
           "    from_right = jax.lax.ppermute(s[:1], 'i', to_left)\n"
           "    return update(jnp.concatenate([from_left, s, from_right]))\n"
           "pstep = jax.pmap(step, axis_name='i')")
    p.stmt("var board = %s" % init_s, "board = %s" % init_j)
    every = rng.choice([1, 1, 2])
    s = "\n".join(["print(%s)" % show_s, "for t in 0..%d {" % steps,
                   "  board = pmap i (s in board) { step[i](s) }",
                   ("  print(%s)" % show_s) if every == 1 else
                   "  if t %% 2 == 1 { print(t, %s) }" % show_s, "}"])
    j = "\n".join(["P(%s)" % show_j, "for t in range(%d):" % steps,
                   "    board = pstep(board)",
                   ("    P(%s)" % show_j) if every == 1 else
                   "    if t %% 2 == 1: P(t, %s)" % show_j])
    block(p, s, j)
    p.show("board", "board")


# ---------------------------------------------------------------------------------------
# poolmap: pool_map.spmd and vmap_vs_pmap.spmd: a function of one input evaluated over many
# inputs, split over n devices by `reshape(inputs, [n, -1])`, vmapped on each device and
# flattened by ravel; the same by a plain vmap; a function of two arrays vmapped and pmapped
# over stacked inputs.

FUNCS = [("sum(sin(x * arange(1.0, %d.0, 1.0)))", "jnp.sum(jnp.sin(x * jnp.arange(1.0, %d.0, 1.0)))"),
         ("sum(cos(x * arange(1.0, %d.0, 1.0)) / arange(1.0, %d.0, 1.0))",
          "jnp.sum(jnp.cos(x * jnp.arange(1.0, %d.0, 1.0)) / jnp.arange(1.0, %d.0, 1.0))"),
         ("sum(tanh(x - arange(%d) * 0.25))", "jnp.sum(jnp.tanh(x - jnp.arange(%d) * 0.25))"),
         ("max(exp(-x * arange(0.0, %d.0, 1.0)))", "jnp.max(jnp.exp(-x * jnp.arange(0.0, %d.0, 1.0)))")]


def gen_poolmap(p):
    rng = p.rng
    p.loosen(*TOL_TRANS)
    if rng.random() < 0.3:  # vmap_vs_pmap: f(x, y) of matrices, stacked inputs
        m = rng.randint(1, 8)
        a, b, c = rng.randint(1, 4), rng.randint(1, 5), rng.randint(1, 5)
        f = rng.choice([("tanh(dot(x, y))", "jnp.tanh(jnp.dot(x, y))"),
                        ("x @ y + 1.0", "x @ y + 1.0"), ("sum(x) * y", "jnp.sum(x) * y")])
        p.stmt("fn f(x, y) = %s" % f[0], "def f(x, y):\n    return %s" % f[1])
        ones = rng.random() < 0.3
        if ones:
            xs = p.bind("ones([%d, %d, %d])" % (m, a, b), "jnp.ones((%d, %d, %d))" % (m, a, b))
            ys = p.bind("ones([%d, %d, %d])" % (m, b, c), "jnp.ones((%d, %d, %d))" % (m, b, c))
        else:
            xs = data(p, [m, a, b])
            ys = data(p, [m, b, c])
        va = p.bind("vmap (x in %s, y in %s) { f(x, y) }" % (xs, ys), "jax.vmap(f)(%s, %s)" % (xs, ys))
        pa = p.bind("pmap i (x in %s, y in %s) { f(x, y) }" % (xs, ys),
                    "jax.pmap(f, axis_name='i')(%s, %s)" % (xs, ys))
        block(p, "print(shape(%s), shape(%s))" % (va, pa), "P(%s.shape, %s.shape)" % (va, pa),
              nomin=False)
        p.show("%s[0]" % va, "%s[0]" % va)
        p.show(pa, pa)
        return
    n = rng.choice([1, 2, 4, 5, 8, 8])
    if n == 8 and rng.random() < 0.5:
        p.stmt("let n = device_count()", "n = 8")
    else:
        p.stmt("let n = %d" % n, "n = %d" % n)
    k = rng.choice([3, 10, 33, 101])
    fs, fj = rng.choice(FUNCS)
    fs, fj = fs.replace("%d", str(k)), fj.replace("%d", str(k))
    p.stmt("fn function(x) = %s" % fs, "def function(x):\n    return %s" % fj)
    per = rng.choice([1, 2, 3, 7, 25, 125])
    if rng.random() < 0.5:
        lo, hi = rng.choice([(0.0, 1.0), (-1.0, 1.0), (0.0, 0.5)])
        inp = p.bind("linspace(%r, %r, %d)" % (lo, hi, n * per),
                     "jnp.linspace(%r, %r, %d, dtype=jnp.float32)" % (lo, hi, n * per))
        # linspace's last ulp (README, open findings), times the frequencies up to k
        p.loosen(*TOL_ML)
    else:
        inp = data(p, [n * per], 0.5)
    out = p.bind("ravel(pmap i (chunk in reshape(%s, [n, -1])) { vmap (x in chunk) { function(x) } })"
                 % inp,
                 "jax.pmap(lambda chunk: jax.vmap(function)(chunk), axis_name='i')("
                 "%s.reshape(n, -1)).ravel()" % inp)
    p.show("shape(%s)" % out, "%s.shape" % out, probe=False)
    p.show("%s[:3]" % out, "%s[:3]" % out)
    ref = p.bind("vmap (x in %s) { function(x) }" % inp, "jax.vmap(function)(%s)" % inp)
    p.show(ref, ref)
    if rng.random() < 0.5:
        # Relative: JAX's pmap and vmap may round exp differently by an ulp (poolmap
        # p1811554: 131072.0 at outputs near 1e12, where spmdrun's two are the same).
        p.show("max(abs(%s - %s) / (abs(%s) + 1.0))" % (out, ref, ref),
               "jnp.max(jnp.abs(%s - %s) / (jnp.abs(%s) + 1.0))" % (out, ref, ref))
