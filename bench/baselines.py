#!/usr/bin/env python3
"""The baseline side of the benchmark suite: each workload of bench/*.spmd written in JAX
(pmap over 8 host CPU devices), and where it fits in NumPy or multiprocessing.Pool.

Usage: baselines.py WORKLOAD [NAME=VALUE ...]   (sizes, as spmdrun's --arg)
Prints one JSON object on stdout: the timings in seconds, keyed by system and kind:
  jax_e2e     the whole workload from the first call (tracing + compiling + running), the
              interpreter start and `import jax` excluded
  jax_steady  the same workload again, everything compiled (median of a few repeats)
  jax_kernel  one kernel alone, steady state (where the workload names one)
  numpy, pool, ...  other baselines (no compile step)
A workload whose JAX side cannot run says {"baseline_error": "..."}; without JAX installed the
object holds {"jax_skipped": "JAX not installed"} and the NumPy side still runs.
`baselines.py machine` measures this machine's copy bandwidth and sgemm FLOP/s.
"""
import json
import math
import os
import statistics
import sys
import time

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import numpy as np  # noqa: E402

try:
    import jax
    import jax.numpy as jnp
    from jax import lax
except ImportError:
    jax = None

STEADY_REPEATS = int(os.environ.get("BENCH_STEADY_REPEATS", "3"))


def now():
    return time.perf_counter()


def timed(fn):
    """Seconds taken by fn(), and its value."""
    t0 = now()
    v = fn()
    return now() - t0, v


def e2e_and_steady(work, out, repeats=None):
    """Times work() once from cold (jax_e2e) and then `repeats` more times (jax_steady)."""
    out["jax_e2e"], _ = timed(work)
    reps = [timed(work)[0] for _ in range(repeats or STEADY_REPEATS)]
    out["jax_steady"] = statistics.median(reps)


def ready(x):
    return jax.block_until_ready(x)


# --- machine bounds ------------------------------------------------------------------------

def machine(_):
    """Copy bandwidth (bytes read + written per second, numpy copyto of 256 MiB, best of 10;
    the better of one thread copying it all and one thread per core each copying its slice,
    since spmdrun's kernels run on every core) and the sgemm rate of numpy's BLAS (2048^3
    f32, all threads, best of 5)."""
    from concurrent.futures import ThreadPoolExecutor
    src = np.ones(64 << 20, np.float32)
    dst = np.empty_like(src)
    best1 = min(timed(lambda: np.copyto(dst, src))[0] for _ in range(10))
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    parts = np.array_split(np.arange(src.size), max(cores, 1))
    bounds = [(int(p[0]), int(p[-1]) + 1) for p in parts if p.size]

    def copy_all(pool):  # np.copyto releases the GIL while it copies
        for f in [pool.submit(np.copyto, dst[lo:hi], src[lo:hi]) for lo, hi in bounds]:
            f.result()
    with ThreadPoolExecutor(len(bounds)) as pool:
        copy_all(pool)
        best_n = min(timed(lambda: copy_all(pool))[0] for _ in range(10))
    best = min(best1, best_n)
    a = np.random.default_rng(0).standard_normal((2048, 2048), dtype=np.float32)
    a @ a
    gemm = min(timed(lambda: a @ a)[0] for _ in range(5))
    return {"copy_GBps": 2 * src.nbytes / best / 1e9, "copy_1thread_GBps": 2 * src.nbytes / best1 / 1e9,
            "copy_threads": len(bounds), "copy_threads_GBps": 2 * src.nbytes / best_n / 1e9,
            "sgemm_GFLOPs": 2 * 2048**3 / gemm / 1e9,
            "blas": blas_name(), "numpy": np.__version__, "python": sys.version.split()[0],
            "jax": jax.__version__ if jax else "not installed"}


def blas_name():
    try:
        cfg = np.show_config(mode="dicts")
        return cfg["Build Dependencies"]["blas"]["name"]
    except Exception:  # older numpy: not worth failing the suite for
        return "unknown"


# --- workloads -------------------------------------------------------------------------------

def normalize(a):
    n = int(a.get("n", 1 << 26))
    out = {}
    d, m = 8, n // 8

    def np_work():  # the whole workload, as the .spmd does it: make, normalize, sum
        x = np.arange(d, dtype=np.float32)[:, None] + np.arange(m, dtype=np.float32) * np.float32(1.0 / m)
        y = x / x.sum()
        return float(y.sum())
    out["numpy"] = min(timed(np_work)[0] for _ in range(3))
    x = np.arange(n, dtype=np.float32) * np.float32(1.0 / n)
    out["numpy_kernel"] = min(timed(lambda: x / x.sum())[0] for _ in range(3))
    del x
    if jax is None:
        return out
    d = jax.device_count()
    m = n // d
    gen = jax.pmap(lambda k: k.astype(jnp.float32) + jnp.arange(m, dtype=jnp.float32) * (1.0 / m))
    norm = jax.pmap(lambda x: x / lax.psum(jnp.sum(x), "i"), axis_name="i")
    sums = jax.pmap(jnp.sum)

    def work():
        return float(jnp.sum(sums(norm(gen(jnp.arange(d))))))
    e2e_and_steady(work, out)
    xs = ready(gen(jnp.arange(d)))
    out["jax_kernel"] = statistics.median(timed(lambda: ready(norm(xs)))[0] for _ in range(5))
    return out


def rule30(a):
    cells, steps = int(a.get("cells", 1 << 20)), int(a.get("steps", 1000))
    out = {}

    def np_work():
        b = np.zeros(cells, bool)
        b[cells // 2] = True
        for _ in range(steps):
            b = np.roll(b, 1) ^ (b | np.roll(b, -1))
        return int(b.sum())
    out["numpy"], out["numpy_live"] = timed(np_work)
    if jax is None:
        return out
    d = jax.device_count()
    to_right = [(j, (j + 1) % d) for j in range(d)]
    to_left = [((j + 1) % d, j) for j in range(d)]

    def step(s):
        fl = lax.ppermute(s[-1:], "i", to_right)
        fr = lax.ppermute(s[:1], "i", to_left)
        b = jnp.concatenate([fl, s, fr])
        return b[:-2] ^ (b[1:-1] | b[2:])
    board0 = np.zeros(cells, bool)
    board0[cells // 2] = True
    board0 = board0.reshape(d, -1)
    # One pmap call per step, as the .spmd program does, waiting for each step. XLA's CPU
    # collectives deadlock on this 2-core machine otherwise: both a lax.fori_loop of
    # ppermute inside one pmap and un-awaited back-to-back calls abort after 40 s with
    # "Termination timeout for collective permute ... only 6 (or 7) of 8 arrived".
    one = jax.pmap(step, axis_name="i")

    def work():
        b = board0
        for _ in range(steps):
            b = ready(one(b))
        return int(jnp.sum(b))
    e2e_and_steady(work, out)
    out["jax_live"] = work()
    return out


def random_matmul(a):
    rows, cols = int(a.get("rows", 1000)), int(a.get("cols", 1200))
    out = {}
    rng = np.random.default_rng(0)

    def np_work():
        return [float(np.mean(m @ m.T)) for m in
                (rng.standard_normal((rows, cols), dtype=np.float32) for _ in range(8))]
    out["numpy"], _ = timed(np_work)
    if jax is None:
        return out
    keys = jax.random.split(jax.random.PRNGKey(0), 8)
    gen = jax.pmap(lambda k: jax.random.normal(k, (rows, cols)))
    mm = jax.pmap(lambda m: m @ m.T)
    mean = jax.pmap(jnp.mean)

    def work():
        return np.asarray(mean(mm(gen(keys))))
    e2e_and_steady(work, out)
    mats = ready(gen(keys))
    out["jax_kernel"] = statistics.median(timed(lambda: ready(mm(mats)))[0] for _ in range(3))
    return out


def _pool_function(x):
    return sum(math.sin(x * k) for k in range(1, 101))


def pool_map(a):
    n = int(a.get("inputs", 1000000))
    out = {}
    inputs = np.linspace(0.0, 1.0, n, dtype=np.float32)
    ks = np.arange(1.0, 101.0, dtype=np.float32)

    def np_work():
        return np.concatenate([np.sin(c[:, None] * ks).sum(1) for c in np.array_split(inputs, max(1, n // 65536))])
    out["numpy"], _ = timed(np_work)
    import multiprocessing
    as_list = inputs.tolist()
    t0 = now()
    with multiprocessing.Pool(os.cpu_count()) as pool:
        t1 = now()
        pool.map(_pool_function, as_list)
        out["pool"] = now() - t1
    out["pool_with_startup"] = now() - t0
    if jax is None:
        return out
    d = jax.device_count()

    def function(x):
        return jnp.sum(jnp.sin(x * jnp.arange(1.0, 101.0, 1.0)))
    f = jax.pmap(jax.vmap(function))

    def work():
        return np.asarray(f(jnp.reshape(jnp.linspace(0.0, 1.0, n), (d, -1)))).ravel()[:3]
    e2e_and_steady(work, out)
    return out


def _mlp_step_fns(lr, nclass):
    from jax_mlp import sgd_step
    return jax.pmap(sgd_step(nclass, lr), axis_name="i", in_axes=(None, 0, 0))


def _train(pstep, params, x, y, steps):
    def work():
        p = params
        for _ in range(steps):
            l, stacked = pstep(p, x, y)
            p = jax.tree_util.tree_map(lambda t: t[0], stacked)
        return float(l[0])
    return work


def train_mlp(a):
    steps = int(a.get("steps", 301))
    out = {}
    if jax is None:
        return out
    from jax_mlp import train_mlp_data
    params, x, y = train_mlp_data(jax.device_count())
    e2e_and_steady(_train(_mlp_step_fns(0.5, 2), params, x, y, steps), out, repeats=1)
    return out


def train_mlp_wide(a):
    steps, batch = int(a.get("steps", 20)), int(a.get("batch", 1024))
    out = {}
    if jax is None:
        return out
    from jax_mlp import train_mlp_wide_data
    params, x, y = train_mlp_wide_data(jax.device_count(), batch)
    e2e_and_steady(_train(_mlp_step_fns(0.1, 10), params, x, y, steps), out, repeats=1)
    return out


def micro_dispatch(a):
    calls = int(a.get("calls", 1000))
    out = {}
    if jax is None:
        return out
    f = jax.pmap(lambda v: v + 1.0)

    def work():
        x = jnp.zeros(jax.device_count())
        for _ in range(calls):
            x = f(x)
        return float(ready(x)[0])
    e2e_and_steady(work, out)
    return out


def micro_psum(a):
    mb, reps = int(a.get("mb", 16)), int(a.get("reps", 10))
    out = {}
    if jax is None:
        return out
    d = jax.device_count()
    m = mb * 262144
    xs = ready(jax.pmap(lambda k: k.astype(jnp.float32) + jnp.zeros(m))(jnp.arange(d)))
    ps = jax.pmap(lambda x: lax.psum(x, "i"), axis_name="i")

    def work():  # reps psums, each awaited, as the .spmd program's reps launches
        for _ in range(reps):
            ready(ps(xs))
    e2e_and_steady(work, out)
    out["jax_kernel"] = out["jax_steady"] / reps
    return out


if __name__ == "__main__":
    workloads = {f.__name__: f for f in (machine, normalize, rule30, random_matmul, pool_map,
                                         train_mlp, train_mlp_wide, micro_dispatch, micro_psum)}
    if jax is not None:
        from compile_examples import compile_examples  # beside this file; needs JAX
        workloads["compile_examples"] = compile_examples
    name = sys.argv[1]
    sizes = dict(kv.split("=", 1) for kv in sys.argv[2:])
    result = {}
    if jax is None and name != "machine":
        result["jax_skipped"] = "skipped: JAX not installed"
    try:
        if name in workloads:
            result.update(workloads[name](sizes))
        elif name != "compile_examples":
            sys.exit(f"baselines.py: no workload {name!r}")
    except Exception as e:  # a baseline that fails is reported, never hidden
        result["baseline_error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
    print(json.dumps(result))
