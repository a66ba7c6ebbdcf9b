// ===- BufferPool.h - a caching allocator for host and CPU-device buffers -----===//
//
// Note [Buffer pool]
// ~~~~~~~~~~~~~~~~~~
// Every pmap launch needs fresh outputs (spmd_host_alloc) and the CPU devices' scratch
// (Arena). Taken from the OS each time, a large buffer is a new mapping whose every
// 4 KiB page the kernel zero-fills on first touch: a 256 MiB result costs 65,536 page
// faults, more than the kernel that writes it (bench/notes.md). The pool keeps freed
// blocks and hands them out again, so that a loop of launches allocates nothing per
// step after the first.
//
//  - Size classes: a request is rounded up to one of four steps per power of two (at
//    most 25% more; 64-byte multiples), and a freed block serves only requests of its
//    own class. Blocks of kMapBytes or more are their own mappings (mmap), 2 MiB aligned
//    and advised MADV_HUGEPAGE from kHugeBytes on, so first touch faults once per 2 MiB;
//    an untouched tail costs address space, not memory. Smaller ones come from
//    operator new. Every block is 64-byte aligned.
//  - Bounded: the cached (free) blocks total at most the limit (default: a quarter of
//    physical memory, at most 4 GiB); beyond it the largest go back to the OS. trim()
//    returns all of them (the Host does at its end).
//  - Thread-safe (a mutex): the host thread and every device thread share the pool.
//  - AddressSanitizer: a cached block is poisoned (ASAN_POISON_MEMORY_REGION) until it
//    is handed out again, so that a use after free is still reported.
//
// Note [Memory limits]
// ~~~~~~~~~~~~~~~~~~~~
// Linux overcommits: an mmap larger than what is free succeeds, and the process is
// killed by the OOM killer (SIGKILL, no message) when it touches the pages, or, with
// overcommit off, only requests beyond memory + swap fail. Either way the user gets no
// word of which array did not fit. So before a block of kMapBytes or more is taken from
// the OS, the pool compares the request with what the system can give now
// (systemMemory(): MemAvailable + SwapFree from /proc/meminfo, and the room left under
// every enclosing cgroup's memory.max, v2, or memory.limit_in_bytes, v1) and refuses it,
// after giving its cached blocks back, when it does not fit: the caller reports the array
// and shortage() says what there is. Smaller blocks are not checked (one read of
// /proc/meminfo costs more than they do), and where no cgroup limit is set a request
// under free memory + free swap (sysinfo, one system call) reads no files.
// SPMD_MEMORY_LIMIT (bytes) caps what a pool holds at once, for tests and for running
// beside other jobs: the program's buffers (global()), and apart from them the matrix
// products' workspace (Note [GEMM workspace] in CpuGemm.cpp), which ends the process
// with the message when refused, having no device to record an error on.
//
// Note [Pre-faulting]
// ~~~~~~~~~~~~~~~~~~~
// A program's first launches write fresh blocks, and the kernel clears each page at first
// touch, inside the launch: 32 MB for random_matmul's product, 128 MiB for micro_psum's
// first psum, 20 to 45 ms of clearing at best on this VM (bench/notes.md, perf11 and
// mm14). While the host compiles (LLVM: tens of ms) the cores have nothing else to do, so
// the driver hands prefault() the compiler's plan of the run's first host buffers
// (spmd_buffer_hint, Note [Buffer plan] in compiler/codegen/BufferPlan.cpp), and the pool
//  - replays the plan against its size classes and its cached blocks, to find the
//    allocations that would take a new block from the OS, and of those the ones of
//    kMapBytes or more (smaller ones are not worth a thread);
//  - takes those blocks from the OS now, as alloc() would (the same classes, alignment
//    and huge-page advice; Note [Memory limits]: each must fit, under SPMD_MEMORY_LIMIT
//    too, and all of them under the cache limit, else it stops: a hint is never a
//    reason to fail), and caches them, so that alloc() hands them out as reused blocks;
//  - faults them in, in plan order, on a thread of its own, with a write access to every
//    page that stores back what it read (faultInRange in BufferPool.cpp): a block the run
//    takes while it is being faulted in is safe to use at once (a page then faults in
//    whichever thread touches it first, once). Not madvise(MADV_POPULATE_WRITE), which
//    holds the process's mmap lock (shared) while the kernel clears the pages, so that
//    LLVM's mmap and mprotect calls (which need it exclusive) waited: micro_psum's
//    compile took 140 ms of wall time for 30 ms of CPU. A block given back to the OS meanwhile
//    is unmapped only after its range is done (faulting_).
// This hides the clearing behind the compile; it does not remove it: the process does
// the same work (task-clock), on a core that was idle. --stats counts the blocks taken
// ahead and how many of them the run took ("taken ahead").
//
// Note [Slow huge pages]
// ~~~~~~~~~~~~~~~~~~~~~~
// On a VM whose balloon reports free memory to the hypervisor (virtio-balloon's free page
// reporting, on this project's Firecracker VMs), the guest's free blocks of 2 MiB and more
// are handed back to the host, which backs them again only when the guest touches them:
// a huge page taken from such a block costs the host's faults on each of its 4 KiB
// pages, 4.4 to 5.7 ms of the faulting thread's CPU per 2 MiB instead of 0.2 ms, while
// 4 KiB pages (taken from the guest's smaller free blocks, which are not reported) cost
// 0.9 ms per 2 MiB either way (bench/notes.md, 2026-12-02 perf17). Which kind a process
// gets depends on what other processes freed and when, so one run of random_matmul or
// micro_psum took 120 ms of CPU and the next 780. The pool cannot ask for backed memory,
// but it can see which kind it got: faultIn times each 2 MiB range of a huge-page block
// (thread CPU time), and after kSlowHugeFaults ranges slower than kSlowHugeNs it asks for
// 4 KiB pages from then on (smallPages(): process-wide, for every pool): the rest of the
// blocks it is faulting in are advised MADV_NOHUGEPAGE, and so is every later block
// taken from the OS. On a machine where huge pages are fast nothing changes.
#pragma once

#include "spmdrt.h"

#include <atomic>
#include <thread>
#include <unordered_set>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace spmd::rt {

class BufferPool {
public:
  explicit BufferPool(int64_t cacheLimit = defaultCacheLimit());
  BufferPool(const BufferPool &) = delete;
  BufferPool &operator=(const BufferPool &) = delete;
  /// Frees every block, cached or still handed out.
  ~BufferPool();

  /// `bytes` (0 allowed: a unique pointer) of 64-byte-aligned memory, its contents
  /// unspecified; null when the system is out of memory (Note [Memory limits]) or
  /// `bytes` is negative.
  void *alloc(int64_t bytes);
  /// Gives back a block from alloc() (null is ignored); it is cached for reuse or, past
  /// the limit, freed.
  void free(void *p);
  /// Frees every cached block (after stopping prefault()'s thread).
  void trim();
  /// Takes ahead the blocks that the allocations of `plan` would take from the OS, and
  /// faults them in on a thread of its own (Note [Pre-faulting]). Returns how many.
  int64_t prefault(const std::vector<spmd_buffer_hint> &plan);

  struct Stats {
    int64_t allocs = 0;     ///< alloc() calls that succeeded
    int64_t osAllocs = 0;   ///< of those, how many took new memory from the OS
    int64_t osFrees = 0;    ///< blocks given back to the OS
    int64_t inUse = 0;      ///< bytes handed out now (class sizes)
    int64_t peakInUse = 0;  ///< most bytes handed out at once
    int64_t held = 0;       ///< bytes taken from the OS now: in use + cached
    int64_t peakHeld = 0;   ///< most bytes taken from the OS at once
    int64_t ahead = 0;      ///< blocks prefault() took from the OS (not in osAllocs)
    int64_t aheadTaken = 0; ///< of those, how many alloc() handed out (counted as reused)
  };
  Stats stats() const;
  /// Zeroes the counts and starts the peaks again from what is held now.
  void resetStats();

  /// The size class of a request: what alloc(bytes) takes (>= bytes, >= 64); -1 when
  /// `bytes` is negative or too large to be a size.
  static int64_t sizeClass(int64_t bytes);
  /// A quarter of physical memory, at most 4 GiB.
  static int64_t defaultCacheLimit();
  int64_t cacheLimit() const { return limit_; }

  /// What the system has for this process (Note [Memory limits]); -1 where unknown.
  struct Memory {
    int64_t total = -1;      ///< physical memory + swap, or less under a cgroup limit
    int64_t available = -1;  ///< what can be had now without killing anything
  };
  static Memory systemMemory();
  /// SPMD_MEMORY_LIMIT from the environment (bytes held at once); -1 when not set.
  static int64_t heldLimit();
  /// For a failed request of `bytes`: what there is, as ", more than the 3.1 GiB
  /// available (15.5 GiB of memory and swap)", or "" when not known; under
  /// SPMD_MEMORY_LIMIT, what `pool` has left.
  static std::string shortage(int64_t bytes, BufferPool &pool = global());
  /// 1536 -> "1.5 KiB", as --stats writes sizes.
  static std::string humanBytes(int64_t bytes);

  /// The process's pool, shared by the Host (spmd_host_alloc) and the CPU devices.
  static BufferPool &global();

  /// Whether huge pages were found slow to fault in (Note [Slow huge pages]): blocks
  /// from the OS are then advised MADV_NOHUGEPAGE. Process-wide, for every pool.
  static bool smallPages();
  /// faultIn's record of one 2 MiB range of a huge-page block that took `ns` of its
  /// thread's CPU time to fault in; true when this record turned smallPages() on.
  static bool noteHugeFault(int64_t ns);
  /// Back to huge pages and no slow ranges seen; `slowNs` the threshold (tests).
  static void resetPagePolicy(int64_t slowNs = kSlowHugeNs);

  static constexpr int64_t kAlign = 64;
  static constexpr int64_t kMapBytes = int64_t(1) << 20;
  static constexpr int64_t kHugeBytes = int64_t(2) << 20;
  /// Note [Slow huge pages]: a huge page backed by the host faults in in ~0.2 ms of
  /// CPU, 4 KiB pages in ~0.9 ms per 2 MiB, a huge page the host must back in 4.4 ms or
  /// more; two such ranges (not one: an interrupt can land in any) make the switch.
  static constexpr int64_t kSlowHugeNs = 1'500'000;
  static constexpr int kSlowHugeFaults = 2;

private:
  void *osAlloc(int64_t size);
  void osFree(void *p, int64_t size);
  /// Whether a request of `bytes` more fits (Note [Memory limits]). Holds mu_.
  bool fits(int64_t bytes) const;
  /// Frees cached blocks, largest first, until they total at most `limit`. Holds mu_.
  void shrinkTo(int64_t limit);
  /// prefault()'s thread: faults `blocks` in, in order, until stopFault_.
  void faultIn(std::vector<std::pair<void *, int64_t>> blocks);
  /// Note [Slow huge pages]: advises 4 KiB pages for what is left of `blocks` from byte
  /// `at` of blocks[from] on, skipping blocks given back to the OS. Without mu_.
  void adviseSmallPages(const std::vector<std::pair<void *, int64_t>> &blocks, size_t from,
                        int64_t at);
  /// Faults in and times the first whole 2 MiB ranges of `blocks` (up to
  /// kSlowHugeFaults, fewer when one is fast); true when smallPages() is on after it.
  bool probeHugePages(const std::vector<std::pair<void *, int64_t>> &blocks);
  /// Stops and joins prefault()'s thread. Without mu_.
  void stopFaulting();

  int64_t limit_;
  mutable std::mutex mu_;
  std::unordered_map<void *, int64_t> live_;     ///< handed out: block -> class size
  std::map<int64_t, std::vector<void *>> free_;  ///< cached, by class size
  int64_t cached_ = 0;                           ///< bytes in free_
  Stats stats_;
  // Note [Pre-faulting]
  std::unordered_set<void *> ahead_;    ///< taken by prefault(), not handed out yet
  std::unordered_set<void *> toFault_;  ///< taken by prefault(), not faulted in yet
  void *faulting_ = nullptr;            ///< the block faultIn is at (outside mu_)
  int64_t faultingFreed_ = 0;           ///< its size when osFree came meanwhile, else 0
  std::atomic<bool> stopFault_{false};
  std::thread faulter_;
};

}  // namespace spmd::rt
