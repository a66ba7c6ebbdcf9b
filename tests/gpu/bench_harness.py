#!/usr/bin/env python3
"""Usage: bench_harness.py SPMDRUN SOURCE_DIR. What of the GPU benchmark harness
(`bench/run --gpu`: bench/gpu_run.py, gpu_bounds.py, gpu_baselines.py, gpu_report.py) can
be checked without a GPU (CTest `gpu_bench_harness`):

  args      bench/run's argument checks (exit 2) and --gpu --report of a file that is not
            a GPU result (exit 1)
  nogpu     bench/run --gpu with a driver that does not load: one line, exit 1, quickly,
            nothing written; on a machine without a GPU also with the real search
  loader    gpu_bounds' ctypes loaders fail cleanly: a missing libcuda, a library that is
            not libcuda, a missing cuBLAS, a cuBLAS folder found through SPMD_CUBLAS_PATH
  bounds    gpu_bounds.measure against a fake driver, cuBLAS and NCCL (Python objects):
            the rates' arithmetic, the JSON, the gemm dimensions, every allocation freed
  stats     gpu_run's parser of spmdrun --stats: a CUDA line with its "device ms" column,
            and each GPU workload at quick sizes on cpu:8 (the programs run, and the kernel
            line each names is a pmap that launched)
  report    the GPU section from SYNTHETIC results (never written to BENCHMARKS.md): the
            ratios, bounds and targets it must show, replacing its block in place, and the
            CPU report keeping the block
  driver    gpu_run.main end to end at quick sizes, spmdrun on CPU devices, made-up bounds
            (the plumbing: rounds, medians, the cached pass, the JSON and the section)
  median    the medians over rounds; a failed run, and JAX on the CPU, are errors
  jax       gpu_baselines.py without JAX says it is skipped; bad usage exits 2
Runs with /usr/bin/python3 (NumPy, no JAX). Prints one line per failed check; exit 1 if any.
"""
import contextlib
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SPMDRUN = str(Path(sys.argv[1]).resolve())
SRC = Path(sys.argv[2]).resolve()
BENCH = SRC / "bench"
sys.path.insert(0, str(BENCH))
import gpu_bounds  # noqa: E402
import gpu_report  # noqa: E402
import gpu_run  # noqa: E402

failed = []


def check(cond, what):
    if not cond:
        failed.append(what)
        print("FAIL", what, flush=True)


def bench_run(*args, env=None, timeout=60):
    t0 = time.time()
    p = subprocess.run([sys.executable, str(BENCH / "run"), *args], capture_output=True, text=True,
                       env=dict(os.environ, **(env or {})), timeout=timeout)
    return p, time.time() - t0


def args_checks():
    for argv, why in ((["--gpu", "--smoke"], "--gpu has no --smoke"), (["--gpu", "--runs", "0"], "--runs"),
                      (["--budget", "10"], "options of --gpu"), (["--gpu", "--budget", "-1"], "--budget"),
                      (["--gpu", "--frobnicate"], "unrecognized")):
        p, _ = bench_run(*argv, "--spmdrun", SPMDRUN)
        check(p.returncode == 2 and why in p.stderr, f"args: bench/run {' '.join(argv)}: exit {p.returncode}, "
              f"wanted 2 and {why!r}: {p.stderr.strip()[-200:]}")
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "cpu.json"
        f.write_text(json.dumps({"mode": "full", "workloads": {}}))
        p, _ = bench_run("--gpu", "--report", str(f))
        check(p.returncode == 1 and "not the output of bench/run --gpu" in p.stderr,
              f"args: --gpu --report of a CPU result: exit {p.returncode}: {p.stderr.strip()[-200:]}")


def nogpu_checks():
    with tempfile.TemporaryDirectory() as tmp:
        p, secs = bench_run("--gpu", "--spmdrun", SPMDRUN, "--out", tmp,
                            env={"SPMD_BENCH_LIBCUDA": "/nonexistent/libcuda.so.1"})
        check(p.returncode == 1, f"nogpu: exit {p.returncode}, wanted 1")
        check("no usable CUDA GPU" in p.stderr and "libcuda.so.1 not found" in p.stderr,
              f"nogpu: message: {p.stderr.strip()[-300:]}")
        check("Traceback" not in p.stderr, "nogpu: a traceback")
        check(secs < 20, f"nogpu: took {secs:.1f} s")
        check(not list(Path(tmp).iterdir()), "nogpu: wrote files")
        try:
            gpu_bounds.Cuda()
            print("nogpu: this machine has a usable GPU; the check with the real driver search is skipped")
        except gpu_bounds.GpuUnavailable:
            p, secs = bench_run("--gpu", "--spmdrun", SPMDRUN, "--out", tmp)
            check(p.returncode == 1 and "no usable CUDA GPU" in p.stderr and secs < 20,
                  f"nogpu (real search): exit {p.returncode} in {secs:.1f} s: {p.stderr.strip()[-300:]}")


def loader_checks():
    try:
        gpu_bounds.Cuda("/nonexistent/libcuda.so.1")
        check(False, "loader: a missing libcuda loaded")
    except gpu_bounds.GpuUnavailable as e:
        check("libcuda.so.1 not found" in str(e), f"loader: missing libcuda: {e}")
    libm = next((p for p in ("/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib/x86_64-linux-gnu/libm.so.6",
                             "/lib/aarch64-linux-gnu/libm.so.6", "/usr/lib64/libm.so.6") if Path(p).exists()),
                "libm.so.6")
    try:
        gpu_bounds.Cuda(libm)
        check(False, "loader: libm taken for libcuda")
    except gpu_bounds.GpuUnavailable as e:
        check("no cuInit" in str(e), f"loader: libm as libcuda: {e}")
    p = subprocess.run([sys.executable, str(BENCH / "gpu_bounds.py")], capture_output=True, text=True,
                       env=dict(os.environ, SPMD_BENCH_LIBCUDA="/nonexistent/libcuda.so.1"), timeout=60)
    check(p.returncode == 1 and p.stdout == "" and
          p.stderr.startswith("gpu_bounds.py: no usable CUDA GPU (libcuda.so.1 not found")
          and len(p.stderr.strip().splitlines()) == 1,
          f"loader: gpu_bounds.py without a driver: exit {p.returncode}: {p.stderr.strip()[-300:]}")
    try:
        gpu_bounds.load_library("spmd_no_such_library", ("no_such_wheel",), "SPMD_NO_SUCH_PATH")
        check(False, "loader: a missing library loaded")
    except gpu_bounds.LibraryMissing as e:
        check("libspmd_no_such_library not found" in str(e), f"loader: missing library: {e}")
    with tempfile.TemporaryDirectory() as tmp:  # a folder named by SPMD_CUBLAS_PATH comes first
        shutil.copy(libm, Path(tmp) / "libcublas.so.13")
        old = os.environ.get("SPMD_CUBLAS_PATH")
        os.environ["SPMD_CUBLAS_PATH"] = tmp
        try:
            _, path = gpu_bounds.load_library("cublas", ("cu13", "cublas"), "SPMD_CUBLAS_PATH", preload="cublasLt")
            check(path == str(Path(tmp) / "libcublas.so.13"), f"loader: SPMD_CUBLAS_PATH not first: {path}")
        finally:
            if old is None:
                del os.environ["SPMD_CUBLAS_PATH"]
            else:
                os.environ["SPMD_CUBLAS_PATH"] = old
    with tempfile.TemporaryDirectory() as tmp:  # CUDA 13's wheel: site-packages/nvidia/cu13/lib
        lib = Path(tmp) / "nvidia" / "cu13" / "lib"
        lib.mkdir(parents=True)
        shutil.copy(libm, lib / "libcublas.so.13")
        sys.path.insert(0, tmp)
        try:
            cands = gpu_bounds.library_candidates("cublas", ("cu13", "cublas"), "SPMD_NO_SUCH_PATH")
            check(cands and cands[0] == str(lib / "libcublas.so.13"), f"loader: the cu13 wheel: {cands[:2]}")
        finally:
            sys.path.remove(tmp)


class FakeLib:
    """Stands in for libcuda, cuBLAS and NCCL in bounds_checks: each function checks its
    arguments' count (and what it can of them), writes what the real one writes through
    its pointers, and records the call; every GPU time is 1 ms."""

    def __init__(self):
        self.calls, self.bad, self.next_ptr = [], [], 1 << 20
        out = lambda ref, v: setattr(ref._obj, "value", v)  # noqa: E731

        def fn(name, nargs, body=None):
            def f(*args):
                self.calls.append((name, args))
                if len(args) != nargs:
                    self.bad.append(f"{name}: {len(args)} arguments, wanted {nargs}")
                elif body:
                    body(*args)
                return 0
            setattr(self, name, f)

        def alloc(ref, size):
            out(ref, self.next_ptr)
            self.next_ptr += size.value

        def upload(dst, data, n):
            if len(data) != n.value:
                self.bad.append(f"cuMemcpyHtoD: {len(data)} bytes for {n.value}")
        for name, n, body in (
                ("cuInit", 1, None), ("cuDeviceGetCount", 1, lambda r: out(r, 1)), ("cuDeviceGet", 2, None),
                ("cuDevicePrimaryCtxRetain", 2, None), ("cuCtxSetCurrent", 1, None), ("cuStreamCreate", 2, None),
                ("cuMemGetInfo_v2", 2, lambda f, t: (out(f, 64 << 30), out(t, 80 << 30))),
                ("cuMemAlloc_v2", 2, alloc), ("cuMemFree_v2", 1, None), ("cuMemsetD32_v2", 3, None),
                ("cuMemcpyHtoD_v2", 3, upload), ("cuMemcpyDtoDAsync_v2", 4, None), ("cuEventCreate", 2, None),
                ("cuEventRecord", 2, None), ("cuEventSynchronize", 1, None), ("cuEventDestroy_v2", 1, None),
                ("cuStreamSynchronize", 1, None), ("cuEventElapsedTime_v2", 3, lambda ms, a, b: out(ms, 1.0)),
                ("cuDeviceGetName", 3, lambda buf, n, d: setattr(buf, "value", b"FAKE GPU")),
                ("cuDeviceGetAttribute", 3, lambda v, a, d: out(v, 132)),
                ("cuDriverGetVersion", 1, lambda v: out(v, 13000)),
                ("cublasCreate_v2", 1, None), ("cublasSetStream_v2", 2, None), ("cublasSgemm_v2", 14, None),
                ("cublasGemmEx", 19, None), ("cublasDestroy_v2", 1, None),
                ("ncclCommInitAll", 3, None), ("ncclGetVersion", 1, lambda v: out(v, 22703)),
                ("ncclAllReduce", 7, None), ("ncclCommDestroy", 1, None)):
            fn(name, n, body)


def bounds_checks():
    """gpu_bounds.measure with FakeLib for the three libraries: the arithmetic of the
    rates, the JSON's shape, the cuBLAS calls' dimensions for a row-major product."""
    fake = FakeLib()
    r = gpu_bounds.measure([[32, 48, 16]], quick=True, cuda=lambda: gpu_bounds.Cuda(lib=fake),
                           load=lambda stem, *a, **k: (fake, f"/fake/lib{stem}.so"))
    check(not fake.bad, f"bounds: {fake.bad[:3]}")
    want = {"gpu": "FAKE GPU", "sms": 132, "cuda_driver_api": "13.0", "memory_free": 64 << 30,
            "copy_GBps": 2 * (1 << 24) / 1e-3 / 1e9, "sgemm_GFLOPs": 2 * 1024**3 / 1e-3 / 1e9,
            "cublas": "/fake/libcublas.so", "nccl_version": "2.27.3"}
    for k, v in want.items():
        check(r.get(k) == v or (isinstance(v, float) and abs(r.get(k, 0) - v) < 1e-6), f"bounds: {k} = {r.get(k)}, wanted {v}")
    check(set(r.get("sgemm", {})) == {"1024x1024x1024", "32x48x16"} and
          abs(r["bf16_gemm"]["32x48x16"] - 2 * 32 * 48 * 16 / 1e-3 / 1e9) < 1e-9, f"bounds: gemm rates {r.get('sgemm')}")
    check(r.get("nccl_allreduce") == {"bytes": 1 << 24, "seconds": 1e-3}, f"bounds: nccl {r.get('nccl_allreduce')}")
    json.dumps(r)
    # C (32x48) = A (32x16) B (16x48), row-major: cuBLAS computes C^T = B^T A^T, m=48 n=32 k=16.
    sg = [a for n, a in fake.calls if n == "cublasSgemm_v2" and a[3] == 48]
    check(sg and (sg[0][3], sg[0][4], sg[0][5], sg[0][8], sg[0][10], sg[0][13]) == (48, 32, 16, 48, 16, 48),
          f"bounds: sgemm dimensions {[a[3:6] for n, a in fake.calls if n == 'cublasSgemm_v2']}")
    sizes = [a[1].value for n, a in fake.calls if n == "cuMemAlloc_v2"]
    check(all(s in sizes for s in (32 * 16 * 4, 16 * 48 * 4, 32 * 48 * 4, 32 * 16 * 2)), f"bounds: allocations {sizes}")
    check(sum(1 for n, _ in fake.calls if n == "cuMemAlloc_v2") == sum(1 for n, _ in fake.calls if n == "cuMemFree_v2"),
          "bounds: allocations not freed")


CUDA_STATS = """compile phases:
  codegen + jit      92.125 ms
  lower               1.500 ms
  module load        40.250 ms
  run                20.000 ms
object cache: off
devices: 1 CUDA device on 1 GPU (NVIDIA H100 80GB HBM3)
host -> device: 4 B   device -> host: 4 B   collectives: 0 B
kernel                         launches    total ms     mean ms   collectives   to device     to host   device ms
pmap i @ normalize.spmd:7:10          1      12.500      12.500           0 B         0 B         0 B       0.210
pmap i @ normalize.spmd:8:10          2       1.000       0.500         224 B         0 B         0 B       0.820
pmap i @ normalize.spmd:9:11          1       0.300       0.300           0 B         0 B         4 B       0.200
memory: 3 allocations, 3 from the OS, 0 reused   peak in use: 4 B   peak held: 4 B
"""


def stats_checks():
    r = gpu_run.parse_stats(CUDA_STATS, 8)
    want = {"launches": 2, "kernel": 0.41e-3, "kernel_host": 0.5e-3, "run": 0.02, "codegen": 0.092125,
            "module_load": 0.04025, "cache": "off"}
    for k, v in want.items():
        got = r.get(k)
        ok = got == v if isinstance(v, (str, int)) else isinstance(got, float) and abs(got - v) < 1e-9
        check(ok, f"stats: parse_stats {k} = {got}, wanted {v}")
    check(abs(r["compile"] - (0.092125 + 0.0015 + 0.04025)) < 1e-9, f"stats: compile {r['compile']}")
    # CPU devices print no "device ms": no GPU kernel time, the host's is still there.
    for w in gpu_run.WORKLOADS:
        sizes = w.sizes["quick"]
        cmd = [SPMDRUN, "--devices", "cpu:8", "--stats", str(BENCH / w.spmd)]
        for k, v in sizes.items():
            cmd += ["--arg", f"{k}={v}"]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        check(p.returncode == 0, f"stats: {w.name} on cpu:8: exit {p.returncode}: {p.stderr.strip()[-200:]}")
        if p.returncode == 0:
            r = gpu_run.parse_stats(p.stderr, w.kernel_line)
            check(r.get("launches", 0) >= 1 and "kernel" not in r and r.get("kernel_host") is not None,
                  f"stats: {w.name}: line {w.kernel_line} is not a pmap that ran: {r}")
        check(w.jax in ("normalize", "chain", "rule30", "pool_map", "random_matmul", "train_mlp",
                        "train_mlp_wide", "micro_dispatch", "micro_psum", "prng_uniform", "prng_normal"),
              f"stats: {w.name}: unknown JAX workload {w.jax}")


def synthetic():
    """SYNTHETIC results, numbers chosen so that each cell of the report is known."""
    MIB = 1 << 20
    jx = lambda e2e, steady, kernel, value: {"e2e": e2e, "steady": steady, "kernel": kernel, "value": value}  # noqa: E731
    sp = lambda run, kernel, compile_, **kw: dict({"run": run, "kernel": kernel, "compile": compile_,  # noqa: E731
                                                  "codegen": compile_ / 2, "module_load": compile_ / 4,
                                                  "stdout": "1.0", "wall": run + compile_ + 0.3}, **kw)
    return {
        "kind": "gpu", "synthetic": True, "mode": "full", "runs": 3, "runs_asked": 3, "budget": 400,
        "seconds": 390, "date": "SYNTHETIC", "spmdrun_version": "spmdrun SYNTHETIC", "devices": [1, 8],
        "bounds": {"gpu": "SYNTHETIC GPU", "driver": "000.00.00", "cuda_driver_api": "0.0", "sms": 1,
                   "memory_total": 80 << 30, "memory_free": 10 << 30, "copy_GBps": 3000.0,
                   "copy_sizes": {str(256 * MIB): 2900.0, str(1024 * MIB): 3000.0},
                   "sgemm": {"8192x8192x8192": 50000.0, "5000x5000x6000": 48000.0, "8192x512x784": 40000.0},
                   "bf16_gemm": {"8192x8192x8192": 700000.0, "5000x5000x6000": 600000.0, "8192x512x784": 300000.0},
                   "sgemm_GFLOPs": 50000.0, "cublas": "/synthetic/libcublas.so.13",
                   "nccl_allreduce": {"bytes": 256 * MIB, "seconds": 2e-4}, "nccl_version": "0.0.0"},
        "workloads": {
            "normalize_64M": {"sizes": {"n": 1 << 26}, "what": "x / psum(sum(x))", "runs": 3,
                              "spmdrun": {"1": sp(0.02, 0.3e-3, 0.2), "8": sp(0.03, 0.6e-3, 0.3)},
                              "jax": {"version": "0.0", "device": "synthetic",
                                      "d": {"1": jx(0.8, 0.01, 0.3e-3, 1.0), "8": jx(0.9, 0.012, 0.35e-3, 1.0)}}},
            "normalize_1G": {"sizes": {"n": 1 << 30}, "what": "x", "spmd": "normalize.spmd",
                             "skipped": "needs 20 GiB of GPU memory, 10.0 free"},
            "chain": {"sizes": {"n": 1 << 28}, "what": "chain", "runs": 3,
                      "spmdrun": {"1": sp(0.01, 1e-3, 0.2), "8": {"error": "exit 1: error: boom"}},
                      "jax": {"version": "0.0", "device": "synthetic",
                              "d": {"1": jx(0.5, 0.01, 0.8e-3, 2.0), "8": jx(0.5, 0.01, 0.8e-3, 2.0)}}},
            "random_matmul": {"sizes": {"rows": 5000, "cols": 6000}, "what": "mm", "runs": 3,
                              "spmdrun": {"1": sp(0.2, 0.0555, 0.2), "8": sp(0.2, 0.06, 0.2)},
                              "jax": {"version": "0.0", "device": "synthetic",
                                      "d": {"8": jx(1.0, 0.15, 0.05, 3.0)}}},
            "micro_dispatch": {"sizes": {"calls": 1000}, "what": "pmaps", "runs": 3,
                               "spmdrun": {"1": sp(0.008, 1e-6, 0.1, kernel_host=8e-6),
                                           "8": sp(0.02, 1e-6, 0.1, kernel_host=20e-6)},
                               "jax": {"version": "0.0", "device": "synthetic",
                                       "d": {"1": jx(0.3, 0.02, 2e-5, 1000.0), "8": jx(0.3, 0.02, 2e-5, 1000.0)}}},
        },
        "cached": {"normalize_64M": {"second": {"compile": 0.05, "cache": "hit"}}},
    }


def report_checks():
    raw = synthetic()
    rows = {(r["name"], r.get("d")): r for r in gpu_report.rows(raw)}
    n1, n8 = rows[("normalize_64M", "1")], rows[("normalize_64M", "8")]
    t_bound = 12 * (1 << 26) / 3000e9  # 268.4 us
    check(abs(n1["bound"][2] - t_bound) < 1e-12, f"report: normalize bound {n1['bound']}")
    check(abs(n1["spmd_bound"] - t_bound / 0.3e-3) < 1e-9 and n1["met"] is True,
          f"report: normalize cuda:1 at {n1['spmd_bound']}, met {n1['met']}")
    check(abs(n8["kernel_ratio"] - 0.6 / 0.35) < 1e-9 and n8["met"] is False,
          f"report: normalize cuda:8 ratio {n8['kernel_ratio']}, met {n8['met']}")
    rm = rows[("random_matmul", "1")]
    check(abs(rm["spmd_bound"] - (8 * 2 * 5000**2 * 6000 / 48000e9) / 0.0555) < 1e-9 and rm["met"] is True
          and rm["jax_kernel"] == 0.05, f"report: random_matmul {rm['spmd_bound']} {rm['met']} {rm['jax_kernel']}")
    md1, md8 = rows[("micro_dispatch", "1")], rows[("micro_dispatch", "8")]
    check(md1["met"] is None and md8["met"] is False and md8["spmd_kernel"] == 20e-6,
          f"report: micro_dispatch {md1['met']} {md8['met']} {md8['spmd_kernel']}")
    text = "\n".join(gpu_report.section(raw))
    for want in ("## GPU: SYNTHETIC GPU, driver 000.00.00", "SYNTHETIC RESULTS",
                 "| normalize_64M | 1 | 20.00 ms | 10.00 ms | 2.00x | 300.0 us | 300.0 us | 1.00x | 268.4 us",
                 "| 89% | 89% |", "| **no** |", "skipped: needs 20 GiB of GPU memory, 10.0 free",
                 "chain (spmdrun cuda:8): exit 1: error: boom", "FAILED: exit 1: error: boom",
                 "| normalize_64M | 1 | 200.00 ms (100.00 ms / 50.00 ms) | - | 800.00 ms | 25% ok |",
                 "| normalize_64M | 8 | 300.00 ms (150.00 ms / 75.00 ms) | 50.00 ms (hit) | 900.00 ms | 33% **over** |",
                 "**3000 GB/s**", "| 5000x5000x6000 | 48.0 TFLOP/s | 600.0 TFLOP/s |",
                 "One-rank NCCL 0.0.0 all-reduce of 256 MiB f32: 200.0 us (2684 GB/s"):
        check(want in text, f"report: the section lacks {want!r}")
    tab = gpu_report.table(raw)
    check("normalize_64M" in tab and "89%" in tab and "NO" in tab, "report: the printed table")
    bm = SRC / "BENCHMARKS.md"
    before = hashlib.sha256(bm.read_bytes()).hexdigest() if bm.exists() else None
    try:
        gpu_report.write_section(raw, bm)
        check(False, "report: synthetic results were written to BENCHMARKS.md")
    except ValueError:
        pass
    with tempfile.TemporaryDirectory() as tmp:
        md = Path(tmp) / "BENCHMARKS.md"
        md.write_text("# Benchmarks\n\ncpu part\n\n## Notes: x\n\nnotes\n")
        gpu_report.write_section(None, md)
        gpu_report.write_section(raw, md)
        gpu_report.write_section(raw, md)
        t = md.read_text()
        check(t.count(gpu_report.BEGIN) == 1 and t.count(gpu_report.END) == 1 and "GPU: pending" not in t,
              "report: the GPU block is not replaced in place")
        check(t.index("cpu part") < t.index(gpu_report.BEGIN) < t.index("## Notes: x"),
              "report: the GPU block is not between the CPU part and the notes")
        # The CPU report keeps the GPU block when it rewrites BENCHMARKS.md.
        import report
        from workloads import SPEC_EXAMPLES
        cpu = {"workloads": {}, "compile": {"spmdrun_norun": {e: 0.1 for e in SPEC_EXAMPLES},
                                            "spmdrun_compile": {}, "jax": {}},
               "machine": {}, "load_before": ["0", "0", "0"], "load_after": ["0", "0", "0"], "seconds": 1,
               "runs": 1, "spmdrun_version": "x"}
        (Path(tmp) / "raw.json").write_text(json.dumps(cpu))
        with contextlib.redirect_stderr(io.StringIO()):
            report.write_markdown(cpu, md, Path(tmp) / "chart.png", sys.executable, Path(tmp) / "raw.json")
        t2 = md.read_text()
        check(gpu_report.extract(t2) == gpu_report.extract(t), "report: the CPU report dropped the GPU block")
    after = hashlib.sha256(bm.read_bytes()).hexdigest() if bm.exists() else None
    check(before == after, "report: BENCHMARKS.md changed")


def driver_checks():
    """gpu_run.main end to end at quick sizes with spmdrun on CPU devices and made-up
    bounds (this machine has no GPU): the rounds, medians, the JSON and the section."""
    import argparse
    raw = synthetic()
    saved = gpu_run.measure_bounds, gpu_run.DEVICE_KIND, gpu_run.WORKLOADS
    gpu_run.measure_bounds = lambda py, mode, env: (dict(raw["bounds"]), None)
    gpu_run.DEVICE_KIND = "cpu"
    # Three workloads (stats_checks ran every program): one memory-bound, the one with
    # only D = 8 on the JAX side, the one whose kernel time is the host's.
    gpu_run.WORKLOADS = [w for w in saved[2] if w.name in ("normalize_64M", "random_matmul", "micro_dispatch")]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            args = argparse.Namespace(quick=True, runs=2, budget=300.0, out=tmp, spmdrun=SPMDRUN)
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                rc = gpu_run.main(args, build=None)
            check(rc == 0, f"driver: exit {rc}: {err.getvalue()[-300:]}")
            res = json.loads((Path(tmp) / "bench-gpu.json").read_text())
            check(res["kind"] == "gpu" and res["runs"] == 2 and not res["synthetic"], f"driver: {res.get('runs')}")
            for w in gpu_run.WORKLOADS:
                r = res["workloads"].get(w.name, {})
                for d in ("1", "8"):
                    s = r.get("spmdrun", {}).get(d, {})
                    check("error" not in s and s.get("run", 0) > 0 and s.get("launches", 0) >= 1
                          and s.get("compile", 0) > 0, f"driver: {w.name} spmdrun {d}: {s}")
                j = r.get("jax", {})
                check(("error" in j and "JAX not installed" in j["error"]) or set(j.get("d", {})) ==
                      set(w.jax_ds.split(",")), f"driver: {w.name} JAX: {j}")
                c = res["cached"].get(w.name, {})
                check(c.get("second", {}).get("cache") == "hit", f"driver: {w.name} cached: {c}")
            section = (Path(tmp) / "gpu-section.md").read_text()
            check(all(f"| {w.name} | 8 |" in section for w in gpu_run.WORKLOADS), "driver: gpu-section.md rows")
            check("normalize_64M" in out.getvalue(), "driver: no table printed")
    finally:
        gpu_run.measure_bounds, gpu_run.DEVICE_KIND, gpu_run.WORKLOADS = saved


def median_checks():
    runs = [{"jax": "0", "device": "gpu: X", "d": {"1": {"steady": v, "value": [v]}}} for v in (3.0, 1.0, 2.0)]
    m = gpu_run.jax_median(runs)
    check(m["d"]["1"]["steady"] == 2.0 and m["d"]["1"]["value"] == [3.0], f"median: {m}")
    m = gpu_run.jax_median([dict(runs[0], device="cpu: cpu")])
    check("did not run on the GPU" in m.get("error", ""), f"median: JAX on the CPU taken for the GPU: {m}")
    m = gpu_run.median_of([{"run": 1.0}, {"error": "exit 1: x"}])
    check(m == {"error": "exit 1: x", "failed_runs": 1}, f"median: a failed run: {m}")
    p = subprocess.CompletedProcess([], 1, "", "f.spmd:6:12: error: pmap over axis 'i' needs 8 devices\nlet\n ^~\nnote: x")
    check(gpu_run.one_line(p) == "exit 1: f.spmd:6:12: error: pmap over axis 'i' needs 8 devices",
          f"median: a failure's line: {gpu_run.one_line(p)}")


def jax_checks():
    env = dict(os.environ, PYTHONPATH="")
    p = subprocess.run([sys.executable, str(BENCH / "gpu_baselines.py"), "normalize", "1,8", "n=64"],
                       capture_output=True, text=True, env=env, timeout=120)
    out = json.loads(p.stdout.strip().splitlines()[-1]) if p.returncode == 0 and p.stdout.strip() else {}
    try:
        import jax  # noqa: F401
        check("d" in out and set(out["d"]) == {"1", "8"} and "baseline_error" not in out,
              f"jax: gpu_baselines.py normalize with JAX: {p.stdout.strip()[-300:]} {p.stderr.strip()[-300:]}")
    except ImportError:
        check(out == {"jax_skipped": "skipped: JAX not installed"}, f"jax: without JAX: {p.stdout!r}")
    p = subprocess.run([sys.executable, str(BENCH / "gpu_baselines.py"), "nonesuch", "1"], capture_output=True,
                       text=True, timeout=60)
    check(p.returncode == 2 and "usage" in p.stderr, f"jax: bad usage: exit {p.returncode}")


for f in (args_checks, nogpu_checks, loader_checks, bounds_checks, stats_checks, report_checks, driver_checks,
          median_checks, jax_checks):
    t0 = time.time()
    f()
    print(f"{f.__name__}: {time.time() - t0:.1f} s", flush=True)
print(f"{len(failed)} failed" if failed else "all passed")
sys.exit(1 if failed else 0)
