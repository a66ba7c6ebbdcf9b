// ===- CudaApi.h - the CUDA driver API and cuBLAS, loaded at run time ---------===//
//
// The runtime never links libcuda or cuBLAS and needs no CUDA headers to build: a
// machine without a GPU (the build machine, CI) builds and runs the CPU backend as
// before. On a machine with a driver, cudaApi() opens libcuda.so.1 with dlopen the
// first time it is asked and resolves the functions below by their exported (versioned)
// names; cublasApi() does the same, optionally, for cuBLAS (Note [Finding cuBLAS] in
// CudaApi.cpp). The types are our own minimal declarations of the driver's: the ABI is
// what matters (handles are pointers, CUdeviceptr is 64 bits, enums are ints), and
// the enum values used are copied from cuda.h / cublas_api.h of CUDA 13, which are
// stable across driver versions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace spmd::rt::cuda {

// ---- driver types (cuda.h) -------------------------------------------------------------
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUmemPoolHandle_st *CUmemoryPool;
typedef int CUjit_option;
typedef int CUdevice_attribute;
/// CUmemAccessDesc: a device (location type 1, id = ordinal) and its access flags.
struct CUmemAccessDesc {
  int locationType;
  int locationId;
  int flags;
};

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
constexpr CUresult CUDA_ERROR_NOT_READY = 600;
constexpr unsigned CU_STREAM_NON_BLOCKING = 0x1;
constexpr unsigned CU_EVENT_DISABLE_TIMING = 0x2;
constexpr unsigned CU_MEMHOSTALLOC_PORTABLE = 0x1;
constexpr unsigned CU_MEMHOSTALLOC_DEVICEMAP = 0x2;
constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER = 3;
constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4;
constexpr int CU_MEM_LOCATION_TYPE_DEVICE = 1;
constexpr int CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3;

/// The driver entry points the runtime uses, resolved from libcuda.so.1. All are
/// non-null in the object cudaApi() returns, except where marked optional.
struct CudaApi {
  CUresult (*cuInit)(unsigned flags);
  CUresult (*cuDriverGetVersion)(int *version);
  CUresult (*cuDeviceGetCount)(int *count);
  CUresult (*cuDeviceGet)(CUdevice *dev, int ordinal);
  CUresult (*cuDeviceGetName)(char *name, int len, CUdevice dev);
  CUresult (*cuDeviceTotalMem)(size_t *bytes, CUdevice dev);
  CUresult (*cuDeviceGetAttribute)(int *value, CUdevice_attribute attr, CUdevice dev);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice dev);
  CUresult (*cuCtxSetCurrent)(CUcontext ctx);
  CUresult (*cuCtxPushCurrent)(CUcontext ctx);
  CUresult (*cuCtxPopCurrent)(CUcontext *ctx);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuStreamCreate)(CUstream *stream, unsigned flags);
  CUresult (*cuStreamDestroy)(CUstream stream);
  CUresult (*cuStreamSynchronize)(CUstream stream);
  CUresult (*cuStreamQuery)(CUstream stream);
  CUresult (*cuStreamWaitEvent)(CUstream stream, CUevent event, unsigned flags);
  CUresult (*cuEventCreate)(CUevent *event, unsigned flags);
  CUresult (*cuEventRecord)(CUevent event, CUstream stream);
  CUresult (*cuEventSynchronize)(CUevent event);
  /// Optional (cuEventElapsedTime_v2, or the older unversioned name).
  CUresult (*cuEventElapsedTime)(float *ms, CUevent start, CUevent end);
  CUresult (*cuEventDestroy)(CUevent event);
  CUresult (*cuMemAlloc)(CUdeviceptr *ptr, size_t bytes);
  CUresult (*cuMemFree)(CUdeviceptr ptr);
  CUresult (*cuMemAllocAsync)(CUdeviceptr *ptr, size_t bytes, CUstream stream);
  CUresult (*cuMemFreeAsync)(CUdeviceptr ptr, CUstream stream);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr dst, const void *src, size_t bytes, CUstream stream);
  CUresult (*cuMemcpyDtoHAsync)(void *dst, CUdeviceptr src, size_t bytes, CUstream stream);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream);
  CUresult (*cuMemcpyAsync)(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes);
  CUresult (*cuMemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);
  CUresult (*cuMemsetD8Async)(CUdeviceptr dst, unsigned char value, size_t n, CUstream stream);
  CUresult (*cuMemHostAlloc)(void **p, size_t bytes, unsigned flags);
  CUresult (*cuMemFreeHost)(void *p);
  CUresult (*cuMemHostGetDevicePointer)(CUdeviceptr *dptr, void *p, unsigned flags);
  CUresult (*cuMemGetInfo)(size_t *free, size_t *total);
  CUresult (*cuModuleLoadDataEx)(CUmodule *module, const void *image, unsigned nopts,
                                 CUjit_option *opts, void **values);
  CUresult (*cuModuleGetFunction)(CUfunction *fn, CUmodule module, const char *name);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuLaunchKernel)(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                             unsigned by, unsigned bz, unsigned sharedBytes, CUstream stream,
                             void **params, void **extra);
  CUresult (*cuGetErrorName)(CUresult error, const char **name);
  CUresult (*cuGetErrorString)(CUresult error, const char **text);
  // Optional tuning (null when the driver lacks them; nothing depends on them):
  CUresult (*cuDeviceGetDefaultMemPool)(CUmemoryPool *pool, CUdevice dev);
  CUresult (*cuMemPoolSetAttribute)(CUmemoryPool pool, int attr, void *value);
  CUresult (*cuMemPoolSetAccess)(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count);
  CUresult (*cuDeviceCanAccessPeer)(int *can, CUdevice dev, CUdevice peer);
  CUresult (*cuCtxEnablePeerAccess)(CUcontext peer, unsigned flags);
  CUresult (*cuDeviceGetPCIBusId)(char *id, int len, CUdevice dev);
};

/// The driver API, loaded and initialised (cuInit) on first use; null when there is
/// no usable driver, with the reason in `why` ("no NVIDIA driver: ...", "cuInit
/// failed: CUDA_ERROR_NO_DEVICE (...)", ...). Thread-safe; the answer never changes.
const CudaApi *cudaApi(std::string &why);

/// "<what>: <CUDA_ERROR_NAME> (<description>)" for a failed driver call.
std::string cudaErrorText(const CudaApi &api, CUresult r, const std::string &what);

/// Makes a context current on the calling thread for the lifetime of the object and
/// restores the previous one after (cuCtxPushCurrent / cuCtxPopCurrent).
class ScopedContext {
public:
  ScopedContext(const CudaApi &api, CUcontext ctx) : api_(api) { api_.cuCtxPushCurrent(ctx); }
  ~ScopedContext() {
    CUcontext old;
    api_.cuCtxPopCurrent(&old);
  }
  ScopedContext(const ScopedContext &) = delete;
  ScopedContext &operator=(const ScopedContext &) = delete;

private:
  const CudaApi &api_;
};

// ---- cuBLAS (cublas_api.h) -----------------------------------------------------------
typedef int cublasStatus_t;
typedef struct cublasContext *cublasHandle_t;
constexpr cublasStatus_t CUBLAS_STATUS_SUCCESS = 0;
constexpr int CUBLAS_OP_N = 0;
constexpr int CUBLAS_DEFAULT_MATH = 0;

/// The cuBLAS entry points used by spmd_gemm.
struct CublasApi {
  cublasStatus_t (*cublasCreate)(cublasHandle_t *handle);
  cublasStatus_t (*cublasDestroy)(cublasHandle_t handle);
  cublasStatus_t (*cublasSetStream)(cublasHandle_t handle, CUstream stream);
  cublasStatus_t (*cublasSetMathMode)(cublasHandle_t handle, int mode);
  cublasStatus_t (*cublasSgemmStridedBatched)(cublasHandle_t, int transa, int transb, int m, int n,
                                              int k, const float *alpha, const float *a, int lda,
                                              long long strideA, const float *b, int ldb,
                                              long long strideB, const float *beta, float *c,
                                              int ldc, long long strideC, int batch);
  cublasStatus_t (*cublasDgemmStridedBatched)(cublasHandle_t, int transa, int transb, int m, int n,
                                              int k, const double *alpha, const double *a, int lda,
                                              long long strideA, const double *b, int ldb,
                                              long long strideB, const double *beta, double *c,
                                              int ldc, long long strideC, int batch);
  std::string path;  ///< the library that was opened, for messages
};

/// cuBLAS, loaded on first use (Note [Finding cuBLAS]); null when no library was found
/// or one lacks a function. Thread-safe; the answer never changes.
const CublasApi *cublasApi();

}  // namespace spmd::rt::cuda
