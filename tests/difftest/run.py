#!/usr/bin/env python3
"""Generate N programs, run them through JAX (at generation) and spmdrun, keep disagreements.

    /tmp/jaxenv/bin/python tests/difftest/run.py --seed S --count N [--work DIR]
        [--spmdrun build/spmdrun] [--findings DIR] [-j 2] [--no-gen] [--only CLASS,...]

Programs go to WORK/progs (gen.py, split over -j processes). Each is run with spmdrun
--devices cpu:8 and compared (compare.py's rule). Every disagreement is minimised to the
first print statement that disagrees (all bindings kept, every other print dropped) and
written to FINDINGS/<bucket>/pSEED.{spmd,py,want,got}, where bucket is the program's
class and the kind of disagreement (value, shape, dtype, error, crash, timeout).
FINDINGS/summary.json counts programs and disagreements by bucket.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from compare import same_output, run_spmd  # noqa: E402


def generate(seed, count, outdir, jobs, only):
    os.makedirs(outdir, exist_ok=True)
    per = (count + jobs - 1) // jobs
    procs = []
    for k in range(jobs):
        n = min(per, count - k * per)
        if n <= 0:
            break
        env = dict(os.environ, DIFFTEST_ONLY=only or "")
        procs.append(subprocess.Popen([sys.executable, os.path.join(HERE, "gen.py"),
                                       str(seed + k * per), str(n), outdir], env=env,
                                      stderr=subprocess.DEVNULL))
    for p in procs:
        p.wait()


def kind_of(code, err, why, meta):
    if code == "timeout":
        return "timeout"
    if code != 0:
        if code < 0 or code > 128:
            return "crash"
        if "internal" in err.lower():
            return "ice"
        return "error"
    return "value"


def minimise(spmdrun, path, meta, workdir):
    """The program cut down to its first disagreeing print (bindings kept): (src, want)."""
    if meta.get("nomin"):  # a loop prints: the prints cannot be cut one by one
        return None
    lines = open(path).read().rstrip("\n").split("\n")
    prints = [k for k, l in enumerate(lines) if l.startswith("print(")]
    tol = meta["tol"] and tuple(meta["tol"])
    for n, k in enumerate(prints):
        keep = [l for j, l in enumerate(lines) if not l.startswith("print(") or j == k]
        src = "\n".join(keep) + "\n"
        tmp = os.path.join(workdir, "min_%s" % os.path.basename(path))
        with open(tmp, "w") as f:
            f.write(src)
        code, out, err = run_spmd(spmdrun, tmp, meta.get("devices", 8))
        ok = code == 0 and same_output(out, meta["prints"][n], tol)[0]
        os.unlink(tmp)
        if not ok:
            return src, meta["prints"][n], (code, out, err)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--work", default="/tmp/difftest")
    ap.add_argument("--spmdrun", default=os.path.join(HERE, "../../build/spmdrun"))
    ap.add_argument("--findings", default=None)
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--no-gen", action="store_true")
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    progs = os.path.join(a.work, "progs")
    findings = a.findings or os.path.join(a.work, "findings")
    if not a.no_gen:
        generate(a.seed, a.count, progs, a.j, a.only)
    spmdrun = os.path.abspath(a.spmdrun)
    files = sorted(f for f in os.listdir(progs)
                   if f.endswith(".spmd") and os.path.exists(os.path.join(progs, f[:-5] + ".json")))
    if os.path.isdir(findings):
        shutil.rmtree(findings)
    os.makedirs(findings)

    def one(f):
        path = os.path.join(progs, f)
        meta = json.load(open(path[:-5] + ".json"))
        code, out, err = run_spmd(spmdrun, path, meta.get("devices", 8))
        if code == 0:
            ok, why = same_output(out, meta["expected"], meta["tol"] and tuple(meta["tol"]))
            if ok:
                return f, meta["class"], None
        else:
            why = "exit %s" % code
        kind = kind_of(code, err, why, meta)
        m = minimise(spmdrun, path, meta, a.work) if kind == "value" else None
        if kind == "value" and m and m[2][0] != 0:
            kind = kind_of(m[2][0], m[2][2], "", meta)
        src, want, (c2, got, err2) = m if m else (open(path).read(), meta["expected"], (code, out, err))
        if kind == "value" and m:
            p = meta["prints"]
            first = src.strip().split("\n")[-1]
            if first.startswith("print(shape("):
                kind = "shape"
            elif first.startswith("print(sum(") and first.endswith("* 0 - 1))"):
                kind = "dtype"
        bucket = "%s.%s" % (meta["class"], kind)
        d = os.path.join(findings, bucket)
        os.makedirs(d, exist_ok=True)
        base = os.path.join(d, f[:-5])
        open(base + ".spmd", "w").write(src)
        shutil.copy(path[:-5] + ".py", base + ".py")
        open(base + ".want", "w").write(want)
        open(base + ".got", "w").write((got or "") + ("\n--- stderr:\n" + err2 if err2 else ""))
        return f, meta["class"], bucket

    by_class = collections.Counter()
    buckets = collections.Counter()
    with concurrent.futures.ThreadPoolExecutor(a.j) as ex:
        for f, cls, bucket in ex.map(one, files):
            by_class[cls] += 1
            if bucket:
                buckets[bucket] += 1
    summary = {"programs": len(files), "disagree": sum(buckets.values()),
               "by_class": dict(sorted(by_class.items())), "buckets": dict(sorted(buckets.items()))}
    json.dump(summary, open(os.path.join(findings, "summary.json"), "w"), indent=1)
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
