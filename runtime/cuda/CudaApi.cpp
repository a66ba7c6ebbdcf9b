// ===- CudaApi.cpp - opening libcuda and cuBLAS with dlopen --------------------===//
//
// Loads the driver API and cuBLAS on first use (CudaApi.h says why nothing is linked).
// Each library is opened once per process and never closed: the function pointers
// stay valid for the process's lifetime, and unloading a CUDA library while a context
// lives is asking for trouble.
#include "cuda/CudaApi.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <vector>

#include <dlfcn.h>

namespace spmd::rt::cuda {
namespace {

/// Resolves `name` into `slot`; false (and a reason) when the library lacks it.
template <typename F>
bool resolve(void *lib, F &slot, const char *name, std::string &why) {
  slot = reinterpret_cast<F>(dlsym(lib, name));
  if (slot) return true;
  why = std::string("the CUDA driver lacks ") + name + " (driver too old?)";
  return false;
}

/// Opens libcuda.so.1 and resolves every function of CudaApi; null with a reason.
CudaApi *loadDriver(std::string &why) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *err = dlerror();
    why = std::string("no NVIDIA driver: ") + (err ? err : "libcuda.so.1 not found");
    return nullptr;
  }
  static CudaApi api;
  bool ok = true;
#define SPMD_RESOLVE(field, symbol) ok = ok && resolve(lib, api.field, symbol, why)
  SPMD_RESOLVE(cuInit, "cuInit");
  SPMD_RESOLVE(cuDriverGetVersion, "cuDriverGetVersion");
  SPMD_RESOLVE(cuDeviceGetCount, "cuDeviceGetCount");
  SPMD_RESOLVE(cuDeviceGet, "cuDeviceGet");
  SPMD_RESOLVE(cuDeviceGetName, "cuDeviceGetName");
  SPMD_RESOLVE(cuDeviceTotalMem, "cuDeviceTotalMem_v2");
  SPMD_RESOLVE(cuDeviceGetAttribute, "cuDeviceGetAttribute");
  SPMD_RESOLVE(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  SPMD_RESOLVE(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  SPMD_RESOLVE(cuCtxSetCurrent, "cuCtxSetCurrent");
  SPMD_RESOLVE(cuCtxPushCurrent, "cuCtxPushCurrent_v2");
  SPMD_RESOLVE(cuCtxPopCurrent, "cuCtxPopCurrent_v2");
  SPMD_RESOLVE(cuCtxSynchronize, "cuCtxSynchronize");
  SPMD_RESOLVE(cuStreamCreate, "cuStreamCreate");
  SPMD_RESOLVE(cuStreamDestroy, "cuStreamDestroy_v2");
  SPMD_RESOLVE(cuStreamSynchronize, "cuStreamSynchronize");
  SPMD_RESOLVE(cuStreamQuery, "cuStreamQuery");
  SPMD_RESOLVE(cuStreamWaitEvent, "cuStreamWaitEvent");
  SPMD_RESOLVE(cuEventCreate, "cuEventCreate");
  SPMD_RESOLVE(cuEventRecord, "cuEventRecord");
  SPMD_RESOLVE(cuEventSynchronize, "cuEventSynchronize");
  SPMD_RESOLVE(cuEventDestroy, "cuEventDestroy_v2");
  SPMD_RESOLVE(cuMemAlloc, "cuMemAlloc_v2");
  SPMD_RESOLVE(cuMemFree, "cuMemFree_v2");
  SPMD_RESOLVE(cuMemAllocAsync, "cuMemAllocAsync");
  SPMD_RESOLVE(cuMemFreeAsync, "cuMemFreeAsync");
  SPMD_RESOLVE(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
  SPMD_RESOLVE(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
  SPMD_RESOLVE(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
  SPMD_RESOLVE(cuMemcpyAsync, "cuMemcpyAsync");
  SPMD_RESOLVE(cuMemcpyHtoD, "cuMemcpyHtoD_v2");
  SPMD_RESOLVE(cuMemcpyDtoH, "cuMemcpyDtoH_v2");
  SPMD_RESOLVE(cuMemsetD8Async, "cuMemsetD8Async");
  SPMD_RESOLVE(cuMemHostAlloc, "cuMemHostAlloc");
  SPMD_RESOLVE(cuMemFreeHost, "cuMemFreeHost");
  SPMD_RESOLVE(cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2");
  SPMD_RESOLVE(cuMemGetInfo, "cuMemGetInfo_v2");
  SPMD_RESOLVE(cuModuleLoadDataEx, "cuModuleLoadDataEx");
  SPMD_RESOLVE(cuModuleGetFunction, "cuModuleGetFunction");
  SPMD_RESOLVE(cuModuleUnload, "cuModuleUnload");
  SPMD_RESOLVE(cuLaunchKernel, "cuLaunchKernel");
  SPMD_RESOLVE(cuGetErrorName, "cuGetErrorName");
  SPMD_RESOLVE(cuGetErrorString, "cuGetErrorString");
#undef SPMD_RESOLVE
  if (!ok) return nullptr;
  // Optional: drivers of CUDA 12.8 and later export the _v2; older ones only the plain name.
  api.cuEventElapsedTime =
      reinterpret_cast<decltype(api.cuEventElapsedTime)>(dlsym(lib, "cuEventElapsedTime_v2"));
  if (!api.cuEventElapsedTime)
    api.cuEventElapsedTime =
        reinterpret_cast<decltype(api.cuEventElapsedTime)>(dlsym(lib, "cuEventElapsedTime"));
#define SPMD_OPTIONAL(field, symbol)                                                               \
  api.field = reinterpret_cast<decltype(api.field)>(dlsym(lib, symbol))
  SPMD_OPTIONAL(cuDeviceGetDefaultMemPool, "cuDeviceGetDefaultMemPool");
  SPMD_OPTIONAL(cuMemPoolSetAttribute, "cuMemPoolSetAttribute");
  SPMD_OPTIONAL(cuMemPoolSetAccess, "cuMemPoolSetAccess");
  SPMD_OPTIONAL(cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer");
  SPMD_OPTIONAL(cuCtxEnablePeerAccess, "cuCtxEnablePeerAccess");
  SPMD_OPTIONAL(cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId");
#undef SPMD_OPTIONAL
  CUresult r = api.cuInit(0);
  if (r != CUDA_SUCCESS) {
    why = cudaErrorText(api, r, "cuInit failed");
    return nullptr;
  }
  return &api;
}

}  // namespace

const CudaApi *cudaApi(std::string &why) {
  static std::once_flag once;
  static const CudaApi *api = nullptr;
  static std::string reason;
  std::call_once(once, [] { api = loadDriver(reason); });
  if (!api) why = reason;
  return api;
}

std::string cudaErrorText(const CudaApi &api, CUresult r, const std::string &what) {
  const char *name = nullptr, *text = nullptr;
  if (api.cuGetErrorName(r, &name) != CUDA_SUCCESS || !name) name = nullptr;
  if (api.cuGetErrorString(r, &text) != CUDA_SUCCESS || !text) text = nullptr;
  std::string s = what + ": " + (name ? name : "CUDA error " + std::to_string(r));
  if (text) s += std::string(" (") + text + ")";
  return s;
}

// Note [Finding cuBLAS]
// ~~~~~~~~~~~~~~~~~~~~~
// cuBLAS is optional: without it spmd_gemm answers "unavailable" and generated code
// runs its own matmul kernel. The library may be installed system-wide (the CUDA
// toolkit; the dynamic loader finds it by soname) or only as a pip wheel
// (nvidia-cublas-cu12 and friends put it in site-packages/nvidia/cublas/lib; CUDA 13's
// `nvidia-cublas` 13.x, like all of CUDA 13's wheels but NCCL's, in nvidia/cu13/lib; the
// loader searches neither). We try, in order:
//   1. the sonames libcublas.so.13, libcublas.so.12, libcublas.so (whatever the
//      loader's path finds: LD_LIBRARY_PATH, ld.so.cache);
//   2. each directory listed in SPMD_CUBLAS_PATH (':'-separated), then
//      nvidia/cu13/lib and nvidia/cublas/lib under the usual site-packages directories
//      (system, /usr/local, the user's ~/.local, $VIRTUAL_ENV) and /usr/local/cuda/lib64,
//      newest soname first.
// A wheel's libcublas needs libcublasLt from the same directory, which its RPATH may not
// name: we open that one first, RTLD_GLOBAL, so the loader finds it already loaded.
// Python itself is never run. Which candidate is compatible with the driver shows only
// when a handle is created (cublasCreate fails otherwise): the device then treats BLAS
// as unavailable.

namespace {

namespace fs = std::filesystem;

/// Directories that may hold a pip wheel's libcublas, per Note [Finding cuBLAS].
std::vector<fs::path> cublasDirs() {
  std::vector<fs::path> dirs;
  if (const char *env = std::getenv("SPMD_CUBLAS_PATH")) {
    std::string s = env;
    for (size_t at = 0; at <= s.size();) {
      size_t colon = s.find(':', at);
      if (colon == std::string::npos) colon = s.size();
      if (colon > at) dirs.emplace_back(s.substr(at, colon - at));
      at = colon + 1;
    }
  }
  std::vector<fs::path> sitePackages;
  std::error_code ec;
  auto addPythonDirs = [&](const fs::path &libDir, const char *leaf) {
    // libDir/python3.*/leaf
    for (const fs::directory_entry &e : fs::directory_iterator(libDir, ec)) {
      std::string name = e.path().filename().string();
      if (name.rfind("python3", 0) == 0) sitePackages.push_back(e.path() / leaf);
    }
  };
  addPythonDirs("/usr/local/lib", "dist-packages");
  addPythonDirs("/usr/local/lib", "site-packages");
  sitePackages.emplace_back("/usr/lib/python3/dist-packages");
  if (const char *home = std::getenv("HOME"))
    addPythonDirs(fs::path(home) / ".local/lib", "site-packages");
  if (const char *venv = std::getenv("VIRTUAL_ENV"))
    addPythonDirs(fs::path(venv) / "lib", "site-packages");
  for (const fs::path &sp : sitePackages) {
    dirs.push_back(sp / "nvidia/cu13/lib");
    dirs.push_back(sp / "nvidia/cublas/lib");
  }
  dirs.emplace_back("/usr/local/cuda/lib64");
  return dirs;
}

/// libcublas.so.* files of `dir`, newest soname first.
std::vector<fs::path> cublasFiles(const fs::path &dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const fs::directory_entry &e : fs::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind("libcublas.so", 0) == 0) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end(), [](const fs::path &a, const fs::path &b) {
    return a.filename().string() > b.filename().string();
  });
  return files;
}

/// Opens `path` (a soname or a file) and resolves CublasApi; null when either fails.
CublasApi *tryCublas(const std::string &path) {
  fs::path p(path);
  if (p.has_parent_path()) {
    // The wheel's libcublasLt, with the same suffix (libcublas.so.12 -> libcublasLt.so.12).
    std::string leaf = p.filename().string();
    fs::path lt = p.parent_path() / ("libcublasLt" + leaf.substr(std::string("libcublas").size()));
    dlopen(lt.c_str(), RTLD_NOW | RTLD_GLOBAL);
  }
  void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) return nullptr;
  static CublasApi api;
  std::string why;
  bool ok = resolve(lib, api.cublasCreate, "cublasCreate_v2", why) &&
            resolve(lib, api.cublasDestroy, "cublasDestroy_v2", why) &&
            resolve(lib, api.cublasSetStream, "cublasSetStream_v2", why) &&
            resolve(lib, api.cublasSetMathMode, "cublasSetMathMode", why) &&
            resolve(lib, api.cublasSgemmStridedBatched, "cublasSgemmStridedBatched", why) &&
            resolve(lib, api.cublasDgemmStridedBatched, "cublasDgemmStridedBatched", why);
  if (!ok) return nullptr;  // a library without the functions is left open: harmless
  api.path = path;
  return &api;
}

CublasApi *loadCublas() {
  for (const char *soname : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"})
    if (CublasApi *api = tryCublas(soname)) return api;
  for (const fs::path &dir : cublasDirs())
    for (const fs::path &file : cublasFiles(dir))
      if (CublasApi *api = tryCublas(file.string())) return api;
  return nullptr;
}

}  // namespace

const CublasApi *cublasApi() {
  static std::once_flag once;
  static const CublasApi *api = nullptr;
  std::call_once(once, [] { api = loadCublas(); });
  return api;
}

}  // namespace spmd::rt::cuda
