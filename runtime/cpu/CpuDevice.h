// ===- CpuDevice.h - a logical CPU device: one persistent worker thread --------===//
//
// Each CPU device owns a thread, created with the backend and kept for its lifetime, and
// an arena for spmd_dev_alloc. start() hands the thread a DeviceWork and returns; the
// thread runs the kernel on the host buffers directly (zero copy) inside a setjmp, so a
// failing device unwinds back to it (Note [Unwinding kernels] in Device.cpp). Idle
// threads sleep on a condition variable: any number of devices may share few cores.
#pragma once

#include "Device.h"
#include "cpu/Arena.h"

#include <condition_variable>
#include <mutex>
#include <thread>

namespace spmd::rt {

class CpuDevice final : public Device {
public:
  explicit CpuDevice(int index);
  ~CpuDevice() override;

  void start(const DeviceWork &work, spmd_dev *ctx) override;
  bool wait() override;
  void *scratch(int64_t bytes) override;

private:
  void loop();
  /// Runs the kernel; false when it unwound after an error.
  bool run(const DeviceWork &work, spmd_dev *ctx);

  int index_;
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
