// ===- CudaDevice.h - a logical CUDA device: a host thread and a stream -------===//
//
// A logical CUDA device is a persistent host worker thread (as a CPU device is, see
// cpu/CpuDevice.h) bound to one GPU's primary context, with its own non-blocking
// stream. For each launch it places its inputs in device memory (in place when a shard
// of this backend already holds them), allocates its outputs, and calls the device
// program (spmdrt.h, "device programs") under setjmp; the program enqueues kernels,
// copies and collectives on the stream through the Device methods below. Then the
// thread waits for the stream, checks the device's kernel error record, and keeps the
// outputs as shards (Note [Sharded arrays] in HostState.h). Several logical devices may
// share one GPU: they then run concurrently on their own streams.
#pragma once

#include "Device.h"
#include "cuda/CudaShared.h"

#include <atomic>
#include <condition_variable>
#include <csetjmp>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace spmd::rt::cuda {

/// How many of a backend's devices still run work that was started; `wake` is bumped
/// (and waiters woken) when the count drops to zero (as CpuCompletion).
struct Completion {
  std::atomic<int64_t> pending{0};
  std::atomic<uint32_t> wake{0};
};

class CudaDevice final : public Device {
public:
  /// Logical device `index` on `gpu`. Creates its stream, events and error record;
  /// throws std::runtime_error naming the CUDA error when that fails.
  CudaDevice(CudaShared &shared, int index, Gpu &gpu, Completion &done);
  ~CudaDevice() override;

  void start(const DeviceWork &work, spmd_dev *ctx) override;
  /// Waits until every device of the backend has finished its work, then returns this
  /// device's outcome.
  bool wait() override;
  /// Device memory from the stream-ordered pool, freed when the launch ends.
  void *scratch(int64_t bytes) override;
  double deviceSeconds() const override { return deviceSeconds_; }
  bool launchKernel(spmd_dev *d, const char *name, int64_t n, int32_t nparams,
                    void **params) override;
  bool copy(spmd_dev *d, void *dst, const void *src, int64_t bytes) override;
  bool read(spmd_dev *d, const void *p, int32_t bytes, int64_t &value) override;
  int gemm(spmd_dev *d, int32_t dtype, int64_t batch, int64_t m, int64_t n, int64_t k,
           const void *a, const void *b, void *c) override;
  /// longjmps to the setjmp around the device program (run()).
  [[noreturn]] void unwind() override;

  // For the communicator, on this device's own thread during a launch:
  int index() const { return index_; }
  Gpu &gpu() const { return gpu_; }
  CUstream stream() const { return stream_; }
  /// Two events of this device's context, recorded by collectives (Note [CUDA
  /// collectives] in CudaCommunicator.cpp).
  CUevent readyEvent() const { return ready_; }
  CUevent doneEvent() const { return done_; }
  /// The running launch's context, to record errors against.
  spmd_dev *context() const { return ctx_; }
  /// Host staging for reductions done on the host (grows; kept between launches).
  PinnedBuffer &hostStage() { return hostStage_; }
  PinnedBuffer &hostResult() { return hostResult_; }
  /// `bytes` of device memory freed when the launch ends; 0 after recording an error.
  CUdeviceptr temp(int64_t bytes);
  /// Records "<what>: <CUDA error>" for this device's launch; returns false.
  bool fail(CUresult r, const std::string &what);

private:
  void loop();
  /// One launch on this device; false when it failed (the error is recorded).
  bool run(const DeviceWork &work, spmd_dev *ctx);
  /// Puts input k in device memory (devIns_[k]).
  bool placeInput(const DeviceWork &work, size_t k);
  /// After the program: waits for the stream, checks the kernel error record, frees
  /// the launch's temporary memory. False when any of it failed.
  bool finishLaunch(bool ok);
  /// Records the index error a kernel left in the error record.
  void reportKernelError();
  /// The CUfunction named `name` on this device's GPU, or null after recording an error.
  CUfunction function(const char *name);
  /// Stream-ordered allocation of `bytes` (at least 1); records the error (a clear
  /// out-of-memory message when that is what it is) and returns false when it fails.
  bool allocate(CUdeviceptr &p, int64_t bytes);
  /// Frees what the constructor created (also when it fails half-way).
  void destroy();

  CudaShared &shared_;
  const CudaApi &api_;
  int index_;
  Gpu &gpu_;
  Completion &completion_;
  CUstream stream_ = nullptr;
  CUevent begun_ = nullptr, ended_ = nullptr;  ///< time the work of a launch on the stream
  double deviceSeconds_ = -1;
  CUevent ready_ = nullptr, done_ = nullptr;
  /// The kernel error record (spmd_kernel_error), in mapped pinned memory: host view
  /// and the address kernels receive. The 32 bytes after it receive read()'s value.
  void *record_ = nullptr;
  CUdeviceptr recordDev_ = 0;
  PinnedBuffer hostStage_, hostResult_;
  void *blas_ = nullptr;     ///< cublasHandle_t, created on the first gemm
  bool blasFailed_ = false;  ///< cuBLAS could not be set up: gemm answers 1

  // Per launch (touched only by this device's thread while it runs one).
  CUresult bound_ = CUDA_SUCCESS;  ///< binding the thread to the GPU's context
  spmd_dev *ctx_ = nullptr;
  std::vector<void *> devIns_, devOuts_;
  std::vector<CUdeviceptr> temps_;  ///< freed when the launch ends
  std::vector<ShardRef> held_;      ///< shards in use; dropped at the next launch
  std::vector<void *> params_;      ///< kernelParams of the last launchKernel
  /// Function cache: name pointer -> (name, function), valid for one module generation.
  std::unordered_map<const char *, std::pair<std::string, CUfunction>> functions_;
  uint64_t functionsGeneration_ = 0;

  // The worker thread, as in CpuDevice.
  std::mutex mu_;
  std::condition_variable cv_;
  const DeviceWork *work_ = nullptr;
  spmd_dev *startCtx_ = nullptr;
  std::jmp_buf unwind_;  ///< set around the device program (Note [Unwinding kernels])
  bool ok_ = true;
  bool stop_ = false;
  std::thread thread_;  ///< started by the constructor once everything else exists
};

}  // namespace spmd::rt::cuda
