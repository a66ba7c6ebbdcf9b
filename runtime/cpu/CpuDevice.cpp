// ===- CpuDevice.cpp - a logical CPU device: one persistent worker thread ------===//
#include "cpu/CpuDevice.h"

#include "cpu/CpuCommunicator.h"
#include "cpu/CpuGemm.h"
#include "cpu/Spin.h"
#include "Denormals.h"
#include "Trace.h"
#include "Settings.h"

#include <algorithm>
#include <csetjmp>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace spmd::rt {

// Note [Dispatch]
// ~~~~~~~~~~~~~~~
// A launch hands each device its work and waits for all of them. The CPU backend runs
// device 0's share on the host thread itself (runHere) and offers devices 1..n-1 to be
// claimed: one word, CpuCompletion::claims, holds n and the next unclaimed device, and a
// compare-and-swap takes it. Every thread of the backend claims the next device, runs it
// and claims again until none is left; the host too, after device 0, before it waits. A
// device's work thus runs on whichever thread got to it first: its arena, jmp_buf,
// kernel cache and outcome are the device's, not the thread's (nothing of a device's is
// thread-local; the one thread-local, tlCurrent, says which fiber a thread runs now).
// Idle threads sleep on one futex word, `go`; the host bumps it once per
// launch and wakes only one idle thread per other core, min(n, cores) - 1, so 8 devices
// on 2 cores wake one thread, not 7: short kernels run in turn on two threads, which
// also spares the host its wait when it claims the last device itself.
//
// A launch with more devices than cores runs them on fibers instead, so that a device
// waiting in a collective switches to another device rather than to another thread (Note
// [Fibers] below); what follows is the launch with no more devices than cores, where
// each device keeps its thread while it runs, and the MPI backend.
//
// A kernel waiting in a collective may wait for a device that nobody has claimed yet. So
// a thread about to sleep in a collective first wakes one more idle thread while devices
// are unclaimed (CpuCommunicator's sleep hook, handOff). The launch cannot stall. While a
// device is unclaimed, fewer are claimed than the backend has threads (one per device),
// so some thread holds none: the host, which claims until none is left before it waits,
// or an idle device thread. An idle thread sleeps on `go` only after it looked for a
// device and found none, and it reads `go` before it looks, so it sees `go` move if the
// launch came later. Every bump of `go` (the launch's, handOff's) is followed by a wake
// when anyone counts as asleep, and a woken thread claims whatever is left. So the last
// holder to go to sleep in a collective while a device was unclaimed made one more
// thread claim it, a holder that will either finish or sleep later: a contradiction.
// Claims only decrease in a launch.
//
// The MPI backend posts each of its devices to the device's own thread instead (posted_,
// checked first; its host thread is the one that talks MPI) and wakes them all. The last
// device to finish bumps `wake`, the word the host sleeps on. Sleepers count themselves
// (hostAsleep, idleAsleep), so that a wake with nobody asleep makes no system call. When
// the launch has no more devices than the machine has cores, both sides spin briefly
// before they sleep (Spin.h); they sleep on the futex itself (sleepWhile), not in
// std::atomic::wait, whose sched_yield loop switches threads on a busy machine. Before
// claims, each device ran on its own thread, so a launch woke G - 1 threads whatever the
// cores; before that, each device had its own mutex and condition variable, so a launch
// cost a wake and a sleep per device. bench/notes.md (2026-11-24) has the measurements.

// Note [Fibers]
// ~~~~~~~~~~~~~
// With more devices than cores (8 devices on 2 cores), claims alone still ran up to one
// OS thread per device: a device that waits in a collective puts its thread to sleep, and
// handOff wakes another thread for the devices nobody has claimed, so a launch with a
// collective switched between up to 8 threads on 2 cores, through the kernel's scheduler,
// with a futex wait and wake per switch (rule30 on cpu:8: 26 context switches per step).
// So such a launch runs each device's work on a fiber of its own (Fiber.h: a stack mapped
// once per device and reused, switched by a few instructions), on the threads that claims
// already use: the host and min(n, cores) - 1 device threads, the workers. A worker runs
// a scheduler (schedule): it takes a parked device whose wait may be over, else claims a
// device nobody has started, and switches to its fiber; the device runs until it is done
// or until it would wait in a collective, where CpuCommunicator calls park: the device
// records the word and value it waits on and switches back to the scheduler, which
// publishes it as kParked. Any worker may resume a parked device (takeReady, a
// compare-and-swap kParked -> kRunning), so the devices spread over the workers whichever
// claimed them. A worker with nothing runnable sleeps on one futex word, `progress`, that
// the communicator bumps after every change a parked device may wait for (a barrier's
// release, an abort, a mailbox's last read: the notify hook). It leaves its scheduler
// when no device is unclaimed or parked: what remains runs on other workers, which park
// and resume their own.
//
// No wait is lost: a scheduler reads `progress` before it looks at the parked devices'
// words, sleeps only when every parked device it sees still waits, and only while
// `progress` still has the value it read (seq_cst throughout, as in Spin.h); a device it
// saw waiting becomes runnable only by a change of its word that comes after that look,
// and the bump after the change wakes the scheduler. A device that finishes bumps
// `progress` too, so a scheduler that went to sleep on a stale view of a device another
// worker resumed meanwhile looks again and leaves when nothing is parked. A device is
// published as kParked only by its scheduler, after the switch back, so no other worker
// resumes a fiber whose registers are not saved yet. The launch cannot stall: the host is
// one of the workers and stays in its scheduler while any device is unclaimed or parked;
// a parked device waits for devices that are running (they go on), parked (their words
// move when the last member arrives, which makes them runnable) or unclaimed (a scheduler
// claims them), as with threads. The workers are the host and the threads woken for the
// launch, plus any thread still awake from the launch before that finds work (harmless:
// it runs devices as the others do).
//
// What stays as it was: a device's state is the device's (arena, jmp_buf, outcome), so a
// failing device unwinds by longjmp to the setjmp in run(), which is on its own fiber's
// stack, and returns to the scheduler as finished; an abort bumps the barriers' words and
// `progress`, so its parked peers resume and unwind too (interrupts arrive that way, via
// spmd_poll). The floating-point modes are saved with each fiber. Launches with no more
// devices than cores keep one device per thread and spin before they sleep (Note
// [Adaptive spinning]): there a fiber switch would only serialise devices that have a
// core each. The MPI backend keeps its thread per device. SPMD_CPU_FIBERS=0 in the
// environment turns fibers off, for comparison; bench/notes.md (2026-11-24: fibers) has
// the measurements.

namespace {
constexpr int kIdle = 0, kRunning = 1, kParked = 2;
/// The device whose fiber the calling thread runs now (null on the worker's own stack).
/// Read by park() before it switches away and written by the scheduler on the worker's
/// stack only: a fiber may resume on another thread, so nothing on a fiber reads it after
/// a switch.
thread_local CpuDevice *tlCurrent = nullptr;
std::atomic<int> fiberSetting{-1};
}  // namespace

bool CpuDevice::fibersEnabled() {
  int set = fiberSetting.load(std::memory_order_relaxed);
  if (set >= 0) return set != 0;
  static const bool env = settings::flag(settings::Id::CpuFibers);
  return env;
}

void CpuDevice::setFibers(int enabled) { fiberSetting.store(enabled, std::memory_order_relaxed); }

void CpuDevice::fiberMain(void *self) {
  auto *d = static_cast<CpuDevice *>(self);
  d->fiber_.started();
  d->ok_ = d->run(*d->work_, d->ctx_);
  d->fiberDone_ = true;
  d->fiber_.switchOut(/*finished=*/true);
  std::abort();  // not reached: a finished fiber is reset before it runs again
}

bool CpuDevice::park(void *, const std::atomic<uint32_t> &word, uint32_t seen) {
  CpuDevice *d = tlCurrent;
  if (!d) return false;
  d->waitWord_.store(&word, std::memory_order_relaxed);  // published by the kParked store
  d->waitSeen_.store(seen, std::memory_order_relaxed);
  d->fiber_.switchOut();
  return true;
}

void CpuDevice::notify(void *arg) {
  // Also outside fiber launches: a worker late out of the last one's scheduler may have
  // claimed a device of this one onto a fiber.
  auto &done = *static_cast<CpuCompletion *>(arg);
  done.progress.fetch_add(1);  // seq_cst, before wakeSleepers
  wakeSleepers(done.progress, done.progressAsleep);
}

void CpuDevice::resumeFiber(FiberContext &worker, bool start) {
  if (start) {
    fiberDone_ = false;
    if (!fiber_.reset(&CpuDevice::fiberMain, this)) {
      recordDeviceError(ctx_, "device " + std::to_string(index_) +
                                  " is out of memory (no stack for its fiber)");
      ok_ = false;
      fiberState_.store(kIdle, std::memory_order_relaxed);
      finished();
      return;
    }
  }
  tlCurrent = this;
  fiber_.switchIn(worker);
  tlCurrent = nullptr;
  if (fiberDone_) {
    fiberState_.store(kIdle, std::memory_order_relaxed);
    finished();
    // A scheduler asleep on `progress` looks again, and leaves when nothing is parked:
    // what it saw of a device that another worker resumed meanwhile may be stale.
    notify(&done_);
  } else {
    fiberState_.store(kParked, std::memory_order_seq_cst);  // after the switch saved it
  }
}

bool CpuDevice::waitOver() const {
  // The pair was written before the kParked store this follows; if the device was taken
  // and parked again meanwhile, a mixed pair only makes a scheduler look once more.
  const std::atomic<uint32_t> *word = waitWord_.load(std::memory_order_relaxed);
  return word->load(std::memory_order_seq_cst) != waitSeen_.load(std::memory_order_relaxed);
}

CpuDevice *CpuDevice::takeReady(CpuCompletion &done) {
  uint32_t n = uint32_t(done.claims.load(std::memory_order_acquire) >> 32);
  for (uint32_t i = 0; i < n; ++i) {
    CpuDevice *d = done.devices[i];
    int state = d->fiberState_.load(std::memory_order_seq_cst);
    if (state != kParked) continue;
    if (!d->waitOver()) continue;
    if (d->fiberState_.compare_exchange_strong(state, kRunning, std::memory_order_seq_cst))
      return d;
  }
  return nullptr;
}

bool CpuDevice::schedule(CpuCompletion &done, CpuDevice *first) {
  FiberContext worker;
  bool ran = false;
  if (first) {
    first->fiberState_.store(kRunning, std::memory_order_relaxed);
    first->resumeFiber(worker, true);
    ran = true;
  }
  for (;;) {
    uint32_t seen = done.progress.load(std::memory_order_seq_cst);
    if (CpuDevice *d = takeReady(done)) {
      d->resumeFiber(worker, false);
      ran = true;
      continue;
    }
    if (CpuDevice *d = claim(done)) {
      d->fiberState_.store(kRunning, std::memory_order_relaxed);
      d->resumeFiber(worker, true);
      ran = true;
      continue;
    }
    // Sleep only while every parked device still waits: one parked after takeReady
    // looked may be runnable already, and the change that made it so may have come
    // before `seen` (then no bump would wake this worker).
    bool parked = false, ready = false;
    uint32_t n = uint32_t(done.claims.load(std::memory_order_acquire) >> 32);
    for (uint32_t i = 0; i < n && !ready; ++i) {
      CpuDevice *d = done.devices[i];
      if (d->fiberState_.load(std::memory_order_seq_cst) != kParked) continue;
      parked = true;
      ready = d->waitOver();
    }
    if (!parked) return ran;
    if (!ready) sleepWhile(done.progress, seen, done.progressAsleep);
  }
}

CpuDevice::CpuDevice(int index, CpuCompletion &done, HostKernels &kernels)
    : index_(index), done_(done), kernels_(kernels), thread_([this] { loop(); }) {}

CpuDevice::~CpuDevice() { stopThread(); }

void CpuDevice::stopThread() {
  if (!thread_.joinable()) return;
  stop_.store(true);
  kick(done_);  // the others find nothing posted and sleep again
  thread_.join();
}

// Note [Stopping many devices]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Every idle device thread sleeps on the one word `go`, so a kick wakes them all. Stopping
// the devices one by one (stopThread each) woke every remaining thread once per device:
// n^2 / 2 wake-ups, which made `--devices cpu:2048` take 20 s to exit on 2 cores (and
// cpu:4096 over a minute) whatever the program ran. So the backend raises every device's
// stop flag first, kicks once, and then joins them: each thread wakes at most a few times.
void CpuDevice::stopThreads(const std::vector<CpuDevice *> &devices, CpuCompletion &done) {
  for (CpuDevice *d : devices) d->stop_.store(true);
  kick(done);
  for (CpuDevice *d : devices)
    if (d->thread_.joinable()) d->thread_.join();
}

void CpuDevice::post(const DeviceWork &work, spmd_dev *ctx) {
  done_.pending.fetch_add(1);
  work_ = &work;
  ctx_ = ctx;
  posted_.store(true, std::memory_order_release);
}

void CpuDevice::kick(CpuCompletion &done) {
  done.go.fetch_add(1);  // seq_cst, before wakeSleepers
  wakeSleepers(done.go, done.idleAsleep);
}

void CpuDevice::assign(const DeviceWork &work, spmd_dev *ctx) {
  work_ = &work;
  ctx_ = ctx;
}

CpuDevice *CpuDevice::claim(CpuCompletion &done) {
  uint64_t c = done.claims.load(std::memory_order_acquire);
  while (uint32_t(c) < uint32_t(c >> 32))
    if (done.claims.compare_exchange_weak(c, c + 1, std::memory_order_acq_rel,
                                          std::memory_order_acquire))
      return done.devices[uint32_t(c)];
  return nullptr;
}

void CpuDevice::runClaimed() {
  ok_ = run(*work_, ctx_);
  finished();
}

void CpuDevice::finished() {
  if (done_.pending.fetch_sub(1) == 1) {  // seq_cst, as the bump, before wakeSleepers
    done_.wake.fetch_add(1);
    wakeSleepers(done_.wake, done_.hostAsleep);
  }
}

void CpuDevice::handOff(void *arg) {
  auto &done = *static_cast<CpuCompletion *>(arg);
  uint64_t c = done.claims.load(std::memory_order_acquire);
  if (uint32_t(c) >= uint32_t(c >> 32)) return;
  done.go.fetch_add(1);
  if (done.idleAsleep.load() != 0) wakeSome(done.go, 1);
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
    awaitChange(done_.wake, seen, waitSpin_, done_.spin.load(std::memory_order_relaxed),
                     done_.hostAsleep);
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
  // Device 0's work runs on the host thread (runHere), so its own thread is idle while the
  // host compiles: BLIS is made ready there, not in the first product (Note [GEMM
  // workspace] in CpuGemm.cpp). A launch that comes meanwhile is claimed by the others.
  if (index_ == 0) warmCpuGemm();
  for (;;) {
    uint32_t seen = done_.go.load(std::memory_order_acquire);
    if (stop_.load(std::memory_order_acquire)) return;
    if (posted_.exchange(false, std::memory_order_acq_rel)) {  // MPI: its own work
      ok_ = run(*work_, ctx_);
      finished();
      continue;
    }
    CpuDevice *d = claim(done_);  // the CPU backend: any unclaimed device
    // After claim's acquire of `claims`, `fibers` is the launch's (published by claims).
    if (done_.fibers.load(std::memory_order_relaxed)) {  // Note [Fibers]
      if (schedule(done_, d)) continue;
    } else if (d) {
      d->runClaimed();
      continue;
    }
    awaitChange(done_.go, seen, spin_, done_.spin.load(std::memory_order_relaxed),
                     done_.idleAsleep);
  }
}

/// The CPU backend: N devices (threads) and the shared-memory communicator.
class CpuBackend final : public Backend {
public:
  explicit CpuBackend(int count) : comm_(count) {
    devices_.reserve(count);
    for (int i = 0; i < count; ++i) {
      devices_.push_back(std::make_unique<CpuDevice>(i, done_, kernels_));
      byIndex_.push_back(devices_.back().get());
    }
    done_.devices = byIndex_.data();
    comm_.setSleepHook(&CpuDevice::handOff, &done_);
    comm_.setFiberHooks(&CpuDevice::park, &CpuDevice::notify, &done_);
  }
  ~CpuBackend() override {
    // The devices go one by one, and each wakes the others' threads: none may look at
    // the last launch's devices (schedule's scan) from now on.
    done_.fibers.store(false);
    done_.claims.store(0);
    CpuDevice::stopThreads(byIndex_, done_);
    devices_.clear();
  }
  int deviceCount() const override { return static_cast<int>(devices_.size()); }
  std::string describe() const override {
    return std::to_string(devices_.size()) + " CPU device" + (devices_.size() == 1 ? "" : "s") +
           " (threads)";
  }
  Device &device(int index) override { return *devices_[index]; }
  Communicator &communicator() override { return comm_; }
  /// Offers devices 1..n-1 to be claimed, wakes one idle thread per other core, runs
  /// device 0 on this thread, then claims what is left (Note [Dispatch]).
  void startAll(int64_t n, const DeviceWork *works, spmd_dev *contexts) override {
    int64_t cores = hardwareThreads();
    done_.spin.store(n <= cores, std::memory_order_relaxed);
    bool fibers = n > cores && CpuDevice::fibersEnabled();
    done_.fibers.store(fibers, std::memory_order_relaxed);  // published by claims
    if (fibers) {  // every device on a fiber, the host one of the workers (Note [Fibers])
      for (int64_t i = 0; i < n; ++i) devices_[i]->assign(works[i], &contexts[i]);
      done_.pending.fetch_add(n);
      done_.claims.store(uint64_t(n) << 32, std::memory_order_release);
      done_.go.fetch_add(1);  // seq_cst, before the count of sleepers
      if (done_.idleAsleep.load() != 0) wakeSome(done_.go, int(cores - 1));
      DenormalMode flush(true);  // the fibers start with the worker's mode
      CpuDevice::schedule(done_, CpuDevice::claim(done_));
      return;
    }
    for (int64_t i = 1; i < n; ++i) devices_[i]->assign(works[i], &contexts[i]);
    if (n > 1) {
      done_.pending.fetch_add(n - 1);
      done_.claims.store(uint64_t(n) << 32 | 1, std::memory_order_release);
      done_.go.fetch_add(1);  // seq_cst, before the count of sleepers
      int others = int(std::min(n, cores) - 1);  // none on one core: the host claims them
      if (others > 0 && done_.idleAsleep.load() != 0) wakeSome(done_.go, others);
    }
    DenormalMode flush(true);  // for the claimed devices too (runHere sets it for its own)
    devices_[0]->runHere(works[0], &contexts[0]);
    while (CpuDevice *d = CpuDevice::claim(done_)) d->runClaimed();
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
  std::vector<CpuDevice *> byIndex_;  ///< the same, for CpuCompletion::devices
};

std::unique_ptr<Backend> makeCpuBackend(int count) { return std::make_unique<CpuBackend>(count); }

}  // namespace spmd::rt
