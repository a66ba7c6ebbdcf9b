// ===- Device.h - the backend interfaces: devices, communicators, meshes -----===//
//
// The host side of the runtime (Runtime.cpp) is written against three small
// interfaces, so that a backend is chosen at run time:
//
//  - `Device`: one logical device. It runs one device's share of a launch (a
//    `DeviceWork`, whose buffers are *host* addresses: a backend with its own memory
//    copies them in and out, the CPU backend passes them straight to the kernel) and
//    hands out per-launch scratch memory (`spmd_dev_alloc`).
//  - `Communicator`: the collectives of spmdrt.h between the devices of a launch. It
//    sees only device-local buffers and group indices; how the bytes move (shared
//    memory between threads, NCCL, MPI) is its own business.
//  - `Backend`: a set of devices plus their communicator (CPU threads in runtime/cpu,
//    CUDA GPUs in runtime/cuda; NCCL and MPI later, behind the same interfaces).
//
// `Mesh` and `Group` are plain arithmetic over the launch's mesh axes, shared by all
// backends. `spmd_dev` (opaque in spmdrt.h) is the per-device context of a launch that
// kernels pass back into every device-side entry point.
#pragma once

#include "spmdrt.h"

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace spmd::rt {

/// Dtype codes of spmdrt.h (spmd_dtype, from spmdrt.def).
enum class DType : int32_t {
// clang-format off
#define SPMD_RT_DTYPE(Cxx, C, code, bytes, text) Cxx = SPMD_DTYPE_##C,
#include "spmdrt.def"
  // clang-format on
};
/// Reduction codes of spmdrt.h (spmd_reduce, from spmdrt.def).
enum class RedOp : int32_t {
// clang-format off
#define SPMD_RT_REDUCE(Cxx, C, code, text) Cxx = SPMD_REDUCE_##C,
#include "spmdrt.def"
  // clang-format on
};

/// Bytes per element of a dtype code, or 0 for an unknown code.
int64_t dtypeSize(int32_t dtype);
/// "f32", "bool", ... for messages.
const char *dtypeName(int32_t dtype);

/// The most mesh axes a launch may have (spmdrt.h: nested pmaps flatten to one axis per
/// level; sema refuses deeper nests, compiler/sema/Lower.cpp).
constexpr int kMaxMeshRank = 8;

/// The devices of one launch: a row-major grid of up to four axes.
struct Mesh {
  int rank = 0;
  std::array<int64_t, kMaxMeshRank> shape{};
  int64_t size = 1;  ///< product of the shape

  Mesh() = default;
  Mesh(int rank, const int64_t *shape);
  /// Coordinates of the flat device index `flat`.
  std::array<int64_t, kMaxMeshRank> coords(int64_t flat) const;
  bool operator==(const Mesh &o) const { return rank == o.rank && shape == o.shape; }
};

/// The group of a device for a collective over the mesh axes in a mask: the devices
/// that agree with it on every other axis, ordered row-major over the masked axes.
struct Group {
  int64_t id = 0;     ///< which group (row-major over the unmasked axes)
  int64_t index = 0;  ///< position of the device in its group
  int64_t size = 1;   ///< number of members
};
/// The group of device `flat` for `axes` (bit m = mesh axis m; bits >= rank ignored).
Group groupOf(const Mesh &mesh, int64_t flat, uint32_t axes);
/// Flat device index of member `index` of group `id` for `axes`.
int64_t memberOf(const Mesh &mesh, uint32_t axes, int64_t id, int64_t index);

/// The first error of a run, shared by the host and all devices.
class ErrorState {
public:
  /// Records `message` unless an error is already recorded; true when it was first.
  bool record(const std::string &message);
  /// The error of device `device` in a launch: kept unless an earlier error came from
  /// the host or from a device of a lower index, so that when several devices fail on
  /// their own (each its own index error, say) the report does not depend on timing.
  bool recordFromDevice(const std::string &message, int64_t device);
  bool failed() const;
  std::string message() const;
  /// The device whose error is recorded, or -1 when it is the host's (or none).
  int64_t device() const;
  void clear();

private:
  mutable std::mutex mu_;
  bool failed_ = false;
  std::string message_;
  int64_t device_ = -1;  ///< the device whose error message_ is, or -1 (the host's)
};

/// One device's share of a launch. Buffer addresses are host memory: input k is the
/// device's view (its slice, or the whole array), output k is where its replica result
/// goes, or null when the device's result is discarded (it then writes to scratch).
struct DeviceWork {
  spmd_kernel_fn fn = nullptr;
  std::vector<void *> ins;
  std::vector<int64_t> inBytes;
  std::vector<void *> outs;
  std::vector<int64_t> outBytes;
};

class Communicator;

/// One logical device.
class Device {
public:
  virtual ~Device() = default;
  /// Starts `work` on this device with the launch context `ctx` and returns at once.
  /// `work` and `ctx` stay alive until wait() returns.
  virtual void start(const DeviceWork &work, spmd_dev *ctx) = 0;
  /// Blocks until the work started last has finished; false when it failed (the error
  /// is recorded in the context's ErrorState).
  virtual bool wait() = 0;
  /// Scratch memory for the running launch, 64-byte aligned, released when the launch
  /// ends; null when out of memory. Called only from the device's own kernel.
  virtual void *scratch(int64_t bytes) = 0;
  /// The time the device itself spent on the launch that ended last (GPU: between two
  /// events on its stream), or -1 when the backend does not measure it (CPU: the host's
  /// wall time is the device's).
  virtual double deviceSeconds() const { return -1; }
  /// Ends the kernel this device is running: longjmps back to where the backend called
  /// it (its own jmp_buf, set around that call), which then reports the launch failed.
  /// Called only from the device's own kernel (Note [Unwinding kernels] in Device.cpp).
  [[noreturn]] virtual void unwind() = 0;

  // Device programs (spmdrt.h): what a kernel of a backend with its own memory asks
  // its device to do. Each is called only from the device's own kernel, with its
  // context `d`; buffers are the device's memory (host memory on CPU devices). A method
  // that fails records its error with recordDeviceError(d, ...) when it knows more
  // than "it failed" (the C entry point records a generic one otherwise) and returns
  // false (or -1); the entry point then unwinds the kernel.

  /// Enqueues GPU kernel `name` of the loaded kernel modules (Backend::loadKernels)
  /// over `n` work items with the `nparams` argument pointers in `params`.
  virtual bool launchKernel(spmd_dev *d, const char *name, int64_t n, int32_t nparams,
                            void **params) = 0;
  /// dst = src, `bytes` bytes of this device's memory, after the work before it.
  virtual bool copy(spmd_dev *d, void *dst, const void *src, int64_t bytes) = 0;
  /// The `bytes` (1, 4 or 8) at `p`, zero-extended, once the work before it is done.
  virtual bool read(spmd_dev *d, const void *p, int32_t bytes, int64_t &value) = 0;
  /// Row-major batched C[i] = A[i] @ B[i] with the device's BLAS (spmd_gemm): 0 when
  /// done (in stream order), 1 when no BLAS is available for `dtype`, -1 after an error.
  virtual int gemm(spmd_dev *d, int32_t dtype, int64_t batch, int64_t m, int64_t n, int64_t k,
                   const void *a, const void *b, void *c) = 0;
};

/// The collectives of spmdrt.h over groups of the current launch's mesh. Every member
/// of a group calls the same collectives in the same order. A method returns false
/// when the launch was aborted, or when this device ran out of memory for it (the
/// caller records that error when none is recorded yet, then unwinds the kernel).
/// `bytesMoved` is increased by the bytes this device received from other members.
/// `dev` is the device's flat index in the mesh; buffers are the device's own memory.
class Communicator {
public:
  virtual ~Communicator() = default;
  /// Prepares for a launch over `mesh` (clears a previous abort).
  virtual void begin(const Mesh &mesh) = 0;
  /// Releases every device waiting in a collective; later collectives return false.
  virtual void abort() = 0;

  /// out = the reduction of the members' `in`; `in` equals `out` (in place) or does not
  /// overlap it.
  virtual bool allreduce(int64_t dev, const void *in, void *out, int64_t count, DType dt, RedOp op,
                         uint32_t axes, int64_t &bytesMoved) = 0;
  virtual bool allGather(int64_t dev, const void *in, void *out, int64_t bytes, uint32_t axes,
                         int64_t &bytesMoved) = 0;
  /// `pairs` holds npairs (source, destination) group indices.
  virtual bool ppermute(int64_t dev, const void *in, void *out, int64_t bytes, uint32_t axes,
                        int32_t npairs, const int32_t *pairs, int64_t &bytesMoved) = 0;
  virtual bool allToAll(int64_t dev, const void *in, void *out, int64_t chunkBytes, uint32_t axes,
                        int64_t &bytesMoved) = 0;
  virtual bool reduceScatter(int64_t dev, const void *in, void *out, int64_t count, DType dt,
                             RedOp op, uint32_t axes, int64_t &bytesMoved) = 0;
};

/// A backend: its devices and the communicator between them.
class Backend {
public:
  virtual ~Backend() = default;
  virtual int deviceCount() const = 0;
  virtual std::string describe() const = 0;
  virtual Device &device(int index) = 0;
  virtual Communicator &communicator() = 0;
  /// Starts works[i] with context contexts[i] on device i, for i < n; the caller then
  /// waits for each device. A backend may wake its devices together, and may run one
  /// device's work on the calling thread before it returns (the CPU backend: Note
  /// [Dispatch] in cpu/CpuDevice.cpp).
  virtual void startAll(int64_t n, const DeviceWork *works, spmd_dev *contexts);

  /// Loads a program's GPU kernels (PTX text) onto every GPU, beside the modules loaded
  /// before; throws std::runtime_error with the JIT's log when they do not load. Called
  /// between launches only. Backends without GPUs ignore it (the PTX is empty there).
  virtual void loadKernels(const std::string &ptx) {}
  /// Kernels compiled for the host (codegen's Split::Host: each an entry
  /// `void name(spmd_kernel_error *err, int64_t n, void **params)`), which CPU devices
  /// run in place when a device program launches them; later loads add to (and for a
  /// name already loaded, replace) earlier ones. Called between launches only. Backends
  /// with GPUs ignore them (their kernels are PTX).
  virtual void loadHostKernels(const std::vector<std::pair<std::string, void *>> &kernels) {}

  // Note [Sharded arrays] (HostState.h) from the backend's side: a launch's results may
  // stay in device memory, keyed by the host address range they stand for. The host
  // calls these hooks, between launches, whenever it touches such a range
  // [host, host + bytes); backends whose devices write host memory directly ignore them.

  /// Copies every device shard in the range into host memory and drops it, so that the
  /// host buffer holds the data. False after a device error (the message is in `why`).
  virtual bool gather(void *host, int64_t bytes, std::string &why) { return true; }
  /// Drops the shards in the range: the host buffer is freed or about to be overwritten.
  virtual void release(void *host, int64_t bytes) {}
  /// Releases dst's range, then gives it the same shards as src's range (shared: device
  /// buffers are never written after the launch that produced them, so sharing is safe).
  virtual void alias(void *dst, const void *src, int64_t bytes) {}

  // Runs over several processes (MPI, mpi/MpiBackend.cpp), where every process runs the
  // host program and a launch's devices are spread over the processes. One process
  // ignores these.

  /// Called by spmd_launch on the host thread once `works` (one per device of the mesh,
  /// in flat order) are laid out, before any device starts. False (with `why`) fails
  /// the launch.
  virtual bool beginLaunch(const char *name, const Mesh &mesh, const std::vector<DeviceWork> &works,
                           ErrorState &errors, std::string &why) {
    return true;
  }
  /// Called when every device of this process has finished the launch; `ok` is this
  /// process's outcome. Returns the launch's outcome over all processes, leaving the same
  /// first error in `errors` on every process when it failed.
  virtual bool endLaunch(bool ok, ErrorState &errors) { return ok; }
  /// Sums each value over the processes (for --stats); every process calls it alike.
  virtual void sumAcrossProcesses(std::vector<int64_t> &values) {}
  /// More lines for --stats (bytes moved per collective within and across processes);
  /// every process calls it alike.
  virtual std::string extraStats() { return ""; }
};

/// The CPU backend: `count` devices, one persistent thread each (cpu/CpuDevice.cpp).
std::unique_ptr<Backend> makeCpuBackend(int count);
/// The CUDA backend (cuda/CudaBackend.cpp): `count` logical devices spread over the
/// GPUs of the machine (0: one per GPU). Throws std::runtime_error when there is no
/// usable GPU or a GPU cannot be set up (Host::create asks cudaDeviceCount() first, for
/// a friendlier message).
std::unique_ptr<Backend> makeCudaBackend(int count);

}  // namespace spmd::rt

/// The context of one device inside a launch; kernels receive it as `spmd_dev *` and
/// pass it back to the device-side entry points (Device.cpp).
struct spmd_dev {
  spmd::rt::Device *device = nullptr;
  spmd::rt::Communicator *comm = nullptr;
  spmd::rt::ErrorState *errors = nullptr;
  const spmd::rt::Mesh *mesh = nullptr;
  int64_t index = 0;             ///< flat index in the mesh
  int64_t collectiveBytes = 0;   ///< bytes received in collectives during this launch
  const char *launch = nullptr;  ///< the launch's name, "pmap i @ file:line:col" (messages)
};

namespace spmd::rt {
/// "where: message" with "{0}" and "{1}" in message replaced by a0 and a1, the text of a
/// failed run-time check (spmd_check_error).
std::string checkErrorMessage(const char *message, int64_t a0, int64_t a1, const char *where);
/// "where: index I is out of range for size N", the message of an index error
/// (SPMD_INDEX_ERROR; the kernels' error record).
std::string indexErrorMessage(int64_t index, int64_t size, const char *where);
/// Records a device error (unless one is already recorded) and aborts the launch's
/// collectives, so that no device keeps waiting. Returns; follow it with unwindDevice.
void recordDeviceError(spmd_dev *d, const std::string &message);
/// Unwinds the kernel: d->device->unwind(). Call it from a frame with only
/// trivially destructible locals: the frames it skips run no destructors (Note
/// [Unwinding kernels] in Device.cpp).
[[noreturn]] void unwindDevice(spmd_dev *d);
}  // namespace spmd::rt
