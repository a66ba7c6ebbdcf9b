// ===- CudaShared.h - what the CUDA devices share: GPUs, shards, modules ------===//
//
// The CUDA backend has one logical device per host worker thread (CudaDevice.h) and
// several logical devices may share one physical GPU. What they share lives here: the
// GPUs (primary contexts, loaded kernel modules) and the shard table, the backend's
// side of Note [Sharded arrays]: which host address ranges currently stand for buffers
// in device memory, and where those buffers are.
#pragma once

#include "cuda/CudaApi.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace spmd::rt::cuda {

/// One physical GPU of the backend.
struct Gpu {
  int ordinal = 0;
  CUdevice dev = 0;
  CUcontext ctx = nullptr;  ///< the primary context, retained by the backend
  std::string name;
  int smCount = 1;
  /// Frees shards (stream-ordered) from whichever thread drops the last reference.
  CUstream releaseStream = nullptr;
  /// Kernel modules in load order (Backend::loadKernels); guarded by
  /// CudaShared::modulesMu, written only between launches.
  std::vector<CUmodule> modules;
};

/// A launch result kept in device memory: `bytes` at `ptr` on `gpu`. Never written
/// after the launch that produced it, so several host ranges may share it (alias).
/// Freed, stream-ordered, when the last reference goes.
struct Shard {
  Shard(const CudaApi &api, Gpu &gpu, CUdeviceptr ptr, int64_t bytes)
      : api(api), gpu(gpu), ptr(ptr), bytes(bytes) {}
  ~Shard();
  Shard(const Shard &) = delete;
  Shard &operator=(const Shard &) = delete;

  const CudaApi &api;
  Gpu &gpu;
  CUdeviceptr ptr;
  int64_t bytes;
};
using ShardRef = std::shared_ptr<Shard>;

/// Host address -> shard, for the whole backend (devices on one GPU read each other's
/// shards in place). Thread-safe. Removed shards are handed back to the caller, which
/// decides when they die: a device may still be reading one (Note [Shard lifetime] in
/// CudaDevice.cpp).
class ShardTable {
public:
  using Entry = std::pair<uintptr_t, ShardRef>;
  /// The shard stored at exactly `host` with exactly `bytes` bytes, or null.
  ShardRef find(const void *host, int64_t bytes) const;
  /// Removes the shards that start in [host, host + bytes) and returns them in address
  /// order.
  std::vector<Entry> take(const void *host, int64_t bytes);
  /// Stores `shard` at `host`, first moving the shards that start in its range to `dropped`.
  void put(const void *host, ShardRef shard, std::vector<ShardRef> &dropped);
  /// Gives [dst, dst + bytes) the shards of [src, src + bytes) at the same offsets, after
  /// removing dst's own; returns the removed ones.
  std::vector<Entry> alias(const void *dst, const void *src, int64_t bytes);
  /// Drops every shard.
  void clear();

private:
  mutable std::mutex mu_;
  std::map<uintptr_t, ShardRef> map_;
};

/// Page-locked host memory, mapped into every context's address space (portable), that
/// grows on demand; for small read-backs and host-side reductions.
class PinnedBuffer {
public:
  PinnedBuffer(const CudaApi &api, CUcontext ctx) : api_(api), ctx_(ctx) {}
  ~PinnedBuffer();
  PinnedBuffer(const PinnedBuffer &) = delete;
  PinnedBuffer &operator=(const PinnedBuffer &) = delete;
  /// At least `bytes` bytes (contents not kept); an error code when out of memory.
  CUresult reserve(int64_t bytes);
  void *data() const { return data_; }

private:
  const CudaApi &api_;
  CUcontext ctx_;
  void *data_ = nullptr;
  int64_t capacity_ = 0;
};

/// The state the backend, its devices and its communicator share.
struct CudaShared {
  explicit CudaShared(const CudaApi &api) : api(api) {}
  const CudaApi &api;
  std::vector<std::unique_ptr<Gpu>> gpus;
  ShardTable shards;
  std::mutex modulesMu;                       ///< guards every Gpu::modules
  std::atomic<uint64_t> moduleGeneration{0};  ///< bumped by each loadKernels
};

}  // namespace spmd::rt::cuda
