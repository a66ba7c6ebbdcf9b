"""Program classes for the code JAX users port most (difftest17, issue 14): a small MLP's
forward pass, loss, gradients and SGD step (`mlp`), layernorm and batchnorm-like code
(`norm`) and a tiny attention (`attn`), each at host level (eager on the JAX side) and in
pmap and vmap bodies. Shapes are drawn from 1..40 (most not multiples of 4, 8 or 16), data
from the PRNG (normal, uniform: bit for bit JAX's) or from literal arrays. Built in both
languages and run by JAX at generation, as in gen_cases.py."""
import numpy as np

from gen import fmt_float

# Matmuls over up to 40 terms, tanh/exp/log, gradients through them and pmean: the
# summation order of a dot (XLA's Eigen kernel against spmdrun's) moves the last bits.
# Was (2e-5, 5e-6); difftest17 reran 150 programs and none needed more than TOL_TRANS,
# so difftest18 cut it to that (tests/conformance/difftest18/README.md has the figures).
TOL_ML = (4e-6, 1e-6)


def _dim(rng, lo=1, hi=40):
    """A size, mostly small, often not a multiple of 4."""
    c = rng.random()
    if c < 0.5:
        return rng.randint(lo, min(hi, 7))
    if c < 0.8:
        return rng.randint(lo, min(hi, 17))
    return rng.randint(lo, hi)


def data(p, shape, scale=1.0, lo=None, hi=None):
    """An f32 array of moderate values: a literal (small arrays) or from the PRNG."""
    rng = p.rng
    n = int(np.prod(shape)) if shape else 1
    if n <= 256 and rng.random() < 0.5:
        vals = [float(np.float32(round(rng.uniform(-1, 1) * scale, rng.choice([2, 3, 6]))))
                for _ in range(n)]
        s = "f32([%s])" % ", ".join(fmt_float(v) for v in vals)
        j = "jnp.asarray(np.array(%r, dtype=np.float32))" % (vals,)
        if not shape:
            s, j = "%s[0]" % s, "%s[0]" % j
        elif len(shape) != 1:
            s, j = "reshape(%s, %s)" % (s, list(shape)), "%s.reshape(%s)" % (j, tuple(shape))
        return p.bind(s, j)
    seed = rng.choice([0, 1, 7, 42, 123, 2024, rng.randint(0, 10**6)])
    ks, kj = "key(%d)" % seed, "jax.random.key(%d)" % seed
    if rng.random() < 0.3:
        d = rng.randint(0, 50)
        ks, kj = "fold_in(%s, %d)" % (ks, d), "jax.random.fold_in(%s, %d)" % (kj, d)
    # JAX compiles the PRNG anew for every shape (over a second each, most of the
    # generator's time), so mostly a draw of one of three sizes, cut and reshaped.
    pool = [m for m in (256, 2048, 16384) if m >= n]
    direct = rng.random() < 0.15 or not pool
    sh_s, sh_j = (list(shape), tuple(shape)) if direct else ([pool[0]], (pool[0],))
    if rng.random() < 0.7:
        s = "normal(%s, %s)" % (ks, sh_s)
        j = "jax.random.normal(%s, %r)" % (kj, sh_j)
    else:
        s = "uniform(%s, %s, lo=-1.0, hi=1.0)" % (ks, sh_s)
        j = "jax.random.uniform(%s, %r, minval=-1.0, maxval=1.0)" % (kj, sh_j)
    if not direct:
        sl = rng.choice([":%d" % n, "%d:" % (pool[0] - n)])
        s = "reshape(%s[%s], %s)" % (s, sl, list(shape))
        j = "%s[%s].reshape(%s)" % (j, sl, tuple(shape))
    if scale != 1.0:
        s, j = "%s * %r" % (s, scale), "%s * %r" % (j, scale)
    return p.bind(s, j)


def labels(p, shape, c):
    rng = p.rng
    n = int(np.prod(shape))
    if n <= 64 and rng.random() < 0.5:
        vals = [rng.randrange(c) for _ in range(n)]
        s = "i32(%s)" % vals
        j = "jnp.asarray(np.array(%r, dtype=np.int32))" % (vals,)
        if len(shape) != 1:
            s, j = "reshape(%s, %s)" % (s, list(shape)), "%s.reshape(%s)" % (j, tuple(shape))
        return p.bind(s, j)
    seed = rng.randint(0, 10**5)
    return p.bind("randint(key(%d), %s, 0, %d)" % (seed, list(shape), c),
                  "jax.random.randint(jax.random.key(%d), %r, 0, %d)" % (seed, tuple(shape), c))


def show_tree(p, r, n):
    for k in range(n):
        p.show("%s[%d]" % (r, k), "%s[%d]" % (r, k))


# ---------------------------------------------------------------------------------------
# mlp: params (w1, b1, w2, b2) or (w, b); `x @ w + b`, tanh/relu/sigmoid; mean squared
# error or softmax cross-entropy with one_hot (logsumexp, or the max subtracted by hand,
# with or without stop_gradient); grad w.r.t. the params, pmean of the gradients in a pmap
# body, per-example gradients under vmap, SGD steps at host level.

ACTS = [("tanh(%s)", "jnp.tanh(%s)"), ("relu(%s)", "jax.nn.relu(%s)"),
        ("sigmoid(%s)", "jax.nn.sigmoid(%s)"), ("maximum(%s, 0.0)", "jnp.maximum(%s, 0.0)")]


def _mlp_def(p, d, h, o, ce, two):
    """Defines loss(params, x, t) in both languages; returns the number of params."""
    rng = p.rng
    act = rng.choice(ACTS)
    if two:
        s = ["fn loss(params, x, t) {", "  let (w1, b1, w2, b2) = params",
             "  let h = %s" % (act[0] % "x @ w1 + b1"), "  let z = h @ w2 + b2"]
        j = ["def loss(params, x, t):", "    w1, b1, w2, b2 = params",
             "    h = %s" % (act[1] % "x @ w1 + b1"), "    z = h @ w2 + b2"]
    else:
        s = ["fn loss(params, x, t) {", "  let (w, b) = params", "  let z = x @ w + b"]
        j = ["def loss(params, x, t):", "    w, b = params", "    z = x @ w + b"]
    if not ce:
        form = rng.choice(["mean", "sum"])
        if form == "mean":
            s.append("  mean((z - t) ** 2)")
            j.append("    return jnp.mean((z - t) ** 2)")
        else:
            s.append("  0.5 * sum((z - t) ** 2) / len(t)")
            j.append("    return 0.5 * jnp.sum((z - t) ** 2) / len(t)")
    else:
        lse = rng.randrange(4)
        if lse == 0:
            s.append("  let lse = logsumexp(z, axis=-1, keepdims=true)")
            j.append("    lse = jax.scipy.special.logsumexp(z, axis=-1, keepdims=True)")
        elif lse in (1, 2):
            sg = lse == 2
            s.append("  let m = %s" % ("stop_gradient(max(z, axis=-1, keepdims=true))" if sg
                                        else "max(z, axis=-1, keepdims=true)"))
            j.append("    m = %s" % ("jax.lax.stop_gradient(jnp.max(z, axis=-1, keepdims=True))"
                                      if sg else "jnp.max(z, axis=-1, keepdims=True)"))
            s.append("  let lse = m + log(sum(exp(z - m), axis=-1, keepdims=true))")
            j.append("    lse = m + jnp.log(jnp.sum(jnp.exp(z - m), axis=-1, keepdims=True))")
        if lse == 3:  # log of a softmax
            s.append("  let e = exp(z - max(z, axis=-1, keepdims=true))")
            j.append("    e = jnp.exp(z - jnp.max(z, axis=-1, keepdims=True))")
            s.append("  let lp = log(e / sum(e, axis=-1, keepdims=true))")
            j.append("    lp = jnp.log(e / jnp.sum(e, axis=-1, keepdims=True))")
        else:
            s.append("  let lp = z - lse")
            j.append("    lp = z - lse")
        if rng.random() < 0.5:
            s.append("  -mean(sum(one_hot(t, %d) * lp, axis=-1))" % o)
            j.append("    return -jnp.mean(jnp.sum(jax.nn.one_hot(t, %d) * lp, axis=-1))" % o)
        else:
            s.append("  -sum(one_hot(t, %d) * lp) / len(t)" % o)
            j.append("    return -jnp.sum(jax.nn.one_hot(t, %d) * lp) / len(t)" % o)
    s.append("}")
    p.stmt("\n".join(s), "\n".join(j))
    return 4 if two else 2


def gen_mlp(p):
    rng = p.rng
    p.loosen(*TOL_ML)
    d, h = _dim(rng), _dim(rng)
    ce = rng.random() < 0.5
    o = rng.randint(2, 10) if ce else _dim(rng, 1, 12)
    two = rng.random() < 0.7
    np_ = _mlp_def(p, d, h, o, ce, two)
    sc = rng.choice([0.1, 0.3, 0.5, 1.0])
    if two:
        ps = [data(p, [d, h], sc), data(p, [h], 0.1), data(p, [h, o], sc), data(p, [o], 0.1)]
    else:
        ps = [data(p, [d, o], sc), data(p, [o], 0.1)]
    params = p.bind("(%s)" % ", ".join(ps), "(%s)" % ", ".join(ps))
    lr = rng.choice([0.1, 0.01, 0.5, 1.0])
    mode = rng.choice(["host", "pmap", "pmap", "vmap"])
    if mode == "host":
        b = _dim(rng, 1, 40)
        x = data(p, [b, d])
        t = labels(p, [b], o) if ce else data(p, [b, o])
        p.show("loss(%s, %s, %s)" % (params, x, t), "loss(%s, %s, %s)" % (params, x, t))
        if rng.random() < 0.5:
            g = p.bind("grad(loss)(%s, %s, %s)" % (params, x, t),
                       "jax.grad(loss)(%s, %s, %s)" % (params, x, t))
        else:
            vg = p.bind("value_and_grad(loss)(%s, %s, %s)" % (params, x, t),
                        "jax.value_and_grad(loss)(%s, %s, %s)" % (params, x, t))
            p.show("%s[0]" % vg, "%s[0]" % vg)
            g = p.bind("%s[1]" % vg, "%s[1]" % vg)
        show_tree(p, g, np_)
        steps = rng.choice([1, 1, 3])
        if steps == 1:
            q = p.bind("tree_map(fn (w, g) = w - %r * g, %s, %s)" % (lr, params, g),
                       "jax.tree.map(lambda w, g: w - %r * g, %s, %s)" % (lr, params, g))
        else:
            q = "q%d" % p.nvar
            p.nvar += 1
            p.stmt("var %s = %s\nfor step in 0..%d {\n  %s = tree_map(fn (w, g) = w - %r * g, %s, "
                   "grad(loss)(%s, %s, %s))\n}" % (q, params, steps, q, lr, q, q, x, t),
                   "%s = %s\nfor step in range(%d):\n"
                   "    %s = jax.tree.map(lambda w, g: w - %r * g, "
                   "%s, jax.grad(loss)(%s, %s, %s))" % (q, params, steps, q, lr, q, q, x, t))
        p.show("loss(%s, %s, %s)" % (q, x, t), "loss(%s, %s, %s)" % (q, x, t))
        if rng.random() < 0.5:
            show_tree(p, q, np_)
        return
    if mode == "pmap":
        n = rng.choice([1, 2, 3, 4, 5, 8, 8])
        b = _dim(rng, 1, 40)
        xs = data(p, [n, b, d])
        ts = labels(p, [n, b], o) if ce else data(p, [n, b, o])
        red = rng.choice(["pmean", "pmean", "psum"])
        if red == "pmean":
            rs, rj = "pmean(u, i)", "jax.lax.pmean(u, 'i')"
        else:
            rs, rj = "psum(u, i) / %d" % n, "jax.lax.psum(u, 'i') / %d" % n
        g = p.bind("pmap i (x in %s, t in %s) { tree_map(fn (u) = %s, grad(loss)(%s, x, t)) }"
                   % (xs, ts, rs, params),
                   "jax.pmap(lambda x, t: jax.tree.map(lambda u: %s, jax.grad(loss)(%s, x, t)), "
                   "axis_name='i')(%s, %s)" % (rj, params, xs, ts))
        show_tree(p, g, np_)
        if rng.random() < 0.5:
            lv = p.bind("pmap i (x in %s, t in %s) { pmean(loss(%s, x, t), i) }" % (xs, ts, params),
                        "jax.pmap(lambda x, t: jax.lax.pmean(loss(%s, x, t), 'i'), "
                        "axis_name='i')(%s, %s)"
                        % (params, xs, ts))
            p.show(lv, lv)
        g0 = p.bind("tree_map(fn (u) = u[0], %s)" % g, "jax.tree.map(lambda u: u[0], %s)" % g)
        q = p.bind("tree_map(fn (w, g) = w - %r * g, %s, %s)" % (lr, params, g0),
                   "jax.tree.map(lambda w, g: w - %r * g, %s, %s)" % (lr, params, g0))
        # the loss over the whole batch, at host level
        p.show("loss(%s, reshape(%s, [%d, %d]), reshape(%s, %s))" % (
                   q, xs, n * b, d, ts, [n * b] if ce else [n * b, o]),
               "loss(%s, %s.reshape(%d, %d), %s.reshape(%s))" % (
                   q, xs, n * b, d, ts, (n * b,) if ce else (n * b, o)))
        return
    # vmap: per-example gradients (each example a batch of 1)
    bsz = _dim(rng, 1, 24)
    xs = data(p, [bsz, d])
    ts = labels(p, [bsz], o) if ce else data(p, [bsz, o])
    tsh = [1] if ce else [1, o]
    g = p.bind("vmap (x in %s, t in %s) { grad(loss)(%s, reshape(x, [1, %d]), reshape(t, %s)) }"
               % (xs, ts, params, d, tsh),
               "jax.vmap(lambda x, t: jax.grad(loss)(%s, x.reshape(1, %d), t.reshape(%s)))(%s, %s)"
               % (params, d, tuple(tsh), xs, ts))
    show_tree(p, g, np_)
    if rng.random() < 0.5:
        m = p.bind("tree_map(fn (u) = mean(u, axis=0), %s)" % g,
                   "jax.tree.map(lambda u: jnp.mean(u, axis=0), %s)" % g)
        show_tree(p, m, np_)


# ---------------------------------------------------------------------------------------
# norm: layernorm / batchnorm: m = mean(x, axis, keepdims), v = mean((x - m) ** 2, ...),
# (x - m) / sqrt(v + eps) or * rsqrt(v + eps), an affine scale and shift; at host level,
# in a pmap body (statistics over the batch across devices with pmean) and under grad.

def _norm_def(p, nd):
    rng = p.rng
    if rng.random() < 0.6:
        ax = rng.choice([-1, nd - 1, 0, -2] if nd >= 2 else [-1, 0])
    else:
        k = rng.randint(2, nd) if nd >= 2 else 1
        ax = tuple(sorted(rng.sample(range(nd), k)))
        if rng.random() < 0.3:
            ax = tuple(a - nd for a in ax)
    axs = "(%s)" % ", ".join(str(a) for a in ax) + ("," if len(ax) == 1 else "") \
        if isinstance(ax, tuple) else str(ax)
    axs_s = axs.replace(",)", ")") if isinstance(ax, tuple) and len(ax) == 1 else axs
    eps = rng.choice([1e-5, 1e-6, 1e-3, 0.1])
    var = rng.randrange(3)
    s = ["fn norm(x) {", "  let m = mean(x, axis=%s, keepdims=true)" % axs_s]
    j = ["def norm(x):", "    m = jnp.mean(x, axis=%s, keepdims=True)" % axs]
    if var == 0:
        s.append("  let v = mean((x - m) ** 2, axis=%s, keepdims=true)" % axs_s)
        j.append("    v = jnp.mean((x - m) ** 2, axis=%s, keepdims=True)" % axs)
    elif var == 1:
        s.append("  let v = mean(x * x, axis=%s, keepdims=true) - m * m" % axs_s)
        j.append("    v = jnp.mean(x * x, axis=%s, keepdims=True) - m * m" % axs)
    else:
        s.append("  let c = x - m\n  let v = sum(c * c, axis=%s, keepdims=true)"
                 " / (size(x) / size(m))" % axs_s)
        j.append("    c = x - m\n    v = jnp.sum(c * c, axis=%s, keepdims=True)"
                 " / (x.size / m.size)" % axs)
    if rng.random() < 0.5:
        s.append("  (x - m) / sqrt(v + %r)" % eps)
        j.append("    return (x - m) / jnp.sqrt(v + %r)" % eps)
    else:
        s.append("  (x - m) * rsqrt(v + %r)" % eps)
        j.append("    return (x - m) * jax.lax.rsqrt(v + %r)" % eps)
    s.append("}")
    p.stmt("\n".join(s), "\n".join(j))
    return ax


def gen_norm(p):
    rng = p.rng
    p.loosen(*TOL_ML)
    mode = rng.choice(["host", "host", "pmap", "bn", "vmap", "grad"])
    if mode == "bn":  # batchnorm across devices: statistics over the batch of every device
        n = rng.choice([1, 2, 3, 4, 6, 8])
        b, d = _dim(rng, 1, 24), _dim(rng)
        xs = data(p, [n, b, d], rng.choice([1.0, 3.0, 0.1]))
        eps = rng.choice([1e-5, 1e-3])
        g, be = data(p, [d]), data(p, [d], 0.1)
        if rng.random() < 0.5:
            body_s = ("let m = pmean(mean(x, axis=0), i)\n"
                      "  let v = pmean(mean((x - m) ** 2, axis=0), i)\n"
                      "  (x - m) / sqrt(v + %r) * %s + %s" % (eps, g, be))
            body_j = ("lambda x: (lambda m: (lambda v: (x - m) / jnp.sqrt(v + %r) * %s + %s)"
                      "(jax.lax.pmean(jnp.mean((x - m) ** 2, axis=0), 'i')))"
                      "(jax.lax.pmean(jnp.mean(x, axis=0), 'i'))" % (eps, g, be))
        else:  # E[x^2] - E[x]^2, with keepdims, psum / count
            body_s = ("let m = psum(sum(x, axis=0, keepdims=true), i) / %d\n"
                      "  let v = psum(sum(x * x, axis=0, keepdims=true), i) / %d - m * m\n"
                      "  (x - m) * rsqrt(v + %r) * %s + %s" % (n * b, n * b, eps, g, be))
            body_j = ("lambda x: (lambda m: (lambda v: (x - m) * jax.lax.rsqrt(v + %r) * %s + %s)"
                      "(jax.lax.psum(jnp.sum(x * x, axis=0, keepdims=True), 'i') / %d - m * m))"
                      "(jax.lax.psum(jnp.sum(x, axis=0, keepdims=True), 'i') / %d)"
                      % (eps, g, be, n * b, n * b))
        r = p.bind("pmap i (x in %s) {\n  %s\n}" % (xs, body_s),
                   "jax.pmap(%s, axis_name='i')(%s)" % (body_j, xs))
        p.show(r, r)
        return
    nd = rng.choice([1, 2, 2, 3])
    shape = [_dim(rng) for _ in range(nd)]
    while int(np.prod(shape)) > 2000:
        shape = [max(1, s // 2) for s in shape]
    ax = _norm_def(p, nd)
    sc = rng.choice([1.0, 1.0, 5.0, 0.01, 100.0])
    if mode == "host":
        x = data(p, shape, sc)
        y = norm_affine(p, x, shape)
        p.show(y, y)
        if rng.random() < 0.4:  # the statistics without keepdims
            st = rng.choice([("mean(%s, axis=%s)", "jnp.mean(%s, axis=%s)"),
                             ("mean((%s - mean(%s, axis=%s, keepdims=true)) ** 2, axis=%s)", None)])
            axs = str(ax) if not isinstance(ax, tuple) else "(%s)" % ", ".join(map(str, ax))
            axj = str(ax) if not isinstance(ax, tuple) else "(%s,)" % ", ".join(map(str, ax))
            if st[1]:
                s, j = st[0] % (x, axs), st[1] % (x, axj)
            else:
                s = st[0] % (x, x, axs, axs)
                j = "jnp.mean((%s - jnp.mean(%s, axis=%s, keepdims=True)) ** 2, axis=%s)" % (
                    x, x, axj, axj)
            p.show(s, j)
        return
    if mode in ("pmap", "vmap"):  # layernorm of each device's (or example's) block
        n = rng.choice([1, 2, 3, 5, 8]) if mode == "pmap" else _dim(rng, 1, 12)
        xs = data(p, [n] + shape, sc)
        head, hj = (("pmap i", "jax.pmap(%s, axis_name='i')") if mode == "pmap"
                    else ("vmap", "jax.vmap(%s)"))
        r = p.bind("%s (x in %s) { norm(x) }" % (head, xs), (hj % "norm") + "(%s)" % xs)
        p.show(r, r)
        return
    # grad of a weighted sum of the normalised x, w.r.t. x
    x = data(p, shape, sc)
    w = data(p, shape)
    r = p.bind("grad(fn (z) = sum(norm(z) * %s))(%s)" % (w, x),
               "jax.grad(lambda z: jnp.sum(norm(z) * %s))(%s)" % (w, x))
    p.show(r, r)


def norm_affine(p, x, shape):
    rng = p.rng
    if rng.random() < 0.5:
        return p.bind("norm(%s)" % x, "norm(%s)" % x)
    g, b = data(p, shape[-1:]), data(p, shape[-1:], 0.1)
    return p.bind("norm(%s) * %s + %s" % (x, g, b), "norm(%s) * %s + %s" % (x, g, b))


# ---------------------------------------------------------------------------------------
# attn: softmax(q @ k.T / sqrt(d)) @ v, with a hand-written softmax (max subtracted, with
# or without stop_gradient) or jax.nn.softmax's formula, an optional causal mask, in a vmap
# body (batch or heads), a pmap body, at host level, and under grad.

def gen_attn(p):
    rng = p.rng
    p.loosen(*TOL_ML)
    sm = rng.randrange(3)
    if sm == 0:
        p.stmt("fn softmax(z) {\n  let e = exp(z - max(z, axis=-1, keepdims=true))\n"
               "  e / sum(e, axis=-1, keepdims=true)\n}",
               "def softmax(z):\n    e = jnp.exp(z - jnp.max(z, axis=-1, keepdims=True))\n"
               "    return e / jnp.sum(e, axis=-1, keepdims=True)")
    elif sm == 1:
        p.stmt("fn softmax(z) {\n  let e = exp(z - stop_gradient(max(z, axis=-1, keepdims=true)))\n"
               "  e / sum(e, axis=-1, keepdims=true)\n}",
               "def softmax(z):\n    return jax.nn.softmax(z, axis=-1)")
    else:
        p.stmt("fn softmax(z) = exp(z - logsumexp(z, axis=-1, keepdims=true))",
               "def softmax(z):\n    return jnp.exp(z - jax.scipy.special.logsumexp("
               "z, axis=-1, keepdims=True))")
    tq, d = _dim(rng), _dim(rng)
    tk = tq if rng.random() < 0.7 else _dim(rng)
    dv = d if rng.random() < 0.6 else _dim(rng)
    causal = tq == tk and rng.random() < 0.3
    scale = rng.randrange(3)
    sc_s, sc_j = [("/ sqrt(%d.0)" % d, "/ jnp.sqrt(%d.0)" % d),
                  ("* %r" % float(np.float32(1 / np.sqrt(d))),
                   "* %r" % float(np.float32(1 / np.sqrt(d)))),
                  ("/ sqrt(f32(len(transpose(q))))", "/ jnp.sqrt(jnp.float32(q.shape[-1]))")][scale]
    s = ["fn attn(q, k, v) {", "  let s = q @ transpose(k) %s" % sc_s]
    j = ["def attn(q, k, v):", "    s = q @ k.T %s" % sc_j]
    if causal:
        s.append("  let s2 = where(reshape(arange(%d), [%d, 1]) >= "
                 "reshape(arange(%d), [1, %d]), s, -1e9)"
                 % (tq, tq, tq, tq))
        j.append("    s2 = jnp.where(jnp.arange(%d)[:, None] >= jnp.arange(%d)[None, :], s, -1e9)"
                 % (tq, tq))
        s.append("  softmax(s2) @ v")
        j.append("    return softmax(s2) @ v")
    else:
        s.append("  softmax(s) @ v")
        j.append("    return softmax(s) @ v")
    s.append("}")
    p.stmt("\n".join(s), "\n".join(j))
    mode = rng.choice(["vmap", "vmap", "pmap", "host", "grad", "heads"])
    sc = rng.choice([1.0, 1.0, 3.0, 0.1])
    if mode == "host":
        q, k, v = data(p, [tq, d], sc), data(p, [tk, d], sc), data(p, [tk, dv])
        r = p.bind("attn(%s, %s, %s)" % (q, k, v), "attn(%s, %s, %s)" % (q, k, v))
    elif mode in ("vmap", "pmap"):
        n = _dim(rng, 1, 6) if mode == "vmap" else rng.choice([1, 2, 3, 4, 7, 8])
        q, k, v = data(p, [n, tq, d], sc), data(p, [n, tk, d], sc), data(p, [n, tk, dv])
        if mode == "vmap" and rng.random() < 0.3:  # k and v shared (captured)
            k, v = data(p, [tk, d], sc), data(p, [tk, dv])
            r = p.bind("vmap (a in %s) { attn(a, %s, %s) }" % (q, k, v),
                       "jax.vmap(lambda a: attn(a, %s, %s))(%s)" % (k, v, q))
        else:
            head = "vmap" if mode == "vmap" else "pmap i"
            hj = "jax.vmap(attn)" if mode == "vmap" else "jax.pmap(attn, axis_name='i')"
            r = p.bind("%s (a in %s, b in %s, c in %s) { attn(a, b, c) }" % (head, q, k, v),
                       "%s(%s, %s, %s)" % (hj, q, k, v))
    elif mode == "heads":  # multi-head: x @ wq split into heads, vmap over heads in a pmap
        n = rng.choice([1, 2, 4])
        hh = rng.randint(1, 4)
        dm = hh * d
        xs = data(p, [n, tq, dm], sc)
        wq, wk, wv = data(p, [dm, dm], 0.3), data(p, [dm, dm], 0.3), data(p, [dm, dm], 0.3)
        sp = ("vmap (a in transpose(reshape(x @ %s, [%d, %d, %d]), [1, 0, 2]), "
              "b in transpose(reshape(x @ %s, [%d, %d, %d]), [1, 0, 2]), "
              "c in transpose(reshape(x @ %s, [%d, %d, %d]), [1, 0, 2])) { attn(a, b, c) }"
              % (wq, tq, hh, d, wk, tq, hh, d, wv, tq, hh, d))
        jp = ("jax.vmap(attn)((x @ %s).reshape(%d, %d, %d).transpose(1, 0, 2), "
              "(x @ %s).reshape(%d, %d, %d).transpose(1, 0, 2), "
              "(x @ %s).reshape(%d, %d, %d).transpose(1, 0, 2))"
              % (wq, tq, hh, d, wk, tq, hh, d, wv, tq, hh, d))
        r = p.bind("pmap i (x in %s) { %s }" % (xs, sp),
                   "jax.pmap(lambda x: %s, axis_name='i')(%s)" % (jp, xs))
        # Norm-wise, not element-wise: q, k and v are dots over dm = heads * d terms (up
        # to 160) of data scaled up to 3, so an output near 0 (a cancellation in the
        # softmax-weighted sum of v's rows, |v| up to ~15) carries an absolute error of the
        # order of eps times the largest outputs, in JAX as in spmdrun (difftest18: both
        # 1.5e-5 from a float64 reference, 3e-6 apart). An atol of 1e-6 times the largest
        # |output| (the error measured was at most 2.5e-7 times it).
        mag = np.asarray(p.val(r))
        p.loosen(TOL_ML[0], max(TOL_ML[1], 1e-6 * float(np.max(np.abs(mag))) if mag.size else 0.0))
    else:
        q, k, v = data(p, [tq, d], sc), data(p, [tk, d], sc), data(p, [tk, dv])
        w = data(p, [tq, dv])
        an = rng.choice([0, 1, 2])
        r = p.bind("grad(fn (a, b, c) = sum(attn(a, b, c) * %s), argnums=%d)(%s, %s, %s)"
                   % (w, an, q, k, v),
                   "jax.grad(lambda a, b, c: jnp.sum(attn(a, b, c) * %s), argnums=%d)(%s, %s, %s)"
                   % (w, an, q, k, v))
    p.show(r, r)
