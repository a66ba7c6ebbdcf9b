// ===- test_perf_arena.cpp - the CPU device arena and the buffer pool under it ===//
#include "BufferPool.h"
#include "cpu/Arena.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

using spmd::rt::Arena;
using spmd::rt::BufferPool;

TEST_CASE("arena blocks past kMapBytes are mapped, aligned, writable and reusable", "[arena]") {
  BufferPool pool;
  Arena a(pool);
  const int64_t big = BufferPool::kMapBytes + 12345;
  char *p = static_cast<char *>(a.alloc(big));
  REQUIRE(p != nullptr);
  CHECK(reinterpret_cast<uintptr_t>(p) % Arena::kAlign == 0);
  std::memset(p, 0x5a, size_t(big));
  CHECK(p[0] == 0x5a);
  CHECK(p[big - 1] == 0x5a);
  // Small allocations after a mapped block take a block of their own.
  char *q = static_cast<char *>(a.alloc(100));
  REQUIRE(q != nullptr);
  CHECK((q + 100 <= p || q >= p + big));
  a.reset();
  CHECK(a.used() == 0);
  // The next launch gets the kept block (mapped or not) again, still writable.
  char *r = static_cast<char *>(a.alloc(big));
  REQUIRE(r != nullptr);
  std::memset(r, 1, size_t(big));
  CHECK(r[big / 2] == 1);
  // A block larger than kKeepBytes goes back to the pool at reset and comes back from it
  // for the next launch: no new memory from the OS.
  a.reset();
  char *huge = static_cast<char *>(a.alloc(Arena::kKeepBytes + 1));
  REQUIRE(huge != nullptr);
  huge[Arena::kKeepBytes] = 7;
  a.reset();
  CHECK(a.used() == 0);
  int64_t os = pool.stats().osAllocs;
  for (int launch = 0; launch < 3; ++launch) {
    char *again = static_cast<char *>(a.alloc(Arena::kKeepBytes + 1));
    REQUIRE(again != nullptr);
    again[Arena::kKeepBytes] = 8;
    a.reset();
  }
  CHECK(pool.stats().osAllocs == os);
  CHECK(a.alloc(0) != nullptr);
}

TEST_CASE("buffer pool size classes", "[pool]") {
  CHECK(BufferPool::sizeClass(-1) == -1);
  CHECK(BufferPool::sizeClass(0) == 64);
  CHECK(BufferPool::sizeClass(1) == 64);
  CHECK(BufferPool::sizeClass(64) == 64);
  CHECK(BufferPool::sizeClass(65) == 128);
  CHECK(BufferPool::sizeClass(256) == 256);
  CHECK(BufferPool::sizeClass(257) == 320);
  CHECK(BufferPool::sizeClass(int64_t(1) << 28) == int64_t(1) << 28);
  CHECK(BufferPool::sizeClass((int64_t(1) << 28) + 1) == (int64_t(5) << 26));
  CHECK(BufferPool::sizeClass(int64_t(1) << 62) == -1);
  // Every class is a multiple of 64, at least the request, and at most 25% (or 63 B) more.
  for (int64_t b = 0; b < (int64_t(1) << 40); b = b * 3 / 2 + 7) {
    int64_t c = BufferPool::sizeClass(b);
    CHECK(c >= b);
    CHECK(c % 64 == 0);
    CHECK(c <= std::max<int64_t>(std::max<int64_t>(b, 1) + 63, b + b / 4 + 1));
    CHECK(BufferPool::sizeClass(c) == c);
    if (c >= BufferPool::kMapBytes) CHECK(c % 4096 == 0);
  }
}

TEST_CASE("buffer pool reuses freed blocks of the same class, aligned", "[pool]") {
  BufferPool pool(int64_t(1) << 30);
  for (int64_t bytes :
       {int64_t(0), int64_t(100), int64_t(5000), int64_t(3) << 20, int64_t(40) << 20}) {
    INFO(bytes);
    void *p = pool.alloc(bytes);
    REQUIRE(p != nullptr);
    CHECK(reinterpret_cast<uintptr_t>(p) % BufferPool::kAlign == 0);
    if (bytes >= BufferPool::kHugeBytes)
      CHECK(reinterpret_cast<uintptr_t>(p) % BufferPool::kHugeBytes == 0);
    std::memset(p, 3, size_t(bytes));
    int64_t os = pool.stats().osAllocs;
    pool.free(p);
    // The same class (a slightly different size) gets the same block, from the cache.
    void *q = pool.alloc(bytes > 8 ? bytes - 8 : bytes);
    CHECK(q == p);
    CHECK(pool.stats().osAllocs == os);
    // A second live block of the class is new memory.
    void *r = pool.alloc(bytes);
    REQUIRE(r != nullptr);
    CHECK(r != q);
    CHECK(pool.stats().osAllocs == os + 1);
    pool.free(q);
    pool.free(r);
  }
  // Another class does not take a cached block.
  BufferPool::Stats s = pool.stats();
  void *other = pool.alloc(int64_t(7) << 20);
  CHECK(pool.stats().osAllocs == s.osAllocs + 1);
  pool.free(other);
  CHECK(pool.stats().inUse == 0);
  CHECK(pool.stats().peakInUse >= (int64_t(80) << 20));
}

TEST_CASE("buffer pool stays within its limit and gives memory back", "[pool]") {
  const int64_t mib = int64_t(1) << 20;
  BufferPool pool(10 * mib);
  void *a = pool.alloc(4 * mib), *b = pool.alloc(5 * mib), *c = pool.alloc(6 * mib);
  REQUIRE((a && b && c));
  CHECK(pool.stats().held == 15 * mib);
  pool.free(a);
  pool.free(b);
  CHECK(pool.stats().held == 15 * mib);  // 9 MiB cached, within the limit
  pool.free(c);                          // 15 MiB cached: the largest go first
  BufferPool::Stats s = pool.stats();
  CHECK(s.held <= 10 * mib);
  CHECK(s.osFrees >= 1);
  CHECK(s.peakHeld == 15 * mib);
  // A block larger than the limit is never cached.
  void *big = pool.alloc(16 * mib);
  REQUIRE(big != nullptr);
  int64_t frees = pool.stats().osFrees;
  pool.free(big);
  CHECK(pool.stats().osFrees == frees + 1);
  pool.trim();
  CHECK(pool.stats().held == 0);
  // resetStats keeps what is held as the new peak and zeroes the counts.
  void *d = pool.alloc(100);
  pool.resetStats();
  CHECK(pool.stats().allocs == 0);
  CHECK(pool.stats().peakInUse == 64 * 2);
  pool.free(d);
  // Out of memory: null, not a throw, and nothing counted.
  CHECK(pool.alloc(int64_t(1) << 47) == nullptr);
  CHECK(pool.alloc(-5) == nullptr);
  CHECK(pool.stats().allocs == 0);
  // A pointer the pool did not hand out (or null) is ignored.
  pool.free(nullptr);
}

namespace {

/// Whether every page of [p, p + bytes) is resident (mincore), waiting up to 10 s for
/// prefault()'s thread.
bool residentSoon(void *p, int64_t bytes) {
  long page = sysconf(_SC_PAGESIZE);
  std::vector<unsigned char> vec(size_t((bytes + page - 1) / page));
  for (int tries = 0; tries < 1000; ++tries) {
    if (mincore(p, size_t(bytes), vec.data()) == 0 &&
        std::all_of(vec.begin(), vec.end(), [](unsigned char c) { return (c & 1) != 0; }))
      return true;
    usleep(10000);
  }
  return false;
}

}  // namespace

TEST_CASE("prefault takes the plan's new blocks ahead and alloc hands them out", "[pool]") {
  // Note [Pre-faulting]. Four planned buffers of 4 MiB: the second is freed before the
  // third is allocated, which takes its block again; 256 KiB is below kMapBytes.
  const int64_t mb4 = int64_t(4) << 20;
  std::vector<spmd_buffer_hint> plan = {
      {mb4, 4}, {mb4, 2}, {mb4, 4}, {256 << 10, 4}};
  BufferPool pool;
  CHECK(pool.prefault(plan) == 2);
  BufferPool::Stats s = pool.stats();
  CHECK(s.ahead == 2);
  CHECK(s.osAllocs == 0);
  CHECK(s.held == 2 * BufferPool::sizeClass(mb4));
  // The run: the same allocations take the blocks taken ahead, already faulted in, and
  // none from the OS.
  void *a = pool.alloc(mb4);
  void *b = pool.alloc(mb4);
  REQUIRE(a != nullptr);
  REQUIRE(b != nullptr);
  CHECK(residentSoon(a, mb4));
  CHECK(residentSoon(b, mb4));
  std::memset(a, 3, size_t(mb4));
  CHECK(static_cast<char *>(a)[mb4 - 1] == 3);
  pool.free(b);
  void *c = pool.alloc(mb4);
  CHECK(c == b);
  s = pool.stats();
  CHECK(s.osAllocs == 0);
  CHECK(s.aheadTaken == 2);
  CHECK(s.allocs == 3);
  pool.free(a);
  pool.free(c);
}

TEST_CASE("prefault takes nothing past the cache limit or for a plan of small buffers", "[pool]") {
  BufferPool small(int64_t(6) << 20);  // room for one 4 MiB block, not two
  const int64_t mb4 = int64_t(4) << 20;
  CHECK(small.prefault({{mb4, 2}, {mb4, 2}}) == 1);
  CHECK(small.stats().ahead == 1);
  BufferPool pool;
  CHECK(pool.prefault({{1000, 1}, {int64_t(64) << 10, 2}}) == 0);
  CHECK(pool.prefault({}) == 0);
  // Blocks already cached serve the plan first: nothing new is taken for them.
  pool.free(pool.alloc(mb4));
  CHECK(pool.prefault({{mb4, 1}}) == 0);
  // A free that brings the cache past its limit keeps the blocks taken ahead for the run.
  BufferPool tight(mb4);
  CHECK(tight.prefault({{mb4, 1}}) == 1);
  tight.free(tight.alloc(1000));
  void *t = tight.alloc(mb4);
  CHECK(tight.stats().aheadTaken == 1);
  CHECK(tight.stats().osAllocs == 1);  // the small block only
  tight.free(t);
  // Blocks taken ahead and never used go back at trim().
  CHECK(pool.prefault({{mb4, 2}, {mb4, 2}}) == 1);
  pool.trim();
  CHECK(pool.stats().held == 0);
}

namespace {

/// The VmFlags of the mapping holding `p` in /proc/self/smaps ("rd wr mr mw me ac hg"),
/// or "" when not found.
std::string vmFlags(const void *p) {
  std::ifstream smaps("/proc/self/smaps");
  uintptr_t at = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(':') > 8 &&
        line.find('-') < line.find(' ')) {
      inside = at >= lo && at < hi;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line.substr(8) + " ";
  }
  return "";
}

/// Note [Slow huge pages]: the process-wide choice back to its default at scope exit.
struct PagePolicyReset {
  PagePolicyReset(int64_t slowNs = BufferPool::kSlowHugeNs) { BufferPool::resetPagePolicy(slowNs); }
  ~PagePolicyReset() { BufferPool::resetPagePolicy(); }
};

}  // namespace

TEST_CASE("huge pages found slow to fault in give way to 4 KiB pages", "[pool]") {
  // Note [Slow huge pages]: kSlowHugeFaults slow 2 MiB ranges in a row make the switch; a
  // fast one in between starts the count again.
  const int64_t fast = 200'000, slow = 5'000'000;
  {
    PagePolicyReset reset;
    CHECK_FALSE(BufferPool::smallPages());
    CHECK_FALSE(BufferPool::noteHugeFault(fast));
    CHECK_FALSE(BufferPool::noteHugeFault(slow));
    CHECK_FALSE(BufferPool::noteHugeFault(fast));
    CHECK_FALSE(BufferPool::noteHugeFault(slow));
    CHECK_FALSE(BufferPool::smallPages());
    CHECK(BufferPool::noteHugeFault(slow));
    CHECK(BufferPool::smallPages());
    CHECK_FALSE(BufferPool::noteHugeFault(slow));  // switched once only
  }
  CHECK_FALSE(BufferPool::smallPages());
  // Blocks from the OS are advised huge pages, then, once switched, 4 KiB pages. Where
  // the kernel has no THP the advice shows in no VmFlags: nothing to check.
  const int64_t mb8 = int64_t(8) << 20, mb16 = int64_t(16) << 20;
  BufferPool pool;
  void *huge = pool.alloc(mb8);
  REQUIRE(huge != nullptr);
  std::string flags = vmFlags(huge);
  if (flags.find(" hg ") == std::string::npos) {
    pool.free(huge);
    WARN("no MADV_HUGEPAGE in /proc/self/smaps' VmFlags (" << flags << "): not checked");
    return;
  }
  {
    PagePolicyReset reset;
    BufferPool::noteHugeFault(slow);
    BufferPool::noteHugeFault(slow);
    REQUIRE(BufferPool::smallPages());
    void *small = pool.alloc(mb16);
    REQUIRE(small != nullptr);
    CHECK(vmFlags(small).find(" nh ") != std::string::npos);
    CHECK(vmFlags(huge).find(" hg ") != std::string::npos);  // advice already given stays
    pool.free(small);
  }
  pool.free(huge);
  pool.trim();
  // prefault() faults in the first ranges itself, timed: with every range counted slow
  // (threshold 0), the second makes the switch, and the rest of the blocks taken ahead,
  // from byte 4 MiB of the first on, are advised 4 KiB pages before the run takes them.
  {
    PagePolicyReset reset(0);
    BufferPool ahead;
    CHECK(ahead.prefault({{mb16, 2}, {mb16, 2}}) == 2);
    CHECK(BufferPool::smallPages());
    char *a = static_cast<char *>(ahead.alloc(mb16));
    char *b = static_cast<char *>(ahead.alloc(mb16));
    REQUIRE(a != nullptr);
    REQUIRE(b != nullptr);
    CHECK(residentSoon(a, mb16));
    CHECK(residentSoon(b, mb16));
    // The cache hands out the last block taken first: the plan's first block is b.
    CHECK(vmFlags(b).find(" hg ") != std::string::npos);
    CHECK(vmFlags(b + (2 << 20)).find(" hg ") != std::string::npos);
    CHECK(vmFlags(b + (4 << 20)).find(" nh ") != std::string::npos);
    CHECK(vmFlags(b + mb16 - 1).find(" nh ") != std::string::npos);
    CHECK(vmFlags(a).find(" nh ") != std::string::npos);
    std::memset(a, 7, size_t(mb16));
    CHECK(a[mb16 - 1] == 7);
    ahead.free(a);
    ahead.free(b);
  }
}
