// ===- CpuDevice.h - a logical CPU device: one persistent worker thread --------===//
//
// Each CPU device owns a thread, created with the backend and kept for its lifetime, and
// an arena for spmd_dev_alloc. A device's work runs on the host buffers directly (zero
// copy) inside a setjmp, so a failing device unwinds back to it (Note [Unwinding kernels]
// in Device.cpp), on whichever thread of the backend claimed it: the host's, its own or
// another device's. When a launch has more devices than the machine has cores, each
// device's work runs on a fiber of its own (Fiber.h), and a device that would wait in a
// collective switches to another device instead of sleeping (Note [Fibers] in
// CpuDevice.cpp). The devices of a backend share a CpuCompletion: idle threads sleep on
// one futex word that the host bumps once per launch, and the host waiting for a launch
// is woken once, by the last device to finish (Note [Dispatch] in CpuDevice.cpp). Device
// programs (spmdrt.h) run here too: their buffers are host memory and the kernels they
// launch are host functions (HostKernels), called in place.
#pragma once

#include "Device.h"
#include "cpu/Arena.h"
#include "cpu/Fiber.h"

#include <atomic>
#include <csetjmp>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

namespace spmd::rt {

class CpuDevice;

/// What the devices of a backend share (Note [Dispatch]): how many still run work that
/// was started, with `wake` bumped (and the host woken) when the count drops to zero;
/// `go`, bumped after work was posted, on which idle device threads sleep; and the
/// devices of the launch in progress that no thread has claimed yet.
struct CpuCompletion {
  std::atomic<int64_t> pending{0};
  std::atomic<uint32_t> wake{0};
  std::atomic<uint32_t> go{0};
  std::atomic<uint32_t> hostAsleep{0};  ///< asleep on `wake` (wakeSleepers in Spin.h)
  std::atomic<uint32_t> idleAsleep{0};  ///< asleep on `go`
  /// Waiters spin briefly before sleeping (the launch has no more threads than cores).
  std::atomic<bool> spin{false};
  /// The CPU backend's launch: devices [next, n) wait to be claimed, as n << 32 | next
  /// (0 under MPI, whose devices each run their own work).
  std::atomic<uint64_t> claims{0};
  CpuDevice *const *devices = nullptr;  ///< by index, for claims
  /// The launch in progress runs its devices on fibers (Note [Fibers]).
  std::atomic<bool> fibers{false};
  /// Bumped after every change that may make a parked fiber runnable (CpuCommunicator's
  /// notify hook); schedulers with nothing to run sleep on it, counted in progressAsleep.
  std::atomic<uint32_t> progress{0};
  std::atomic<uint32_t> progressAsleep{0};
};

/// The entry of a kernel compiled for the host (Backend::loadHostKernels).
using HostKernelFn = void (*)(spmd_kernel_error *err, int64_t n, void **params);

/// The host kernels of a CPU backend, by name, shared by its devices.
struct HostKernels {
  std::mutex mu;  ///< guards byName (written between launches, read on a cache miss)
  std::unordered_map<std::string, HostKernelFn> byName;
  std::atomic<uint64_t> generation{0};  ///< bumped by each load: devices drop their caches
};

class CpuDevice final : public Device {
public:
  CpuDevice(int index, CpuCompletion &done, HostKernels &kernels);
  ~CpuDevice() override;
  /// Ends the device's thread (the destructor does it too); the device runs nothing after.
  void stopThread();
  /// Ends the threads of all of `devices` with one wake (Note [Stopping many devices]).
  static void stopThreads(const std::vector<CpuDevice *> &devices, CpuCompletion &done);

  /// post() and kick(): wakes every idle device of the backend, which then find out
  /// whether there is work for them. To start several, post each, then kick once.
  void start(const DeviceWork &work, spmd_dev *ctx) override;
  /// Hands the device `work`; it may start it at once, or at the next kick().
  void post(const DeviceWork &work, spmd_dev *ctx);
  /// Wakes the idle devices sharing `done` to run what was posted to them.
  static void kick(CpuCompletion &done);
  /// Stores `work` for whichever thread claims this device (Note [Dispatch]); the
  /// launch then publishes CpuCompletion::claims and counts it in `pending`.
  void assign(const DeviceWork &work, spmd_dev *ctx);
  /// The next device of the launch that no thread has claimed yet, now claimed by the
  /// caller, which then calls its runClaimed(); null when none is left.
  static CpuDevice *claim(CpuCompletion &done);
  /// Runs the assigned work on the calling thread and counts it done.
  void runClaimed();
  /// CpuCommunicator's sleep hook (`arg`: the CpuCompletion): when devices of the launch
  /// are still unclaimed, wakes one idle thread to take them, since the caller's thread
  /// is about to sleep in a collective that may wait for them.
  static void handOff(void *arg);
  /// CpuCommunicator's park hook (Note [Fibers]): on a device's fiber, switches to the
  /// scheduler until `word` may differ from `seen`, then true; elsewhere false.
  static bool park(void *arg, const std::atomic<uint32_t> &word, uint32_t seen);
  /// CpuCommunicator's notify hook: bumps `progress` and wakes schedulers asleep on it.
  static void notify(void *arg);
  /// The scheduler of one worker thread in a fiber launch (Note [Fibers]): runs `first`
  /// (claimed by the caller; may be null), then parked devices that may go on and
  /// devices nobody has claimed, until none is left that is not running elsewhere or
  /// done. True when it ran anything.
  static bool schedule(CpuCompletion &done, CpuDevice *first);
  /// Whether launches with more devices than cores use fibers: yes unless the
  /// environment sets SPMD_CPU_FIBERS=0 (read once), or setFibers said otherwise (tests).
  static bool fibersEnabled();
  static void setFibers(int enabled);  ///< 1 on, 0 off, -1 back to the environment's
  /// Runs `work` as this device on the calling thread (the host's, whose floating-point
  /// mode it sets as a device thread's for the while) and returns when it is done;
  /// wait() then gives its outcome.
  void runHere(const DeviceWork &work, spmd_dev *ctx);
  /// Waits until every device of the backend has finished what it was started on (a
  /// launch waits for all of them anyway), then returns this device's outcome.
  bool wait() override;
  void *scratch(int64_t bytes) override;
  /// Runs host kernel `name` (Backend::loadHostKernels) in place, then fails with its
  /// index error if it recorded one; fails when no such kernel is loaded.
  bool launchKernel(spmd_dev *d, const char *name, int64_t n, int32_t nparams,
                    void **params) override;
  /// memmove: device memory is host memory.
  bool copy(spmd_dev *d, void *dst, const void *src, int64_t bytes) override;
  /// A plain load of 1, 4 or 8 bytes.
  bool read(spmd_dev *d, const void *p, int32_t bytes, int64_t &value) override;
  /// 1: no BLAS on CPU devices (generated code runs its own loops).
  int gemm(spmd_dev *d, int32_t dtype, int64_t batch, int64_t m, int64_t n, int64_t k,
           const void *a, const void *b, void *c) override;
  /// longjmps to run()'s setjmp.
  [[noreturn]] void unwind() override;

private:
  void loop();
  /// Runs the kernel; false when it unwound after an error.
  bool run(const DeviceWork &work, spmd_dev *ctx);
  /// Counts a started work done; the last one wakes the host.
  void finished();
  /// Switches to this device's fiber (starting its work when it has not started yet) and
  /// back; then records it as finished or parked.
  void resumeFiber(FiberContext &worker, bool start);
  static void fiberMain(void *self);
  /// A parked device whose word has moved, now taken by the caller; null when none.
  static CpuDevice *takeReady(CpuCompletion &done);
  /// Parked: whether the word it waits on has moved since it parked.
  bool waitOver() const;

  int index_;
  CpuCompletion &done_;
  HostKernels &kernels_;
  /// Host kernels by name pointer (checked against the name), for one generation.
  std::unordered_map<const char *, std::pair<std::string, HostKernelFn>> kernelCache_;
  uint64_t kernelGeneration_ = 0;
  spmd_kernel_error record_{};  ///< what the running host kernel reports
  std::jmp_buf unwind_;         ///< set around the kernel call (Note [Unwinding kernels])
  const DeviceWork *work_ = nullptr;  ///< what post() or assign() handed over
  spmd_dev *ctx_ = nullptr;
  std::atomic<bool> posted_{false};  ///< work_ waits to be run by the thread
  std::atomic<bool> stop_{false};
  bool ok_ = true;   ///< the last run's outcome, published by done_.pending
  int spin_ = 64;    ///< the thread's spin budget while idle (Spin.h)
  int waitSpin_ = 64;  ///< wait()'s spin budget, on the host thread
  std::vector<void *> ins_, outs_;  ///< the kernel's arguments, reused between launches
  Arena arena_;
  /// Fiber launches (Note [Fibers]): the device's fiber, its state (kIdle, kRunning,
  /// kParked), and what it waits for while parked.
  Fiber fiber_;
  std::atomic<int> fiberState_{0};
  std::atomic<const std::atomic<uint32_t> *> waitWord_{nullptr};
  std::atomic<uint32_t> waitSeen_{0};
  bool fiberDone_ = false;  ///< its work returned (set on the fiber, read after the switch)
  std::thread thread_;  ///< last: starts once the members above exist
};

}  // namespace spmd::rt
