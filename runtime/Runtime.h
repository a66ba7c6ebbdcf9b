// ===- Runtime.h - the host side of a run: devices, launches, output, stats ---===//
//
// The driver creates one Host per process (from `--devices`), passes its handle() to
// the jitted `spmd_main` through run(), and prints stats() after a run. The Host owns a
// Backend (Device.h) and implements the host-side entry points of spmdrt.h: memory,
// launches (slicing inputs and placing outputs per device), printing through a
// line-buffered stdout, assert_close and run-time errors. The compiler never sees it.
#pragma once

#include "spmdrt.h"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace spmd::rt {

/// A parsed `--devices` value.
struct DeviceSpec {
  std::string kind = "cpu";
  int count = 0;  ///< 0 = the default number for the kind
};

/// Parses "cpu", "cpu:N", "cuda", "cuda:N" (N >= 1); throws std::invalid_argument with a
/// message naming the bad value.
DeviceSpec parseDeviceSpec(const std::string &s);

/// The number of CPU devices of `--devices cpu`: one per hardware thread, shared by the
/// ranks of this machine under mpirun.
int defaultCpuDevices();

/// The number of usable CUDA GPUs on this machine; 0, with the reason in `why`, when
/// there is none ("no NVIDIA driver: libcuda.so.1: ...", "cuInit failed: CUDA_ERROR_...", "the
/// NVIDIA driver sees no GPU"). Cheap after the first call (which loads the driver), so
/// the driver may ask before compiling, to pick the default devices and their count.
int cudaDeviceCount(std::string &why);

// Note [Interrupts]
// ~~~~~~~~~~~~~~~~~
// Ctrl-C stops a run without ending the process (the REPL keeps its session). The command
// line's SIGINT handler calls requestInterrupt(), which only sets the flag of spmdrt.h
// (async-signal-safe). Generated code tests the flag at every for-loop iteration (host
// code, CPU kernels, device programs) and spmd_launch tests it before each launch; the
// first to see it fails the run with "interrupted" as spmd_fail would: a device unwinds
// its launch and releases the others from their collectives, the host longjmps out of
// the program. Host::run then returns kInterrupted and prints nothing: what to say and
// whether to go on is the caller's business. The flag stays set until clearInterrupt().
// What does not stop early: one long operation (a large matmul, a GPU kernel, a print)
// runs to its end, and a collective waits for members that are still inside one.

/// Asks the running program (if any) to stop. Async-signal-safe.
void requestInterrupt();
/// Whether requestInterrupt() was called since the last clearInterrupt(). Async-signal-safe.
bool interruptRequested();
void clearInterrupt();
/// What Host::run returns for a run stopped by an interrupt (128 + SIGINT, as a shell
/// reports a process ended by Ctrl-C).
constexpr int kInterrupted = 130;

/// The host side of a run: a backend's devices, host memory, output, errors, stats.
class Host {
public:
  /// The devices of `spec` ("cpu" with count 0: std::thread::hardware_concurrency();
  /// "cuda" with count 0: one logical device per GPU). Throws std::runtime_error when
  /// they cannot be had: no usable CUDA GPU (the message says why and suggests
  /// --devices cpu), a GPU that cannot be set up, device threads that cannot start.
  static std::unique_ptr<Host> create(const DeviceSpec &spec);
  ~Host();

  /// Loads the program's GPU kernels (PTX text, as codegen emits it) onto every GPU of
  /// the backend, before running a program that launches them (spmd_kernel_launch).
  /// Modules accumulate: a REPL may load one per input. Throws std::runtime_error with
  /// the JIT's log when the PTX does not load. Does nothing for empty PTX, and on CPU
  /// devices.
  void loadKernels(const std::string &ptx);
  /// Loads kernels compiled for the host (name, entry address), which CPU devices run
  /// when a device program launches them (--split-kernels; Backend::loadHostKernels).
  void loadHostKernels(const std::vector<std::pair<std::string, void *>> &kernels);

  /// Has the host memory make ready, while the caller compiles, the buffers that the run
  /// will take first (`plan`, from the compiler: Note [Pre-faulting] in BufferPool.h).
  /// A hint: it never fails, and a run that takes other buffers only runs as without it.
  void expectBuffers(const std::vector<spmd_buffer_hint> &plan);

  int deviceCount() const;
  /// E.g. "8 CPU devices (threads)".
  std::string describe() const;
  /// The handle the jitted code receives.
  spmd_host *handle();

  /// Runs `main(handle())` on the calling thread. Returns 0, or 1 after a run-time error
  /// (spmd_fail, an index error, a failed assert_close or launch), whose message is
  /// printed to stderr as "error: <message>", or kInterrupted, printing nothing, when it
  /// failed while an interrupt was requested (Note [Interrupts]). May be called again
  /// (the REPL).
  int run(void (*main)(spmd_host *));
  /// Runs `main(handle(), ins, outs)` like run() above: the entry of a REPL input,
  /// which reads kept buffers from `ins` and hands new ones out through `outs`.
  int run(void (*main)(spmd_host *, void **, void **), void **ins, void **outs);
  /// Frees a buffer that a run handed out (a REPL value nobody can reach any more).
  void free(void *buffer);
  /// The message of the last run's error, or "" when it succeeded.
  std::string lastError() const;

  /// Sends printed output to `os` instead of stdout (tests, embedding); null restores
  /// stdout. Output is written a line at a time.
  void setOutput(std::ostream *os);
  /// Sends error reports to `os` instead of stderr; null restores stderr.
  void setErrorOutput(std::ostream *os);

  /// Per kernel name: how often it ran, for how long, and what its collectives moved.
  struct LaunchStats {
    std::string name;
    int64_t launches = 0;
    double seconds = 0;
    int64_t collective_bytes = 0;
    /// Bytes this region's launches sent to the devices, and of its results read back.
    int64_t host_to_device_bytes = 0, device_to_host_bytes = 0;
    /// Time measured by the devices themselves (the slowest device of each launch), or
    /// -1 when the backend does not measure it.
    double device_seconds = -1;
  };
  /// Transfers of a run. On CPU devices nothing is copied; the byte counts are what a
  /// backend with device memory would move: each device's input views in, each written
  /// replica result out (Note [Launch layout] in Launch.cpp).
  struct Stats {
    int64_t host_to_device_bytes = 0, device_to_host_bytes = 0, collective_bytes = 0;
    std::vector<LaunchStats> launches;  ///< in order of first launch
  };
  Stats stats() const;
  /// Clears the counters (the REPL, between inputs).
  void resetStats();
  /// stats() as a readable table, for --stats.
  std::string formatStats() const;

private:
  Host();
  /// Runs `call` (which calls the jitted main under setjmp) and reports its error.
  int runWith(const std::function<bool(spmd_host *)> &call);
  std::unique_ptr<spmd_host> state_;
};

}  // namespace spmd::rt
