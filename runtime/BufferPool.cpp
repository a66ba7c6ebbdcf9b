// ===- BufferPool.cpp - a caching allocator for host and CPU-device buffers ---===//
#include "BufferPool.h"

#include <algorithm>
#include <new>

#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define SPMD_POOL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SPMD_POOL_ASAN 1
#endif
#endif

#ifdef SPMD_POOL_ASAN
#include <sanitizer/asan_interface.h>
#define POOL_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, size_t(n))
#define POOL_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, size_t(n))
#else
#define POOL_POISON(p, n) ((void)(p), (void)(n))
#define POOL_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace spmd::rt {

BufferPool::BufferPool(int64_t cacheLimit) : limit_(std::max<int64_t>(cacheLimit, 0)) {}

BufferPool::~BufferPool() {
  std::lock_guard<std::mutex> lock(mu_);
  shrinkTo(0);
  for (auto &[p, size] : live_) osFree(p, size);
  live_.clear();
}

BufferPool &BufferPool::global() {
  // Never destroyed: a Host (or a device thread) may still free into it during exit.
  static BufferPool *pool = new BufferPool();
  return *pool;
}

int64_t BufferPool::defaultCacheLimit() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  int64_t quarter = pages > 0 && page > 0 ? int64_t(pages) * page / 4 : int64_t(1) << 30;
  return std::min<int64_t>(quarter, int64_t(4) << 30);
}

int64_t BufferPool::sizeClass(int64_t bytes) {
  if (bytes < 0 || bytes > (int64_t(1) << 60)) return -1;
  if (bytes <= 256) return std::max<int64_t>(kAlign, (bytes + kAlign - 1) / kAlign * kAlign);
  // Four classes per power of two: 2^k + j * 2^(k-2) for j = 1..4, 2^k < bytes.
  int k = 63 - __builtin_clzll(uint64_t(bytes - 1));
  int64_t step = int64_t(1) << (k - 2);
  return (bytes + step - 1) / step * step;
}

void *BufferPool::osAlloc(int64_t size) {
  if (size < kMapBytes)
    return ::operator new(static_cast<size_t>(size), std::align_val_t(kAlign), std::nothrow);
  if (size < kHugeBytes) {
    void *p =
        mmap(nullptr, size_t(size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? nullptr : p;
  }
  // 2 MiB aligned, so that transparent huge pages can back all of it: map 2 MiB more
  // and unmap the unaligned head and the tail.
  size_t want = size_t(size) + size_t(kHugeBytes);
  void *raw = mmap(nullptr, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  uintptr_t aligned = (start + uintptr_t(kHugeBytes) - 1) & ~uintptr_t(kHugeBytes - 1);
  if (aligned > start) munmap(raw, aligned - start);
  uintptr_t end = start + want, used = aligned + uintptr_t(size);
  if (end > used) munmap(reinterpret_cast<void *>(used), end - used);
  void *p = reinterpret_cast<void *>(aligned);
#ifdef MADV_HUGEPAGE
  madvise(p, size_t(size), MADV_HUGEPAGE);  // advice only: ignored where THP is off
#endif
  return p;
}

void BufferPool::osFree(void *p, int64_t size) {
  POOL_UNPOISON(p, size);
  if (size < kMapBytes)
    ::operator delete(p, std::align_val_t(kAlign));
  else
    munmap(p, size_t(size));
}

void *BufferPool::alloc(int64_t bytes) {
  int64_t size = sizeClass(bytes);
  if (size < 0) return nullptr;
  std::unique_lock<std::mutex> lock(mu_);
  void *p = nullptr;
  auto it = free_.find(size);
  if (it != free_.end()) {
    p = it->second.back();
    it->second.pop_back();
    if (it->second.empty()) free_.erase(it);
    cached_ -= size;
    POOL_UNPOISON(p, size);
  } else {
    // Out of the lock: a large mmap may take a while, and other threads need the pool.
    lock.unlock();
    p = osAlloc(size);
    lock.lock();
    if (!p) {
      // Cached blocks of other classes may be what stands in the way: free them, retry.
      if (cached_ == 0) return nullptr;
      shrinkTo(0);
      lock.unlock();
      p = osAlloc(size);
      lock.lock();
      if (!p) return nullptr;
    }
    stats_.osAllocs += 1;
    stats_.held += size;
    stats_.peakHeld = std::max(stats_.peakHeld, stats_.held);
  }
  live_.emplace(p, size);
  stats_.allocs += 1;
  stats_.inUse += size;
  stats_.peakInUse = std::max(stats_.peakInUse, stats_.inUse);
  return p;
}

void BufferPool::free(void *p) {
  if (!p) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(p);
  if (it == live_.end()) return;
  int64_t size = it->second;
  live_.erase(it);
  stats_.inUse -= size;
  if (size > limit_) {
    osFree(p, size);
    stats_.osFrees += 1;
    stats_.held -= size;
    return;
  }
  POOL_POISON(p, size);
  free_[size].push_back(p);
  cached_ += size;
  shrinkTo(limit_);
}

void BufferPool::shrinkTo(int64_t limit) {
  while (cached_ > limit && !free_.empty()) {
    auto last = std::prev(free_.end());
    void *p = last->second.back();
    last->second.pop_back();
    osFree(p, last->first);
    cached_ -= last->first;
    stats_.held -= last->first;
    stats_.osFrees += 1;
    if (last->second.empty()) free_.erase(last);
  }
}

void BufferPool::trim() {
  std::lock_guard<std::mutex> lock(mu_);
  shrinkTo(0);
}

BufferPool::Stats BufferPool::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void BufferPool::resetStats() {
  std::lock_guard<std::mutex> lock(mu_);
  Stats s;
  s.inUse = s.peakInUse = stats_.inUse;
  s.held = s.peakHeld = stats_.held;
  stats_ = s;
}

}  // namespace spmd::rt
