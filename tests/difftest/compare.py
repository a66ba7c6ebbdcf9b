#!/usr/bin/env python3
"""Compare spmdrun's output with JAX's expected output; check the checked-in corpus.

Pure Python (no NumPy, no JAX), so CI runs it with /usr/bin/python3:
    compare.py SPMDRUN CORPUS_DIR [-j N] [--shard K/M]
        runs every CORPUS_DIR/*.spmd (with --shard, the K-th of M interleaved parts, K from
        0), exit 1 on any disagreement, each printed with the program's name, the reason,
        the first differing token or line, and a diff of spmdrun's output against JAX's

The rule (README.md): when a program's expected record has "tol": null the output must be
the same text (trailing spaces aside). Otherwise both outputs are split into tokens
(numbers, words, single punctuation characters; whitespace is ignored, so NumPy's column
padding and line wrapping do not matter) and must have the same tokens, with integers
(no '.', 'e', nan or inf) and words exactly equal, and floats equal within
    |a - b| <= ulp_print(a) + ulp_print(b) + atol + rtol * max(|a|, |b|)
where ulp_print is what printing can hide: half a unit in the last digit of a number that
NumPy cut at 8 digits after the point, else 0 (NumPy prints the fewest digits that identify
the f32, so '-1.0' is exactly -1.0); nan matches only nan, an infinity only the same one.
"""
import concurrent.futures
import difflib
import json
import math
import os
import re
import subprocess
import sys

TOKEN = re.compile(r"[-+]?(?:nan|inf)\b|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[A-Za-z_]+|\S")


def is_float_token(t):
    return any(c in t for c in ".eE") or t.lstrip("+-") in ("nan", "inf")


def is_number(t):
    return bool(re.fullmatch(r"[-+]?(?:nan|inf)|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?", t))


def print_unit(t):
    """What printing can hide of float token t: half a unit in its last digit where NumPy
    cut it at 8 fractional digits (positional notation), else 0. NumPy prints each f32 with
    the fewest digits that identify it (and at most 8 after the point): '-1.0' is exactly
    -1.0 and '0.5' exactly 0.5, and scientific notation (at most 9 significant digits)
    always identifies the f32."""
    m = re.fullmatch(r"[-+]?(\d*)\.?(\d*)(?:[eE]([-+]?\d+))?", t)
    if not m or m.group(3) is not None:
        return 0.0
    dec = len(m.group(2) or "")
    return 0.5 * 10.0 ** -dec if dec >= 8 else 0.0


def floats_close(a, b, rtol, atol):
    x, y = float(a), float(b)
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if math.isinf(x) or math.isinf(y):
        return x == y
    return abs(x - y) <= print_unit(a) + print_unit(b) + atol + rtol * max(abs(x), abs(y))


def same_output(got, want, tol):
    """(True, "") or (False, why)."""
    if tol is None:
        g = [l.rstrip() for l in got.rstrip("\n").split("\n")]
        w = [l.rstrip() for l in want.rstrip("\n").split("\n")]
        if g == w:
            return True, ""
        for k, (a, b) in enumerate(zip(g, w)):
            if a != b:
                return False, "line %d: got %r, want %r" % (k + 1, a, b)
        return False, "got %d lines, want %d" % (len(g), len(w))
    rtol, atol = tol
    tg, tw = TOKEN.findall(got), TOKEN.findall(want)
    for k, (a, b) in enumerate(zip(tg, tw)):
        if is_number(a) and is_number(b):
            fa, fb = is_float_token(a), is_float_token(b)
            if fa != fb:
                return False, "token %d: got %s, want %s (int vs float)" % (k, a, b)
            if not fa:
                if int(a) != int(b):
                    return False, "token %d: got %s, want %s" % (k, a, b)
            elif not floats_close(a, b, rtol, atol):
                return False, "token %d: got %s, want %s" % (k, a, b)
        elif a != b:
            return False, "token %d: got %r, want %r" % (k, a, b)
    if len(tg) != len(tw):
        return False, "got %d tokens, want %d" % (len(tg), len(tw))
    return True, ""


def run_spmd(spmdrun, path, devices=8, timeout=120):
    """(exit code or 'timeout', stdout, stderr)."""
    try:
        r = subprocess.run([spmdrun, "--devices", "cpu:%d" % devices, path],
                           capture_output=True, text=True, timeout=timeout,
                           errors="replace")
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired:
        return "timeout", "", ""


def check_one(spmdrun, spmd_path):
    meta = json.load(open(spmd_path[: -len(".spmd")] + ".json"))
    code, out, err = run_spmd(spmdrun, spmd_path, meta.get("devices", 8))
    if code != 0:
        return False, "exit %s: %s" % (code, err.strip()[-400:]), out
    ok, why = same_output(out, meta["expected"], meta["tol"] and tuple(meta["tol"]))
    return ok, why, out


def main():
    args = sys.argv[1:]
    jobs, shard, nshards = 2, 0, 1
    if "-j" in args:
        k = args.index("-j")
        jobs = int(args[k + 1])
        del args[k: k + 2]
    if "--shard" in args:
        k = args.index("--shard")
        shard, nshards = map(int, args[k + 1].split("/"))
        del args[k: k + 2]
    if len(args) != 2 or not 0 <= shard < nshards:
        print(__doc__, file=sys.stderr)
        return 2
    spmdrun, corpus = os.path.abspath(args[0]), args[1]
    files = sorted(os.path.join(corpus, f) for f in os.listdir(corpus) if f.endswith(".spmd"))
    files = files[shard::nshards]
    bad = 0
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        for f, (ok, why, out) in zip(files, ex.map(lambda f: check_one(spmdrun, f), files)):
            if not ok:
                bad += 1
                want = json.load(open(f[:-5] + ".json"))["expected"]
                print("DISAGREE %s: %s" % (f, why))
                print("".join(difflib.unified_diff(
                    want.splitlines(True), out.splitlines(True),
                    "JAX (expected, %s)" % os.path.basename(f[:-5] + ".json"),
                    "spmdrun %s" % os.path.basename(f))) or "(same text: the tolerance differs)\n")
    part = " (shard %d of %d)" % (shard, nshards) if nshards > 1 else ""
    print("difftest corpus%s: %d programs, %d agree with JAX, %d disagree"
          % (part, len(files), len(files) - bad, bad))
    return 1 if bad or not files else 0


if __name__ == "__main__":
    sys.exit(main())
