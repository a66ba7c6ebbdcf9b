"""Misuse sweep: every builtin called with wrong arity, dtype, shape or kind of argument.
Each call must end with exit status 1 and a diagnostic `FILE:LINE:COL: error: ...`, the
source line and a caret line; a crash, an internal error (exit 3), a hang or a silent
success is a finding. Usage: errsweep.py SPMDRUN [-v]."""
import subprocess, sys, os, re, tempfile
bin_ = sys.argv[1]; verbose = '-v' in sys.argv
B = ("zeros ones full arange linspace eye reshape transpose ravel concat stack broadcast_to "
     "expand_dims squeeze shape size len set exp log log1p sqrt rsqrt sin cos tan tanh sigmoid "
     "relu abs sign floor ceil round maximum minimum where clip f32 i32 u32 bool sum mean max "
     "min prod argmax argmin all any logsumexp dot key split fold_in uniform normal bernoulli "
     "randint key_data one_hot grad value_and_grad tree_map stop_gradient device_count render "
     "assert_close arg").split()
C = "psum pmean pmax pmin all_gather ppermute all_to_all psum_scatter axis_index axis_size".split()
ARGS = ["", "x, x, x, x, x, x, x", "k", "(x, x)", '"s"', "b", "x, -7", "m, [5, 5]", "x, 2.5", "m, m, m",
        "fn (t) = t", "i32(3), x", "x, [1, 2, 3]"]
pre = "let x = arange(4.0)\nlet m = reshape(arange(6.0), [2, 3])\nlet k = key(0)\nlet b = x > 1.0\n"
cases = []
for f in B:
    for a in ARGS: cases.append((f, pre + "print(%s(%s))\n" % (f, a)))
for f in C:
    for a in ["", "v, i, i, i, i, i, i", "v, j", "v, (i, i)", "k1, i", "v, 3", "(v, v)", "v, i, [(0, 9)]", "v, i, 5, 5"]:
        cases.append((f, pre + "let ks = split(k, 4)\nprint(pmap i (v in reshape(arange(8.0), [4, 2]), k1 in ks) { %s(%s) })\n" % (f, a)))
bad = 0; ok1 = 0; accepted = 0
d = tempfile.mkdtemp()
for n, (f, src) in enumerate(cases):
    p = os.path.join(d, "e%d.spmd" % n)
    open(p, "w").write(src)
    try:
        r = subprocess.run([bin_, "--devices", "cpu:8", p], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        print("HANG", f, src.splitlines()[-1]); bad += 1; continue
    e = r.stderr
    if r.returncode == 0:
        accepted += 1
        if verbose: print("accepted:", src.splitlines()[-1], "->", r.stdout.strip()[:80])
        continue
    lines = e.splitlines()
    good = (r.returncode == 1 and lines and re.match(r"^%s:\d+:\d+: error: " % re.escape(p), lines[0])
            and len(lines) >= 3 and re.match(r"^\s*\^~*\s*$", lines[2]))
    if not good:
        bad += 1
        print("BAD rc=%d" % r.returncode, src.splitlines()[-1], "|", e.strip().replace("\n", " / ")[:300])
    else:
        ok1 += 1
        if verbose: print("ok:", src.splitlines()[-1], "|", lines[0].split("error: ")[1][:100])
print("cases", len(cases), "diagnosed", ok1, "accepted", accepted, "bad", bad)
