"""`bench/run --gpu`: spmdrun on one GPU (`--devices cuda:1` and `cuda:8`) against JAX on
the same GPU, after measuring that GPU's bounds (bench/gpu_bounds.py). Standard library
only; one command, sized to end within the `device` tool's 10 minutes (--budget).

Order: the bounds (a device-to-device copy, cuBLAS sgemm / bf16 gemm at the bench shapes,
a one-rank NCCL all-reduce), a probe of `spmdrun --devices cuda:1`, then rounds: in each
round every workload runs spmdrun cuda:1, spmdrun cuda:8, then JAX (bench/gpu_baselines.py,
D = 1 and 8) in a fresh process: A B A B. A new round starts only if the last one fits in
what is left of the budget, so the medians are over as many runs as fitted (recorded).
Last, the cached compile: each program twice with the object cache on. Writes to --out
(default $OUT, else build-gpu-bench/): bench-gpu.json (raw), gpu-section.md (the section
`bench/run --gpu --report bench-gpu.json` puts into BENCHMARKS.md), and prints the table.
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
import gpu_report  # noqa: E402


@dataclass
class GpuWorkload:
    name: str            #: the row's name
    spmd: str            #: the program, in bench/
    jax: str             #: its function in gpu_baselines.py
    sizes: dict          #: mode ("full", "quick") -> {arg: value}
    kernel_line: int     #: the line of the pmap whose CUDA-event time is "the kernel"
    what: str
    jax_ds: str = "1,8"  #: the D's JAX runs ("8" where the work does not depend on D)
    mem: int = 0         #: GPU memory the workload needs at full size (bytes), to skip it


GIB = 1 << 30
WORKLOADS = [
    GpuWorkload("normalize_64M", "normalize.spmd", "normalize",
                {"full": {"n": 1 << 26}, "quick": {"n": 1 << 20}}, 8, "x / psum(sum(x)), 64M f32"),
    GpuWorkload("normalize_1G", "normalize.spmd", "normalize",
                {"full": {"n": 1 << 30}, "quick": {"n": 1 << 22}}, 8, "x / psum(sum(x)), 1G f32",
                mem=20 * GIB),
    GpuWorkload("chain", "chain.spmd", "chain", {"full": {"n": 1 << 28}, "quick": {"n": 1 << 20}}, 8,
                "(x*1.5+2)*exp(-x/8) - sin(x)/2, 256M f32, one fused kernel"),
    GpuWorkload("rule30", "rule30.spmd", "rule30",
                {"full": {"cells": 1 << 26, "steps": 300}, "quick": {"cells": 1 << 16, "steps": 20}},
                20, "Rule 30, 64M cells, ppermute halo, one pmap per step"),
    GpuWorkload("pool_map", "pool_map.spmd", "pool_map",
                {"full": {"inputs": 1 << 24}, "quick": {"inputs": 1 << 14}}, 7,
                "sum(sin(x * [1..100])) on 16M inputs (compute bound)"),
    GpuWorkload("random_matmul", "random_matmul_d.spmd", "random_matmul",
                {"full": {"rows": 5000, "cols": 6000}, "quick": {"rows": 500, "cols": 600}}, 9,
                "8 x normal(5000, 6000), then m @ m.T (cuBLAS sgemm)", jax_ds="8"),
    GpuWorkload("train_mlp", "train_mlp.spmd", "train_mlp",
                {"full": {"steps": 301}, "quick": {"steps": 11}}, 29,
                "spec train_mlp: 2-32-2 MLP, 64 points per device, 301 SGD steps"),
    GpuWorkload("train_mlp_wide", "train_mlp_wide.spmd", "train_mlp_wide",
                {"full": {"batch": 8192, "steps": 50}, "quick": {"batch": 256, "steps": 3}}, 34,
                "784-512-512-10 MLP, global batch 8192, 50 SGD steps"),
    GpuWorkload("micro_dispatch", "micro_dispatch.spmd", "micro_dispatch",
                {"full": {"calls": 1000}, "quick": {"calls": 50}}, 6, "1000 trivial pmaps (v + 1.0)"),
    GpuWorkload("micro_psum", "micro_psum.spmd", "micro_psum",
                {"full": {"mb": 64, "reps": 20}, "quick": {"mb": 1, "reps": 2}}, 10,
                "psum of D x 64 MiB f32, one pmap per psum, 20 times"),
    GpuWorkload("prng_uniform", "prng_uniform.spmd", "prng_uniform",
                {"full": {"n": 1 << 30}, "quick": {"n": 1 << 20}}, 6, "threefry uniform, 1G f32",
                mem=12 * GIB),
    GpuWorkload("prng_normal", "prng_normal.spmd", "prng_normal",
                {"full": {"n": 1 << 30}, "quick": {"n": 1 << 20}}, 6, "threefry normal, 1G f32",
                mem=12 * GIB),
]
DEVICES = (1, 8)
#: spmdrun's device kind; tests/gpu/bench_harness.py sets "cpu" to run the driver on a
#: machine without a GPU (the numbers are then meaningless, the plumbing is checked).
DEVICE_KIND = "cuda"


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def sh(cmd, env, timeout):
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        p = subprocess.CompletedProcess(cmd, 124, "", f"timed out after {timeout} s")
    return time.perf_counter() - t0, p


def one_line(p):
    """A failed process in one line: its first error line, else its last line."""
    lines = p.stderr.strip().splitlines() or p.stdout.strip().splitlines() or [""]
    line = next((l for l in lines if l.startswith("error") or ": error:" in l), lines[-1])
    return f"exit {p.returncode}: {line[:200]}"


# --- spmdrun's --stats ------------------------------------------------------------------------

PHASE = re.compile(r"^\s+([a-z +]+?)\s+([\d.]+) ms$")
# kernel, launches, total ms, mean ms, collectives, to device, to host[, device ms]
LAUNCH = re.compile(r"^pmap \S+ @ \S+?:(\d+):\d+\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s.*?(?:\s([\d.]+))?$")
CACHE = re.compile(r"^object cache: (\w+)")


def parse_stats(text, kernel_line):
    """{phases..., kernel: GPU seconds per launch of the kernel line's pmap (CUDA events),
    kernel_host: host seconds per launch, launches} from spmdrun --stats."""
    phases, r = {}, {}
    for line in text.splitlines():
        if m := PHASE.match(line):
            phases[m[1]] = float(m[2]) / 1e3
        elif (m := LAUNCH.match(line)) and int(m[1]) == kernel_line:
            n = int(m[2])
            r["launches"] = r.get("launches", 0) + n
            r["kernel_host_total"] = r.get("kernel_host_total", 0.0) + float(m[3]) / 1e3
            if m[5] is not None:
                r["kernel_total"] = r.get("kernel_total", 0.0) + float(m[5]) / 1e3
        elif m := CACHE.match(line):
            r["cache"] = m[1]
    if r.get("launches"):
        r["kernel_host"] = r.pop("kernel_host_total") / r["launches"]
        if "kernel_total" in r:
            r["kernel"] = r.pop("kernel_total") / r["launches"]
    r["run"] = phases.get("run")
    r["compile"] = sum(v for k, v in phases.items() if k != "run") if phases else None
    r["codegen"] = phases.get("codegen + jit")
    r["module_load"] = phases.get("module load")
    return r


def run_spmd(spmdrun, w, sizes, d, env, timeout, cached=False):
    cmd = [spmdrun, "--devices", f"{DEVICE_KIND}:{d}", "--stats"] + ([] if cached else ["--no-cache"])
    cmd.append(str(BENCH / w.spmd))
    for k, v in sizes.items():
        cmd += ["--arg", f"{k}={v}"]
    wall, p = sh(cmd, env, timeout)
    if p.returncode != 0:
        return {"error": one_line(p)}
    r = parse_stats(p.stderr, w.kernel_line)
    r.update(wall=wall, stdout=p.stdout.strip()[-200:])
    return r


def fmt_s(r):
    return r["error"] if "error" in r else f"{r.get('run') or 0:.3f} s"


def run_jax(py, w, sizes, env, timeout):
    wall, p = sh([py, str(BENCH / "gpu_baselines.py"), w.jax, w.jax_ds] +
                 [f"{k}={v}" for k, v in sizes.items()], env, timeout)
    try:
        r = json.loads(p.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {"error": one_line(p), "process": wall}
    r["process"] = wall
    return r


def median_of(runs):
    """Per key, the median of the numbers over runs (the first value otherwise); a run
    that failed makes the whole an error."""
    errs = [r["error"] for r in runs if "error" in r]
    if errs:
        return {"error": errs[0], "failed_runs": len(errs)}
    out = {}
    for k in {k for r in runs for k in r}:
        vals = [r[k] for r in runs if k in r]
        nums = [v for v in vals if isinstance(v, (int, float)) and not isinstance(v, bool)]
        out[k] = statistics.median(nums) if nums and len(nums) == len(vals) else vals[0]
    return out


def jax_median(runs):
    if any("error" in r or "baseline_error" in r or "jax_skipped" in r for r in runs):
        bad = next(r for r in runs if "error" in r or "baseline_error" in r or "jax_skipped" in r)
        return {"error": bad.get("error") or bad.get("baseline_error") or bad.get("jax_skipped")}
    if DEVICE_KIND == "cuda" and not str(runs[0].get("device", "")).startswith(("gpu", "cuda")):
        return {"error": f"JAX did not run on the GPU (its device: {runs[0].get('device')})"}
    ds = runs[0]["d"].keys()
    return {"version": runs[0].get("jax"), "device": runs[0].get("device"),
            "d": {d: median_of([r["d"][d] for r in runs]) for d in ds}}


# --- the suite --------------------------------------------------------------------------------

def bench_shapes(mode):
    """The matrix shapes whose cuBLAS rates bound the matmul workloads: [M, N, K]."""
    rm = next(w for w in WORKLOADS if w.name == "random_matmul").sizes[mode]
    mw = next(w for w in WORKLOADS if w.name == "train_mlp_wide").sizes[mode]
    return [[rm["rows"], rm["rows"], rm["cols"]], [mw["batch"], 512, 784]]


def measure_bounds(py, mode, env):
    """gpu_bounds.py's JSON, or (None, why) when there is no usable GPU."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(bench_shapes(mode), f)
    _, p = sh([py, str(BENCH / "gpu_bounds.py")] + (["--quick"] if mode == "quick" else []) + [f.name],
              env, 300)
    os.unlink(f.name)
    if p.returncode != 0:
        return None, (p.stderr.strip().splitlines() or [f"gpu_bounds.py: exit {p.returncode}"])[-1]
    return json.loads(p.stdout.strip().splitlines()[-1]), None


def probe_spmdrun(spmdrun, env):
    """None when `spmdrun --devices cuda:1` runs a one-line program, else why not."""
    try:
        p = subprocess.run([spmdrun, "--devices", f"{DEVICE_KIND}:1", "-"], input="print(1)\n", capture_output=True,
                           text=True, env=env, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return str(e)
    return None if p.returncode == 0 and p.stdout.strip() == "1" else one_line(p)


def summarize(todo, results, spmd_runs, jax_runs):
    """results with the medians of the runs so far."""
    for w in todo:
        n = len(jax_runs[w.name])
        if n == 0:
            results[w.name]["skipped"] = "not run: the time budget ran out"
            continue
        results[w.name].pop("skipped", None)
        results[w.name]["runs"] = n
        results[w.name]["spmdrun"] = {str(d): median_of(spmd_runs[w.name][d]) for d in DEVICES}
        results[w.name]["jax"] = jax_median(jax_runs[w.name])
    return results


def run_suite(spmdrun, py, mode, runs, budget, bounds, env, t_start, save):
    """Runs the rounds and the cached compile; save(results, cached, whole rounds) after
    each workload, so that a run killed at its time limit still leaves what it measured."""
    sizes = {w.name: w.sizes[mode] for w in WORKLOADS}
    free = bounds.get("memory_free", 0)
    todo, results = [], {}
    for w in WORKLOADS:
        results[w.name] = {"sizes": sizes[w.name], "what": w.what, "spmd": w.spmd}
        if mode == "full" and w.mem and free < w.mem:
            results[w.name]["skipped"] = f"needs {w.mem / GIB:.0f} GiB of GPU memory, {free / GIB:.1f} free"
        else:
            todo.append(w)
    cold = dict(env, CUDA_CACHE_DISABLE="1")  # the driver's PTX cache off: every run compiles all
    spmd_runs = {w.name: {d: [] for d in DEVICES} for w in todo}
    jax_runs = {w.name: [] for w in todo}
    done, last_round = 0, 0.0
    for r in range(runs):
        left = budget - (time.time() - t_start)
        if r > 0 and last_round * 1.1 > left:
            log(f"gpu bench: stopping after {done} round(s): {left:.0f} s of the budget left, "
                f"a round takes {last_round:.0f} s")
            break
        t0 = time.time()
        for w in todo:
            # A round that runs over stops where it is; the first round only well past the
            # budget (its workloads are then reported as not run).
            if time.time() - t_start > budget + (60 if r == 0 else 0):
                log(f"gpu bench: out of time in round {r + 1} before {w.name}")
                break
            for d in DEVICES:
                spmd_runs[w.name][d].append(run_spmd(spmdrun, w, sizes[w.name], d, cold, 180))
            jax_runs[w.name].append(run_jax(py, w, sizes[w.name], env, 240))
            s1, s8, j = spmd_runs[w.name][1][-1], spmd_runs[w.name][8][-1], jax_runs[w.name][-1]
            log(f"{w.name} round {r + 1}: spmdrun run phase {DEVICE_KIND}:1 {fmt_s(s1)}  {DEVICE_KIND}:8 {fmt_s(s8)}  "
                f"JAX process {j.get('process', 0):.1f} s {j.get('error') or j.get('baseline_error') or ''}")
            save(summarize(todo, results, spmd_runs, jax_runs), {}, done)
        done += 1
        last_round = time.time() - t0
    summarize(todo, results, spmd_runs, jax_runs)
    # The object cache across runs: each program twice (cuda:8), the second run's compile.
    cached = {}
    if budget - (time.time() - t_start) > 40:
        with tempfile.TemporaryDirectory() as cache:
            cenv = dict(env, SPMDRUN_CACHE_DIR=f"{cache}/spmdrun", CUDA_CACHE_PATH=f"{cache}/nv")
            for w in todo:
                if budget - (time.time() - t_start) < 15:
                    break
                if "skipped" in results[w.name]:
                    continue
                small = w.sizes["quick"]
                first = run_spmd(spmdrun, w, small, 8, cenv, 120, cached=True)
                second = run_spmd(spmdrun, w, small, 8, cenv, 120, cached=True)
                cached[w.name] = {"first": first, "second": second, "sizes": small}
    save(results, cached, done)
    return results, cached, done


def main(args, build):
    """bench/run --gpu; `build` makes build-release/spmdrun when no binary is given."""
    t_start = time.time()
    mode = "quick" if args.quick else "full"
    runs = args.runs or (1 if mode == "quick" else 3)
    budget = args.budget
    py = sys.executable
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", TF_CPP_MIN_LOG_LEVEL="2")
    env.pop("XLA_FLAGS", None)
    bounds, why = measure_bounds(py, mode, env)
    if bounds is None:
        log(f"bench/run --gpu: no GPU measurement possible: {why}")
        return 1
    log(f"GPU: {bounds['gpu']}, driver {bounds.get('driver')}; copy {bounds.get('copy_GBps') or 0:.0f} GB/s; "
        f"sgemm {bounds.get('sgemm_GFLOPs') or 0:.0f} GFLOP/s {bounds.get('cublas_error', '')}")
    if bounds.get("cublas") and "/" in bounds["cublas"] and "SPMD_CUBLAS_PATH" not in env:
        # spmdrun uses the cuBLAS the bounds measured (Note [Finding cuBLAS]).
        env["SPMD_CUBLAS_PATH"] = str(Path(bounds["cublas"]).parent)
    if args.spmdrun:
        spmdrun = str(Path(args.spmdrun).resolve())
    elif (ROOT / "dist" / "spmdrun").exists():
        spmdrun = str(ROOT / "dist" / "spmdrun")
    else:
        spmdrun = str(build())
    why = probe_spmdrun(spmdrun, env)
    if why:
        log(f"bench/run --gpu: spmdrun --devices cuda:1 does not run: {why}")
        return 1
    out_dir = Path(args.out or os.environ.get("OUT") or ROOT / "build-gpu-bench")
    out_dir.mkdir(parents=True, exist_ok=True)
    version = subprocess.run([spmdrun, "--version"], capture_output=True, text=True).stdout.strip()

    def save(results, cached, done):
        raw = {
            "kind": "gpu", "synthetic": False, "mode": mode, "runs_asked": runs, "runs": done,
            "budget": budget, "seconds": time.time() - t_start,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "spmdrun_version": version,
            "cublas_path": env.get("SPMD_CUBLAS_PATH"), "bounds": bounds, "workloads": results,
            "cached": cached, "devices": list(DEVICES),
        }
        (out_dir / "bench-gpu.json").write_text(json.dumps(raw, indent=1))
        (out_dir / "gpu-section.md").write_text("\n".join(gpu_report.section(raw)) + "\n")
        return raw
    results, cached, done = run_suite(spmdrun, py, mode, runs, budget, bounds, env, t_start, save)
    raw = save(results, cached, done)
    print(gpu_report.table(raw))
    fails = gpu_report.failures(raw)
    if fails:
        print("\n".join(["failures:"] + fails))
    log(f"wrote {out_dir / 'bench-gpu.json'} and {out_dir / 'gpu-section.md'} "
        f"({raw['seconds']:.0f} s); BENCHMARKS.md: bench/run --gpu --report {out_dir / 'bench-gpu.json'}")
    return 0
