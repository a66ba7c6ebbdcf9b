// ===- CudaBackend.cpp - GPUs, kernel modules and the sharded-array hooks -----===//
#include "cuda/CudaBackend.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace spmd::rt {

int cudaDeviceCount(std::string &why) {
  const cuda::CudaApi *api = cuda::cudaApi(why);
  if (!api) return 0;
  int count = 0;
  cuda::CUresult r = api->cuDeviceGetCount(&count);
  if (r != cuda::CUDA_SUCCESS) {
    why = cuda::cudaErrorText(*api, r, "cuDeviceGetCount failed");
    return 0;
  }
  if (count <= 0) why = "the NVIDIA driver sees no GPU";
  return std::max(count, 0);
}

std::unique_ptr<Backend> makeCudaBackend(int count) {
  std::string why;
  const cuda::CudaApi *api = cuda::cudaApi(why);
  if (!api) throw std::runtime_error(why);
  return std::make_unique<cuda::CudaBackend>(*api, count);
}

}  // namespace spmd::rt

namespace spmd::rt::cuda {

namespace {
/// Throws "<what>: <CUDA error>" when `r` is an error.
void check(const CudaApi &api, CUresult r, const std::string &what) {
  if (r != CUDA_SUCCESS) throw std::runtime_error(cudaErrorText(api, r, what));
}
}  // namespace

CudaBackend::CudaBackend(const CudaApi &api, int count) : shared_(api) {
  int gpus = 0;
  check(api, api.cuDeviceGetCount(&gpus), "counting the GPUs");
  if (gpus <= 0) throw std::runtime_error("the NVIDIA driver sees no GPU");
  int n = count > 0 ? count : gpus;
  // Logical device i runs on GPU i*G/N: blocks of consecutive devices share a GPU,
  // and with fewer devices than GPUs only the GPUs in use are set up.
  std::vector<int> gpuOf(n);
  for (int i = 0; i < n; ++i) gpuOf[i] = int(int64_t(i) * gpus / n);
  setUp(gpuOf, 0, n);
}

CudaBackend::CudaBackend(const CudaApi &api, int count, int ordinal, int firstIndex,
                         int meshDevices)
    : shared_(api) {
  setUp(std::vector<int>(size_t(count), ordinal), firstIndex, meshDevices);
}

void CudaBackend::setUp(const std::vector<int> &gpuOf, int firstIndex, int meshDevices) {
  const CudaApi &api = shared_.api;
  try {
    int n = int(gpuOf.size());
    for (int i = 0; i < n; ++i)
      if (i == 0 || gpuOf[i] != gpuOf[i - 1]) addGpu(gpuOf[i]);
    connectGpus();
    // The communicator sees every device of the job by global index (null: another
    // process's); it only ever touches groups inside this process.
    std::vector<CudaDevice *> raw(size_t(meshDevices), nullptr);
    for (int i = 0, g = -1; i < n; ++i) {
      if (i == 0 || gpuOf[i] != gpuOf[i - 1]) ++g;
      devices_.push_back(
          std::make_unique<CudaDevice>(shared_, firstIndex + i, *shared_.gpus[g], done_));
      raw[size_t(firstIndex + i)] = devices_.back().get();
    }
    comm_ = std::make_unique<CudaCommunicator>(api, std::move(raw));
  } catch (...) {
    teardown();
    throw;
  }
}

CudaBackend::~CudaBackend() { teardown(); }

void CudaBackend::addGpu(int ordinal) {
  const CudaApi &api = shared_.api;
  auto gpu = std::make_unique<Gpu>();
  gpu->ordinal = ordinal;
  std::string which = "GPU " + std::to_string(ordinal);
  check(api, api.cuDeviceGet(&gpu->dev, ordinal), "opening " + which);
  char name[256] = {};
  check(api, api.cuDeviceGetName(name, sizeof name - 1, gpu->dev), "naming " + which);
  gpu->name = name;
  check(api,
        api.cuDeviceGetAttribute(&gpu->smCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, gpu->dev),
        "querying " + which);
  gpu->smCount = std::max(gpu->smCount, 1);
  check(api, api.cuDevicePrimaryCtxRetain(&gpu->ctx, gpu->dev), "opening a context on " + which);
  Gpu &g = *gpu;
  shared_.gpus.push_back(std::move(gpu));  // from here on teardown() releases it
  ScopedContext scope(api, g.ctx);
  check(api, api.cuStreamCreate(&g.releaseStream, CU_STREAM_NON_BLOCKING),
        "creating a stream on " + which);
  // Keep freed pool memory for the next launch instead of returning it to the driver
  // at every synchronization (the default): launches allocate the same sizes again.
  CUmemoryPool pool = nullptr;
  if (api.cuDeviceGetDefaultMemPool && api.cuMemPoolSetAttribute &&
      api.cuDeviceGetDefaultMemPool(&pool, g.dev) == CUDA_SUCCESS) {
    uint64_t keep = UINT64_MAX;
    api.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep);
  }
}

// Note [Several GPUs]
// ~~~~~~~~~~~~~~~~~~~
// Copies between GPUs go through cuMemcpyAsync on unified addresses, which works with
// or without peer access (the driver stages through the host when it must). Peer
// access makes them direct, so it is enabled where the hardware allows; memory from
// the stream-ordered pool (all device buffers here) is, in addition, only mapped for
// the GPU that owns the pool unless the pool grants others access. Everything here is
// best effort: a failure leaves the slower path, never an error.
void CudaBackend::connectGpus() {
  const CudaApi &api = shared_.api;
  if (shared_.gpus.size() < 2 || !api.cuDeviceCanAccessPeer || !api.cuCtxEnablePeerAccess) return;
  for (auto &a : shared_.gpus) {
    for (auto &b : shared_.gpus) {
      int can = 0;
      if (a == b || api.cuDeviceCanAccessPeer(&can, a->dev, b->dev) != CUDA_SUCCESS || !can)
        continue;
      {
        ScopedContext scope(api, a->ctx);
        api.cuCtxEnablePeerAccess(b->ctx, 0);  // "already enabled" is fine too
      }
      CUmemoryPool pool = nullptr;
      if (api.cuDeviceGetDefaultMemPool && api.cuMemPoolSetAccess &&
          api.cuDeviceGetDefaultMemPool(&pool, b->dev) == CUDA_SUCCESS) {
        CUmemAccessDesc desc{CU_MEM_LOCATION_TYPE_DEVICE, a->ordinal,
                             CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
        api.cuMemPoolSetAccess(pool, &desc, 1);
      }
    }
  }
}

void CudaBackend::teardown() {
  const CudaApi &api = shared_.api;
  comm_.reset();
  devices_.clear();  // joins the threads, destroys the streams
  shared_.shards.clear();
  for (auto &gpu : shared_.gpus) {
    if (!gpu->ctx) continue;
    {
      ScopedContext scope(api, gpu->ctx);
      if (gpu->releaseStream) {
        api.cuStreamSynchronize(gpu->releaseStream);
        api.cuStreamDestroy(gpu->releaseStream);
      }
      for (CUmodule m : gpu->modules) api.cuModuleUnload(m);
    }
    api.cuDevicePrimaryCtxRelease(gpu->dev);
  }
  shared_.gpus.clear();
}

std::string CudaBackend::describe() const {
  size_t n = devices_.size(), g = shared_.gpus.size();
  std::string names;
  for (const auto &gpu : shared_.gpus) {
    if (names.find(gpu->name) != std::string::npos) continue;
    names += (names.empty() ? "" : ", ") + gpu->name;
  }
  return std::to_string(n) + " CUDA device" + (n == 1 ? "" : "s") + " on " + std::to_string(g) +
         " GPU" + (g == 1 ? "" : "s") + " (" + names + ")";
}

void CudaBackend::loadKernels(const std::string &ptx) {
  if (ptx.empty()) return;
  const CudaApi &api = shared_.api;
  std::vector<CUmodule> loaded;
  for (auto &gpu : shared_.gpus) {
    ScopedContext scope(api, gpu->ctx);
    std::string errorLog(16384, '\0'), infoLog(4096, '\0');
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                              CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {errorLog.data(), reinterpret_cast<void *>(uintptr_t(errorLog.size())),
                      infoLog.data(), reinterpret_cast<void *>(uintptr_t(infoLog.size()))};
    CUmodule module = nullptr;
    CUresult r = api.cuModuleLoadDataEx(&module, ptx.c_str(), 4, options, values);
    if (r != CUDA_SUCCESS) {
      for (size_t i = 0; i < loaded.size(); ++i) {
        ScopedContext other(api, shared_.gpus[i]->ctx);
        api.cuModuleUnload(loaded[i]);
      }
      errorLog.resize(errorLog.find('\0') == std::string::npos ? errorLog.size()
                                                               : errorLog.find('\0'));
      throw std::runtime_error(cudaErrorText(api, r,
                                             "the GPU kernels do not load on GPU " +
                                                 std::to_string(gpu->ordinal) + " (" + gpu->name +
                                                 ")") +
                               (errorLog.empty() ? std::string() : "\n" + errorLog));
    }
    loaded.push_back(module);
  }
  {
    std::lock_guard<std::mutex> lock(shared_.modulesMu);
    for (size_t i = 0; i < loaded.size(); ++i) shared_.gpus[i]->modules.push_back(loaded[i]);
  }
  shared_.moduleGeneration.fetch_add(1);
}

bool CudaBackend::gather(void *host, int64_t bytes, std::string &why) {
  const CudaApi &api = shared_.api;
  auto end = reinterpret_cast<uintptr_t>(host) + uint64_t(std::max<int64_t>(bytes, 0));
  for (const ShardTable::Entry &e : shared_.shards.take(host, bytes)) {
    int64_t n = std::min<int64_t>(e.second->bytes, int64_t(end - e.first));
    if (n <= 0) continue;
    ScopedContext scope(api, e.second->gpu.ctx);
    CUresult r = api.cuMemcpyDtoH(reinterpret_cast<void *>(e.first), e.second->ptr, size_t(n));
    if (r != CUDA_SUCCESS) {
      why = cudaErrorText(
          api, r, "copying a result back from GPU " + std::to_string(e.second->gpu.ordinal));
      return false;
    }
  }
  return true;
}

void CudaBackend::release(void *host, int64_t bytes) { shared_.shards.take(host, bytes); }

void CudaBackend::alias(void *dst, const void *src, int64_t bytes) {
  shared_.shards.alias(dst, src, bytes);
}

}  // namespace spmd::rt::cuda
