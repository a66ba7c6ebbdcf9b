// ===- CudaShared.cpp - the shard table, shards and pinned buffers ------------===//
#include "cuda/CudaShared.h"

#include <algorithm>

namespace spmd::rt::cuda {

// A shard dies on whichever thread drops the last reference (a device thread, or the
// host in spmd_host_free), so its GPU's context is pushed for the free. The free is
// stream-ordered on the GPU's release stream: every use of the buffer has finished by
// then (Note [Shard lifetime] in CudaDevice.cpp), so nothing has to wait for it. An
// error here has nobody to report to (it would resurface on the next call anyway).
Shard::~Shard() {
  ScopedContext scope(api, gpu.ctx);
  api.cuMemFreeAsync(ptr, gpu.releaseStream);
}

ShardRef ShardTable::find(const void *host, int64_t bytes) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = map_.find(reinterpret_cast<uintptr_t>(host));
  if (it == map_.end() || it->second->bytes != bytes) return nullptr;
  return it->second;
}

std::vector<ShardTable::Entry> ShardTable::take(const void *host, int64_t bytes) {
  std::vector<Entry> out;
  auto lo = reinterpret_cast<uintptr_t>(host);
  std::lock_guard<std::mutex> lock(mu_);
  auto first = map_.lower_bound(lo);
  auto last = first;
  while (last != map_.end() && last->first < lo + uint64_t(std::max<int64_t>(bytes, 1))) {
    out.emplace_back(last->first, std::move(last->second));
    ++last;
  }
  map_.erase(first, last);
  return out;
}

void ShardTable::put(const void *host, ShardRef shard, std::vector<ShardRef> &dropped) {
  auto lo = reinterpret_cast<uintptr_t>(host);
  uint64_t hi = lo + uint64_t(std::max<int64_t>(shard->bytes, 1));
  std::lock_guard<std::mutex> lock(mu_);
  auto it = map_.lower_bound(lo);
  while (it != map_.end() && it->first < hi) {
    dropped.push_back(std::move(it->second));
    it = map_.erase(it);
  }
  map_.emplace(lo, std::move(shard));
}

std::vector<ShardTable::Entry> ShardTable::alias(const void *dst, const void *src, int64_t bytes) {
  std::vector<Entry> removed;
  auto d = reinterpret_cast<uintptr_t>(dst), s = reinterpret_cast<uintptr_t>(src);
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Entry> copies;
  for (auto it = map_.lower_bound(s); it != map_.end() && it->first < s + uint64_t(bytes); ++it)
    copies.emplace_back(d + (it->first - s), it->second);
  auto it = map_.lower_bound(d);
  while (it != map_.end() && it->first < d + uint64_t(bytes)) {
    removed.emplace_back(it->first, std::move(it->second));
    it = map_.erase(it);
  }
  for (Entry &e : copies) map_.emplace(e.first, std::move(e.second));
  return removed;
}

void ShardTable::clear() {
  std::map<uintptr_t, ShardRef> doomed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    doomed.swap(map_);
  }
  // The shards die here, outside the lock.
}

PinnedBuffer::~PinnedBuffer() {
  if (!data_) return;
  ScopedContext scope(api_, ctx_);
  api_.cuMemFreeHost(data_);
}

CUresult PinnedBuffer::reserve(int64_t bytes) {
  if (bytes <= capacity_) return CUDA_SUCCESS;
  int64_t want = std::max<int64_t>({bytes, capacity_ * 2, 4096});
  ScopedContext scope(api_, ctx_);
  void *p = nullptr;
  CUresult r = api_.cuMemHostAlloc(&p, size_t(want), CU_MEMHOSTALLOC_PORTABLE);
  if (r != CUDA_SUCCESS) return r;
  if (data_) api_.cuMemFreeHost(data_);
  data_ = p;
  capacity_ = want;
  return CUDA_SUCCESS;
}

}  // namespace spmd::rt::cuda
