"""linspace against jnp.linspace at many sizes (Note [XLA linspace]; dev only, needs JAX).

Usage: linspace_sizes.py SPMDRUN. Writes one program of print(linspace(lo, hi, n[, endpoint]))
lines for (lo, hi) pairs and sizes around every threshold of the note, runs it with
spmdrun and compares each printed array with np.asarray(jnp.linspace(...)) printed in full.
Prints the number of arrays and of differing points, by size class; exit 1 if any differ.
"""
import os, subprocess, sys, tempfile
import numpy as np
import jax.numpy as jnp

np.set_printoptions(threshold=sys.maxsize, floatmode="unique", linewidth=120)
rng = np.random.default_rng(8)
pairs = [(-1.0, 1.0), (0.0, 1.0), (0.1, 0.7), (-5.0, -2.5), (3.0, -0.001), (2.0, 7.5)]
pairs += [(float(np.float32(a)), float(np.float32(b))) for a, b in rng.uniform(-100, 100, (14, 2))]
sizes = [2, 3, 4, 5, 8, 23, 31, 32, 33, 34, 35, 100, 350, 351, 352, 353, 354, 1000, 1001,
         1500, 4096, 4441, 4442, 4443, 4444, 6000, 6001, 40000]
cases = [(lo, hi, n, ep) for lo, hi in pairs for n in sizes for ep in (True, False)]
with tempfile.TemporaryDirectory() as d:
    prog = os.path.join(d, "lin.spmd")
    with open(prog, "w") as f:
        for lo, hi, n, ep in cases:
            # ravel through reshape: print the whole array (no summary) one number a line
            f.write("let v = linspace(%r, %r, %d, endpoint=%s)\nfor k in 0..%d { print(v[k]) }\n"
                    % (lo, hi, n, "true" if ep else "false", n))
    out = subprocess.run([sys.argv[1], "--devices", "cpu:1", prog], capture_output=True,
                         text=True, check=True).stdout.split()
pos, bad, by = 0, 0, {}
for lo, hi, n, ep in cases:
    want = np.asarray(jnp.linspace(lo, hi, n, endpoint=ep))
    got = np.array(out[pos:pos + n], dtype=np.float32); pos += n
    nb = int((got != want).sum()); bad += nb
    cls = "<=33" if n <= 33 else "<=352" if n <= 352 else "<=4442" if n <= 4442 else ">4442"
    by[cls] = by.get(cls, 0) + nb
    if nb:
        print("differ: linspace(%r, %r, %d, endpoint=%s) at %s" % (lo, hi, n, ep, np.nonzero(got != want)[0][:8]))
print("%d arrays, %d points, %d differ; by size: %s" % (len(cases), pos, bad, by))
sys.exit(1 if bad else 0)
