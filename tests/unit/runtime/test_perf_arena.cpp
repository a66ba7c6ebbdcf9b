// ===- test_perf_arena.cpp - the CPU device arena's large, pre-populated blocks ===//
#include "cpu/Arena.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>

using spmd::rt::Arena;

TEST_CASE("arena blocks past kMapBytes are mapped, aligned, writable and reusable", "[arena]") {
  Arena a;
  const int64_t big = Arena::kMapBytes + 12345;
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
  // A block larger than kKeepBytes is unmapped at reset and mapped afresh.
  a.reset();
  char *huge = static_cast<char *>(a.alloc(Arena::kKeepBytes + 1));
  REQUIRE(huge != nullptr);
  huge[Arena::kKeepBytes] = 7;
  a.reset();
  CHECK(a.used() == 0);
  CHECK(a.alloc(0) != nullptr);
}
