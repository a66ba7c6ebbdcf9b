"""dot18 dev tool: which k slice length L makes jax.jit(a @ b) bit for bit: the model's
kernel order over slices [0, L), [L, 2L), ... of k (K rounded down to tile_k), each
summed from 0 and added to C, then the K mod tile_k tail.

    /tmp/jaxenv/bin/python probe_split.py 48x415x221 24x585x284"""
import os
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "../dot14"))
sys.path.insert(0, os.path.join(here, "../dot17"))
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from orders import chain  # noqa: E402
from ynn_model import choose  # noqa: E402

f32 = np.float32


def slice_sum(A, B, k0, k1, o):
    if o == "1":
        return chain(A, B, range(k0, k1))
    if o == "p":
        e = chain(A, B, range(k0, k1, 2)); d = chain(A, B, range(k0 + 1, k1, 2))
        return (e + d).astype(f32)
    if o == "4":
        c = [chain(A, B, range(k0 + q, k1, 4)) for q in range(4)]
        return ((c[0] + c[1]).astype(f32) + (c[2] + c[3]).astype(f32)).astype(f32)


def tail_sum(A, B, k0, K, o):
    t = K - k0
    p = [(A[:, k0 + q:k0 + q + 1] * B[k0 + q:k0 + q + 1, :]).astype(f32) for q in range(t)]
    if o == "p" or t == 1:
        return p[0]
    s = (p[0] + p[1]).astype(f32)
    return s if t == 2 else (s + p[2]).astype(f32)


def split_model(A, B, L, o):
    K = A.shape[1]
    tk = {"1": 1, "p": 2, "4": 4}[o]
    K1 = K - K % tk
    C = None
    for k0 in range(0, K1, L):
        s = slice_sum(A, B, k0, min(K1, k0 + L), o)
        C = s if C is None else (C + s).astype(f32)
    if K1 < K:
        s = tail_sum(A, B, K1, K, o)
        C = s if C is None else (C + s).astype(f32)
    return C


def probe(M, K, N, bt=False):
    a = jax.random.uniform(jax.random.key(1), (M, K), jnp.float32, -1, 1)
    b = jax.random.uniform(jax.random.key(2), (N, K) if bt else (K, N), jnp.float32, -1, 1)
    f = jax.jit(lambda a, b: a @ b.T) if bt else jax.jit(lambda a, b: a @ b)
    w = np.asarray(f(a, b))
    A = np.asarray(a)
    B = np.asarray(b).T.copy() if bt else np.asarray(b)
    kr, pack = choose(M, N, K, b_transposed=bt)
    o = kr[4]
    tk = {"1": 1, "p": 2, "4": 4}[o]
    fits = []
    for L in range(tk, K + tk, tk):
        g = split_model(A, B, L, o)
        d = int((g.view(np.int32) != w.view(np.int32)).sum())
        if d == 0:
            fits.append(L)
    print(f"{M}x{K}x{N}{' nt' if bt else ''}: {kr[0]} {kr[1]} {'pack' if pack else 'unpacked'} "
          f"order {o}; slice lengths that fit: {fits[:12]}{' ...' if len(fits) > 12 else ''}")


if __name__ == "__main__":
    for s in sys.argv[1:]:
        bt = s.endswith("nt")
        M, K, N = map(int, s.rstrip("nt").split("x"))
        probe(M, K, N, bt)
