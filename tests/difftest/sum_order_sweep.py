"""Sweep: float reductions of random shapes, spmdrun against jax.jit on CPU, bit for bit.

    /tmp/jaxenv/bin/python tests/difftest/sum_order_sweep.py [--spmdrun build/spmdrun]
        [--classes s,a1,a2,g,b,c,d,w] [--count N] [--seed S] [-v]

Not run in CI (needs JAX). For each class of Note [XLA sum order] (compiler/codegen/
XlaSum.cpp) it draws random shapes, writes one .spmd program printing every reduction,
runs it and compares each element's float32 (or float64) bits with JAX's. Prints, per
class, how many cases match exactly. An array prints as NumPy does (8 digits after the
point), which loses the last bits of an element below 0.1 (a product): a one-element
result of at most 16 elements is printed element by element as scalars (their shortest
repr, every bit) so that it compares exactly.
"""
import argparse, os, random, re, subprocess, sys, tempfile
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def rnd_side(r, big):
    return r.choice([r.randint(2, 32), r.randint(2, 32), r.randint(33, big)])


def shapes_for(cls, r, n):
    """(shape, axes or None, op) cases of a class."""
    out = []
    while len(out) < n:
        if cls == "a1":  # several axes, not all
            rank = r.choice([3, 3, 4])
            shape = [rnd_side(r, 200) for _ in range(rank)]
            if np.prod(shape) > 400000: continue
            k = r.randint(2, rank - 1)
            axes = tuple(sorted(r.sample(range(rank), k)))
            out.append((shape, axes, "sum"))
        elif cls == "a2":  # one axis of 3-D / 4-D
            rank = r.choice([3, 3, 4])
            shape = [rnd_side(r, 200) for _ in range(rank)]
            if np.prod(shape) > 400000: continue
            out.append((shape, (r.randrange(rank),), "sum"))
        elif cls == "s":  # one axis of a small 2-D (< 4096), the reduced side over 32
            a, c = r.randint(1, 40), r.randint(33, 400)
            if a * c >= 4096: continue
            out.append(([a, c], (1,), "sum") if r.random() < 0.5 else ([c, a], (0,), "sum"))
        elif cls == "g":  # two groups of reduced axes, 4096 elements or more
            rank = r.choice([3, 3, 4])
            shape = [rnd_side(r, 200) for _ in range(rank)]
            if not 4096 <= np.prod(shape) <= 400000: continue
            axes = (0, 2) if rank == 3 else r.choice([(0, 2), (1, 3), (0, 3), (0, 1, 3), (0, 2, 3)])
            out.append((shape, axes, "sum"))
        elif cls == "b":  # 2-D whole, < 4096, a side 32k - 1
            k = r.randint(1, 4)
            s = 32 * k - 1 if k > 1 else r.randint(33, 127)
            o = r.randint(2, max(2, 4095 // s))
            shape = [s, o] if r.random() < 0.5 else [o, s]
            if np.prod(shape) >= 4096: continue
            out.append((shape, None, "sum"))
        elif cls == "c":  # 3-D < 4096 with a side > 32; 4-D whole
            rank = r.choice([3, 4])
            shape = [r.randint(2, 70) for _ in range(rank)]
            if rank == 3 and max(shape) <= 32: continue
            if np.prod(shape) >= 4096 and r.random() < 0.8: continue
            if np.prod(shape) > 400000: continue
            out.append((shape, None, "sum"))
        elif cls == "d":  # prod and mean
            rank = r.randint(1, 4)
            shape = [r.choice([r.randint(1, 8), r.randint(2, 40)]) for _ in range(rank)]
            if np.prod(shape) > 100000: continue
            axes = None if r.random() < 0.5 else tuple(sorted(r.sample(range(rank), r.randint(1, rank))))
            out.append((shape, axes, r.choice(["prod", "mean"])))
        elif cls == "e":  # f64
            rank = r.randint(1, 3)
            shape = [rnd_side(r, 300) for _ in range(rank)]
            if np.prod(shape) > 300000: continue
            axes = None if r.random() < 0.5 else (r.randrange(rank),)
            out.append((shape, axes, "sum"))
        elif cls == "w":  # the shapes already exact (regression check)
            rank = r.randint(1, 2)
            shape = [rnd_side(r, 3000 if rank == 1 else 300) for _ in range(rank)]
            axes = None if r.random() < 0.5 else (r.randrange(rank),)
            out.append((shape, axes, "sum"))
    return out


def parse_floats(text):
    toks = re.sub(r"[\[\],]", " ", text).split()
    return [t for t in toks]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--spmdrun", default=os.path.join(HERE, "../../build/spmdrun"))
    ap.add_argument("--classes", default="a1,a2,b,c,d")
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    classes = a.classes.split(",")
    if "e" in classes:
        os.environ["JAX_ENABLE_X64"] = "1"
    import jax, jax.numpy as jnp
    # Class e compares f64 sums, which JAX computes only with x64 on; that would change
    # the other classes' literals, so e runs alone. Its inputs are f32 draws (the spec's
    # uniform is f32) converted to f64 on both sides.
    x64 = classes == ["e"]
    jax.config.update("jax_enable_x64", x64)
    for cls in classes:
        if cls == "e" and not x64:
            print("e: skipped: run it alone (--classes e), with JAX's x64 on")
            continue
        r = random.Random(f"{a.seed}-{cls}")
        cases = shapes_for(cls, r, a.count)
        f64 = cls == "e"
        dt = jnp.float64 if f64 else jnp.float32
        lines, want = [], []
        for i, (shape, axes, op) in enumerate(cases):
            key = 1000 * a.seed + i
            draw = f"uniform(key({key}), {list(shape)})"
            draw = f"f64({draw})" if f64 else draw
            if op == "prod":
                x = 1.0 + (jax.random.uniform(jax.random.key(key), shape, jnp.float32).astype(dt) - 0.5) * 0.25
                src = f"1.0 + ({draw} - 0.5) * 0.25"
            else:
                x = (jax.random.uniform(jax.random.key(key), shape, jnp.float32).astype(dt) - 0.37) * 100.0
                src = f"({draw} - 0.37) * 100.0"
            fn = getattr(jnp, op)
            v = np.asarray(jax.jit(lambda t: fn(t, axis=axes))(x)).reshape(-1)
            want.append(v)
            ax = "" if axes is None else f", axis={axes if len(axes) > 1 else axes[0]}"
            lines.append(f"let x{i} = {src}")
            lines.append(f"let r{i} = ravel({op}(x{i}{ax}))")
            small = v.size <= 16  # scalars print their shortest repr: every bit
            lines += [f"print(r{i}[{j}])" for j in range(v.size if small else 0)]
            for lo in range(0, 0 if small else v.size, 500):
                lines.append(f"print(r{i}[{lo}:{min(v.size, lo + 500)}])")
            lines.append('print("--")')
        with tempfile.NamedTemporaryFile("w", suffix=".spmd", delete=False) as f:
            f.write("\n".join(lines) + "\n")
            path = f.name
        p = subprocess.run([a.spmdrun, path], capture_output=True, text=True)
        if p.returncode != 0:
            print(f"{cls}: spmdrun failed: {p.stderr[:2000]}  ({path})")
            continue
        chunks = p.stdout.split("--\n")
        ok, bad = 0, []
        for i, (case, w) in enumerate(zip(cases, want)):
            got = parse_floats(chunks[i]) if i < len(chunks) else []
            npdt = np.float64 if f64 else np.float32
            try:
                g = np.array([npdt(float(t)) for t in got], dtype=npdt)
            except ValueError:
                g = None
            if g is not None and g.shape == w.shape and np.array_equal(g.view(np.uint64 if f64 else np.uint32), w.astype(npdt).view(np.uint64 if f64 else np.uint32)):
                ok += 1
            else:
                nd = -1 if g is None or g.shape != w.shape else int(np.sum(g != w))
                bad.append((case, nd, w.size))
        print(f"class {cls}: {ok}/{len(cases)} exact")
        if a.v:
            for case, nd, n in bad:
                print(f"   differs: shape {case[0]} axes {case[1]} {case[2]}: {nd}/{n} elements")
        os.unlink(path)


if __name__ == "__main__":
    main()
