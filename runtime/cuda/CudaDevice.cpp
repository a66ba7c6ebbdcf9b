// ===- CudaDevice.cpp - a logical CUDA device: launches and device programs ---===//
//
// The worker thread and one launch on a logical CUDA device (CudaDevice.h), and the
// Device methods that device programs reach through spmd_kernel_launch, spmd_dev_copy,
// spmd_dev_read, spmd_gemm and spmd_dev_alloc. Every driver call is checked; a failure
// becomes "<what>: <CUDA_ERROR_NAME> (<description>)" in the launch's ErrorState and the
// launch fails (never an abort, never a hang).
#include "cuda/CudaDevice.h"

#include "Trace.h"

#include <algorithm>
#include <climits>
#include <csetjmp>
#include <cstring>
#include <stdexcept>

namespace spmd::rt::cuda {

// Note [Shard lifetime]
// ~~~~~~~~~~~~~~~~~~~~~
// A shard's device buffer must outlive every read of it, and those reads are
// asynchronous: a kernel or copy enqueued on some device's stream. Each device keeps a
// reference (held_) to every shard it reads during a launch, and drops them only after
// its stream has been synchronized at the end of the launch. Collectives read other
// members' buffers from other streams, but every member's stream waits for all members'
// copies before it goes on (Note [CUDA collectives] in CudaCommunicator.cpp), so a
// synchronized stream also means nobody reads that device's buffers any more. The table
// itself may drop a shard at any time (a newer result at the same host address, a host
// write or free); the buffer then dies when the last holder lets go, and its free is
// ordered on the GPU's release stream after everything already finished. The same
// argument covers temporary memory (temps_): it is freed after the stream is
// synchronized.

namespace {

/// Calls the device program under setjmp; only this frame is re-entered by longjmp and
/// it holds nothing that needs destroying (Note [Unwinding kernels] in Device.cpp).
bool callProgram(std::jmp_buf &unwind, spmd_kernel_fn fn, spmd_dev *ctx, void **ins, void **outs) {
  if (setjmp(unwind) != 0) return false;
  fn(ctx, ins, outs);
  return true;
}

void *toPtr(CUdeviceptr p) { return reinterpret_cast<void *>(static_cast<uintptr_t>(p)); }
CUdeviceptr toDev(const void *p) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p));
}

/// Bytes of the pinned block per device: the error record, then read()'s landing slot.
constexpr size_t kRecordBytes = 64;
constexpr size_t kReadOffset = 32;
static_assert(sizeof(spmd_kernel_error) == 32, "spmdrt.h: the error record is 32 bytes");

}  // namespace

CudaDevice::CudaDevice(CudaShared &shared, int index, Gpu &gpu, Completion &done)
    : shared_(shared), api_(shared.api), index_(index), gpu_(gpu), completion_(done),
      hostStage_(shared.api, gpu.ctx), hostResult_(shared.api, gpu.ctx) {
  ScopedContext scope(api_, gpu_.ctx);
  auto check = [&](CUresult r, const char *what) {
    if (r == CUDA_SUCCESS) return;
    destroy();
    throw std::runtime_error(
        cudaErrorText(api_, r, std::string(what) + " for CUDA device " + std::to_string(index_)));
  };
  check(api_.cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "creating a stream");
  check(api_.cuEventCreate(&ready_, CU_EVENT_DISABLE_TIMING), "creating an event");
  check(api_.cuEventCreate(&done_, CU_EVENT_DISABLE_TIMING), "creating an event");
  check(api_.cuEventCreate(&begun_, 0), "creating a timing event");
  check(api_.cuEventCreate(&ended_, 0), "creating a timing event");
  check(api_.cuMemHostAlloc(&record_, kRecordBytes,
                            CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP),
        "allocating the kernel error record");
  std::memset(record_, 0, kRecordBytes);
  check(api_.cuMemHostGetDevicePointer(&recordDev_, record_, 0), "mapping the kernel error record");
  thread_ = std::thread([this] { loop(); });
}

void CudaDevice::destroy() {
  ScopedContext scope(api_, gpu_.ctx);
  if (blas_) cublasApi()->cublasDestroy(static_cast<cublasHandle_t>(blas_));
  if (stream_) api_.cuStreamSynchronize(stream_);
  if (ready_) api_.cuEventDestroy(ready_);
  if (done_) api_.cuEventDestroy(done_);
  if (begun_) api_.cuEventDestroy(begun_);
  if (ended_) api_.cuEventDestroy(ended_);
  if (stream_) api_.cuStreamDestroy(stream_);
  if (record_) api_.cuMemFreeHost(record_);
  blas_ = nullptr;
  ready_ = done_ = begun_ = ended_ = nullptr;
  stream_ = nullptr;
  record_ = nullptr;
}

CudaDevice::~CudaDevice() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  destroy();
}

// ---- the worker thread (as CpuDevice) ---------------------------------------------

void CudaDevice::start(const DeviceWork &work, spmd_dev *ctx) {
  completion_.pending.fetch_add(1);
  {
    std::lock_guard<std::mutex> lock(mu_);
    work_ = &work;
    startCtx_ = ctx;
  }
  cv_.notify_all();
}

bool CudaDevice::wait() {
  for (;;) {
    uint32_t seen = completion_.wake.load();
    if (completion_.pending.load() == 0) break;
    completion_.wake.wait(seen);
  }
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return work_ == nullptr; });
  return ok_;
}

void CudaDevice::loop() {
  // The thread works in its GPU's primary context for its whole life.
  bound_ = api_.cuCtxSetCurrent(gpu_.ctx);
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return work_ != nullptr || stop_; });
    if (stop_) return;
    const DeviceWork *work = work_;
    spmd_dev *ctx = startCtx_;
    lock.unlock();
    bool ok = run(*work, ctx);
    lock.lock();
    ok_ = ok;
    work_ = nullptr;
    lock.unlock();
    if (completion_.pending.fetch_sub(1) == 1) {
      completion_.wake.fetch_add(1);
      completion_.wake.notify_all();
    }
    lock.lock();
  }
}

// ---- one launch ---------------------------------------------------------------------

/// " in pmap i @ file:line:col": where in the program a device error happened.
static std::string inRegion(const spmd_dev *ctx) {
  return ctx && ctx->launch ? std::string(" in ") + ctx->launch : std::string();
}

bool CudaDevice::fail(CUresult r, const std::string &what) {
  recordDeviceError(ctx_, cudaErrorText(api_, r, what) + inRegion(ctx_));
  return false;
}

bool CudaDevice::allocate(CUdeviceptr &p, int64_t bytes) {
  p = 0;
  if (bytes < 0) {
    recordDeviceError(ctx_, "device " + std::to_string(index_) + ": a negative allocation (" +
                                std::to_string(bytes) + " bytes)");
    return false;
  }
  CUresult r = api_.cuMemAllocAsync(&p, size_t(std::max<int64_t>(bytes, 1)), stream_);
  if (r == CUDA_SUCCESS) return true;
  p = 0;
  if (r == CUDA_ERROR_OUT_OF_MEMORY) {
    recordDeviceError(ctx_, "device " + std::to_string(index_) + " is out of memory (allocating " +
                                std::to_string(bytes) + " bytes: CUDA_ERROR_OUT_OF_MEMORY)" +
                                inRegion(ctx_));
    return false;
  }
  return fail(r,
              "allocating " + std::to_string(bytes) + " bytes on device " + std::to_string(index_));
}

CUdeviceptr CudaDevice::temp(int64_t bytes) {
  CUdeviceptr p;
  if (!allocate(p, bytes)) return 0;
  temps_.push_back(p);
  return p;
}

void *CudaDevice::scratch(int64_t bytes) { return toPtr(temp(bytes)); }

bool CudaDevice::placeInput(const DeviceWork &work, size_t k) {
  const void *host = work.ins[k];
  int64_t bytes = work.inBytes[k];
  if (ShardRef s = shared_.shards.find(host, bytes)) {
    if (&s->gpu == &gpu_) {  // in place: a shard on this GPU
      devIns_[k] = toPtr(s->ptr);
      held_.push_back(std::move(s));
      return true;
    }
    CUdeviceptr p = temp(bytes);  // a shard on another GPU: copy it over
    if (!p) return false;
    CUresult r = api_.cuMemcpyAsync(p, s->ptr, size_t(bytes), stream_);
    held_.push_back(std::move(s));
    if (r != CUDA_SUCCESS)
      return fail(r, "copying input " + std::to_string(k) + " between GPUs for device " +
                         std::to_string(index_));
    devIns_[k] = toPtr(p);
    return true;
  }
  CUdeviceptr p = temp(bytes);
  if (!p) return false;
  // From pageable memory the call returns once the bytes are staged, so the host may
  // change its buffer afterwards.
  if (bytes > 0) {
    CUresult r = api_.cuMemcpyHtoDAsync(p, host, size_t(bytes), stream_);
    if (r != CUDA_SUCCESS)
      return fail(r, "copying input " + std::to_string(k) + " to device " + std::to_string(index_));
  }
  devIns_[k] = toPtr(p);
  return true;
}

bool CudaDevice::run(const DeviceWork &work, spmd_dev *ctx) {
  ctx_ = ctx;
  if (bound_ != CUDA_SUCCESS)
    return fail(bound_, "binding device " + std::to_string(index_) + "'s thread to its GPU");
  std::memset(record_, 0, sizeof(spmd_kernel_error));
  devIns_.assign(work.ins.size(), nullptr);
  devOuts_.assign(work.outs.size(), nullptr);
  bool ok = true;
  for (size_t k = 0; ok && k < work.ins.size(); ++k) ok = placeInput(work, k);
  // Written outputs get buffers of their own (they become shards); discarded ones
  // write to temporary memory.
  std::vector<CUdeviceptr> outs(work.outs.size(), 0);
  for (size_t k = 0; ok && k < work.outs.size(); ++k) {
    if (work.outs[k])
      ok = allocate(outs[k], work.outBytes[k]);
    else
      ok = (outs[k] = temp(work.outBytes[k])) != 0;
    devOuts_[k] = toPtr(outs[k]);
  }
  deviceSeconds_ = -1;
  bool timed = ok && api_.cuEventElapsedTime && api_.cuEventRecord(begun_, stream_) == CUDA_SUCCESS;
  if (ok) {
    double t0 = trace::enabled() ? trace::nowMicros() : 0;
    ok = callProgram(unwind_, work.fn, ctx, devIns_.data(), devOuts_.data());
    timed = timed && api_.cuEventRecord(ended_, stream_) == CUDA_SUCCESS;
    if (trace::enabled())
      trace::complete(trace::kDevicePid, index_, trace::currentLaunch(), "kernel", t0,
                      trace::nowMicros() - t0, ok ? "" : "\"failed\":true");
  }
  ok = finishLaunch(ok);
  // The GPU's own time for the launch's work on this stream (--stats "device ms").
  float ms = 0;
  if (ok && timed && api_.cuEventElapsedTime(&ms, begun_, ended_) == CUDA_SUCCESS)
    deviceSeconds_ = ms * 1e-3;
  std::vector<ShardRef> dropped;
  for (size_t k = 0; k < work.outs.size(); ++k) {
    if (!work.outs[k] || !outs[k]) continue;
    if (ok)
      shared_.shards.put(work.outs[k],
                         std::make_shared<Shard>(api_, gpu_, outs[k], work.outBytes[k]), dropped);
    else
      api_.cuMemFreeAsync(outs[k], stream_);
  }
  return ok;  // `dropped` dies here: Note [Shard lifetime]
}

bool CudaDevice::finishLaunch(bool ok) {
  CUresult r = api_.cuStreamSynchronize(stream_);
  if (r != CUDA_SUCCESS)
    ok = fail(r, "running the work of device " + std::to_string(index_));
  else if (static_cast<const spmd_kernel_error *>(record_)->flag != 0) {
    reportKernelError();
    ok = false;
  }
  for (CUdeviceptr p : temps_) api_.cuMemFreeAsync(p, stream_);
  temps_.clear();
  held_.clear();
  return ok;
}

void CudaDevice::reportKernelError() {
  spmd_kernel_error e;
  std::memcpy(&e, record_, sizeof e);
  // The location string lives in the kernel module's global memory; read it a byte at a
  // time, so as never to read past the end of the module (only on this error path).
  std::string where;
  for (uint64_t at = e.where; at != 0 && where.size() < 512; ++at) {
    char c = 0;
    if (api_.cuMemcpyDtoH(&c, at, 1) != CUDA_SUCCESS || c == 0) break;
    where += c;
  }
  recordDeviceError(ctx_, indexErrorMessage(e.index, e.size, where.empty() ? "?" : where.c_str()));
}

// ---- what device programs call ------------------------------------------------------

CUfunction CudaDevice::function(const char *name) {
  if (!name) {
    recordDeviceError(ctx_, "a kernel launch without a kernel name");
    return nullptr;
  }
  uint64_t generation = shared_.moduleGeneration.load();
  if (generation != functionsGeneration_) {
    functions_.clear();
    functionsGeneration_ = generation;
  }
  auto it = functions_.find(name);
  if (it != functions_.end() && it->second.first == name) return it->second.second;
  CUfunction fn = nullptr;
  size_t modules;
  {
    std::lock_guard<std::mutex> lock(shared_.modulesMu);
    modules = gpu_.modules.size();
    // Newest module first: a name loaded again (the REPL) means the new kernel.
    for (auto m = gpu_.modules.rbegin(); m != gpu_.modules.rend() && !fn; ++m)
      if (api_.cuModuleGetFunction(&fn, *m, name) != CUDA_SUCCESS) fn = nullptr;
  }
  if (!fn) {
    recordDeviceError(ctx_, std::string("no GPU kernel named '") + name + "' is loaded" +
                                (modules == 0 ? " (no kernel module was loaded)" : ""));
    return nullptr;
  }
  functions_[name] = {name, fn};
  return fn;
}

bool CudaDevice::launchKernel(spmd_dev *d, const char *name, int64_t n, int32_t nparams,
                              void **params) {
  CUfunction fn = function(name);
  if (!fn) return false;
  uint64_t items = n > 0 ? uint64_t(n) : 0;
  params_.resize(size_t(2 + std::max(nparams, 0)));
  params_[0] = &recordDev_;
  params_[1] = &items;
  for (int32_t i = 0; i < nparams; ++i) params_[2 + i] = params[i];
  constexpr uint64_t kThreads = 256;
  uint64_t blocks =
      std::min<uint64_t>((items + kThreads - 1) / kThreads, uint64_t(8) * uint64_t(gpu_.smCount));
  blocks = std::max<uint64_t>(blocks, 1);
  CUresult r = api_.cuLaunchKernel(fn, unsigned(blocks), 1, 1, unsigned(kThreads), 1, 1, 0, stream_,
                                   params_.data(), nullptr);
  if (r != CUDA_SUCCESS)
    return fail(r, std::string("launching GPU kernel ") + name + " on device " +
                       std::to_string(index_));
  return true;
}

bool CudaDevice::copy(spmd_dev *d, void *dst, const void *src, int64_t bytes) {
  if (bytes <= 0 || dst == src) return true;
  // Unified addressing: the driver finds where each side lives (this GPU, as a rule).
  CUresult r = api_.cuMemcpyAsync(toDev(dst), toDev(src), size_t(bytes), stream_);
  if (r != CUDA_SUCCESS)
    return fail(r,
                "copying " + std::to_string(bytes) + " bytes on device " + std::to_string(index_));
  return true;
}

bool CudaDevice::read(spmd_dev *d, const void *p, int32_t bytes, int64_t &value) {
  if (bytes != 1 && bytes != 4 && bytes != 8) {
    recordDeviceError(d, "spmd_dev_read of " + std::to_string(bytes) + " bytes (1, 4 or 8)");
    return false;
  }
  char *slot = static_cast<char *>(record_) + kReadOffset;
  CUresult r = api_.cuMemcpyDtoHAsync(slot, toDev(p), size_t(bytes), stream_);
  if (r == CUDA_SUCCESS) r = api_.cuStreamSynchronize(stream_);
  if (r != CUDA_SUCCESS)
    return fail(r, "reading a value back from device " + std::to_string(index_));
  uint64_t v = 0;
  std::memcpy(&v, slot, size_t(bytes));  // little-endian: zero-extends
  value = int64_t(v);
  return true;
}

void CudaDevice::unwind() { std::longjmp(unwind_, 1); }

int CudaDevice::gemm(spmd_dev *d, int32_t dtype, int64_t batch, int64_t m, int64_t n, int64_t k,
                     const void *a, const void *b, void *c) {
  if (dtype != int32_t(DType::F32) && dtype != int32_t(DType::F64)) return 1;
  if (batch < 0 || m < 0 || n < 0 || k < 0 || batch > INT_MAX || m > INT_MAX || n > INT_MAX ||
      k > INT_MAX)
    return 1;
  if (batch == 0 || m == 0 || n == 0) return 0;
  int64_t esize = dtypeSize(dtype);
  if (k == 0) {  // an empty sum: C = 0
    CUresult r = api_.cuMemsetD8Async(toDev(c), 0, size_t(batch * m * n * esize), stream_);
    return r == CUDA_SUCCESS ? 0 : (fail(r, "zeroing a gemm result"), -1);
  }
  const CublasApi *blas = cublasApi();
  if (!blas || blasFailed_) return 1;
  if (!blas_) {
    // A library that does not fit the driver shows here: then BLAS is unavailable.
    cublasHandle_t h = nullptr;
    if (blas->cublasCreate(&h) != CUBLAS_STATUS_SUCCESS || !h) {
      blasFailed_ = true;
      return 1;
    }
    // Default math: true f32 (no TF32 tensor cores), as on the CPU.
    if (blas->cublasSetStream(h, stream_) != CUBLAS_STATUS_SUCCESS ||
        blas->cublasSetMathMode(h, CUBLAS_DEFAULT_MATH) != CUBLAS_STATUS_SUCCESS) {
      blas->cublasDestroy(h);
      blasFailed_ = true;
      return 1;
    }
    blas_ = h;
  }
  // Row-major C = A B is column-major C^T = B^T A^T: B first, dimensions (n, m, k).
  auto h = static_cast<cublasHandle_t>(blas_);
  cublasStatus_t s;
  if (dtype == int32_t(DType::F32)) {
    float one = 1, zero = 0;
    s = blas->cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(m), int(k), &one,
                                        static_cast<const float *>(b), int(n), k * n,
                                        static_cast<const float *>(a), int(k), m * k, &zero,
                                        static_cast<float *>(c), int(n), m * n, int(batch));
  } else {
    double one = 1, zero = 0;
    s = blas->cublasDgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(m), int(k), &one,
                                        static_cast<const double *>(b), int(n), k * n,
                                        static_cast<const double *>(a), int(k), m * k, &zero,
                                        static_cast<double *>(c), int(n), m * n, int(batch));
  }
  if (s != CUBLAS_STATUS_SUCCESS) {
    recordDeviceError(d, "cuBLAS gemm (" + std::to_string(batch) + " x " + std::to_string(m) + "x" +
                             std::to_string(k) + " @ " + std::to_string(k) + "x" +
                             std::to_string(n) + ") failed with status " + std::to_string(s) +
                             " on device " + std::to_string(index_));
    return -1;
  }
  return 0;
}

}  // namespace spmd::rt::cuda
