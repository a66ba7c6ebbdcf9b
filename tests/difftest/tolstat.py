#!/usr/bin/env python3
"""How close spmdrun comes to JAX on a run's programs: the tightest of a ladder of
tolerances each program passes (difftest18 measured TOL_ML's cut with it).

    tolstat.py SPMDRUN PROGS_DIR [--only CLASS,...] [-j N]

Runs every PROGS_DIR/pSEED.spmd (as run.py does) and prints, per class, how many print
exactly JAX's text and how many pass each tolerance of LADDER (compare.py's rule) and
none tighter, and the programs that pass none. Pure Python, as compare.py."""
import collections
import concurrent.futures
import json
import os
import sys

from compare import run_spmd, same_output

LADDER = [("arith", (1e-6, 1.2e-38)), ("2e-6", (2e-6, 5e-7)), ("trans", (4e-6, 1e-6)), ("ml17", (2e-5, 5e-6)),
          ("1e-4", (1e-4, 1e-5))]


def level(spmdrun, path):
    meta = json.load(open(path[:-5] + ".json"))
    code, out, err = run_spmd(spmdrun, path, meta.get("devices", 8))
    if code != 0:
        return meta["class"], "error"
    if same_output(out, meta["expected"], None)[0]:
        return meta["class"], "exact"
    for name, tol in LADDER:
        if same_output(out, meta["expected"], tol)[0]:
            return meta["class"], name
    return meta["class"], "none"


def main():
    args = sys.argv[1:]
    jobs, only = 2, None
    if "-j" in args:
        k = args.index("-j")
        jobs = int(args[k + 1])
        del args[k: k + 2]
    if "--only" in args:
        k = args.index("--only")
        only = set(args[k + 1].split(","))
        del args[k: k + 2]
    spmdrun, progs = os.path.abspath(args[0]), args[1]
    files = sorted(os.path.join(progs, f) for f in os.listdir(progs) if f.endswith(".spmd")
                   and os.path.exists(os.path.join(progs, f[:-5] + ".json")))
    if only:
        files = [f for f in files if json.load(open(f[:-5] + ".json"))["class"] in only]
    table = collections.defaultdict(collections.Counter)
    worst = []
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        for f, (cls, lv) in zip(files, ex.map(lambda f: level(spmdrun, f), files)):
            table[cls][lv] += 1
            if lv in ("none", "error", "1e-4"):
                worst.append((os.path.basename(f), cls, lv))
    cols = ["exact"] + [n for n, _ in LADDER] + ["none", "error"]
    print("class      programs " + " ".join("%6s" % c for c in cols))
    for cls in sorted(table):
        t = table[cls]
        print("%-10s %8d " % (cls, sum(t.values())) + " ".join("%6d" % t[c] for c in cols))
    for w in worst:
        print("loose: %s %s %s" % w)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
