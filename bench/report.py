"""Turns the results of bench/run into the table it prints and into BENCHMARKS.md.

Standard library only (bench/run may run under a Python without the venv's packages); the
chart is drawn by bench/chart.py under the venv's interpreter.
"""
import platform
import subprocess
from pathlib import Path

import gpu_report
from workloads import SPEC_EXAMPLES, WORKLOADS, bound

BENCH = Path(__file__).resolve().parent
SKIPPED = "skipped: JAX not installed"


def fmt(s):
    """Seconds, in a unit that reads well ("-" for none, a string as it is)."""
    if s is None:
        return "-"
    if isinstance(s, str):
        return s if len(s) < 90 else s[:87] + "..."
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.1f} ms"
    return f"{s * 1e6:.0f} us"


def fmt_bytes(n):
    """A byte count in MiB ("-" for none)."""
    return f"{n / 2**20:.0f} MiB" if isinstance(n, (int, float)) else "-"


def cpu2_cell(w, s2):
    """spmdrun's run phase and kernel on --devices cpu:2, or why there is none."""
    if not w.cpu2:
        return "- (needs 8 devices)"
    if "error" in s2:
        return "FAILED: " + s2["error"][:60]
    return f"{fmt(s2.get('run'))} / {fmt(s2.get('kernel'))}"


def ratio(a, b):
    return a / b if isinstance(a, (int, float)) and isinstance(b, (int, float)) and b > 0 else None


def fmt_ratio(r):
    return "-" if r is None else f"{r:.2f}x" if r < 10 else f"{r:.0f}x"


def spmd_steady(w, s):
    """spmdrun's time with compiling left out: its run phase, or one kernel's total."""
    return s.get("kernel") if w.steady == "kernel" else s.get("run")


def best_rival(w, b):
    """(name, seconds) of the fastest steady-state baseline of workload w."""
    cands = [("JAX", b.get("jax_steady"))] + [(k, b.get(k)) for k in w.rivals]
    cands = [(k, v) for k, v in cands if isinstance(v, (int, float))]
    return min(cands, key=lambda kv: kv[1]) if cands else (None, None)


def rows(results):
    """One dict per workload with the table's cells."""
    out = []
    for w in WORKLOADS:
        r = results["workloads"].get(w.name)
        if r is None:
            continue
        s, b = r["spmdrun"], r["baseline"]
        if "error" in s:
            s = {"wall": "FAILED: " + s["error"]}
        jax_note = SKIPPED if "jax_skipped" in b else b.get("baseline_error") or b.get("error")
        rival, rival_s = best_rival(w, b)
        out.append({
            "name": w.name, "w": w, "sizes": r["sizes"], "s": s, "b": b,
            "s2": r.get("spmdrun_cpu2") or {},
            "spmd_wall": s.get("wall"), "spmd_steady": spmd_steady(w, s),
            "jax_e2e": b.get("jax_e2e", jax_note), "jax_steady": b.get("jax_steady", jax_note),
            "rival": rival, "rival_s": rival_s,
            "ratio_e2e": ratio(s.get("wall"), b.get("jax_e2e")),
            "ratio_steady": ratio(spmd_steady(w, s), rival_s),
        })
    return out


def table(results):
    """The plain-text table bench/run prints."""
    head = ["workload", "spmdrun wall", "spmdrun run", "JAX 1st call", "JAX steady",
            "best rival", "wall/JAX 1st", "run/best"]
    lines = [head]
    for r in rows(results):
        lines.append([r["name"], fmt(r["spmd_wall"]), fmt(r["spmd_steady"]), fmt(r["jax_e2e"]),
                      fmt(r["jax_steady"]), f"{r['rival'] or '-'} {fmt(r['rival_s'])}",
                      fmt_ratio(r["ratio_e2e"]), fmt_ratio(r["ratio_steady"])])
    c = results["compile"]
    for ex in SPEC_EXAMPLES:
        lines.append([f"compile {ex}", fmt(c["spmdrun_norun"][ex]), fmt(c["spmdrun_compile"].get(ex)),
                      fmt(c["jax"].get(ex)), "", "", fmt_ratio(ratio(c["spmdrun_compile"].get(ex),
                                                                      c["jax"].get(ex))), ""])
    width = [max(len(str(l[k])[:44]) for l in lines) for k in range(len(head))]
    return "\n".join("  ".join(str(v)[:44].ljust(wd) for v, wd in zip(l, width)) for l in lines)


def failures(results):
    """What did not run: spmdrun or a baseline failing (a missing JAX is not a failure)."""
    out = []
    for name, r in results["workloads"].items():
        for side in ("spmdrun", "baseline"):
            for key in ("error", "baseline_error"):
                if key in r[side]:
                    out.append(f"{name} ({side}): {r[side][key]}")
    return out


# --- BENCHMARKS.md -----------------------------------------------------------------------------


def busy_note(results, nproc):
    """Says whether other work shared the machine: a 1-minute load before the suite of more
    than half the cores means it did (the suite itself keeps the load near the core count)."""
    try:
        busy = float(results["load_before"][0]) > 0.5 * int(nproc)
    except (KeyError, IndexError, ValueError):
        return ""
    return " (other work was running on the same machine)" if busy else " (nothing else ran)"

def machine_lines(results):
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")),
               platform.processor())
    mem = next((l.split(":", 1)[1].strip() for l in open("/proc/meminfo") if l.startswith("MemTotal")), "?")
    nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    m = results["machine"]
    return [
        f"- CPU: {cpu}; `nproc` = {nproc}; memory {mem}. **8 devices are 8 threads on {nproc} "
        f"cores** for both systems (spmdrun `--devices cpu:8`, JAX "
        "`XLA_FLAGS=--xla_force_host_platform_device_count=8`).",
        f"- Load average (1, 5, 15 min) before the suite: {' '.join(results['load_before'])}, "
        f"after: {' '.join(results['load_after'])}{busy_note(results, nproc)}. The suite took "
        f"{results['seconds']:.0f} s, {results['runs']} runs per workload.",
        f"- Measured bounds: copy bandwidth **{m.get('copy_GBps', 0):.1f} GB/s** (numpy `copyto` "
        f"of 256 MiB, bytes read + written, best of 10, the better of one thread "
        f"({m.get('copy_1thread_GBps', 0):.1f} GB/s) and {m.get('copy_threads', '?')} threads each "
        f"copying a slice ({m.get('copy_threads_GBps', 0):.1f} GB/s)); sgemm **{m.get('sgemm_GFLOPs', 0):.1f} "
        f"GFLOP/s** (numpy `@` on 2048 x 2048 f32, {m.get('blas', '?')}, all cores, best of 5); "
        f"each the better of a measurement before the suite "
        f"({results.get('machine_start', {}).get('copy_GBps', 0):.1f} GB/s, "
        f"{results.get('machine_start', {}).get('sgemm_GFLOPs', 0):.1f} GFLOP/s) and one after "
        f"({results.get('machine_end', {}).get('copy_GBps', 0):.1f} GB/s, "
        f"{results.get('machine_end', {}).get('sgemm_GFLOPs', 0):.1f} GFLOP/s). Under load they "
        "understate the quiet machine, so a system can appear above 100% of a bound.",
        f"- Versions: {results['spmdrun_version']} (Release build); Python {m.get('python', '?')}, "
        f"JAX {m.get('jax', '?')} (CPU), NumPy {m.get('numpy', '?')}.",
    ]


def bound_lines(results):
    """Per workload: the physical bound and how far each system is from it."""
    m = results["machine"]
    out = ["| workload | work | bound | time at bound | spmdrun cpu:8 | spmdrun cpu:2 | JAX | NumPy |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows(results):
        bd = bound(r["w"], r["sizes"], m) if m else None
        if bd is None:
            continue
        work, unit, t_bound, what = bd
        s, b = r["s"], r["b"]

        work2, _, t_bound2, _ = bound(r["w"], r["sizes"], m, devices=2)

        def cell(t, work=work, t_bound=t_bound):
            if not isinstance(t, (int, float)) or t <= 0:
                return "-"
            rate = work / t / 1e9
            return f"{fmt(t)}: {rate:.2f} G{unit}/s, {100 * t_bound / t:.1f}% of bound"
        spmd_t = s.get("kernel", s.get("run"))
        s2 = r["s2"]
        spmd2_t = s2.get("kernel", s2.get("run"))
        # JAX's kernel where it times the same work as spmdrun's; micro_psum's is one psum.
        jax_t = b.get("jax_steady") if r["name"] == "micro_psum" else b.get("jax_kernel", b.get("jax_steady"))
        out.append(f"| {r['name']} | {work / 1e9:.2f} G{unit} | {what} | {fmt(t_bound)} | "
                   f"{cell(spmd_t)} | {cell(spmd2_t, work2, t_bound2)} | {cell(jax_t)} | {cell(b.get('numpy_kernel', b.get('numpy')))} |")
    return out


def detail_lines(results):
    out = ["| workload | sizes | spmdrun compile / kernel (launches) | spmdrun cpu:2 run / kernel | "
           "peak memory: spmdrun / baseline process | JAX kernel | other baselines | spmdrun prints |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows(results):
        s, b = r["s"], r["b"]
        others = ", ".join(f"{k} {fmt(b[k])}" for k in ("numpy", "numpy_kernel", "pool", "pool_with_startup")
                           if k in b)
        out.append(f"| {r['name']} | {' '.join(f'{k}={v}' for k, v in r['sizes'].items())} | "
                   f"{fmt(s.get('compile'))} / {fmt(s.get('kernel'))} ({s.get('launches', '-')}) | "
                   f"{cpu2_cell(r['w'], r['s2'])} | {fmt_bytes(s.get('maxrss'))} / {fmt_bytes(b.get('maxrss'))} | "
                   f"{fmt(b.get('jax_kernel'))} | {others or '-'} | "
                   f"`{(s.get('stdout') or '').splitlines()[-1][:40] if s.get('stdout') else '-'}` |")
    return out


def fmt_spread(samples):
    """ " (LO to HI)" over a column's samples (fmt's units), or "" with fewer than two numbers."""
    nums = [v for v in samples or [] if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return f" ({fmt(min(nums))} to {fmt(max(nums))})" if len(nums) > 1 else ""


def compile_lines(results):
    c = results["compile"]
    spread = c.get("samples", {})  # older raw results have medians only
    out = ["| example | spmdrun `--no-run` (process) | spmdrun whole compile (`--stats`, `--no-cache`) | "
           "spmdrun compile, cached | JAX lower + compile | spmdrun compile / JAX |",
           "|---|---|---|---|---|---|"]
    for ex in SPEC_EXAMPLES:
        sc, jx = c["spmdrun_compile"].get(ex), c["jax"].get(ex)
        out.append(f"| {ex} | {fmt(c['spmdrun_norun'][ex])} | "
                   f"{fmt(sc)}{fmt_spread(spread.get('spmdrun_compile', {}).get(ex))} | "
                   f"{fmt(c.get('spmdrun_cached', {}).get(ex))} | "
                   f"{fmt(jx)}{fmt_spread(spread.get('jax', {}).get(ex))} | "
                   f"{fmt_ratio(ratio(sc, jx))} |")
    return out


def write_markdown(results, md, png, py, raw):
    """Writes BENCHMARKS.md and the chart (drawn by bench/chart.py with interpreter py from
    the raw results file raw)."""
    chart = subprocess.run([py, str(BENCH / "chart.py"), str(raw), str(png)], capture_output=True, text=True)
    lines = ["# Benchmarks", "",
             "Generated by `bench/run` (do not edit by hand; the notes at the end come from "
             "`bench/notes.md`). `bench/run --quick` runs small sizes, `bench/run --smoke` "
             "only checks that everything runs.", "", "## Machine", ""]
    lines += machine_lines(results)
    lines += ["", "## What is timed", "",
              "- **spmdrun wall**: the whole `spmdrun --devices cpu:8 --stats --no-cache FILE` "
              "process (start, parse, compile with LLVM, run, print), median over runs; "
              "`--no-cache` so that every run compiles, as JAX's first call does (the cached "
              "compile is in the last table).",
              "- **spmdrun run**: the `run` phase of `--stats` (everything after the JIT). For "
              "micro_psum, the psum kernel's own total from `--stats`.",
              "- **JAX 1st call**: the whole workload from its first call (trace + compile + run) "
              "in a fresh process, interpreter start and `import jax` excluded.",
              "- **JAX steady**: the same workload again with everything compiled (median of 3 "
              "repeats inside the process, 1 for the MLPs), then the median over runs.",
              "- **best rival**: the fastest steady-state baseline (JAX, NumPy single process, or "
              "`multiprocessing.Pool.map` over all cores). Ratios above 1 mean spmdrun is slower.",
              "- **spmdrun cpu:2** (bound table and details): the same spmdrun command with "
              "`--devices cpu:2`, one device per core, run right after the cpu:8 one.",
              "- **peak memory**: the process's peak resident set (`wait4`'s `ru_maxrss`); the "
              "baseline's includes its Python interpreter, NumPy and JAX.",
              "- Each run starts spmdrun once, then the baseline once (A B A B ...).", "",
              "## Results", "",
              "| workload | what | spmdrun wall | spmdrun run | JAX 1st call | JAX steady | best rival | "
              "wall / JAX 1st call | run / best rival |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows(results):
        lines.append(f"| {r['name']} | {r['w'].what} | {fmt(r['spmd_wall'])} | {fmt(r['spmd_steady'])} | "
                     f"{fmt(r['jax_e2e'])} | {fmt(r['jax_steady'])} | {r['rival'] or '-'} "
                     f"{fmt(r['rival_s'])} | {fmt_ratio(r['ratio_e2e'])} | {fmt_ratio(r['ratio_steady'])} |")
    lines += ["", "![ratios](bench/chart.png)" if chart.returncode == 0 else
              f"(chart not drawn: {chart.stderr.strip().splitlines()[-1:]})", "",
              "## Distance from the physical bound", "",
              "Work over time; the percentage is (time at the bound) / (time taken). spmdrun's "
              "time is the workload's kernel from `--stats` where there is one (normalize, "
              "random_matmul: the m @ m.T pmap, micro_psum, the MLPs' training-step pmap; "
              "rule30: all 1000 step launches), JAX's its kernel alone in steady state where "
              "measured, else the steady workload. NumPy is one process.", ""]
    lines += bound_lines(results)
    lines += ["", "## Details", ""] + detail_lines(results)
    lines += ["", "## Compile time of the spec examples", "",
              "`spmdrun --no-run` stops before LLVM (parse, axis check, lower to IR, vmap), so "
              "its process time is the front end only; the whole compile including LLVM codegen "
              "and the ORC JIT is the sum of the `--stats` phases other than `run` (random_matmul "
              "run at 100 x 120). JAX: `.lower(args).compile()` of every pmap / vmap / jit the "
              "equivalent program needs, at the example's shapes, nothing executed" +
              (", each example in a fresh process after the backend's start-up. Per example "
               "the two sides alternate (spmdrun, JAX, spmdrun, JAX, ...); medians, with the "
               "lowest and highest sample in brackets; the ratio is of the medians."
               if "samples" in results["compile"] else "."), ""]
    lines += compile_lines(results)
    fails = failures(results)
    if fails:
        lines += ["", "## Failures", ""] + [f"- {f}" for f in fails]
    # The GPU section (gpu_report.py) comes from another run, on another machine: kept.
    gpu = gpu_report.extract(Path(md).read_text()) if Path(md).exists() else None
    lines += ["", gpu or gpu_report.block(gpu_report.pending_section())]
    notes = BENCH / "notes.md"
    if notes.exists():
        lines += ["", notes.read_text().rstrip()]
    Path(md).write_text("\n".join(lines) + "\n")
