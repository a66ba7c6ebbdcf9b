#!/usr/bin/env python3
"""The JAX side of the GPU suite (bench/gpu_run.py): each workload of bench/*.spmd written
in JAX for one GPU, for D logical devices as the .spmd program sees them on `cuda:D`.

JAX has one device per GPU, so the pmap body becomes `jax.jit(jax.vmap(body,
axis_name="i"))` over a leading axis of D: the same arrays, the same collectives (psum,
ppermute, pmean under vmap), the same total work, in one jitted call per pmap of the
.spmd program, dispatched asynchronously as JAX does.

Usage: gpu_baselines.py WORKLOAD D[,D...] [NAME=VALUE ...]   (sizes as spmdrun's --arg)
Prints one JSON object: {"jax": VERSION, "device": ..., "d": {D: {...}}} where each D has
  e2e      the whole workload's first call (trace + compile + run), backend already up
  steady   the whole workload again, compiled (median of BENCH_STEADY_REPEATS, default 3)
  kernel   the workload's main jitted call alone: K calls back to back, blocked once, / K
  value    what the .spmd program prints last (to compare by eye)
or {"baseline_error": "..."}; without JAX, {"jax_skipped": "skipped: JAX not installed"}.
"""
import json
import os
import statistics
import sys
import time

try:
    import jax
    import jax.numpy as jnp
    from jax import lax
except ImportError:
    jax = None

REPEATS = int(os.environ.get("BENCH_STEADY_REPEATS", "3"))


def now():
    return time.perf_counter()


def ready(x):
    return jax.block_until_ready(x)


def timed(fn):
    t0 = now()
    v = fn()
    return now() - t0, v


def per_call(fn, k):
    """Seconds per call of fn() (which returns arrays), k calls back to back, after one.
    Only the last result is kept (the calls run in order on the GPU's stream), so that k
    results of 4 GiB are not all alive at once."""
    ready(fn())
    t0 = now()
    out = None
    for _ in range(k):
        out = fn()
    ready(out)
    return (now() - t0) / k


def whole(work, kernel=None, k=10):
    """e2e, steady and (when given) kernel timings of a workload; value: work()'s result."""
    out = {}
    out["e2e"], out["value"] = timed(work)
    out["steady"] = statistics.median(timed(work)[0] for _ in range(REPEATS))
    if kernel is not None:
        out["kernel"] = per_call(kernel, k)
    return out


def spmd(body, **kw):
    """A pmap body as one jitted call over a leading axis of logical devices."""
    return jax.jit(jax.vmap(body, axis_name="i", **kw))


def arange_shards(d, m):
    """f32(k) + f32(arange(m)) * (1/m) for k in 0..d: the .spmd programs' first pmap."""
    return spmd(lambda k: k.astype(jnp.float32) + jnp.arange(m, dtype=jnp.float32) * (1.0 / m))


# --- the workloads (each: sizes, d -> timings) ---------------------------------------------------

def _sharded_map(a, d, body):
    """A pmap of `body` over d shards of arange data (n elements in all), then the shards'
    sums, as normalize.spmd and chain.spmd do; the kernel is `body`'s call alone."""
    gen = arange_shards(d, int(a["n"]) // d)
    f, sums = spmd(body), spmd(jnp.sum)

    def work():
        return float(jnp.sum(sums(f(gen(jnp.arange(d))))))
    out = whole(work)
    xs = ready(gen(jnp.arange(d)))
    out["kernel"] = per_call(lambda: f(xs), 10)
    return out


def normalize(a, d):
    return _sharded_map(a, d, lambda x: x / lax.psum(jnp.sum(x), "i"))


def chain(a, d):
    return _sharded_map(a, d, lambda x: (x * 1.5 + 2.0) * jnp.exp(x * -0.125) - jnp.sin(x) * 0.5)


def rule30(a, d):
    cells, steps = int(a["cells"]), int(a["steps"])
    to_right = [(j, (j + 1) % d) for j in range(d)]
    to_left = [((j + 1) % d, j) for j in range(d)]

    def step(s):
        fl = lax.ppermute(s[-1:], "i", to_right)
        fr = lax.ppermute(s[:1], "i", to_left)
        b = jnp.concatenate([fl, s, fr])
        return b[:-2] ^ (b[1:-1] | b[2:])
    one = spmd(step)
    board0 = jnp.zeros(cells, bool).at[cells // 2].set(True).reshape(d, -1)

    def work():  # one jitted call per step, as the .spmd program's one pmap per step
        b = board0
        for _ in range(steps):
            b = one(b)
        return int(jnp.sum(b.astype(jnp.int32)))
    out = whole(work)
    out["kernel"] = per_call(lambda: one(board0), 20)
    return out


def pool_map(a, d):
    n = int(a["inputs"])

    def function(x):
        return jnp.sum(jnp.sin(x * jnp.arange(1.0, 101.0, 1.0)))
    f = spmd(jax.vmap(function))
    lin = jax.jit(lambda: jnp.linspace(0.0, 1.0, n, dtype=jnp.float32).reshape(d, -1))

    def work():
        return [float(v) for v in f(lin()).ravel()[:3]]
    out = whole(work)
    xs = ready(lin())
    out["kernel"] = per_call(lambda: f(xs), 5)
    return out


def random_matmul(a, d):
    rows, cols = int(a["rows"]), int(a["cols"])
    keys = jax.random.split(jax.random.key(0), 8)
    gen = spmd(lambda k: jax.random.normal(k, (rows, cols)))
    mm = spmd(lambda m: m @ m.T)
    mean = spmd(jnp.mean)

    def work():
        return [float(v) for v in mean(mm(gen(keys)))]
    out = whole(work)
    mats = ready(gen(keys))
    out["kernel"] = per_call(lambda: mm(mats), 5)
    return out


def _mlp_step(nclass, lr):
    """One jitted SGD step for all d replicas (jax_mlp.sgd_step under vmap over "i")."""
    from jax_mlp import sgd_step
    batched = jax.vmap(sgd_step(nclass, lr), in_axes=(None, 0, 0), axis_name="i")

    @jax.jit
    def step(params, xs, ys):  # params = tree_map(p[0], stacked), inside the one call
        l, stacked = batched(params, xs, ys)
        return l, jax.tree_util.tree_map(lambda t: t[0], stacked)
    return step


def train_mlp(a, d):
    from jax_mlp import predict, train_mlp_data
    steps = int(a["steps"])
    params, x, y = train_mlp_data(d)
    step = _mlp_step(2, 0.5)
    accuracy = spmd(lambda p, xs, ys: jnp.mean((jnp.argmax(predict(p, xs), axis=1) == ys).astype(jnp.float32)),
                    in_axes=(None, 0, 0))

    def work():
        p = params
        for s in range(steps):
            l, p = step(p, x, y)
            if s % 100 == 0:
                float(l[0])  # the .spmd program prints the loss every 100 steps
        return float(jnp.mean(accuracy(p, x, y)))  # and the accuracy at the end
    out = whole(work)
    out["kernel"] = per_call(lambda: step(params, x, y), 20)
    return out


def train_mlp_wide(a, d):
    from jax_mlp import train_mlp_wide_data
    steps, batch = int(a["steps"]), int(a["batch"])
    params, x, y = train_mlp_wide_data(d, batch)
    step = _mlp_step(10, 0.1)

    def work():
        p, l = params, None
        for s in range(steps):
            l, p = step(p, x, y)
            if s == 0:
                float(l[0])
        return float(l[0])
    out = whole(work)
    out["kernel"] = per_call(lambda: step(params, x, y), 10)
    return out


def micro_dispatch(a, d):
    calls = int(a["calls"])
    f = spmd(lambda v: v + 1.0)

    def work():
        x = jnp.zeros(d)
        for _ in range(calls):
            x = f(x)
        return float(ready(x)[0])
    out = whole(work)
    out["kernel"] = out["steady"] / calls
    return out


def micro_psum(a, d):
    mb, reps = int(a["mb"]), int(a["reps"])
    m = mb * 262144
    xs = ready(spmd(lambda k: k.astype(jnp.float32) + jnp.zeros(m))(jnp.arange(d)))
    ps = spmd(lambda x: lax.psum(x, "i"))
    first = spmd(lambda y: y[0])

    def work():  # each psum's result read back, as the .spmd program's host sum does
        s = 0.0
        for _ in range(reps):
            s += float(jnp.sum(first(ps(xs))))
        return s
    out = whole(work)
    out["kernel"] = per_call(lambda: ps(xs), 10)
    return out


def _prng(a, d, draw):
    m = int(a["n"]) // d
    keys = jax.random.split(jax.random.key(0), d)
    gen = spmd(lambda k: draw(k, (m,)))
    sums = spmd(jnp.sum)

    def work():
        return float(jnp.sum(sums(gen(keys))))
    out = whole(work)
    out["kernel"] = per_call(lambda: gen(keys), 5)
    return out


def prng_uniform(a, d):
    return _prng(a, d, lambda k, s: jax.random.uniform(k, s, jnp.float32))


def prng_normal(a, d):
    return _prng(a, d, lambda k, s: jax.random.normal(k, s, jnp.float32))


WORKLOADS = {f.__name__: f for f in (normalize, chain, rule30, pool_map, random_matmul, train_mlp,
                                     train_mlp_wide, micro_dispatch, micro_psum, prng_uniform,
                                     prng_normal)}


def main(argv):
    if len(argv) < 2 or argv[0] not in WORKLOADS:
        print(f"usage: gpu_baselines.py WORKLOAD D[,D...] [NAME=VALUE ...]; workloads: "
              f"{' '.join(WORKLOADS)}", file=sys.stderr)
        return 2
    name, ds = argv[0], [int(v) for v in argv[1].split(",")]
    sizes = dict(kv.split("=", 1) for kv in argv[2:])
    if jax is None:
        print(json.dumps({"jax_skipped": "skipped: JAX not installed"}))
        return 0
    result = {"jax": jax.__version__, "d": {}}
    try:
        dev = jax.devices()[0]
        result["device"] = f"{dev.platform}: {getattr(dev, 'device_kind', dev)}"
        ready(jnp.zeros(1) + 1)  # the backend and its context start outside the timings
        for d in ds:
            result["d"][str(d)] = WORKLOADS[name](sizes, d)
    except Exception as e:  # a baseline that fails is reported, never hidden
        result["baseline_error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
