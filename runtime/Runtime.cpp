// ===- Runtime.cpp - the Host: devices, memory, runs, errors, stats -----------===//
//
// Host owns the backend chosen by `--devices` and runs the jitted spmd_main under a
// setjmp, so that a run-time error anywhere on the host ends the run with a message
// and exit code 1 instead of a crash (Note [Unwinding kernels] in Device.cpp). This
// file also holds the host-memory and error entry points of spmdrt.h.
#include <cstring>
#include "BufferPool.h"
#include "Denormals.h"
#include "HostState.h"
#include "Trace.h"
#include "cpu/Spin.h"
#include "mpi/Mpi.h"
#include "mpi/MpiBackend.h"

#include <algorithm>
#include <functional>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <new>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <thread>

namespace spmd::rt {

DeviceSpec parseDeviceSpec(const std::string &s) {
  DeviceSpec spec;
  auto colon = s.find(':');
  spec.kind = s.substr(0, colon);
  if (spec.kind != "cpu" && spec.kind != "cuda")
    throw std::invalid_argument("unknown device kind '" + spec.kind + "' in '" + s +
                                "' (expected cpu, cpu:N, cuda or cuda:N)");
  if (colon == std::string::npos) return spec;
  std::string n = s.substr(colon + 1);
  // Each logical device is a host thread: past a few thousand, starting and stopping them
  // alone takes seconds (100,000 took minutes), so the count is bounded.
  constexpr int kMaxDevices = 4096;
  bool digits =
      !n.empty() && n.size() <= 6 && n.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || std::stoi(n) < 1 || std::stoi(n) > kMaxDevices)
    throw std::invalid_argument("bad device count '" + n + "' in '" + s +
                                "' (expected a number from 1 to " + std::to_string(kMaxDevices) +
                                ")");
  spec.count = std::stoi(n);
  return spec;
}

int defaultCpuDevices() {
  // Under mpirun the ranks on one machine share its hardware threads.
  int n = static_cast<int>(hardwareThreads()) / (mpi::active() ? mpi::localSize() : 1);
  return n > 0 ? n : 1;
}

Host::Host() : state_(std::make_unique<spmd_host>()) { BufferPool::global().resetStats(); }

Host::~Host() {
  BufferPool &pool = BufferPool::global();
  for (void *p : state_->allocations) pool.free(p);
  state_->allocations.clear();
  // The devices (threads) go first, then their arenas' blocks are back in the pool too.
  state_->backend.reset();
  pool.trim();
}

void Host::expectBuffers(const std::vector<spmd_buffer_hint> &plan) {
  if (!plan.empty()) BufferPool::global().prefault(plan);
}

std::unique_ptr<Host> Host::create(const DeviceSpec &spec) {
  if (spec.kind == "cuda") {
    std::string why;
    if (cudaDeviceCount(why) == 0)
      throw std::runtime_error("no usable CUDA GPU (" + why +
                               "); run with --devices cpu or --devices cpu:N");
    std::unique_ptr<Host> host(new Host());
    try {
      // Under mpirun: K devices per rank on one GPU each (--devices cuda: one device), the
      // GPUs of different ranks linked by NCCL or MPI (Note [GPUs across processes]).
      host->state_->backend = mpi::active() ? makeCudaMpiBackend(spec.count > 0 ? spec.count : 1)
                                            : makeCudaBackend(spec.count);
    } catch (const std::system_error &e) {
      throw std::runtime_error("cannot start the CUDA device threads (" + std::string(e.what()) +
                               ")");
    } catch (const std::runtime_error &e) {
      throw std::runtime_error("cannot set up the CUDA devices: " + std::string(e.what()));
    }
    return host;
  }
  if (spec.kind != "cpu") throw std::runtime_error("unknown device kind '" + spec.kind + "'");
  int n = spec.count > 0 ? spec.count : defaultCpuDevices();
  std::unique_ptr<Host> host(new Host());
  try {
    host->state_->backend = mpi::active() ? makeMpiBackend(n) : makeCpuBackend(n);
    host->state_->flushDenormals = true;  // Note [Denormals]
  } catch (const std::system_error &e) {
    throw std::runtime_error("cannot start " + std::to_string(n) + " CPU device threads (" +
                             e.what() + ")");
  }
  return host;
}

void Host::loadKernels(const std::string &ptx) { state_->backend->loadKernels(ptx); }

void Host::loadHostKernels(const std::vector<std::pair<std::string, void *>> &kernels) {
  state_->backend->loadHostKernels(kernels);
}

int Host::deviceCount() const { return state_->backend->deviceCount(); }
std::string Host::describe() const { return state_->backend->describe(); }
spmd_host *Host::handle() { return state_.get(); }
void Host::setOutput(std::ostream *os) { state_->out = os; }
void Host::setErrorOutput(std::ostream *os) { state_->err = os; }

std::string Host::lastError() const {
  return state_->errors.failed() ? state_->errors.message() : std::string();
}

/// Calls main under setjmp; false when a failure longjmped back here. Nothing in this
/// frame needs destroying.
static bool callMain(spmd_host *h, void (*main)(spmd_host *)) {
  if (setjmp(h->jump) != 0) return false;
  main(h);
  return true;
}

/// callMain for the REPL's entry (Note [REPL entry] in codegen/LlvmEmitter.cpp).
static bool callMainIO(spmd_host *h, void (*main)(spmd_host *, void **, void **), void **ins,
                       void **outs) {
  if (setjmp(h->jump) != 0) return false;
  main(h, ins, outs);
  return true;
}

int Host::run(void (*main)(spmd_host *)) {
  return runWith([&](spmd_host *h) { return callMain(h, main); });
}

int Host::run(void (*main)(spmd_host *, void **, void **), void **ins, void **outs) {
  return runWith([&](spmd_host *h) { return callMainIO(h, main, ins, outs); });
}

void Host::free(void *buffer) { spmd_host_free(state_.get(), buffer); }

int Host::runWith(const std::function<bool(spmd_host *)> &call) {
  spmd_host *h = state_.get();
  h->errors.clear();
  h->line.clear();
  h->inRun = true;
  bool ok;
  {
    DenormalMode mode(h->flushDenormals);  // Note [Denormals]
    ok = call(h);
  }
  h->inRun = false;
  // A print cut short by the error prints nothing, as in Python.
  h->line.clear();
  if (ok && !h->errors.failed()) return 0;
  if (!h->errors.failed()) h->errors.record("the run failed");
  // Whatever failed first (a device stopped by the interrupt reports itself as failing,
  // a peer rank as aborted), the user asked the run to stop: no error to print.
  if (interruptRequested()) return kInterrupted;
  std::string msg = "error: " + h->errors.message() + "\n";
  if (h->err) {
    *h->err << msg;
    h->err->flush();
  } else {
    std::fflush(stdout);
    std::fputs(msg.c_str(), stderr);
  }
  return 1;
}

Host::Stats Host::stats() const { return state_->stats; }

void Host::resetStats() {
  state_->stats = Stats();
  state_->statIndex.clear();
  BufferPool::global().resetStats();
}

static std::string humanBytes(int64_t b) { return BufferPool::humanBytes(b); }

std::string Host::formatStats() const {
  // Under mpirun each process counted its own devices' collectives: sum them.
  Stats s = state_->stats;
  std::vector<int64_t> sums{s.collective_bytes};
  for (const LaunchStats &l : s.launches) sums.push_back(l.collective_bytes);
  state_->backend->sumAcrossProcesses(sums);
  s.collective_bytes = sums[0];
  for (size_t i = 0; i < s.launches.size(); ++i) s.launches[i].collective_bytes = sums[i + 1];
  std::ostringstream os;
  os << "devices: " << describe() << "\n";
  os << "host -> device: " << humanBytes(s.host_to_device_bytes)
     << "   device -> host: " << humanBytes(s.device_to_host_bytes)
     << "   collectives: " << humanBytes(s.collective_bytes) << "\n";
  size_t width = 6;
  bool measured = false;  // a backend that times its devices itself (GPUs)
  for (const LaunchStats &l : s.launches) {
    width = std::max(width, l.name.size());
    measured |= l.device_seconds >= 0;
  }
  os << std::left << std::setw(int(width)) << "kernel" << std::right << std::setw(10) << "launches"
     << std::setw(12) << "total ms" << std::setw(12) << "mean ms" << std::setw(14) << "collectives"
     << std::setw(12) << "to device" << std::setw(12) << "to host";
  if (measured) os << std::setw(12) << "device ms";
  os << "\n";
  for (const LaunchStats &l : s.launches) {
    double ms = l.seconds * 1e3;
    os << std::left << std::setw(int(width)) << l.name << std::right << std::setw(10) << l.launches
       << std::fixed << std::setprecision(3) << std::setw(12) << ms << std::setw(12)
       << (l.launches ? ms / double(l.launches) : 0.0) << std::setw(14)
       << humanBytes(l.collective_bytes) << std::setw(12) << humanBytes(l.host_to_device_bytes)
       << std::setw(12) << humanBytes(l.device_to_host_bytes);
    if (measured) os << std::setw(12) << std::max(l.device_seconds, 0.0) * 1e3;
    os << "\n";
  }
  os << state_->backend->extraStats();
  // Note [Buffer pool]: host arrays and the CPU devices' scratch blocks.
  BufferPool::Stats m = BufferPool::global().stats();
  os << "memory: " << m.allocs << " allocations, " << m.osAllocs << " from the OS, "
     << m.allocs - m.osAllocs << " reused";
  if (m.ahead > 0)  // Note [Pre-faulting]
    os << " (" << m.aheadTaken << " of " << m.ahead << " blocks taken ahead)";
  if (BufferPool::smallPages())  // Note [Slow huge pages]
    os << " (huge pages slow to fault in: 4 KiB pages)";
  os << "   peak in use: " << humanBytes(m.peakInUse)
     << "   peak held: " << humanBytes(m.peakHeld) << "\n";
  return os.str();
}

void unwindHost(spmd_host *h) {
  if (h->inRun) std::longjmp(h->jump, 1);
  throw std::runtime_error(h->errors.message());
}

void failHost(spmd_host *h, const char *message) {
  h->errors.record(message ? message : "the run failed");
  unwindHost(h);
}

}  // namespace spmd::rt

using namespace spmd::rt;

extern "C" {

void *spmd_host_alloc_at(spmd_host *h, int64_t bytes, const char *where, const char *what) {
  // From the pool (Note [Buffer pool] in BufferPool.h): a loop of launches gets the
  // previous step's freed buffers back instead of fresh pages.
  void *p = BufferPool::global().alloc(bytes);
  if (!p) {
    {  // Note [Memory limits]: which array, how large, and what the machine has. (A block:
       // unwinding longjmps, so no std::string may be alive then.)
      std::string msg = where ? std::string(where) + ": " : std::string();
      msg += "out of host memory: ";
      msg += what && *what ? std::string(what) + " needs " : std::string("allocating ");
      msg += std::to_string(bytes) + " bytes (" + BufferPool::humanBytes(bytes) + ")" +
             BufferPool::shortage(bytes);
      h->errors.record(msg);
    }
    unwindHost(h);
  }
  h->allocations.insert(p);
  return p;
}

void *spmd_host_alloc(spmd_host *h, int64_t bytes) {
  return spmd_host_alloc_at(h, bytes, nullptr, nullptr);
}

void spmd_host_free(spmd_host *h, void *p) {
  if (!p || !h->allocations.erase(p)) return;
  auto it = h->resident.find(p);
  if (it != h->resident.end()) {
    h->backend->release(p, it->second.bytes);
    h->resident.erase(it);
  }
  BufferPool::global().free(p);
}

// CPU devices write the host buffers themselves: nothing to copy, but a read by the host
// gathers a sharded result, which --stats counts (Note [Sharded arrays]). A backend with
// its own memory hears of each step through its hooks: a copied sharded result shares
// the source's shards, host data written over a sharded result replaces its shards.
void spmd_host_copy(spmd_host *h, void *dst, const void *src, int64_t bytes) {
  if (dst == src || bytes <= 0) return;
  std::memmove(dst, src, size_t(bytes));
  auto it = h->resident.find(const_cast<void *>(src));
  if (it != h->resident.end()) {
    h->backend->alias(dst, src, bytes);
    h->resident[dst] = it->second;
    return;
  }
  auto old = h->resident.find(dst);
  if (old != h->resident.end()) {
    h->backend->release(dst, old->second.bytes);
    h->resident.erase(old);
  }
}

void spmd_host_sync(spmd_host *h, void *p, int64_t bytes) {
  auto it = h->resident.find(p);
  if (it == h->resident.end()) return;
  if (trace::enabled())
    trace::complete(trace::kHostPid, 0, "host sync (gather shards)", "sync", trace::nowMicros(), 0,
                    "\"bytes\":" + std::to_string(bytes));
  h->countGather(it->second, bytes);
  int64_t sharded = it->second.bytes;
  h->resident.erase(it);
  std::string why;
  if (!h->backend->gather(p, sharded, why)) {
    h->errors.record(why);
    unwindHost(h);
  }
}

void spmd_fail(spmd_host *h, spmd_dev *d, const char *message) {
  if (d) {
    recordDeviceError(d, message ? message : "a device failed");
    unwindDevice(d);
  }
  failHost(h, message);
}

void spmd_check_error(spmd_host *h, spmd_dev *d, const char *message, int64_t a0, int64_t a1,
                      const char *where) {
  // The message is a temporary of each call: unwinding longjmps past this frame, so no
  // std::string may be alive here when it does (it would leak; Note [Unwinding kernels] in Device.cpp).
  if (d) {
    recordDeviceError(d, checkErrorMessage(message, a0, a1, where));
    unwindDevice(d);
  }
  h->errors.record(checkErrorMessage(message, a0, a1, where));
  unwindHost(h);
}

}  // extern "C"
