"""dot15 dev tool: jax.jit(a @ b) for M, K, N in 2..7 (below XLA's YNNPACK bound, its
DotThunk) against spmdrun's model: one FMA chain when K <= 3 or M, N <= 3, else dot14's
`a.T @ b` model (tn_model.slice_tn). Prints the shapes that differ.

    /tmp/jaxenv/bin/python tiny_dots.py SEED COUNT"""
import os
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../dot14"))
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from orders import one_chain  # noqa: E402
from tn_model import slice_tn  # noqa: E402

f = jax.jit(lambda a, b: a @ b)
rng = np.random.default_rng(int(sys.argv[1]))
n = int(sys.argv[2])
ok = 0
for t in range(n):
    M, K, N = [int(rng.integers(2, 8)) for _ in range(3)]
    a = jax.random.uniform(jax.random.key(t), (M, K), jnp.float32, -1, 1)
    b = jax.random.uniform(jax.random.key(t + 99), (K, N), jnp.float32, -1, 1)
    w = np.asarray(f(a, b))
    A, B = np.asarray(a), np.asarray(b)
    g = one_chain(A, B) if K <= 3 or (M <= 3 and N <= 3) else slice_tn(A, B)
    d = (g.view(np.int32) != w.view(np.int32)).sum()
    ok += d == 0
    if d:
        print(f"{M}x{K}x{N}: {d}/{w.size} differ")
print("ok", ok, "of", n)
