// ===- Device.cpp - mesh arithmetic and the device-side C entry points -------===//
//
// What a kernel calls while it runs on a device: its index, axis indices, scratch
// memory, the collectives and, in device programs, kernel launches, copies, reads and
// gemm. These entry points are backend-independent: they check their arguments and
// forward to the launch's Device and Communicator through the `spmd_dev` context.
// Errors unwind the kernel (Note [Unwinding kernels]).
#include "Device.h"

#include <cstdlib>
#include <string>

namespace spmd::rt {

int64_t dtypeSize(int32_t dtype) {
  switch (static_cast<DType>(dtype)) {
// clang-format off
#define SPMD_RT_DTYPE(Cxx, C, code, bytes, text) case DType::Cxx: return bytes;
#include "spmdrt.def"
    // clang-format on
  }
  return 0;
}

const char *dtypeName(int32_t dtype) {
  switch (static_cast<DType>(dtype)) {
// clang-format off
#define SPMD_RT_DTYPE(Cxx, C, code, bytes, text) case DType::Cxx: return text;
#include "spmdrt.def"
    // clang-format on
  }
  return "?";
}

Mesh::Mesh(int rank_, const int64_t *shape_) : rank(rank_) {
  for (int m = 0; m < rank; ++m) {
    shape[m] = shape_[m];
    size *= shape[m];
  }
}

std::array<int64_t, kMaxMeshRank> Mesh::coords(int64_t flat) const {
  std::array<int64_t, kMaxMeshRank> c{};
  for (int m = rank - 1; m >= 0; --m) {
    c[m] = flat % shape[m];
    flat /= shape[m];
  }
  return c;
}

Group groupOf(const Mesh &mesh, int64_t flat, uint32_t axes) {
  auto c = mesh.coords(flat);
  Group g;
  for (int m = 0; m < mesh.rank; ++m) {
    if (axes & (1u << m)) {
      g.index = g.index * mesh.shape[m] + c[m];
      g.size *= mesh.shape[m];
    } else {
      g.id = g.id * mesh.shape[m] + c[m];
    }
  }
  return g;
}

int64_t memberOf(const Mesh &mesh, uint32_t axes, int64_t id, int64_t index) {
  std::array<int64_t, kMaxMeshRank> c{};
  for (int m = mesh.rank - 1; m >= 0; --m) {
    int64_t &from = (axes & (1u << m)) ? index : id;
    c[m] = from % mesh.shape[m];
    from /= mesh.shape[m];
  }
  int64_t flat = 0;
  for (int m = 0; m < mesh.rank; ++m) flat = flat * mesh.shape[m] + c[m];
  return flat;
}

bool ErrorState::record(const std::string &message) {
  std::lock_guard<std::mutex> lock(mu_);
  if (failed_) return false;
  failed_ = true;
  message_ = message;
  device_ = -1;
  return true;
}

bool ErrorState::recordFromDevice(const std::string &message, int64_t device) {
  std::lock_guard<std::mutex> lock(mu_);
  if (failed_ && (device_ < 0 || device_ <= device)) return false;
  bool first = !failed_;
  failed_ = true;
  message_ = message;
  device_ = device;
  return first;
}

bool ErrorState::failed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failed_;
}

std::string ErrorState::message() const {
  std::lock_guard<std::mutex> lock(mu_);
  return message_;
}

int64_t ErrorState::device() const {
  std::lock_guard<std::mutex> lock(mu_);
  return device_;
}

void ErrorState::clear() {
  std::lock_guard<std::mutex> lock(mu_);
  failed_ = false;
  message_.clear();
  device_ = -1;
}

// Note [Unwinding kernels]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// A device that fails (spmd_fail, an index error, out of scratch memory) or that is
// released from a collective because another device failed cannot go on running its
// kernel. It unwinds with longjmp to the setjmp in the backend's launch wrapper (the
// jmp_buf is the backend's own, not spmd_dev's: Device::unwind). The frames in between are jitted
// code (no destructors) and these entry points, which build their messages in helper functions that
// return first, so every frame that longjmp skips holds only trivially destructible locals. C++
// exceptions are never thrown through jitted frames.

void Backend::startAll(int64_t n, const DeviceWork *works, spmd_dev *contexts) {
  for (int64_t i = 0; i < n; ++i) device(int(i)).start(works[i], &contexts[i]);
}

std::string checkErrorMessage(const char *message, int64_t a0, int64_t a1, const char *where) {
  std::string m = message ? message : "a run-time check failed", out;
  for (size_t k = 0; k < m.size(); ++k) {
    if (m.compare(k, 3, "{0}") == 0 || m.compare(k, 3, "{1}") == 0) {
      out += std::to_string(m[k + 1] == '0' ? a0 : a1);
      k += 2;
    } else {
      out += m[k];
    }
  }
  return std::string(where ? where : "?") + ": " + out;
}

std::string indexErrorMessage(int64_t index, int64_t size, const char *where) {
  return checkErrorMessage(SPMD_INDEX_ERROR, index, size, where);
}

void recordDeviceError(spmd_dev *d, const std::string &message) {
  d->errors->recordFromDevice(message, d->index);
  d->comm->abort();
}

void unwindDevice(spmd_dev *d) {
  d->device->unwind();
  std::abort();  // not reached: unwind() longjmps (GCC does not carry [[noreturn]] through
                 // virtuals)
}

namespace {

/// Checks a reduction's dtype and op; records an error and returns false when wrong.
bool checkReduce(spmd_dev *d, const char *what, int32_t dtype, int32_t op) {
  if (dtype < 0 || dtype > 4) {
    recordDeviceError(d, std::string(what) + ": cannot reduce values of dtype " + dtypeName(dtype));
    return false;
  }
  if (op < 0 || op > 3) {
    recordDeviceError(d, std::string(what) + ": unknown reduction code " + std::to_string(op));
    return false;
  }
  return true;
}

/// After a collective returned false: the launch was aborted (an error is already
/// recorded), or this device could not stage its input, which is recorded here.
void collectiveFailed(spmd_dev *d, const char *what) {
  if (!d->errors->failed())
    recordDeviceError(d, "device " + std::to_string(d->index) + " is out of memory in " + what);
}

/// After a device-program method failed: records that `what` failed on this device,
/// which is kept only when the method (or another device) recorded nothing before.
void deviceCallFailed(spmd_dev *d, const char *what, const char *name) {
  if (d->errors->failed()) return;  // a device's own error came first: keep that one
  recordDeviceError(d, std::string(what) + (name ? std::string(" ") + name : std::string()) +
                           " failed on device " + std::to_string(d->index));
}

void recordOutOfMemory(spmd_dev *d, int64_t bytes) {
  recordDeviceError(d, "device " + std::to_string(d->index) + " is out of memory (allocating " +
                           std::to_string(bytes) + " bytes)");
}

}  // namespace
}  // namespace spmd::rt

using namespace spmd::rt;

extern "C" {

int32_t spmd_dev_index(spmd_dev *d) { return static_cast<int32_t>(d->index); }

int32_t spmd_axis_index(spmd_dev *d, uint32_t axes) {
  return static_cast<int32_t>(groupOf(*d->mesh, d->index, axes).index);
}

void *spmd_dev_alloc(spmd_dev *d, int64_t bytes) {
  void *p = d->device->scratch(bytes);
  if (!p) {
    recordOutOfMemory(d, bytes);
    unwindDevice(d);
  }
  return p;
}

void spmd_allreduce_to(spmd_dev *d, const void *in, void *out, int64_t count, int32_t dtype,
                       int32_t op, uint32_t axes) {
  if (!checkReduce(d, "psum", dtype, op)) unwindDevice(d);
  if (!d->comm->allreduce(d->index, in, out, count, DType(dtype), RedOp(op), axes,
                          d->collectiveBytes)) {
    collectiveFailed(d, "psum");
    unwindDevice(d);
  }
}

void spmd_allreduce(spmd_dev *d, void *buf, int64_t count, int32_t dtype, int32_t op,
                    uint32_t axes) {
  spmd_allreduce_to(d, buf, buf, count, dtype, op, axes);
}

void spmd_all_gather(spmd_dev *d, const void *in, void *out, int64_t bytes, uint32_t axes) {
  if (!d->comm->allGather(d->index, in, out, bytes, axes, d->collectiveBytes)) {
    collectiveFailed(d, "all_gather");
    unwindDevice(d);
  }
}

void spmd_ppermute(spmd_dev *d, const void *in, void *out, int64_t bytes, uint32_t axes,
                   int32_t npairs, const int32_t *pairs) {
  if (!d->comm->ppermute(d->index, in, out, bytes, axes, npairs, pairs, d->collectiveBytes)) {
    collectiveFailed(d, "ppermute");
    unwindDevice(d);
  }
}

void spmd_all_to_all(spmd_dev *d, const void *in, void *out, int64_t chunk_bytes, uint32_t axes) {
  if (!d->comm->allToAll(d->index, in, out, chunk_bytes, axes, d->collectiveBytes)) {
    collectiveFailed(d, "all_to_all");
    unwindDevice(d);
  }
}

void spmd_reduce_scatter(spmd_dev *d, const void *in, void *out, int64_t count, int32_t dtype,
                         int32_t op, uint32_t axes) {
  if (!checkReduce(d, "psum_scatter", dtype, op)) unwindDevice(d);
  if (!d->comm->reduceScatter(d->index, in, out, count, DType(dtype), RedOp(op), axes,
                              d->collectiveBytes)) {
    collectiveFailed(d, "psum_scatter");
    unwindDevice(d);
  }
}

void spmd_kernel_launch(spmd_dev *d, const char *name, int64_t n, int32_t nparams, void **params) {
  if (!d->device->launchKernel(d, name, n, nparams, params)) {
    deviceCallFailed(d, "kernel launch", name);
    unwindDevice(d);
  }
}

void spmd_dev_copy(spmd_dev *d, void *dst, const void *src, int64_t bytes) {
  if (!d->device->copy(d, dst, src, bytes)) {
    deviceCallFailed(d, "device copy", nullptr);
    unwindDevice(d);
  }
}

int64_t spmd_dev_read(spmd_dev *d, const void *p, int32_t bytes) {
  int64_t value = 0;
  if (!d->device->read(d, p, bytes, value)) {
    deviceCallFailed(d, "device read", nullptr);
    unwindDevice(d);
  }
  return value;
}

int32_t spmd_gemm(spmd_dev *d, int32_t dtype, int64_t batch, int64_t m, int64_t n, int64_t k,
                  const void *a, const void *b, void *c) {
  int rc = d->device->gemm(d, dtype, batch, m, n, k, a, b, c);
  if (rc < 0) {
    deviceCallFailed(d, "gemm", nullptr);
    unwindDevice(d);
  }
  return rc;
}

}  // extern "C"
