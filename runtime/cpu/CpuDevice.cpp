// ===- CpuDevice.cpp - a logical CPU device: one persistent worker thread ------===//
#include "cpu/CpuDevice.h"

#include "cpu/CpuCommunicator.h"
#include "cpu/Spin.h"
#include "Denormals.h"
#include "Trace.h"

#include <csetjmp>
#include <cstring>
#include <string>
#include <vector>

namespace spmd::rt {

// Note [Dispatch]
// ~~~~~~~~~~~~~~~
// A launch hands each device its work and waits for all of them. The devices of a
// backend share one futex word, `go`: the host posts the work of every device of the
// launch (a pointer and a flag per device), bumps `go` once and wakes all sleepers with
// one FUTEX_WAKE; each woken thread takes its flag, or goes back to sleep when the
// launch has nothing for it. A thread reads `go` before it looks at its flag, so a post
// between the two is seen either by the flag or by `go` having moved: none is lost. The
// last device to finish bumps `wake`, the word the host sleeps on. The CPU backend runs
// device 0's share on the host thread itself (runHere), which saves a thread's wake-up
// and sleep per launch and leaves a core free for the others. When the launch has no
// more devices than the machine has cores, both sides spin briefly before they sleep
// (Spin.h); they sleep on the futex itself (sleepWhile), not in std::atomic::wait,
// whose sched_yield loop switches threads on a busy machine. Before, each device had its
// own mutex and condition variable, so a launch cost a wake and a sleep per device and
// the host took every device's lock twice.

CpuDevice::CpuDevice(int index, CpuCompletion &done, HostKernels &kernels)
    : index_(index), done_(done), kernels_(kernels), thread_([this] { loop(); }) {}

CpuDevice::~CpuDevice() {
  stop_.store(true);
  kick(done_);  // the others find nothing posted and sleep again
  thread_.join();
}

void CpuDevice::post(const DeviceWork &work, spmd_dev *ctx) {
  done_.pending.fetch_add(1);
  work_ = &work;
  ctx_ = ctx;
  posted_.store(true, std::memory_order_release);
}

void CpuDevice::kick(CpuCompletion &done) {
  done.go.fetch_add(1, std::memory_order_release);
  wakeAll(done.go);
}

void CpuDevice::start(const DeviceWork &work, spmd_dev *ctx) {
  post(work, ctx);
  kick(done_);
}

void CpuDevice::runHere(const DeviceWork &work, spmd_dev *ctx) {
  DenormalMode flush(true);  // as on the device threads (Note [Denormals])
  ok_ = run(work, ctx);
}

bool CpuDevice::wait() {
  for (;;) {
    uint32_t seen = done_.wake.load(std::memory_order_acquire);
    if (done_.pending.load(std::memory_order_acquire) == 0) break;
    awaitChangeFutex(done_.wake, seen, waitSpin_, done_.spin.load(std::memory_order_relaxed));
  }
  return ok_;
}

void *CpuDevice::scratch(int64_t bytes) { return arena_.alloc(bytes); }

bool CpuDevice::launchKernel(spmd_dev *d, const char *name, int64_t n, int32_t nparams,
                             void **params) {
  if (!name) {
    recordDeviceError(d, "a kernel launch without a kernel name");
    return false;
  }
  uint64_t generation = kernels_.generation.load();
  if (generation != kernelGeneration_) {
    kernelCache_.clear();
    kernelGeneration_ = generation;
  }
  auto it = kernelCache_.find(name);
  if (it == kernelCache_.end() || it->second.first != name) {
    HostKernelFn fn = nullptr;
    {
      std::lock_guard<std::mutex> lock(kernels_.mu);
      auto k = kernels_.byName.find(name);
      if (k != kernels_.byName.end()) fn = k->second;
    }
    if (!fn) {
      recordDeviceError(d, std::string("no kernel named '") + name +
                               "' is loaded for CPU devices (a CPU device cannot run GPU kernels)");
      return false;
    }
    it = kernelCache_.insert_or_assign(name, std::make_pair(std::string(name), fn)).first;
  }
  record_ = spmd_kernel_error{};
  it->second.second(&record_, n, params);
  if (record_.flag == 0) return true;
  // On the host, `where` is the address of the location string in the host module.
  const char *where = reinterpret_cast<const char *>(static_cast<uintptr_t>(record_.where));
  recordDeviceError(d, indexErrorMessage(record_.index, record_.size, where));
  return false;
}

bool CpuDevice::copy(spmd_dev *d, void *dst, const void *src, int64_t bytes) {
  if (bytes > 0 && dst != src) std::memmove(dst, src, size_t(bytes));
  return true;
}

bool CpuDevice::read(spmd_dev *d, const void *p, int32_t bytes, int64_t &value) {
  switch (bytes) {
  case 1: value = *static_cast<const uint8_t *>(p); return true;
  case 4: value = *static_cast<const uint32_t *>(p); return true;
  case 8: value = *static_cast<const int64_t *>(p); return true;
  }
  recordDeviceError(d, "spmd_dev_read of " + std::to_string(bytes) + " bytes (1, 4 or 8)");
  return false;
}

int CpuDevice::gemm(spmd_dev *d, int32_t dtype, int64_t batch, int64_t m, int64_t n, int64_t k,
                    const void *a, const void *b, void *c) {
  return 1;
}

/// Calls the kernel under setjmp. Kept apart so that only this frame is re-entered by
/// longjmp, and it holds nothing that needs destroying.
static bool callKernel(std::jmp_buf &unwind, spmd_kernel_fn fn, spmd_dev *ctx, void **ins,
                       void **outs) {
  if (setjmp(unwind) != 0) return false;
  fn(ctx, ins, outs);
  return true;
}

void CpuDevice::unwind() { std::longjmp(unwind_, 1); }

bool CpuDevice::run(const DeviceWork &work, spmd_dev *ctx) {
  // The previous launch has ended on every device, so nobody reads this arena now.
  arena_.reset();
  ins_.assign(work.ins.begin(), work.ins.end());
  outs_.assign(work.outs.begin(), work.outs.end());
  for (size_t k = 0; k < outs_.size(); ++k) {
    if (outs_[k]) continue;
    // A replica whose result is discarded writes it to scratch (Runtime.cpp).
    outs_[k] = arena_.alloc(work.outBytes[k]);
    if (!outs_[k]) {
      recordDeviceError(ctx, "device " + std::to_string(index_) + " is out of memory (" +
                                 std::to_string(work.outBytes[k]) + " bytes of output)");
      return false;
    }
  }
  if (!trace::enabled()) return callKernel(unwind_, work.fn, ctx, ins_.data(), outs_.data());
  double t0 = trace::nowMicros();
  bool ok = callKernel(unwind_, work.fn, ctx, ins_.data(), outs_.data());
  trace::complete(trace::kDevicePid, index_, trace::currentLaunch(), "kernel", t0,
                  trace::nowMicros() - t0, ok ? "" : "\"failed\":true");
  return ok;
}

void CpuDevice::loop() {
  DenormalMode flush(true);  // the device's whole life (Note [Denormals])
  for (;;) {
    uint32_t seen = done_.go.load(std::memory_order_acquire);
    if (stop_.load(std::memory_order_acquire)) return;
    if (posted_.exchange(false, std::memory_order_acq_rel)) {
      ok_ = run(*work_, ctx_);
      if (done_.pending.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        done_.wake.fetch_add(1, std::memory_order_release);
        wakeAll(done_.wake);
      }
      continue;
    }
    awaitChangeFutex(done_.go, seen, spin_, done_.spin.load(std::memory_order_relaxed));
  }
}

/// The CPU backend: N devices (threads) and the shared-memory communicator.
class CpuBackend final : public Backend {
public:
  explicit CpuBackend(int count) : comm_(count) {
    devices_.reserve(count);
    for (int i = 0; i < count; ++i)
      devices_.push_back(std::make_unique<CpuDevice>(i, done_, kernels_));
  }
  int deviceCount() const override { return static_cast<int>(devices_.size()); }
  std::string describe() const override {
    return std::to_string(devices_.size()) + " CPU device" + (devices_.size() == 1 ? "" : "s") +
           " (threads)";
  }
  Device &device(int index) override { return *devices_[index]; }
  Communicator &communicator() override { return comm_; }
  /// Posts devices 1..n-1, wakes them at once, and runs device 0 on this thread
  /// (Note [Dispatch]).
  void startAll(int64_t n, const DeviceWork *works, spmd_dev *contexts) override {
    done_.spin.store(n <= int64_t(std::thread::hardware_concurrency()),
                     std::memory_order_relaxed);
    for (int64_t i = 1; i < n; ++i) devices_[i]->post(works[i], &contexts[i]);
    if (n > 1) CpuDevice::kick(done_);
    devices_[0]->runHere(works[0], &contexts[0]);
  }
  void loadHostKernels(const std::vector<std::pair<std::string, void *>> &kernels) override {
    {
      std::lock_guard<std::mutex> lock(kernels_.mu);
      for (const auto &[name, entry] : kernels)
        kernels_.byName[name] = reinterpret_cast<HostKernelFn>(entry);
    }
    kernels_.generation.fetch_add(1);
  }

private:
  CpuCommunicator comm_;
  CpuCompletion done_;   ///< before the devices, which keep a reference to it
  HostKernels kernels_;  ///< likewise
  std::vector<std::unique_ptr<CpuDevice>> devices_;
};

std::unique_ptr<Backend> makeCpuBackend(int count) { return std::make_unique<CpuBackend>(count); }

}  // namespace spmd::rt
