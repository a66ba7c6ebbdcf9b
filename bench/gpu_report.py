"""The GPU section of BENCHMARKS.md, from the raw results of `bench/run --gpu`
(bench/gpu_run.py): the GPU and its bounds, each workload on cuda:1 and cuda:8 against JAX
on the same GPU, the distance from the bound and the issue's target, compile times.

The section sits between two marker lines, so `bench/run --gpu --report RAW.json` replaces
it in place and the CPU report (report.py) keeps it when it rewrites the rest. Standard
library only.
"""
import re
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
BEGIN = "<!-- gpu section: begin (bench/run --gpu --report RAW.json writes it; do not edit) -->"
END = "<!-- gpu section: end -->"
MIB = 1 << 20


def fmt(s):
    if not isinstance(s, (int, float)) or isinstance(s, bool):
        return "-" if s is None else str(s)[:60]
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} us"


def ratio(a, b):
    ok = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b))
    return a / b if ok and b > 0 else None


def fmt_ratio(r):
    return "-" if r is None else f"{r:.2f}x"


def pct(p):
    return "-" if p is None else f"{100 * p:.0f}%"


def mlp_flops(batch, widths):
    """Matrix-product FLOPs of one SGD step: forward 2*B*sum(in*out), backward twice that."""
    return 6 * batch * sum(a * b for a, b in zip(widths, widths[1:]))


def bound(name, sizes, d, b):
    """(work per launch of the kernel, unit, seconds at the bound, what bounds it) or None."""
    copy = (b.get("copy_GBps") or 0) * 1e9
    sgemm = b.get("sgemm") or {}

    def gemm_rate(shape):
        r = sgemm.get(shape) or b.get("sgemm_GFLOPs")
        return (r or 0) * 1e9, "cuBLAS sgemm " + (shape if shape in sgemm else "peak")
    if name.startswith("normalize"):
        w, what = 12 * sizes["n"], "copy bandwidth; read x twice, write y"
    elif name == "chain":
        w, what = 8 * sizes["n"], "copy bandwidth; read x, write y"
    elif name == "rule30":
        w, what = 2 * sizes["cells"], "copy bandwidth; 1 B read + 1 B written per cell"
    elif name == "micro_psum":
        w, what = 2 * d * sizes["mb"] * MIB, "copy bandwidth; read D buffers, write D sums"
    elif name.startswith("prng"):
        w, what = 4 * sizes["n"], "copy bandwidth; write 4 B per value"
    elif name == "random_matmul":
        rate, what = gemm_rate(f"{sizes['rows']}x{sizes['rows']}x{sizes['cols']}")
        f = 8 * 2 * sizes["rows"] ** 2 * sizes["cols"]
        return (f, "FLOP", f / rate, what) if rate else None
    elif name == "train_mlp_wide":
        rate, what = gemm_rate(f"{sizes['batch']}x512x784")
        f = mlp_flops(sizes["batch"], [784, 512, 512, 10])
        return (f, "FLOP", f / rate, what) if rate else None
    else:
        return None
    return (w, "B", w / copy, what) if copy else None


#: The issue's target for each workload: (text, check(row) -> bool or None).
def _bound_at_least(p):
    return lambda r: None if r["spmd_bound"] is None else r["spmd_bound"] >= p


def _no_slower(r):
    return None if r["kernel_ratio"] is None else r["kernel_ratio"] <= 1.0


def _memory_bound(r):
    a, b = _bound_at_least(0.85)(r), _no_slower(r)
    return None if a is None or b is None else a and b


TARGETS = {
    "normalize": ("kernel >= 85% of copy bandwidth, <= JAX", _memory_bound),
    "chain": ("kernel >= 85% of copy bandwidth, <= JAX", _memory_bound),
    "rule30": ("step >= 85% of copy bandwidth, <= JAX", _memory_bound),
    "random_matmul": ("m @ m.T >= 90% of cuBLAS sgemm for the shape", _bound_at_least(0.90)),
    "train_mlp_wide": ("step >= 90% of cuBLAS sgemm (784-wide shape)", _bound_at_least(0.90)),
    "micro_psum": ("psum >= 80% of copy bandwidth (cuda:8)",
                   lambda r: _bound_at_least(0.80)(r) if r["d"] == "8" else None),
    "micro_dispatch": ("<= 10 us per pmap (cuda:8)",
                       lambda r: None if r["d"] != "8" or r["spmd_kernel"] is None
                       else r["spmd_kernel"] <= 10e-6),
    "prng": (">= 80% of JAX's rate",
             lambda r: None if r["kernel_ratio"] is None else r["kernel_ratio"] <= 1 / 0.8),
    "pool_map": ("no slower than JAX", _no_slower),
    "train_mlp": ("no slower than JAX", _no_slower),
}


def target_of(name):
    for key, t in TARGETS.items():
        if name == key or name.startswith(key + "_") or (key == "prng" and name.startswith("prng")):
            return t
    return ("-", lambda r: None)


def rows(raw):
    """One dict per workload and device count, with the numbers of the tables."""
    out = []
    b = raw.get("bounds", {})
    for name, w in raw["workloads"].items():
        if "skipped" in w:
            out.append({"name": name, "skipped": w["skipped"], "w": w})
            continue
        jx = w.get("jax", {})
        for d in map(str, raw.get("devices", [1, 8])):
            s = w["spmdrun"].get(d, {})
            j = jx.get("d", {}).get(d) or jx.get("d", {}).get("8") or {}
            jerr = jx.get("error")
            calls = w["sizes"].get("calls")
            # micro_dispatch: the host's cost per pmap (its kernel is one tiny add).
            sk = s.get("kernel_host") if calls else s.get("kernel")
            jk = j.get("kernel")
            bd = bound(name, w["sizes"], int(d), b)
            r = {"name": name, "d": d, "w": w, "s": s, "j": j, "jerr": jerr, "bound": bd,
                 "spmd_run": s.get("run"), "jax_steady": j.get("steady"),
                 "run_ratio": ratio(s.get("run"), j.get("steady")),
                 "spmd_kernel": sk, "jax_kernel": jk, "kernel_ratio": ratio(sk, jk),
                 "spmd_bound": ratio(bd[2], sk) if bd else None,
                 "jax_bound": ratio(bd[2], jk) if bd else None}
            text, check = target_of(name)
            r["target"], r["met"] = text, check(r)
            out.append(r)
    return out


def table(raw):
    """The plain-text table bench/run --gpu prints."""
    head = ["workload", "D", "spmdrun run", "JAX steady", "run/JAX", "spmd kernel", "JAX kernel",
            "kernel/JAX", "spmd %bound", "JAX %bound", "target met"]
    lines = [head]
    for r in rows(raw):
        if "skipped" in r:
            lines.append([r["name"], "-", "skipped: " + r["skipped"]] + [""] * 8)
            continue
        err = r["s"].get("error") or r["jerr"]
        lines.append([r["name"], r["d"], fmt(r["spmd_run"] if "error" not in r["s"] else "FAILED"),
                      fmt(r["jax_steady"] if not r["jerr"] else "FAILED"), fmt_ratio(r["run_ratio"]),
                      fmt(r["spmd_kernel"]), fmt(r["jax_kernel"]), fmt_ratio(r["kernel_ratio"]),
                      pct(r["spmd_bound"]), pct(r["jax_bound"]),
                      {True: "yes", False: "NO", None: "-"}[r["met"]] + (f"  ({err[:60]})" if err else "")])
    width = [max(len(str(l[k])) for l in lines) for k in range(len(head))]
    return "\n".join("  ".join(str(v).ljust(wd) for v, wd in zip(l, width)).rstrip() for l in lines)


def failures(raw):
    out = []
    for name, w in raw["workloads"].items():
        for d, s in w.get("spmdrun", {}).items():
            if "error" in s:
                out.append(f"{name} (spmdrun cuda:{d}): {s['error']}")
        if "error" in w.get("jax", {}):
            out.append(f"{name} (JAX): {w['jax']['error']}")
    return out


def bounds_lines(raw):
    b = raw["bounds"]
    sizes = ", ".join(f"{int(k) // MIB} MiB {v:.0f} GB/s" for k, v in (b.get("copy_sizes") or {}).items())
    out = [f"- Device-to-device copy (`cuMemcpyDtoDAsync`, bytes read + written, CUDA events, best "
           f"of 10): **{b.get('copy_GBps') or 0:.0f} GB/s** ({sizes or '-'}); the bound of the "
           "memory-bound rows."]
    if b.get("sgemm"):
        out.append(f"- cuBLAS ({b.get('cublas', '?')}), CUDA events, best of 10, random N(0,1) "
                   "inputs; sgemm in the default math mode (no TF32), bf16 through `cublasGemmEx` "
                   "with f32 accumulation (the language has no bf16 yet: for reference):")
        out += ["", "| M x N x K | sgemm | bf16 gemm |", "|---|---|---|"]
        for shape, rate in b["sgemm"].items():
            out.append(f"| {shape} | {rate / 1e3:.1f} TFLOP/s | "
                       f"{(b.get('bf16_gemm') or {}).get(shape, 0) / 1e3:.1f} TFLOP/s |")
        out.append("")
    else:
        out.append(f"- cuBLAS: not measured ({b.get('cublas_error', '?')}).")
    if b.get("nccl_allreduce"):
        n = b["nccl_allreduce"]
        out.append(f"- One-rank NCCL {b.get('nccl_version', '?')} all-reduce of {n['bytes'] // MIB} MiB "
                   f"f32: {fmt(n['seconds'])} ({2 * n['bytes'] / n['seconds'] / 1e9:.0f} GB/s as a copy; "
                   "the issue's target: no more than a device copy).")
    else:
        out.append(f"- NCCL: not measured ({b.get('nccl_error', '?')}).")
    return out


def result_lines(raw):
    out = ["| workload | D | spmdrun run | JAX steady | run / JAX | spmdrun kernel | JAX kernel | "
           "kernel / JAX | bound per launch | spmdrun % of bound | JAX % of bound | target | met |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows(raw):
        if "skipped" in r:
            out.append(f"| {r['name']} | - | skipped: {r['skipped']} |" + " |" * 10)
            continue
        bd = r["bound"]
        bcell = f"{fmt(bd[2])} ({bd[3]})" if bd else "-"
        spmd_run = fmt(r["spmd_run"]) if "error" not in r["s"] else "FAILED: " + r["s"]["error"][:80]
        jax_run = fmt(r["jax_steady"]) if not r["jerr"] else "FAILED: " + r["jerr"][:80]
        out.append(f"| {r['name']} | {r['d']} | {spmd_run} | {jax_run} | {fmt_ratio(r['run_ratio'])} | "
                   f"{fmt(r['spmd_kernel'])} | {fmt(r['jax_kernel'])} | {fmt_ratio(r['kernel_ratio'])} | "
                   f"{bcell} | {pct(r['spmd_bound'])} | {pct(r['jax_bound'])} | {r['target']} | "
                   f"{ {True: 'yes', False: '**no**', None: '-'}[r['met']] } |")
    return out


def compile_lines(raw):
    out = ["| workload | D | spmdrun compile (codegen + jit / module load) | cached, 2nd run | "
           "JAX first call | compile / JAX first call (target <= 25%) |", "|---|---|---|---|---|---|"]
    for r in rows(raw):
        if "skipped" in r or "error" in r["s"]:
            continue
        s, c = r["s"], raw.get("cached", {}).get(r["name"], {}).get("second", {})
        cached = f"{fmt(c.get('compile'))} ({c.get('cache', '?')})" if r["d"] == "8" and c else "-"
        first = r["j"].get("e2e")
        q = ratio(s.get("compile"), first)
        out.append(f"| {r['name']} | {r['d']} | {fmt(s.get('compile'))} ({fmt(s.get('codegen'))} / "
                   f"{fmt(s.get('module_load'))}) | {cached} | {fmt(first)} | "
                   f"{pct(q)}{'' if q is None else ' ok' if q <= 0.25 else ' **over**'} |")
    return out


def value_lines(raw):
    out = ["| workload | spmdrun cuda:1 prints | spmdrun cuda:8 prints | JAX D=1 | JAX D=8 |",
           "|---|---|---|---|---|"]
    for name, w in raw["workloads"].items():
        if "skipped" in w:
            continue
        last = [(w["spmdrun"].get(d, {}).get("stdout") or "-").splitlines()[-1][:50] for d in ("1", "8")]
        jd = w.get("jax", {}).get("d", {})
        jv = [str(jd.get(d, {}).get("value", "-"))[:50] for d in ("1", "8")]
        out.append(f"| {name} | `{last[0]}` | `{last[1]}` | `{jv[0]}` | `{jv[1]}` |")
    return out


def section(raw):
    """The GPU section's lines (markers excluded) for raw results."""
    b = raw["bounds"]
    jx = next((w["jax"] for w in raw["workloads"].values() if w.get("jax", {}).get("version")), {})
    lines = [f"## GPU: {b.get('gpu', '?')}, driver {b.get('driver') or '?'}", ""]
    if raw.get("synthetic"):
        lines += ["**SYNTHETIC RESULTS (a test of the report): not a measurement.**", ""]
    lines += [
        f"Generated by `bench/run --gpu` ({raw.get('mode')}) on {raw.get('date', '?')}: "
        f"{raw.get('runs')} round(s) of A B A B (asked {raw.get('runs_asked')}; the budget of "
        f"{raw.get('budget', 0):.0f} s decides), {raw.get('seconds', 0):.0f} s in all. "
        f"{raw.get('spmdrun_version', '?')}; JAX {jx.get('version', '?')} ({jx.get('device', '?')}); "
        f"CUDA driver API {b.get('cuda_driver_api', '?')}, {b.get('sms', '?')} SMs, "
        f"{(b.get('memory_total') or 0) / (1 << 30):.0f} GiB.", "",
        "### Bounds of this GPU", ""] + bounds_lines(raw) + [
        "", "### Workloads", "",
        "- **D** = 1: spmdrun `--devices cuda:1`; 8: `--devices cuda:8` (8 logical devices on the "
        "one GPU). JAX runs the same program on the same GPU as `jit(vmap(body, axis_name='i'))` "
        "over a leading axis of D (bench/gpu_baselines.py), in a fresh process per round.",
        "- **spmdrun run**: the `run` phase of `--stats` (after compiling); **JAX steady**: the "
        "whole workload again after its first call (median of 3). Medians over the rounds.",
        "- **kernel**: the workload's main pmap per launch. spmdrun: the GPU's time from CUDA "
        "events (`--stats` \"device ms\", the slowest device of each launch) over launches; "
        "micro_dispatch: the host's time per pmap (`--stats` \"mean ms\"). JAX: K calls back to "
        "back, blocked once, over K (dispatch overlapped); micro_dispatch: the loop over calls.",
        "- **% of bound**: (time at the bound) / (time taken); ratios above 1x: spmdrun is slower.",
        "- spmdrun runs with `--no-cache` and `CUDA_CACHE_DISABLE=1`, so every run compiles its "
        "program and the driver JIT-compiles its PTX, as JAX's first call in a fresh process "
        "compiles.", ""] + result_lines(raw) + [
        "", "### Compile", "",
        "spmdrun: the `--stats` compile phases (front end, LLVM codegen to PTX and host code, "
        "`module load`: the driver's JIT of the PTX and the module load), cold. Cached: the "
        "second of two runs (cuda:8, quick sizes) with the object cache and the driver's cache "
        "on. JAX: the first call of the whole workload (trace, compile, run) at full size, the "
        "backend already started.", ""] + compile_lines(raw) + [
        "", "### What each run printed", ""] + value_lines(raw)
    fails = failures(raw)
    if fails:
        lines += ["", "### Failures", ""] + [f"- {f}" for f in fails]
    return lines


def pending_section():
    return ["## GPU: pending", "",
            "**Not measured yet.** No session with a GPU has run `bench/run --gpu`; the harness "
            "(bench/gpu_run.py, gpu_bounds.py, gpu_baselines.py) has been tested only without a "
            "GPU. docs/gpu.md (\"Benchmarking on a GPU\") gives the one command that fills this "
            "section."]


def block(lines):
    return "\n".join([BEGIN] + lines + [END])


def extract(text):
    """The GPU block of a BENCHMARKS.md text (markers included), or None."""
    m = re.search(re.escape(BEGIN) + r".*?" + re.escape(END), text, re.S)
    return m[0] if m else None


def write_section(raw, md):
    """Puts the GPU section of raw (None: the pending note) into md, replacing its GPU
    block or, where it has none, before its "## Notes" (else at its end)."""
    md = Path(md)
    if raw is not None and raw.get("synthetic") and md.resolve() == (ROOT / "BENCHMARKS.md").resolve():
        raise ValueError("synthetic GPU results are never written to BENCHMARKS.md")
    new = block(section(raw) if raw is not None else pending_section())
    text = md.read_text() if md.exists() else ""
    old = extract(text)
    if old is not None:
        text = text.replace(old, new)
    elif "\n## Notes" in text:
        i = text.index("\n## Notes")
        text = text[:i] + "\n" + new + "\n" + text[i:]
    else:
        text = text.rstrip("\n") + "\n\n" + new + "\n"
    md.write_text(text)
