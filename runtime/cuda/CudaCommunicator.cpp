// ===- CudaCommunicator.cpp - collectives between CUDA devices ----------------===//
#include "cuda/CudaCommunicator.h"

#include "Trace.h"
#include "cpu/Reduce.h"
#include "cuda/CudaDevice.h"

#include <cstring>
#include <string>

namespace spmd::rt::cuda {

// Note [CUDA collectives]
// ~~~~~~~~~~~~~~~~~~~~~~~
// Each member's work is asynchronous on its own stream, so "my input is ready" and "I
// have finished reading yours" are events, not moments. A collective of G > 1 members:
//
//   1. publish: the member records its `ready` event on its stream after its input is
//      ready (after a staging copy when the input overlaps its output: others must not
//      read bytes that its own copies overwrite) and stores the input's address and its
//      events in its Member slot;
//   2. barrier B1; then the member makes its stream wait for every other member's
//      `ready`, enqueues the copies it needs from their inputs into its own output
//      (cuMemcpyAsync: unified addressing finds the GPUs), and records `done`;
//   3. barrier B2; then the member makes its stream wait for every other member's
//      `done` before anything else it enqueues.
//
// After step 3 no member's later work (a kernel overwriting its input, the free of its
// scratch when the launch ends) can run before every other member has finished reading
// it. The host never waits for the GPUs here: only the streams do. Reusing the two
// events per device is safe: a member re-records `ready` only after B1 of its next
// collective and `done` after that, and everyone waits on the previous records before
// leaving B2 of this one; waiting on a later record would only wait longer, never on
// work enqueued after the wait (a stream waits for what was recorded when it asked).
//
// As on the CPU (Note [Collective protocol] in cpu/CpuCommunicator.cpp), only B1 gives
// way to an abort: a member that passed B1 must reach B2, because others may be about
// to read its buffers. A driver error in phase 2 is therefore recorded after B2. Reading
// 'every member passed B1' off the barrier: once it is released, nobody returns false
// from it, even if the launch is aborted in the same instant.
//
// allreduce and reduce_scatter stage every member's input in pinned host memory, meet
// at B1, fold in group order with the CPU backend's Reduce.h (so the bits are those of
// the CPU backend), copy the result back and meet at B2 before anyone reuses its
// staging buffer. Slow, but correct; generated code does not use them on GPUs.

namespace {

CUdeviceptr toDev(const void *p) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p));
}

bool overlaps(const void *a, int64_t an, const void *b, int64_t bn) {
  auto pa = reinterpret_cast<uintptr_t>(a), pb = reinterpret_cast<uintptr_t>(b);
  return an > 0 && bn > 0 && pa < pb + uint64_t(bn) && pb < pa + uint64_t(an);
}

}  // namespace

CudaCommunicator::CudaCommunicator(const CudaApi &api, std::vector<CudaDevice *> devices)
    : api_(api), devices_(std::move(devices)), members_(devices_.size()) {}

CudaCommunicator::~CudaCommunicator() = default;

void CudaCommunicator::begin(const Mesh &mesh) {
  aborted_.store(false);
  if (!(mesh == mesh_) || masks_.empty()) {
    mesh_ = mesh;
    masks_.clear();
    masks_.resize(size_t(1) << mesh.rank);
    for (uint32_t mask = 0; mask < masks_.size(); ++mask) {
      MaskGroups &mg = masks_[mask];
      mg.groupSize = groupOf(mesh, 0, mask).size;
      int64_t groups = mesh.size / mg.groupSize;
      mg.members.resize(mesh.size);
      for (int64_t id = 0; id < groups; ++id) {
        auto b = std::make_unique<Barrier>();
        b->size = mg.groupSize;
        mg.barriers.push_back(std::move(b));
        for (int64_t i = 0; i < mg.groupSize; ++i)
          mg.members[id * mg.groupSize + i] = memberOf(mesh, mask, id, i);
      }
    }
  }
  // A previous launch may have been aborted in the middle of a barrier.
  for (MaskGroups &mg : masks_)
    for (auto &b : mg.barriers) {
      std::lock_guard<std::mutex> lock(b->mu);
      b->arrived = 0;
    }
}

void CudaCommunicator::abort() {
  aborted_.store(true);
  for (MaskGroups &mg : masks_)
    for (auto &b : mg.barriers) {
      std::lock_guard<std::mutex> lock(b->mu);  // no waiter misses the flag
      b->cv.notify_all();
    }
}

CudaCommunicator::View CudaCommunicator::view(int64_t dev, uint32_t axes) {
  uint32_t mask = axes & ((1u << mesh_.rank) - 1);
  Group g = groupOf(mesh_, dev, mask);
  MaskGroups &mg = masks_[mask];
  return {mg.barriers[g.id].get(), &mg.members[g.id * g.size], g.size, g.index};
}

bool CudaCommunicator::sync(Barrier &b) {
  std::unique_lock<std::mutex> lock(b.mu);
  if (aborted_.load()) return false;
  uint64_t gen = b.generation;
  if (++b.arrived == b.size) {
    b.arrived = 0;
    ++b.generation;
    b.cv.notify_all();
    return true;
  }
  b.cv.wait(lock, [&] { return b.generation != gen || aborted_.load(); });
  return b.generation != gen;
}

bool CudaCommunicator::finish(Barrier &b) {
  std::unique_lock<std::mutex> lock(b.mu);
  uint64_t gen = b.generation;
  if (++b.arrived == b.size) {
    b.arrived = 0;
    ++b.generation;
    b.cv.notify_all();
  } else {
    b.cv.wait(lock, [&] { return b.generation != gen; });
  }
  return !aborted_.load();
}

CUresult CudaCommunicator::copyAsync(int64_t dev, CUdeviceptr dst, CUdeviceptr src, int64_t bytes) {
  if (bytes <= 0 || dst == src) return CUDA_SUCCESS;
  return api_.cuMemcpyAsync(dst, src, size_t(bytes), devices_[dev]->stream());
}

template <typename Enqueue>
bool CudaCommunicator::exchange(int64_t dev, const View &v, const void *in, int64_t inBytes,
                                const void *out, int64_t outBytes, const char *what,
                                Enqueue enqueue) {
  CudaDevice &me = *devices_[dev];
  Member &slot = members_[dev];
  CUstream stream = me.stream();
  std::string where = std::string(what) + " on device " + std::to_string(dev);
  // 1. publish
  slot.src = toDev(in);
  if (overlaps(in, inBytes, out, outBytes)) {
    CUdeviceptr stage = me.temp(inBytes);
    if (!stage) return false;
    CUresult r = api_.cuMemcpyDtoDAsync(stage, toDev(in), size_t(inBytes), stream);
    if (r != CUDA_SUCCESS) return me.fail(r, "staging the input of " + where);
    slot.src = stage;
  }
  slot.ready = me.readyEvent();
  slot.done = me.doneEvent();
  CUresult r = api_.cuEventRecord(slot.ready, stream);
  if (r != CUDA_SUCCESS) return me.fail(r, "recording an event for " + where);
  // 2. B1, then this member's copies, after the others' inputs are ready
  if (!sync(*v.barrier)) return false;
  for (int64_t j = 0; j < v.size && r == CUDA_SUCCESS; ++j)
    if (j != v.index) r = api_.cuStreamWaitEvent(stream, members_[v.members[j]].ready, 0);
  if (r == CUDA_SUCCESS) r = enqueue(stream);
  if (r == CUDA_SUCCESS) r = api_.cuEventRecord(slot.done, stream);
  // 3. B2, then nothing of this member's runs before the others' reads are done
  bool ok = finish(*v.barrier);
  for (int64_t j = 0; j < v.size; ++j) {
    if (j == v.index) continue;
    CUresult w = api_.cuStreamWaitEvent(stream, members_[v.members[j]].done, 0);
    if (r == CUDA_SUCCESS) r = w;
  }
  if (r != CUDA_SUCCESS) return me.fail(r, where);
  return ok;
}

bool CudaCommunicator::allGather(int64_t dev, const void *in, void *out, int64_t bytes,
                                 uint32_t axes, int64_t &bytesMoved) {
  trace::Span span("all_gather", "collective", trace::kDevicePid, int(dev));
  View v = view(dev, axes);
  if (v.size == 1 || bytes == 0) {
    CUresult r = copyAsync(dev, toDev(out), toDev(in), bytes);
    if (r != CUDA_SUCCESS) return devices_[dev]->fail(r, "all_gather");
    return !aborted_.load();
  }
  CUdeviceptr dst = toDev(out);
  bool ok = exchange(dev, v, in, bytes, out, bytes * v.size, "all_gather", [&](CUstream) {
    CUresult r = CUDA_SUCCESS;
    for (int64_t j = 0; j < v.size && r == CUDA_SUCCESS; ++j)
      r = copyAsync(dev, dst + j * bytes, members_[v.members[j]].src, bytes);
    return r;
  });
  if (ok) bytesMoved += (v.size - 1) * bytes;
  return ok;
}

bool CudaCommunicator::ppermute(int64_t dev, const void *in, void *out, int64_t bytes,
                                uint32_t axes, int32_t npairs, const int32_t *pairs,
                                int64_t &bytesMoved) {
  trace::Span span("ppermute", "collective", trace::kDevicePid, int(dev));
  View v = view(dev, axes);
  int64_t source = -1;
  for (int32_t p = 0; p < npairs; ++p)
    if (pairs[2 * p + 1] == v.index && pairs[2 * p] >= 0 && pairs[2 * p] < v.size)
      source = pairs[2 * p];
  CUdeviceptr dst = toDev(out);
  CudaDevice &me = *devices_[dev];
  auto zero = [&](CUstream stream) {
    return bytes > 0 ? api_.cuMemsetD8Async(dst, 0, size_t(bytes), stream) : CUDA_SUCCESS;
  };
  if (v.size == 1 || bytes == 0) {
    CUresult r = source == 0 ? copyAsync(dev, dst, toDev(in), bytes) : zero(me.stream());
    if (r != CUDA_SUCCESS) return me.fail(r, "ppermute");
    return !aborted_.load();
  }
  bool ok = exchange(dev, v, in, bytes, out, bytes, "ppermute", [&](CUstream stream) {
    if (source < 0) return zero(stream);
    return copyAsync(dev, dst, members_[v.members[source]].src, bytes);
  });
  if (ok && source >= 0 && source != v.index) bytesMoved += bytes;
  return ok;
}

bool CudaCommunicator::allToAll(int64_t dev, const void *in, void *out, int64_t chunkBytes,
                                uint32_t axes, int64_t &bytesMoved) {
  trace::Span span("all_to_all", "collective", trace::kDevicePid, int(dev));
  View v = view(dev, axes);
  if (v.size == 1 || chunkBytes == 0) {
    CUresult r = copyAsync(dev, toDev(out), toDev(in), chunkBytes);
    if (r != CUDA_SUCCESS) return devices_[dev]->fail(r, "all_to_all");
    return !aborted_.load();
  }
  int64_t total = chunkBytes * v.size;
  CUdeviceptr dst = toDev(out);
  bool ok = exchange(dev, v, in, total, out, total, "all_to_all", [&](CUstream) {
    CUresult r = CUDA_SUCCESS;
    for (int64_t j = 0; j < v.size && r == CUDA_SUCCESS; ++j)
      r = copyAsync(dev, dst + j * chunkBytes, members_[v.members[j]].src + v.index * chunkBytes,
                    chunkBytes);
    return r;
  });
  if (ok) bytesMoved += (v.size - 1) * chunkBytes;
  return ok;
}

bool CudaCommunicator::hostReduce(int64_t dev, const View &v, const void *in, int64_t inBytes,
                                  void *out, int64_t first, int64_t count, DType dt, RedOp op,
                                  const char *what) {
  CudaDevice &me = *devices_[dev];
  Member &slot = members_[dev];
  CUstream stream = me.stream();
  int64_t outBytes = count * dtypeSize(int32_t(dt));
  std::string where = std::string(what) + " on device " + std::to_string(dev);
  // Stage this member's input in host memory, and make room for its result, before B1:
  // a failure here just leaves the group (the error aborts the launch).
  CUresult r = me.hostStage().reserve(inBytes);
  if (r == CUDA_SUCCESS) r = me.hostResult().reserve(outBytes);
  if (r == CUDA_SUCCESS && inBytes > 0)
    r = api_.cuMemcpyDtoHAsync(me.hostStage().data(), toDev(in), size_t(inBytes), stream);
  if (r == CUDA_SUCCESS) r = api_.cuStreamSynchronize(stream);
  if (r != CUDA_SUCCESS) return me.fail(r, "staging the input of " + where + " in host memory");
  slot.host = me.hostStage().data();
  if (!sync(*v.barrier)) return false;
  slot.srcs.resize(v.size);
  for (int64_t j = 0; j < v.size; ++j) slot.srcs[j] = members_[v.members[j]].host;
  reduceInto(me.hostResult().data(), slot.srcs.data(), v.size, first, count, dt, op);
  // The result buffer is reused by the next reduction: wait for the copy.
  if (outBytes > 0)
    r = api_.cuMemcpyHtoDAsync(toDev(out), me.hostResult().data(), size_t(outBytes), stream);
  if (r == CUDA_SUCCESS) r = api_.cuStreamSynchronize(stream);
  bool ok = finish(*v.barrier);  // nobody reads this member's staged input any more
  if (r != CUDA_SUCCESS) return me.fail(r, "copying the result of " + where + " back");
  return ok;
}

bool CudaCommunicator::allreduce(int64_t dev, const void *in, void *out, int64_t count, DType dt,
                                 RedOp op, uint32_t axes, int64_t &bytesMoved) {
  trace::Span span("psum (allreduce)", "collective", trace::kDevicePid, int(dev));
  View v = view(dev, axes);
  int64_t esize = dtypeSize(int32_t(dt));
  if (v.size == 1 || count == 0) {
    // hostReduce stages `in` first, so only a group of one needs the copy itself.
    CUresult r = copyAsync(dev, toDev(out), toDev(in), count * esize);
    if (r != CUDA_SUCCESS) return devices_[dev]->fail(r, "psum");
    return !aborted_.load();
  }
  if (!hostReduce(dev, v, in, count * esize, out, 0, count, dt, op, "psum")) return false;
  // What a ring allreduce moves into each device (NCCL's "bus bytes"), as on the CPU.
  bytesMoved += 2 * (v.size - 1) * count * esize / v.size;
  return true;
}

bool CudaCommunicator::reduceScatter(int64_t dev, const void *in, void *out, int64_t count,
                                     DType dt, RedOp op, uint32_t axes, int64_t &bytesMoved) {
  trace::Span span("psum_scatter", "collective", trace::kDevicePid, int(dev));
  View v = view(dev, axes);
  int64_t esize = dtypeSize(int32_t(dt));
  if (!hostReduce(dev, v, in, count * esize * v.size, out, count * v.index, count, dt, op,
                  "psum_scatter"))
    return false;
  bytesMoved += (v.size - 1) * count * esize;
  return true;
}

}  // namespace spmd::rt::cuda
