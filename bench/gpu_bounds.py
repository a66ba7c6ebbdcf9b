#!/usr/bin/env python3
"""The bounds of the GPU suite, measured on the GPU itself through ctypes: nothing is
compiled, only libcuda.so.1 (the driver API), cuBLAS and NCCL are opened as spmdrun opens
them (docs/gpu.md), and every time is the GPU's own, from CUDA events.

Usage: gpu_bounds.py [--quick] [SHAPES.json]   prints one JSON object on stdout:
  gpu, driver, cuda_driver_api, sms, memory_total, memory_free
  copy_GBps         device-to-device copy (cuMemcpyDtoDAsync), bytes read + written per
                    second, the better of 256 MiB and 1 GiB, best of 10 after a warm-up
  copy_sizes        the same per size
  sgemm             {"MxNxK": GFLOP/s} cuBLAS sgemm (no TF32: the default math mode)
  bf16_gemm         {"MxNxK": GFLOP/s} cublasGemmEx, bf16 in and out, f32 accumulation
  nccl_allreduce    a one-rank ncclAllReduce of 256 MiB f32: seconds, and GB/s as a copy
  cublas, nccl      the files loaded (or "<what>_error": why not)
SHAPES.json (optional) is a list of [M, N, K] sgemm/bf16 shapes besides 8192^3.
Without a usable GPU it prints `gpu_bounds.py: no usable CUDA GPU (why)` on stderr and
exits 1. The library search (Note [Finding cuBLAS] in runtime/cuda/CudaApi.cpp) can be
pointed elsewhere with SPMD_BENCH_LIBCUDA (the driver's file), SPMD_CUBLAS_PATH and
SPMD_NCCL_PATH (directories).
"""
import ctypes
import json
import os
import site
import subprocess
import sys
from pathlib import Path

RTLD_GLOBAL = getattr(os, "RTLD_GLOBAL", 0x100)


class GpuUnavailable(Exception):
    """No usable GPU: the driver did not load, did not start, or sees no device."""


class LibraryMissing(Exception):
    """An optional library (cuBLAS, NCCL) was not found or did not start."""


# --- the driver -------------------------------------------------------------------------------

class Cuda:
    """The few driver API calls the bounds need, on the primary context of GPU 0."""

    def __init__(self, path=None, lib=None):
        """Opens the driver at path (default $SPMD_BENCH_LIBCUDA, else libcuda.so.1), or
        takes lib, an object with the driver's functions (tests/gpu/bench_harness.py)."""
        path = path or os.environ.get("SPMD_BENCH_LIBCUDA") or "libcuda.so.1"
        try:
            self.lib = lib or ctypes.CDLL(path, mode=RTLD_GLOBAL)
        except OSError as e:
            raise GpuUnavailable(f"{Path(path).name} not found: {e}") from None
        self.fn = {}
        r = self._call("cuInit", ctypes.c_uint(0), check=False)
        if r != 0:
            raise GpuUnavailable(f"cuInit failed: {self.error_name(r)}")
        n = ctypes.c_int(0)
        r = self._call("cuDeviceGetCount", ctypes.byref(n), check=False)
        if r != 0 or n.value == 0:
            raise GpuUnavailable("the driver sees no GPU" if r == 0 else
                                 f"cuDeviceGetCount failed: {self.error_name(r)}")
        self.count = n.value
        self.dev = ctypes.c_int(0)
        self._call("cuDeviceGet", ctypes.byref(self.dev), 0)
        self.ctx = ctypes.c_void_p()
        self._call("cuDevicePrimaryCtxRetain", ctypes.byref(self.ctx), self.dev)
        self._call("cuCtxSetCurrent", self.ctx)
        self.stream = ctypes.c_void_p()
        self._call("cuStreamCreate", ctypes.byref(self.stream), 0)

    def _sym(self, name):
        if name not in self.fn:
            for n in (name + "_v2", name):  # the versioned symbol where there is one
                f = getattr(self.lib, n, None)
                if f is not None:
                    f.restype = ctypes.c_int
                    self.fn[name] = f
                    break
            else:
                raise GpuUnavailable(f"libcuda has no {name}")
        return self.fn[name]

    def _call(self, name, *args, check=True):
        r = self._sym(name)(*args)
        if check and r != 0:
            raise RuntimeError(f"{name} failed: {self.error_name(r)}")
        return r

    def error_name(self, r):
        s = ctypes.c_char_p()
        f = getattr(self.lib, "cuGetErrorName", None)
        if f is not None and f(r, ctypes.byref(s)) == 0 and s.value:
            return f"{s.value.decode()} ({r})"
        return f"CUDA error {r}"

    def name(self):
        buf = ctypes.create_string_buffer(256)
        self.lib.cuDeviceGetName(buf, 256, self.dev)
        return buf.value.decode()

    def attribute(self, attr):
        v = ctypes.c_int(0)
        self.lib.cuDeviceGetAttribute(ctypes.byref(v), attr, self.dev)
        return v.value

    def driver_api_version(self):
        v = ctypes.c_int(0)
        self.lib.cuDriverGetVersion(ctypes.byref(v))
        return f"{v.value // 1000}.{v.value % 1000 // 10}"

    def mem_info(self):
        free, total = ctypes.c_size_t(0), ctypes.c_size_t(0)
        self._call("cuMemGetInfo", ctypes.byref(free), ctypes.byref(total))
        return free.value, total.value

    def alloc(self, nbytes):
        p = ctypes.c_uint64(0)
        self._call("cuMemAlloc", ctypes.byref(p), ctypes.c_size_t(nbytes))
        return p.value

    def free(self, p):
        self._call("cuMemFree", ctypes.c_uint64(p))

    def upload(self, dst, host_bytes):
        self._call("cuMemcpyHtoD", ctypes.c_uint64(dst), host_bytes, ctypes.c_size_t(len(host_bytes)))

    def fill32(self, dst, word, count):
        self._call("cuMemsetD32", ctypes.c_uint64(dst), ctypes.c_uint(word), ctypes.c_size_t(count))

    def copy(self, dst, src, nbytes):
        self._call("cuMemcpyDtoDAsync", ctypes.c_uint64(dst), ctypes.c_uint64(src),
                   ctypes.c_size_t(nbytes), self.stream)

    def sync(self):
        self._call("cuStreamSynchronize", self.stream)

    def time(self, work, reps):
        """The GPU's time (s) of each of `reps` calls of work(), which enqueues on the stream,
        from a pair of CUDA events around each; after one untimed call."""
        work()
        self.sync()
        ev = [ctypes.c_void_p(), ctypes.c_void_p()]
        for e in ev:
            self._call("cuEventCreate", ctypes.byref(e), 0)
        out = []
        for _ in range(reps):
            self._call("cuEventRecord", ev[0], self.stream)
            work()
            self._call("cuEventRecord", ev[1], self.stream)
            self._call("cuEventSynchronize", ev[1])
            ms = ctypes.c_float(0)
            self._call("cuEventElapsedTime", ctypes.byref(ms), ev[0], ev[1])
            out.append(ms.value * 1e-3)
        for e in ev:
            self._call("cuEventDestroy", e)
        return out


# --- finding the libraries (Note [Finding cuBLAS], Note [Finding NCCL]) ------------------------

def _python_dirs():
    dirs = list(sys.path)
    try:
        dirs += site.getsitepackages() + [site.getusersitepackages()]
    except AttributeError:  # a virtualenv's old site module
        pass
    if os.environ.get("VIRTUAL_ENV"):
        dirs += [str(p) for p in Path(os.environ["VIRTUAL_ENV"]).glob("lib/python3*/site-packages")]
    return [d for d in dict.fromkeys(dirs) if d]


def library_candidates(stem, wheel_dirs, env):
    """Files that may be lib<stem>.so.*: $env's directories, the nvidia wheels' folders
    under every site-packages (CUDA 13's wheels put their libraries in nvidia/cu13/lib,
    but NCCL's in nvidia/nccl/lib, as CUDA 12's did), /usr/local/cuda/lib64; newest soname
    first, then the bare sonames for the dynamic loader's own search."""
    dirs = [d for d in os.environ.get(env, "").split(":") if d]
    dirs += [str(Path(p) / "nvidia" / w / "lib") for p in _python_dirs() for w in wheel_dirs]
    dirs.append("/usr/local/cuda/lib64")
    out = []
    for d in dict.fromkeys(dirs):
        try:
            files = sorted(Path(d).glob(f"lib{stem}.so*"), key=lambda p: p.name, reverse=True)
        except OSError:
            continue
        out += [str(f) for f in files if f.name.split(".so")[0] == f"lib{stem}"]
    return out + [f"lib{stem}.so.13", f"lib{stem}.so.12", f"lib{stem}.so.2", f"lib{stem}.so"]


def load_library(stem, wheel_dirs, env, preload=None):
    """(CDLL, path) of the first candidate that loads; LibraryMissing otherwise. `preload`
    names a sibling (libcublasLt beside libcublas) opened first from the same folder."""
    tried = []
    for path in library_candidates(stem, wheel_dirs, env):
        try:
            if preload and "/" in path:
                sib = Path(path).with_name(Path(path).name.replace(f"lib{stem}", f"lib{preload}"))
                if sib.exists():
                    ctypes.CDLL(str(sib), mode=RTLD_GLOBAL)
            return ctypes.CDLL(path, mode=RTLD_GLOBAL), path
        except OSError as e:
            tried.append(f"{path}: {str(e)[:80]}")
    raise LibraryMissing(f"lib{stem} not found (${env}, site-packages/nvidia/{{{','.join(wheel_dirs)}}}/lib, "
                         f"/usr/local/cuda/lib64, the sonames); last: {tried[-1] if tried else '-'}")


# --- the measurements ------------------------------------------------------------------------

def copy_bandwidth(cu, sizes, reps):
    """{bytes: GB/s} of a device-to-device copy (bytes read + written), best of reps."""
    out = {}
    for n in sizes:
        src, dst = cu.alloc(n), cu.alloc(n)
        cu.fill32(src, 0x3F800000, n // 4)
        best = min(cu.time(lambda: cu.copy(dst, src, n), reps))
        out[n] = 2 * n / best / 1e9
        cu.free(src)
        cu.free(dst)
    return out


def _random_words(count, bf16):
    """count random f32 words (or 2*count bf16 halves packed) as bytes, N(0,1)."""
    try:
        import numpy as np
    except ImportError:
        return None
    x = np.random.default_rng(0).standard_normal(count * (2 if bf16 else 1), dtype=np.float32)
    if bf16:
        return (x.view(np.uint32) >> 16).astype(np.uint16).tobytes()
    return x.tobytes()


def gemm_rates(cu, blas, shapes, reps):
    """{"MxNxK": (sgemm GFLOP/s, bf16 GFLOP/s)}: C(MxN) = A(MxK) B(KxN), row-major A, B
    (cuBLAS's column-major C^T = B^T A^T), random N(0,1) inputs, best of reps."""
    h = ctypes.c_void_p()
    r = blas.cublasCreate_v2(ctypes.byref(h))
    if r != 0:
        raise LibraryMissing(f"cublasCreate failed: cuBLAS status {r}")
    blas.cublasSetStream_v2(h, cu.stream)
    one, zero = ctypes.c_float(1.0), ctypes.c_float(0.0)
    out = {}
    for m, n, k in shapes:
        rates = []
        for bf16 in (False, True):
            esz = 2 if bf16 else 4
            a, b, c = cu.alloc(m * k * esz), cu.alloc(k * n * esz), cu.alloc(m * n * esz)
            for p, count in ((a, m * k), (b, k * n)):
                data = _random_words(count * esz // 4, False) if not bf16 else _random_words(count // 2, True)
                if data is None or len(data) != count * esz:
                    cu.fill32(p, 0x3F803F80 if bf16 else 0x3F800000, count * esz // 4)
                else:
                    cu.upload(p, data)
            if bf16:
                def work():  # CUDA_R_16BF = 14, CUBLAS_COMPUTE_32F = 68, CUBLAS_GEMM_DEFAULT = -1
                    st = blas.cublasGemmEx(h, 0, 0, n, m, k, ctypes.byref(one), ctypes.c_uint64(b), 14, n,
                                           ctypes.c_uint64(a), 14, k, ctypes.byref(zero), ctypes.c_uint64(c),
                                           14, n, 68, -1)
                    if st != 0:
                        raise RuntimeError(f"cublasGemmEx: status {st}")
            else:
                def work():
                    st = blas.cublasSgemm_v2(h, 0, 0, n, m, k, ctypes.byref(one), ctypes.c_uint64(b), n,
                                             ctypes.c_uint64(a), k, ctypes.byref(zero), ctypes.c_uint64(c), n)
                    if st != 0:
                        raise RuntimeError(f"cublasSgemm: status {st}")
            rates.append(2 * m * n * k / min(cu.time(work, reps)) / 1e9)
            for p in (a, b, c):
                cu.free(p)
        out[f"{m}x{n}x{k}"] = tuple(rates)
    blas.cublasDestroy_v2(h)
    return out


def nccl_allreduce(cu, nccl, nbytes, reps):
    """Seconds of a one-rank ncclAllReduce (sum, f32) of nbytes, best of reps."""
    comm = ctypes.c_void_p()
    devs = (ctypes.c_int * 1)(0)
    r = nccl.ncclCommInitAll(ctypes.byref(comm), 1, devs)
    if r != 0:
        raise LibraryMissing(f"ncclCommInitAll failed: NCCL result {r}")
    v = ctypes.c_int(0)
    nccl.ncclGetVersion(ctypes.byref(v))
    src, dst = cu.alloc(nbytes), cu.alloc(nbytes)
    cu.fill32(src, 0x3F800000, nbytes // 4)

    def work():  # ncclFloat32 = 7, ncclSum = 0
        st = nccl.ncclAllReduce(ctypes.c_uint64(src), ctypes.c_uint64(dst), ctypes.c_size_t(nbytes // 4),
                                7, 0, comm, cu.stream)
        if st != 0:
            raise RuntimeError(f"ncclAllReduce: result {st}")
    best = min(cu.time(work, reps))
    nccl.ncclCommDestroy(comm)
    cu.free(src)
    cu.free(dst)
    return best, f"{v.value // 10000}.{v.value % 10000 // 100}.{v.value % 100}"


def driver_version():
    """nvidia-smi's driver version ("580.159.04"), or None."""
    try:
        p = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30)
        return p.stdout.strip().splitlines()[0] if p.returncode == 0 and p.stdout.strip() else None
    except (OSError, subprocess.TimeoutExpired):
        return None


def measure(shapes, quick=False, cuda=Cuda, load=None):
    """The bounds (the JSON object of the module's docstring). cuda and load stand in for
    Cuda and load_library in tests/gpu/bench_harness.py."""
    cu = cuda()
    load = load or load_library
    free, total = cu.mem_info()
    out = {"gpu": cu.name(), "gpus": cu.count, "driver": driver_version(),
           "cuda_driver_api": cu.driver_api_version(),
           "sms": cu.attribute(16),  # CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
           "memory_total": total, "memory_free": free}
    reps = 3 if quick else 10
    sizes = [1 << 24] if quick else [1 << 28, 1 << 30]
    copies = copy_bandwidth(cu, [s for s in sizes if 2 * s < free // 2], reps)
    out["copy_sizes"] = {str(k): v for k, v in copies.items()}
    out["copy_GBps"] = max(copies.values()) if copies else None
    try:
        blas, out["cublas"] = load("cublas", ("cu13", "cublas"), "SPMD_CUBLAS_PATH", preload="cublasLt")
        rates = gemm_rates(cu, blas, ([[1024, 1024, 1024]] if quick else [[8192, 8192, 8192]]) + shapes,
                           reps)
        out["sgemm"] = {k: v[0] for k, v in rates.items()}
        out["bf16_gemm"] = {k: v[1] for k, v in rates.items()}
        out["sgemm_GFLOPs"] = max(out["sgemm"].values())
    except (LibraryMissing, RuntimeError, AttributeError) as e:  # AttributeError: a symbol missing
        out["cublas_error"] = str(e)
    try:
        nccl, out["nccl"] = load("nccl", ("nccl", "cu13"), "SPMD_NCCL_PATH")
        secs, out["nccl_version"] = nccl_allreduce(cu, nccl, (1 << 24) if quick else (1 << 28), reps)
        out["nccl_allreduce"] = {"bytes": (1 << 24) if quick else (1 << 28), "seconds": secs}
    except (LibraryMissing, RuntimeError, AttributeError) as e:
        out["nccl_error"] = str(e)
    return out


def main(argv):
    quick = "--quick" in argv
    files = [a for a in argv if not a.startswith("--")]
    shapes = json.loads(Path(files[0]).read_text()) if files else []
    try:
        result = measure(shapes, quick)
    except GpuUnavailable as e:
        print(f"gpu_bounds.py: no usable CUDA GPU ({e})", file=sys.stderr)
        return 1
    except RuntimeError as e:  # a CUDA call that failed on a GPU that did start
        print(f"gpu_bounds.py: {e}", file=sys.stderr)
        return 1
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
