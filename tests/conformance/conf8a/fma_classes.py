"""FMA contraction by class: random pmap programs of one class each, spmdrun against jax.pmap.

Usage: fma_classes.py SPMDRUN [--classes multi,const,red,mean,dot] [--count N] [--seed S] [-v]

Dev only (needs JAX; not in CI). For each class of Note [FMA contraction]
(compiler/codegen/EmitElementwise.cpp) it writes N programs, runs them on 8 CPU devices and
compares every element's bits (each result element is printed as a scalar, its shortest
repr). Prints, per class, how many programs differ. Classes:
  multi  a multiply with several uses (`let m = a * b` used twice, or `a * b` written twice)
  const  constants reassociated: (a * c1) * c2, (a + c1) + c2, (a - c1) + c2, ...
  red    sum(x * y) (maybe + an elementwise term), random shapes below 4096 per device
  mean   mean(d ** 2) with d = x - y, random shapes below 4096 per device
  dot    v @ w + b and x @ w + b with small random sizes
"""
import argparse, os, random, subprocess, tempfile
import numpy as np


def lit(r):
    return repr(float(np.float32(r.choice([r.uniform(-3, 3), r.uniform(0.1, 2), 0.5, 1.7, -2.3]))))


def shape_small(r):
    while True:
        rank = r.randint(1, 3)
        s = [r.choice([r.randint(1, 8), r.randint(2, 32), r.randint(2, 70)]) for _ in range(rank)]
        if np.prod(s) < 4096: return s


def case(cls, r):
    """(shape of a, shape of b, body as a JAX-and-spmd expression of a, b)"""
    if cls == "multi":
        s = [3]
        k = r.randrange(4)
        l1, l2 = lit(r), lit(r)
        body = [f"(a * b + {l1}) * (a * b - {l2})", f"(a * b + a) - (a * b) * {l1}",
                f"(a * a + b) * (b - a * a)", f"(a * b) * (a * b) + {l1}"][k]
        return s, s, body
    if cls == "const":
        s = [3]
        c1, c2 = lit(r), lit(r)
        ops = [f"(a * {c1}) * {c2}", f"(a + {c1}) + {c2}", f"(a - {c1}) + {c2}", f"(a + {c1}) - {c2}",
               f"{c1} * (a * {c2}) + b", f"(a * {c1} + {c2}) * {c1}", f"(a * b) * {c1} + {c2}",
               f"a * {c1} * b + {c2}", f"(a + {c1}) * b + {c2}"]
        return s, s, r.choice(ops)
    if cls in ("red", "mean"):
        s = shape_small(r)
        axes = None if r.random() < 0.5 else r.randrange(len(s))
        ax = "" if axes is None else f", axis={axes}"
        if cls == "mean":
            return s, s, f"jnp.mean((a - b) ** 2{ax})"
        body = r.choice(["a * b", "a * b", f"a * b + {lit(r)}", f"a * {lit(r)}", "(a - b) * a"])
        return s, s, f"jnp.sum({body}{ax})"
    if cls == "dot":
        k, n = r.randint(1, 40), r.randint(1, 40)
        if r.random() < 0.5:
            return [k], [k, n], f"a @ b + {lit(r)}"
        m = r.randint(1, 12)
        return [m, k], [k, n], f"a @ b + {lit(r)}"
    raise ValueError(cls)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("spmdrun")
    ap.add_argument("--classes", default="multi,const,red,mean,dot")
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8")
    os.environ.update(env)
    import jax, jax.numpy as jnp
    for cls in a.classes.split(","):
        r = random.Random(f"{a.seed}-{cls}")
        rng = np.random.default_rng(r.randrange(2**32))
        spmd, py, bodies = [], ["import jax, jax.numpy as jnp, numpy as np"], []
        for p in range(a.count):
            sa, sb, body = case(cls, r)
            X = np.float32(rng.uniform(-4, 4, [8] + sa)).tolist()
            Y = np.float32(rng.uniform(-4, 4, [8] + sb)).tolist()
            bodies.append((sa, sb, body))
            sbody = body.replace("jnp.", "")
            n = int(np.prod(jax.eval_shape(jax.pmap(eval(f"lambda a, b: {body}", {"jnp": jnp})),
                                           jax.ShapeDtypeStruct([8] + sa, jnp.float32),
                                           jax.ShapeDtypeStruct([8] + sb, jnp.float32)).shape))
            spmd.append(f"let X{p} = {X}\nlet Y{p} = {Y}\n"
                        f"let R{p} = ravel(pmap i (a in X{p}, b in Y{p}) {{ {sbody} }})\n"
                        f"for j in 0..{n} {{ print(R{p}[j]) }}\nprint(\"@@\")")
            py.append(f"R = np.asarray(jax.pmap(lambda a, b: {body})(jnp.array({X}, jnp.float32), "
                      f"jnp.array({Y}, jnp.float32))).reshape(-1)\n"
                      f"for v in R: print(v)\nprint('@@')")
        d = tempfile.mkdtemp()
        open(f"{d}/f.spmd", "w").write("\n".join(spmd) + "\n")
        open(f"{d}/f.py", "w").write("\n".join(py) + "\n")
        j = subprocess.run(["/tmp/jaxenv/bin/python", f"{d}/f.py"], capture_output=True, text=True, env=env)
        g = subprocess.run([a.spmdrun, "--devices", "cpu:8", f"{d}/f.spmd"], capture_output=True, text=True)
        if j.returncode or g.returncode:
            print(f"{cls}: failed ({d}):", j.stderr[-800:], g.stderr[-800:])
            continue
        js, gs = j.stdout.split("@@\n"), g.stdout.split("@@\n")
        bad = [k for k in range(a.count) if k >= len(gs) or js[k] != gs[k]]
        print(f"class {cls}: {a.count - len(bad)}/{a.count} exact")
        if a.v:
            for k in bad:
                nd = sum(x != y for x, y in zip(js[k].split(), gs[k].split() if k < len(gs) else []))
                print(f"   differs: {bodies[k]}  ({nd}/{len(js[k].split())} elements)")


if __name__ == "__main__":
    main()
