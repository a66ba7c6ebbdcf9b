// ===- CpuDevice.h - a logical CPU device: one persistent worker thread --------===//
//
// Each CPU device owns a thread, created with the backend and kept for its lifetime, and
// an arena for spmd_dev_alloc. start() hands the thread a DeviceWork and returns; the
// thread runs the kernel on the host buffers directly (zero copy) inside a setjmp, so a
// failing device unwinds back to it (Note [Unwinding kernels] in Device.cpp). Idle
// threads sleep on a condition variable: any number of devices may share few cores.
// The devices of a backend share a CpuCompletion, so that the host waiting for a launch
// is woken once, by the last device to finish, rather than once per device.
#pragma once

#include "Device.h"
#include "cpu/Arena.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace spmd::rt {

/// How many of a backend's devices still run work that was started; `wake` is bumped
/// (and waiters woken) when the count drops to zero.
struct CpuCompletion {
  std::atomic<int64_t> pending{0};
  std::atomic<uint32_t> wake{0};
};

class CpuDevice final : public Device {
public:
  CpuDevice(int index, CpuCompletion &done);
  ~CpuDevice() override;

  void start(const DeviceWork &work, spmd_dev *ctx) override;
  /// Waits until every device of the backend has finished what it was started on (a
  /// launch waits for all of them anyway), then returns this device's outcome.
  bool wait() override;
  void *scratch(int64_t bytes) override;

private:
  void loop();
  /// Runs the kernel; false when it unwound after an error.
  bool run(const DeviceWork &work, spmd_dev *ctx);

  int index_;
  CpuCompletion &done_;
  std::mutex mu_;
  std::condition_variable cv_;
  const DeviceWork *work_ = nullptr;  ///< non-null while a launch is pending or running
  spmd_dev *ctx_ = nullptr;
  bool ok_ = true;
  bool stop_ = false;
  Arena arena_;
  std::thread thread_;  ///< last: starts once the members above exist
};

} // namespace spmd::rt
