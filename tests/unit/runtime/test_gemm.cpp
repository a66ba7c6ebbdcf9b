// spmd_cpu_gemm (runtime/cpu/CpuGemm.cpp) against the generated loop nest's order: each
// slice of 256 along k folded with FMAs into a partial sum that starts at +0, then
// added to C, which starts at +0 (Note [BLIS order], Note [GEMM without zeroing C]).
#include "Device.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

extern "C" void spmd_cpu_gemm(int32_t dtype, int64_t batch, int64_t m, int64_t n, int64_t k,
                              const void *a, int32_t ta, const void *b, int32_t tb, void *c);

namespace {

constexpr int32_t kF32 = int32_t(spmd::rt::DType::F32), kF64 = int32_t(spmd::rt::DType::F64);

/// C = A B in the loop nest's order; A is m x k (or k x m with ta), B k x n (or n x k).
template <typename T>
std::vector<T> loopNest(int64_t m, int64_t n, int64_t k, const std::vector<T> &a, bool ta,
                        const std::vector<T> &b, bool tb) {
  std::vector<T> c(size_t(m * n), T(0));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t k0 = 0; k0 < k; k0 += 256) {
        T part = 0;
        for (int64_t l = k0; l < std::min(k, k0 + 256); ++l)
          part = std::fma(ta ? a[l * m + i] : a[i * k + l], tb ? b[j * k + l] : b[l * n + j], part);
        c[i * n + j] = c[i * n + j] + part;
      }
  return c;
}

template <typename T>
bool sameBits(const std::vector<T> &x, const std::vector<T> &y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(T)) == 0;
}

template <typename T>
void check(int32_t dtype, int64_t m, int64_t n, int64_t k, bool ta, bool tb, T tiny) {
  std::mt19937 rng(unsigned(m * 131 + n * 7 + k));
  std::normal_distribution<double> normal;
  std::vector<T> a(size_t(m * k)), b(size_t(k * n));
  for (T &x : a) x = T(normal(rng));
  for (T &x : b) x = T(normal(rng));
  // Rows 0 and m - 1 of A, columns 0 and n - 1 of B: products that underflow to -0 in
  // every slice, so that C's four corners are +0 in the loop nest and -0 in BLIS's
  // beta = 0 store before the fix: in the first micro-tile and in the last, an edge
  // tile for m mod 6 or n mod 16 (8 for f64) not 0, which the micro-kernel stores
  // through a buffer of its own.
  for (int64_t l = 0; l < k; ++l)
    for (int64_t i : {int64_t(0), m - 1}) (ta ? a[l * m + i] : a[i * k + l]) = tiny;
  for (int64_t l = 0; l < k; ++l)
    for (int64_t j : {int64_t(0), n - 1}) (tb ? b[j * k + l] : b[l * n + j]) = -tiny;
  // Row 1 of A zero: products +0 or -0 by B's signs, which a zero start keeps at +0.
  if (m > 2)
    for (int64_t l = 0; l < k; ++l) (ta ? a[l * m + 1] : a[k + l]) = T(0);
  std::vector<T> c(size_t(m * n), T(12345));  // BLIS must not read C's old contents
  spmd_cpu_gemm(dtype, 1, m, n, k, a.data(), ta, b.data(), tb, c.data());
  std::vector<T> want = loopNest(m, n, k, a, ta, b, tb);
  for (int64_t corner : {int64_t(0), n - 1, (m - 1) * n, m * n - 1}) {
    INFO("corner " << corner);
    CHECK(want[size_t(corner)] == T(0));
    CHECK_FALSE(std::signbit(want[size_t(corner)]));
    CHECK_FALSE(std::signbit(c[size_t(corner)]));
  }
  CHECK(sameBits(c, want));
}

}  // namespace

TEST_CASE("spmd_cpu_gemm gives the loop nest's bits, signs of zero included", "[gemm]") {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      INFO("ta " << ta << " tb " << tb);
      check<float>(kF32, 37, 29, 600, ta, tb, 1e-30f);   // three k slices
      check<float>(kF32, 13, 40, 100, ta, tb, 1e-30f);   // one
      check<double>(kF64, 21, 18, 300, ta, tb, 1e-200);  // two
    }
}

TEST_CASE("spmd_cpu_gemm with k = 0 gives zeros", "[gemm]") {
  std::vector<float> c(6, 7.0f);
  spmd_cpu_gemm(kF32, 1, 2, 3, 0, nullptr, 0, nullptr, 0, c.data());
  CHECK(sameBits(c, std::vector<float>(6, 0.0f)));
}
