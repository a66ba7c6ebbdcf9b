#!/usr/bin/env python3
"""Build and refresh the checked-in corpus (tests/difftest/corpus/); needs JAX.

    corpus.py select WORK SIZE [--corpus DIR] [--spmdrun BIN]
        Picks about SIZE programs from WORK/progs (a run.py work directory; programs with
        a finding in WORK/findings are left out) spread over every generator class, in
        proportion to the class weights of gen_coll.CLASSES with at least MIN_PER_CLASS
        each; within a class, greedily the program that adds the most features not yet
        covered (the builtins, operators, dtypes, keywords and special values its source
        uses), so the corpus spans what the generator makes. Each goes to
        DIR/CLASS_pSEED.{spmd,py,json}; the .json keeps the class, the expected output,
        the tolerance and the device count (compare.py's record). Then runs `regen` and
        `check`.
    corpus.py add WORK --classes C1,C2 [--per-class N] [--seeds pSEED,...] [--corpus DIR]
        Adds to the corpus without replacing it: N programs of each class (greedily, the
        features the corpus's programs of that class lack; none with a finding) and the
        programs named (the full programs of fixed findings). Then `regen` of those and
        `check` of the whole corpus.
    corpus.py regen [--corpus DIR]
        Runs every DIR/*.py with JAX (CPU, 8 host devices, x64 off) in a fresh process and
        writes its stdout as the expected output into the .json: the expected files are
        JAX's output, not the generator's. Says which ones changed.
    corpus.py check [--corpus DIR] [--spmdrun BIN]
        compare.py over the corpus (what CTest runs, there with /usr/bin/python3).

Run with /tmp/jaxenv/bin/python (any Python with JAX 0.10 and NumPy).
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
MIN_PER_CLASS = 8

# Special values as spmd writes them (gen.fmt_float) and other features of the source.
SPECIAL = {"log(-1.0)": "nan", "-log(0.0)": "+inf", "log(0.0)": "-inf", "-0.0": "-0",
           "keepdims=true": "keepdims", "tiled=true": "tiled", "axis=(": "axis-tuple",
           "axis=-": "axis-negative", "->": "along", "[i32(sum(": "dynamic-index"}


def features(src):
    body = "\n".join(l for l in src.split("\n") if not l.startswith("#"))
    words = set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", body))
    words = {w for w in words if not re.fullmatch(r"v\d+|[a-z]", w)}
    ops = set(re.findall(r"\*\*|//|[-+*/%&|^@~<>]=?|==|!=", body))
    extra = {name for key, name in SPECIAL.items() if key in body}
    big = {"e%d" % int(e) for e in re.findall(r"e[-+]?(\d+)", body) if int(e) >= 7}
    return words | ops | extra | {"big" if big else "small"}


def select(work, size, corpus):
    sys.path.insert(0, HERE)
    from gen_coll import CLASSES
    progs = os.path.join(work, "progs")
    bad = set()
    fdir = os.path.join(work, "findings")
    for root, _, files in os.walk(fdir):
        bad.update(f[:-5] for f in files if f.endswith(".spmd"))
    by_class = collections.defaultdict(list)
    for f in sorted(os.listdir(progs)):
        if not f.endswith(".json") or f[:-5] in bad:
            continue
        meta = json.load(open(os.path.join(progs, f)))
        src = open(os.path.join(progs, f[:-5] + ".spmd")).read()
        by_class[meta["class"]].append((f[:-5], features(src), meta))
    total_w = sum(w for _, w, _ in CLASSES)
    os.makedirs(corpus, exist_ok=True)
    for old in os.listdir(corpus):
        if old.endswith((".spmd", ".py", ".json")):
            os.unlink(os.path.join(corpus, old))
    picked = 0
    for name, w, _ in CLASSES:
        quota = max(MIN_PER_CLASS, round(size * w / total_w))
        cands = list(by_class.get(name, []))
        covered = set()
        for _ in range(min(quota, len(cands))):
            # most new features; ties: the shorter expected output (quicker to read)
            best = max(cands, key=lambda c: (len(c[1] - covered), -len(c[2]["expected"])))
            cands.remove(best)
            covered |= best[1]
            base, _, meta = best
            dst = os.path.join(corpus, "%s_%s" % (name, base))
            shutil.copy(os.path.join(progs, base + ".spmd"), dst + ".spmd")
            shutil.copy(os.path.join(progs, base + ".py"), dst + ".py")
            rec = {"class": meta["class"], "expected": meta["expected"], "tol": meta["tol"],
                   "devices": meta.get("devices", 8)}
            with open(dst + ".json", "w") as f:
                json.dump(rec, f, indent=1)
                f.write("\n")
            picked += 1
        print("%-13s %3d of %4d programs, %3d features" % (name, min(quota, len(by_class.get(name, []))),
                                                         len(by_class.get(name, [])), len(covered)))
    print("selected %d programs into %s" % (picked, corpus))


def add(work, classes, per_class, seeds, corpus):
    """Adds to the corpus (nothing replaced): per_class programs of each class in classes
    from WORK/progs, greedily by features the corpus's programs of that class lack
    (programs with a finding left out), and the programs named in seeds (pSEED, taken
    whatever their findings: a finding fixed since). Returns the added records' paths."""
    progs = os.path.join(work, "progs")
    bad = set()
    for root, _, files in os.walk(os.path.join(work, "findings")):
        bad.update(f[:-5] for f in files if f.endswith(".spmd"))
    added = []

    def put(base, meta):
        dst = os.path.join(corpus, "%s_%s" % (meta["class"], base))
        if os.path.exists(dst + ".json"):
            return
        shutil.copy(os.path.join(progs, base + ".spmd"), dst + ".spmd")
        shutil.copy(os.path.join(progs, base + ".py"), dst + ".py")
        rec = {"class": meta["class"], "expected": meta["expected"], "tol": meta["tol"],
               "devices": meta.get("devices", 8)}
        with open(dst + ".json", "w") as f:
            json.dump(rec, f, indent=1)
            f.write("\n")
        added.append(dst + ".json")

    for base in seeds:
        put(base, json.load(open(os.path.join(progs, base + ".json"))))
    for name in classes:
        covered = set()
        for f in os.listdir(corpus):
            if f.startswith(name + "_p") and f.endswith(".spmd"):
                covered |= features(open(os.path.join(corpus, f)).read())
        cands = []
        for f in sorted(os.listdir(progs)):
            if not f.endswith(".json") or f[:-5] in bad:
                continue
            meta = json.load(open(os.path.join(progs, f)))
            if meta["class"] == name:
                cands.append((f[:-5], features(open(os.path.join(progs, f[:-5] + ".spmd")).read()), meta))
        for _ in range(min(per_class, len(cands))):
            best = max(cands, key=lambda c: (len(c[1] - covered), -len(c[2]["expected"])))
            cands.remove(best)
            covered |= best[1]
            put(best[0], best[2])
        print("%-13s %3d candidates, %3d features covered" % (name, len(cands), len(covered)))
    print("added %d programs to %s" % (len(added), corpus))
    return added


def run_jax(py):
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8",
               JAX_PLATFORMS="cpu", JAX_ENABLE_X64="0")
    r = subprocess.run([sys.executable, py], capture_output=True, text=True, env=env, timeout=600)
    if r.returncode != 0:
        raise RuntimeError("%s: JAX failed:\n%s" % (py, r.stderr[-2000:]))
    return r.stdout


def regen(corpus, jobs=2, only=None):
    files = sorted(os.path.join(corpus, f) for f in os.listdir(corpus) if f.endswith(".py"))
    if only is not None:
        files = [f for f in files if f[:-3] + ".json" in only]
    changed = 0
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        for py, out in zip(files, ex.map(run_jax, files)):
            path = py[:-3] + ".json"
            rec = json.load(open(path))
            if rec["expected"] != out:
                changed += 1
                print("changed: %s" % os.path.basename(path))
                rec["expected"] = out
                with open(path, "w") as f:
                    json.dump(rec, f, indent=1)
                    f.write("\n")
    print("regen: %d programs run with JAX %s, %d expected outputs changed"
          % (len(files), __import__("jax").__version__, changed))


def check(corpus, spmdrun):
    return subprocess.call([sys.executable, os.path.join(HERE, "compare.py"), spmdrun, corpus])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["select", "add", "regen", "check"])
    ap.add_argument("--classes", default="", help="add: the classes to add programs of")
    ap.add_argument("--per-class", type=int, default=8, help="add: programs per class")
    ap.add_argument("--seeds", default="", help="add: programs pSEED,... to add as they are")
    ap.add_argument("work", nargs="?")
    ap.add_argument("size", nargs="?", type=int, default=240)
    ap.add_argument("--corpus", default=CORPUS)
    ap.add_argument("--spmdrun", default=os.path.join(HERE, "../../build/spmdrun"))
    ap.add_argument("-j", type=int, default=2)
    a = ap.parse_args()
    if a.cmd == "select":
        if not a.work:
            ap.error("select needs WORK")
        select(a.work, a.size, a.corpus)
        regen(a.corpus, a.j)
        return check(a.corpus, a.spmdrun)
    if a.cmd == "add":
        if not a.work:
            ap.error("add needs WORK")
        added = add(a.work, [c for c in a.classes.split(",") if c], a.per_class,
                    [x for x in a.seeds.split(",") if x], a.corpus)
        regen(a.corpus, a.j, set(added))
        return check(a.corpus, a.spmdrun)
    if a.cmd == "regen":
        regen(a.corpus, a.j)
        return 0
    return check(a.corpus, a.spmdrun)


if __name__ == "__main__":
    sys.exit(main())
