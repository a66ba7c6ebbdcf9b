#!/usr/bin/env python3
"""Issue 14, ad10: a sweep of gradients against JAX, bit for bit.

Random compositions of unary and binary elementwise operations f, differentiated in the
forms people write: grad, grad of grad (and of grad of grad), vmap of grad of grad, a
Hessian-vector product (grad of a dot with grad), a Hessian diagonal by vmap over grad of
grad (as jax.hessian's rows), grad of grad inside a pmap, and grad through a pmap with a
psum. Each case is one print in a .spmd program and the same print in its JAX twin; the
printed text must be identical.

    /tmp/jaxenv/bin/python tests/conformance/ad10/sweep_grad.py --seed 1 --count 400 \
        --work /tmp/ad10 --spmdrun build/spmdrun [--no-jax]

JAX's output is cached in WORK (--no-jax reuses it, to compare another spmdrun build).
Writes WORK/result.json (counts by kind) and WORK/diff.txt (every differing case: the
function, both outputs).
"""
import argparse, json, os, random, subprocess, sys

UNARY = ["sin", "cos", "tanh", "exp", "sigmoid", "neg", "sq", "cube", "sqrt1", "log1"]
BINARY = ["+", "-", "*", "/"]
CONSTS = ["0.5", "1.5", "2.0", "3.0", "0.3", "0.7"]
KINDS = ["g1", "g2", "g3", "vg2", "hvp", "hdiag", "pmg2", "gpmap"]
LOOP_KINDS = ["g1loop", "g2loop"]  # --kinds loops: through a for loop (lax.fori_loop)


def gen(rng, depth):
    """An expression tree over the variable x: ('x',), ('c', s), ('u', op, e), ('b', op, l, r)."""
    if depth == 0 or rng.random() < 0.1:
        return ("x",) if rng.random() < 0.85 else ("c", rng.choice(CONSTS))
    if rng.random() < 0.5:
        return ("u", rng.choice(UNARY), gen(rng, depth - 1))
    l, r = gen(rng, depth - 1), gen(rng, depth - 1)
    return ("b", rng.choice(BINARY), l, r)


def render(e, jax):
    """The expression in spmd (jax=False) or JAX syntax, over the name x."""
    k = e[0]
    if k == "x":
        return "x"
    if k == "c":
        return e[1]
    if k == "u":
        a = render(e[2], jax)
        op = e[1]
        if op == "neg":
            return f"(-{a})"
        if op == "sq":
            return f"(({a}) ** 2)"
        if op == "cube":
            return f"(({a}) ** 3)"
        if op == "sqrt1":
            return f"jnp.sqrt({a} * {a} + 1.0)" if jax else f"sqrt({a} * {a} + 1.0)"
        if op == "log1":
            return f"jnp.log({a} * {a} + 1.0)" if jax else f"log({a} * {a} + 1.0)"
        if op == "sigmoid":
            return f"jax.nn.sigmoid({a})" if jax else f"sigmoid({a})"
        return f"jnp.{op}({a})" if jax else f"{op}({a})"
    l, r = render(e[2], jax), render(e[3], jax)
    if e[1] == "/":
        return f"({l} / ({r} * {r} + 1.0))"
    return f"({l} {e[1]} {r})"


def has_x(e):
    return e[0] == "x" or (e[0] in ("u", "b") and any(has_x(s) for s in e[2:]))


SENT = "-7777"


def case(kind, f_s, f_j, rng):
    """(spmd lines, python lines) printing one case; f is defined as f(x) in both."""
    x0 = round(rng.uniform(-1.5, 1.5), 2)
    v0 = [round(rng.uniform(-1.5, 1.5), 2) for _ in range(4)]
    vv = [round(rng.uniform(-1.0, 1.0), 2) for _ in range(4)]
    S, P = [f"fn f(x) = {f_s}"], [f"f = lambda x: {f_j}"]
    if kind == "g1":
        S.append(f"print(grad(f)({x0}))"); P.append(f"print(A(jax.grad(f)({x0})))")
    elif kind == "g2":
        S.append(f"print(grad(grad(f))({x0}))"); P.append(f"print(A(jax.grad(jax.grad(f))({x0})))")
    elif kind == "g3":
        S.append(f"print(grad(grad(grad(f)))({x0}))")
        P.append(f"print(A(jax.grad(jax.grad(jax.grad(f)))({x0})))")
    elif kind == "vg2":
        S.append(f"print(vmap (x in {v0}) {{ grad(grad(f))(x) }})")
        P.append(f"print(A(jax.vmap(jax.grad(jax.grad(f)))(jnp.array({v0}))))")
    elif kind == "hvp":
        S.append(f"print(grad(fn (u) = sum(grad(fn (v) = sum(f(v)))(u) * {vv}))({v0}))")
        P.append(f"print(A(jax.grad(lambda u: jnp.sum(jax.grad(lambda v: jnp.sum(f(v)))(u) * jnp.array({vv})))(jnp.array({v0}))))")
    elif kind == "hdiag":
        S.append(f"print(vmap (e in eye(4)) {{ sum(grad(fn (v) = sum(grad(fn (w) = sum(f(w)))(v) * e))({v0}) * e) }})")
        P.append(f"print(A(jax.vmap(lambda e: jnp.sum(jax.grad(lambda v: jnp.sum(jax.grad(lambda w: jnp.sum(f(w)))(v) * e))(jnp.array({v0})) * e))(jnp.eye(4))))")
    elif kind == "pmg2":
        xs = [round(rng.uniform(-1.5, 1.5), 2) for _ in range(8)]
        S.append(f"print(pmap i (x in {xs}) {{ grad(grad(f))(x) }})")
        P.append(f"print(A(jax.pmap(jax.grad(jax.grad(f)), axis_name='i')(jnp.array({xs}))))")
    elif kind == "gpmap":
        xs = [round(rng.uniform(-1.5, 1.5), 2) for _ in range(8)]
        S.append(f"print(grad(fn (w) = sum(pmap i (x in {xs}) {{ psum(f(x * w), i) }}))({x0}))")
        P.append(f"print(A(jax.grad(lambda w: jnp.sum(jax.pmap(lambda x: lax.psum(f(x * w), 'i'), axis_name='i')(jnp.array({xs}))))({x0})))")
    elif kind in ("g1loop", "g2loop"):
        S.append("fn h(x) {\n  var y = x\n  for t in 0..3 { y = sin(f(y)) }\n  y\n}")
        P.append("h = lambda x: lax.fori_loop(0, 3, lambda t, y: jnp.sin(f(y)), x)")
        # h's value first: JAX compiles the loop body with XLA (constants folded, FMA), so
        # where the value differs the gradient's difference is not the transform's.
        S.append(f"print(h({x0}))"); P.append(f"print(A(h({x0})))")
        if kind == "g1loop":
            S.append(f"print(grad(h)({x0}))"); P.append(f"print(A(jax.grad(h)({x0})))")
        else:
            S.append(f"print(grad(grad(h))({x0}))"); P.append(f"print(A(jax.grad(jax.grad(h))({x0})))")
    S.append(f"print({SENT})"); P.append(f"print({SENT})")
    return S, P


PY_HEAD = """import os
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax, jax.numpy as jnp, numpy as np
A = np.asarray; lax = jax.lax
"""


def blocks(out):
    return [b.strip() for b in out.split(SENT + "\n")][:-1] if out else []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=400)
    ap.add_argument("--per-file", type=int, default=40)
    ap.add_argument("--work", default="/tmp/ad10")
    ap.add_argument("--spmdrun", default="build/spmdrun")
    ap.add_argument("--no-jax", action="store_true")
    ap.add_argument("--kinds", default="straight", help="straight (the default) or loops")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    os.makedirs(a.work, exist_ok=True)
    cases = []
    while len(cases) < a.count:
        e = gen(rng, rng.choice([2, 3, 3, 4]))
        if not has_x(e):
            continue
        kinds = LOOP_KINDS if a.kinds == "loops" else KINDS
        kind = kinds[len(cases) % len(kinds)]
        S, P = case(kind, render(e, False), render(e, True), rng)
        cases.append((kind, S, P))
    counts, diffs = {}, []
    for f0 in range(0, len(cases), a.per_file):
        chunk = cases[f0:f0 + a.per_file]
        base = os.path.join(a.work, f"{a.kinds}{a.seed}_{f0}")
        with open(base + ".spmd", "w") as fh:
            fh.write("\n".join(l for c in chunk for l in c[1]) + "\n")
        with open(base + ".py", "w") as fh:
            fh.write(PY_HEAD + "\n".join(l for c in chunk for l in c[2]) + "\n")
        if not a.no_jax or not os.path.exists(base + ".want"):
            w = subprocess.run([sys.executable, base + ".py"], capture_output=True, text=True)
            if w.returncode:
                sys.exit(f"JAX failed on {base}.py:\n{w.stderr[-2000:]}")
            open(base + ".want", "w").write(w.stdout)
        want = blocks(open(base + ".want").read())
        g = subprocess.run([a.spmdrun, "--devices", "cpu:8", base + ".spmd"],
                           capture_output=True, text=True, timeout=600)
        got = blocks(g.stdout)
        if g.returncode:
            print(f"spmdrun failed on {base}.spmd: {g.stderr[-500:]}", file=sys.stderr)
        for k, (kind, S, P) in enumerate(chunk):
            c = counts.setdefault(kind, {"cases": 0, "identical": 0})
            c["cases"] += 1
            gk = got[k] if k < len(got) else "<missing>"
            if gk == want[k]:
                c["identical"] += 1
            elif kind in LOOP_KINDS and gk.split("\n")[0] != want[k].split("\n")[0]:
                c["value_differs"] = c.get("value_differs", 0) + 1  # not the transform's
            else:
                diffs.append(f"{kind} {base}.spmd #{k}\n  " + "\n  ".join(S[:-1]) + f"\n  jax:     {want[k]!r}\n  spmdrun: {gk!r}\n")
    tot = {k: sum(c.get(k, 0) for c in counts.values()) for k in ("cases", "identical", "value_differs")}
    json.dump({"seed": a.seed, "spmdrun": a.spmdrun, "total": tot, "by_kind": counts},
              open(os.path.join(a.work, "result.json"), "w"), indent=1)
    open(os.path.join(a.work, "diff.txt"), "w").write("\n".join(diffs))
    print(json.dumps({"total": tot, "by_kind": counts}))


if __name__ == "__main__":
    main()
