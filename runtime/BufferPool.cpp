// ===- BufferPool.cpp - a caching allocator for host and CPU-device buffers ---===//
#include "BufferPool.h"
#include "Settings.h"
#include "Trace.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <new>
#include <sstream>
#include <system_error>

#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <time.h>
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
  stopFaulting();
  std::lock_guard<std::mutex> lock(mu_);
  shrinkTo(0);
  for (auto &[p, size] : live_) osFree(p, size);
  live_.clear();
}

// Note [Slow huge pages]: the process's page-size choice and the count behind it.
namespace {
std::atomic<bool> smallPagesOn{false};
std::atomic<int> slowHugeRanges{0};
std::atomic<int64_t> slowHugeNs{BufferPool::kSlowHugeNs};
}  // namespace

bool BufferPool::smallPages() { return smallPagesOn.load(std::memory_order_relaxed); }

bool BufferPool::noteHugeFault(int64_t ns) {
  if (smallPages()) return false;
  if (ns <= slowHugeNs.load(std::memory_order_relaxed)) {
    slowHugeRanges.store(0);  // a fast one: the next must be slow kSlowHugeFaults times again
    return false;
  }
  if (slowHugeRanges.fetch_add(1) + 1 < kSlowHugeFaults) return false;
  return !smallPagesOn.exchange(true);
}

void BufferPool::resetPagePolicy(int64_t slowNs) {
  slowHugeNs.store(slowNs);
  slowHugeRanges.store(0);
  smallPagesOn.store(false);
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

namespace {

/// A number of bytes in a cgroup file ("max" and anything unreadable: -1).
int64_t readBytes(const std::string &path) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word) || word.empty() || word[0] < '0' || word[0] > '9') return -1;
  return int64_t(std::strtoll(word.c_str(), nullptr, 10));
}

/// The room left under the cgroups that enclose this process: the least of limit - usage
/// over the cgroup v2 directory and its ancestors (or v1's memory controller); -1 when
/// no limit is set. `total` gets the least limit (+ swap limit where v2 has one).
int64_t cgroupRoom(int64_t &total) {
  int64_t room = -1;
  total = -1;
  auto take = [&](int64_t limit, int64_t used, int64_t swap) {
    // v1 reports "no limit" as a huge number (PAGE_COUNTER_MAX pages).
    if (limit < 0 || limit >= (int64_t(1) << 60)) return;
    int64_t t = limit + (swap > 0 && swap < (int64_t(1) << 60) ? swap : 0);
    total = total < 0 ? t : std::min(total, t);
    int64_t r = std::max<int64_t>(t - std::max<int64_t>(used, 0), 0);
    room = room < 0 ? r : std::min(room, r);
  };
  std::ifstream self("/proc/self/cgroup");
  std::string line, v2;
  while (std::getline(self, line))
    if (line.rfind("0::", 0) == 0) v2 = line.substr(3);
  if (!v2.empty()) {
    // Inside a container the namespace's root is /sys/fs/cgroup itself; walk up from ours.
    for (std::string dir = v2;; dir = dir.substr(0, dir.rfind('/'))) {
      std::string base = "/sys/fs/cgroup" + (dir == "/" ? std::string() : dir);
      take(readBytes(base + "/memory.max"), readBytes(base + "/memory.current"),
           readBytes(base + "/memory.swap.max"));
      if (dir.empty() || dir == "/" || dir.find('/') == std::string::npos) break;
    }
  }
  take(readBytes("/sys/fs/cgroup/memory/memory.limit_in_bytes"),
       readBytes("/sys/fs/cgroup/memory/memory.usage_in_bytes"), -1);
  return room;
}

}  // namespace

BufferPool::Memory BufferPool::systemMemory() {
  Memory m;
  struct sysinfo si {};
  if (sysinfo(&si) == 0) {
    int64_t unit = si.mem_unit ? int64_t(si.mem_unit) : 1;
    m.total = (int64_t(si.totalram) + int64_t(si.totalswap)) * unit;
    m.available = (int64_t(si.freeram) + int64_t(si.bufferram) + int64_t(si.freeswap)) * unit;
  }
  // MemAvailable counts the page cache the kernel can drop; sysinfo does not.
  std::ifstream info("/proc/meminfo");
  std::string key;
  int64_t kib = 0, avail = -1, swapFree = -1;
  while (info >> key >> kib) {
    if (key == "MemAvailable:") avail = kib * 1024;
    if (key == "SwapFree:") swapFree = kib * 1024;
    info.ignore(64, '\n');
  }
  if (avail >= 0) m.available = avail + std::max<int64_t>(swapFree, 0);
  int64_t cgTotal = -1, room = cgroupRoom(cgTotal);
  if (cgTotal >= 0) m.total = m.total < 0 ? cgTotal : std::min(m.total, cgTotal);
  if (room >= 0) m.available = m.available < 0 ? room : std::min(m.available, room);
  return m;
}

int64_t BufferPool::heldLimit() {
  static const int64_t limit = [] {
    // The driver refused a malformed value before anything ran (exit 2); a library user
    // that did not check gets no cap, as with none set.
    return settings::bytes(settings::Id::MemoryLimit);
  }();
  return limit;
}

std::string BufferPool::humanBytes(int64_t b) {
  std::ostringstream os;
  if (b < 1024)
    os << b << " B";
  else if (b < (int64_t(1) << 20))
    os << std::fixed << std::setprecision(1) << b / 1024.0 << " KiB";
  else if (b < (int64_t(1) << 30))
    os << std::fixed << std::setprecision(1) << b / 1048576.0 << " MiB";
  else if (b < (int64_t(1) << 40))
    os << std::fixed << std::setprecision(2) << b / 1073741824.0 << " GiB";
  else
    os << std::fixed << std::setprecision(2) << b / 1099511627776.0 << " TiB";
  return os.str();
}

std::string BufferPool::shortage(int64_t bytes, BufferPool &pool) {
  (void)bytes;
  int64_t cap = heldLimit();
  if (cap >= 0) {
    int64_t held;
    {
      std::lock_guard<std::mutex> lock(pool.mu_);
      held = pool.stats_.held;
    }
    return ", more than the " + humanBytes(std::max<int64_t>(cap - held, 0)) +
           " left under SPMD_MEMORY_LIMIT (" + humanBytes(cap) + ")";
  }
  Memory m = systemMemory();
  if (m.available < 0) return "";
  std::string s = ", more than the " + humanBytes(m.available) + " available";
  if (m.total >= 0) s += " (" + humanBytes(m.total) + " of memory and swap)";
  return s;
}

bool BufferPool::fits(int64_t bytes) const {
  if (int64_t cap = heldLimit(); cap >= 0 && stats_.held + bytes > cap) return false;
  if (bytes < kMapBytes) return true;
  // One system call answers most requests: without a cgroup limit (looked for once), free
  // memory + free swap is a lower bound of what systemMemory() reads from five files.
  static const bool cgroupLimit = [] {
    int64_t total = -1;
    cgroupRoom(total);
    return total >= 0;
  }();
  struct sysinfo si {};
  if (!cgroupLimit && sysinfo(&si) == 0 &&
      bytes <= (int64_t(si.freeram) + int64_t(si.freeswap)) * int64_t(si.mem_unit ? si.mem_unit : 1))
    return true;
  Memory m = systemMemory();
  return m.available < 0 || bytes <= m.available;
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
  // Advice only: ignored where THP is off; 4 KiB pages where huge ones were found slow
  // (Note [Slow huge pages]).
  madvise(p, size_t(size), smallPages() ? MADV_NOHUGEPAGE : MADV_HUGEPAGE);
#endif
  return p;
}

void BufferPool::osFree(void *p, int64_t size) {
  POOL_UNPOISON(p, size);
  ahead_.erase(p);
  toFault_.erase(p);
  if (p == faulting_) {  // faultIn unmaps it after its madvise (Note [Pre-faulting])
    faultingFreed_ = size;
    return;
  }
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
    if (!ahead_.empty() && ahead_.erase(p)) stats_.aheadTaken += 1;
  } else {
    // Note [Memory limits]: a request the system cannot give now is refused here, not
    // killed later; the cached blocks go back first, in case they are what is missing.
    if (!fits(bytes)) {
      if (cached_ == 0) return nullptr;
      shrinkTo(0);
      if (!fits(bytes)) return nullptr;
    }
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
  // Blocks taken ahead for the run (Note [Pre-faulting]) are not the cache's to give
  // back: a 4 GiB result planned under a 4 GiB limit would go at the first small free.
  int64_t keep = limit_;
  if (!ahead_.empty())
    for (auto &[bytes, blocks] : free_)
      for (void *b : blocks) keep += ahead_.count(b) ? bytes : 0;
  shrinkTo(keep);
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
  stopFaulting();
  std::lock_guard<std::mutex> lock(mu_);
  shrinkTo(0);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

/// The calling thread's CPU time in ns.
static int64_t threadCpuNs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return int64_t(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

// Note [Pre-faulting]: faults in [p, p + bytes) as a write to every page would, without
// changing a byte: on x86-64 a locked `or` of 0 into one word per 4 KiB page (a write
// access, hence a write fault, that stores back what it read atomically, so a launch
// writing the block meanwhile loses nothing). A page fault takes only its mapping's own
// lock (Linux 6.4 on), where madvise(MADV_POPULATE_WRITE) holds the process's mmap lock
// for the whole range: LLVM's mmap and mprotect calls then waited behind each 2 MiB
// cleared (bench/notes.md, 2026-11-25, "pre-faulting without the mmap lock"). Elsewhere,
// the madvise.
static bool faultInRange(char *p, int64_t bytes) {
#if defined(__x86_64__)
  for (int64_t at = 0; at < bytes; at += 4096)
    asm volatile("lock orq $0, %0" : "+m"(*reinterpret_cast<uint64_t *>(p + at)) : : "memory");
  return true;
#else
  return madvise(p, size_t(bytes), MADV_POPULATE_WRITE) == 0;
#endif
}

int64_t BufferPool::prefault(const std::vector<spmd_buffer_hint> &plan) {
  stopFaulting();  // a thread from an earlier plan
  std::vector<std::pair<void *, int64_t>> taken;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Replay the plan against the cached blocks: which allocations find none of their class.
    std::map<int64_t, int64_t> cached;
    for (auto &[size, blocks] : free_) cached[size] = int64_t(blocks.size());
    std::vector<std::vector<int64_t>> freedAt(plan.size() + 1);
    std::vector<int64_t> fresh;
    for (size_t i = 0; i < plan.size(); ++i) {
      for (int64_t size : freedAt[i]) cached[size] += 1;
      int64_t size = sizeClass(plan[i].bytes);
      if (size < 0) break;
      if (cached[size] > 0)
        cached[size] -= 1;
      else if (size >= kMapBytes)
        fresh.push_back(size);
      int64_t f = plan[i].freed_before;
      if (f > int64_t(i) && f < int64_t(plan.size())) freedAt[size_t(f)].push_back(size);
    }
    // Take them as alloc() would, while they fit (Note [Memory limits]) and the cache
    // can hold them; then cache them.
    for (int64_t size : fresh) {
      if (cached_ + size > limit_ || !fits(size)) break;
      void *p = osAlloc(size);
      if (!p) break;
      stats_.ahead += 1;
      stats_.held += size;
      stats_.peakHeld = std::max(stats_.peakHeld, stats_.held);
      POOL_POISON(p, size);
      free_[size].push_back(p);
      cached_ += size;
      ahead_.insert(p);
      toFault_.insert(p);
      taken.emplace_back(p, size);
    }
  }
  // Note [Slow huge pages]: the first 2 MiB ranges are faulted in here, timed, so that
  // on a machine where huge pages are slow the run's first touches already take 4 KiB
  // pages (with the compile found in the object cache, the run starts ~2 ms from now).
  if (!taken.empty()) probeHugePages(taken);
  if (!taken.empty()) {
    stopFault_.store(false);
    try {
      faulter_ = std::thread(&BufferPool::faultIn, this, taken);
    } catch (const std::system_error &) {
      // No thread: the blocks are still taken, and fault in at first touch as before.
    }
  }
  return int64_t(taken.size());
}

void BufferPool::adviseSmallPages(const std::vector<std::pair<void *, int64_t>> &blocks,
                                  size_t from, int64_t at) {
#ifdef MADV_NOHUGEPAGE
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = from; i < blocks.size(); ++i) {
    auto [p, size] = blocks[i];
    int64_t start = i == from ? at : 0;
    // A block given back to the OS meanwhile has left toFault_; faulting_ waits for us.
    if (start < size && (toFault_.count(p) || p == faulting_))
      madvise(static_cast<char *>(p) + start, size_t(size - start), MADV_NOHUGEPAGE);
  }
#else
  (void)blocks, (void)from, (void)at;
#endif
}

bool BufferPool::probeHugePages(const std::vector<std::pair<void *, int64_t>> &blocks) {
  int ranges = 0;
  for (size_t b = 0; b < blocks.size(); ++b) {
    auto [p, size] = blocks[b];
    for (int64_t at = 0; at + kHugeBytes <= size; at += kHugeBytes) {
      if (smallPages() || ranges++ == kSlowHugeFaults) return smallPages();
      int64_t t0 = threadCpuNs();
      if (!faultInRange(static_cast<char *>(p) + at, kHugeBytes)) return false;
      int64_t ns = threadCpuNs() - t0;
      if (noteHugeFault(ns)) {
        adviseSmallPages(blocks, b, at + kHugeBytes);
        return true;
      }
      if (ns <= slowHugeNs.load()) return false;  // fast: huge pages are backed
    }
  }
  return smallPages();
}

void BufferPool::faultIn(std::vector<std::pair<void *, int64_t>> blocks) {
  for (size_t b = 0; b < blocks.size(); ++b) {
    auto [p, size] = blocks[b];
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!toFault_.count(p)) continue;  // given back to the OS already
      faulting_ = p;
    }
    // On the host's row 1 of --trace: how much of the compile it overlapped.
    trace::Span span("pre-fault " + humanBytes(size), "memory", trace::kHostPid, 1);
    bool ok = true;
    // 2 MiB at a time, so that trim() need not wait for a whole block.
    for (int64_t at = 0; at < size && ok && !stopFault_.load(std::memory_order_relaxed);
         at += kHugeBytes) {
      // A whole 2 MiB range of a block advised huge pages: one huge-page fault.
      bool timed = size >= kHugeBytes && at + kHugeBytes <= size && !smallPages();
      int64_t t0 = timed ? threadCpuNs() : 0;
      ok = faultInRange(static_cast<char *>(p) + at, std::min(kHugeBytes, size - at));
      if (timed && noteHugeFault(threadCpuNs() - t0)) adviseSmallPages(blocks, b, at + kHugeBytes);
    }
    std::lock_guard<std::mutex> lock(mu_);
    toFault_.erase(p);
    faulting_ = nullptr;
    if (faultingFreed_) munmap(p, size_t(faultingFreed_));
    faultingFreed_ = 0;
    if (!ok || stopFault_.load()) break;  // e.g. EINVAL: a kernel without it
  }
}

void BufferPool::stopFaulting() {
  if (!faulter_.joinable()) return;
  stopFault_.store(true);
  faulter_.join();
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
