// spmd_cpu_gemm (runtime/cpu/CpuGemm.cpp) against the generated loop nest's order: each
// slice of kc (256, or all of k) along k folded with FMAs into a partial sum that starts at +0, then
// added to C, which starts at +0 (Note [BLIS order], Note [GEMM without zeroing C]).
#include "BufferPool.h"
#include "Device.h"
#include "cpu/CpuGemm.h"
#include "spmdrt.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int32_t kF32 = int32_t(spmd::rt::DType::F32), kF64 = int32_t(spmd::rt::DType::F64);

/// C = A B in the loop nest's order; A is m x k (or k x m with ta), B k x n (or n x k).
template <typename T>
std::vector<T> loopNest(int64_t m, int64_t n, int64_t k, int64_t kc, const std::vector<T> &a,
                        bool ta, const std::vector<T> &b, bool tb) {
  std::vector<T> c(size_t(m * n), T(0));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t k0 = 0; k0 < k; k0 += kc) {
        T part = 0;
        for (int64_t l = k0; l < std::min(k, k0 + kc); ++l)
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
void check(int32_t dtype, int64_t m, int64_t n, int64_t k, bool ta, bool tb, T tiny,
           int32_t order = SPMD_GEMM_SLICES) {
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
  spmd_cpu_gemm(dtype, 1, m, n, k, order, a.data(), ta, b.data(), tb, c.data());
  std::vector<T> want = loopNest(m, n, k, order == SPMD_GEMM_SLICES ? 256 : k, a, ta, b, tb);
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
      // One slice over all of k (XLA's one FMA chain, Note [XLA dot order]): MC = 72
      // rows of A in blocks, 1200 k in one, and the longest one-slice k.
      check<float>(kF32, 150, 37, 1200, ta, tb, 1e-30f, SPMD_GEMM_ONE_CHAIN);
      check<float>(kF32, 9, 20, SPMD_GEMM_MAX_CHAIN, ta, tb, 1e-30f, SPMD_GEMM_ONE_CHAIN);
      check<double>(kF64, 21, 18, 600, ta, tb, 1e-200, SPMD_GEMM_ONE_CHAIN);
    }
}

TEST_CASE("spmd_cpu_gemm with k = 0 gives zeros", "[gemm]") {
  std::vector<float> c(6, 7.0f);
  spmd_cpu_gemm(kF32, 1, 2, 3, 0, SPMD_GEMM_SLICES, nullptr, 0, nullptr, 0, c.data());
  CHECK(sameBits(c, std::vector<float>(6, 0.0f)));
}

namespace {

/// Note [GEMM in pairs]'s order, as compiler/codegen/EmitDot.cpp's dotPairsNT makes it:
/// chains over even and odd k from +0 (their -0s kept), added, then an odd k's last
/// product rounded and added.
std::vector<float> pairsNest(int64_t m, int64_t n, int64_t k, const std::vector<float> &a,
                             const std::vector<float> &b, bool tb) {
  std::vector<float> c(size_t(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      auto bAt = [&](int64_t l) { return tb ? b[j * k + l] : b[l * n + j]; };
      float even = 0, odd = 0;
      for (int64_t l = 0; l + 1 < k; l += 2) {
        even = std::fma(a[i * k + l], bAt(l), even);
        odd = std::fma(a[i * k + l + 1], bAt(l + 1), odd);
      }
      float s = even + odd;
      if (k % 2) {
        volatile float p = a[i * k + k - 1] * bAt(k - 1);
        s = s + p;
      }
      c[i * n + j] = s;
    }
  return c;
}

}  // namespace

TEST_CASE("spmd_cpu_gemm in pairs gives dotPairsNT's bits, -0s of both chains kept",
          "[gemm]") {
  for (bool tb : {false, true})
    for (int64_t k : {int64_t(1), int64_t(2), int64_t(301), int64_t(1200), int64_t(4095)}) {
      const int64_t m = 31, n = 40;
      INFO("tb " << tb << " k " << k);
      std::mt19937 rng(static_cast<unsigned>(k));
      std::normal_distribution<double> normal;
      std::vector<float> a(size_t(m * k)), b(size_t(k * n));
      for (float &x : a) x = float(normal(rng));
      for (float &x : b) x = float(normal(rng));
      // Row 0 of A tiny and column 0 of B minus tiny: every product underflows to -0, so
      // for k >= 2 both chains end at -0 and C[0, 0] is -0 (an odd k's last product, -0
      // rounded alone, added to that: -0 too); for k = 1, +0 + +0 + -0 = +0.
      for (int64_t l = 0; l < k; ++l) {
        a[size_t(l)] = 1e-30f;
        (tb ? b[size_t(l)] : b[size_t(l * n)]) = -1e-30f;
      }
      std::vector<float> c(size_t(m * n), 12345.0f);
      spmd_cpu_gemm(kF32, 1, m, n, k, SPMD_GEMM_PAIRS, a.data(), 0, b.data(), tb, c.data());
      std::vector<float> want = pairsNest(m, n, k, a, b, tb);
      CHECK(std::signbit(want[0]) == (k >= 2));
      CHECK(std::signbit(c[0]) == (k >= 2));
      CHECK(sameBits(c, want));
    }
}

// A batched `a @ b` in pairs (Note [YNNPACK kernel choice] in EmitDot.cpp): each batch's
// product as the loop nest's.
TEST_CASE("spmd_cpu_gemm in pairs per batch gives dotPairs' bits", "[gemm]") {
  const int64_t batch = 3, m = 62, n = 20, k = 65;
  std::mt19937 rng(7);
  std::normal_distribution<double> normal;
  std::vector<float> a(size_t(batch * m * k)), b(size_t(batch * k * n)),
      c(size_t(batch * m * n), 12345.0f);
  for (float &x : a) x = float(normal(rng));
  for (float &x : b) x = float(normal(rng));
  spmd_cpu_gemm(kF32, batch, m, n, k, SPMD_GEMM_PAIRS, a.data(), 0, b.data(), 0, c.data());
  for (int64_t i = 0; i < batch; ++i) {
    INFO("batch " << i);
    std::vector<float> ai(a.begin() + i * m * k, a.begin() + (i + 1) * m * k),
        bi(b.begin() + i * k * n, b.begin() + (i + 1) * k * n),
        ci(c.begin() + i * m * n, c.begin() + (i + 1) * m * n);
    CHECK(sameBits(ci, pairsNest(m, n, k, ai, bi, false)));
  }
}

namespace {

/// Note [GEMM in quads]'s order, written out: chains over k = q (mod 4) below k - k mod 4
/// from +0, added as (c0 + c1) + (c2 + c3); the last k mod 4 products rounded in lanes of
/// their own (the others +0), summed the same way, and that added.
std::vector<float> quadsNest(int64_t m, int64_t n, int64_t k, const std::vector<float> &a,
                             const std::vector<float> &b, bool tb) {
  std::vector<float> c(size_t(m * n));
  const int64_t k4 = k / 4 * 4;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      auto bAt = [&](int64_t l) { return tb ? b[j * k + l] : b[l * n + j]; };
      float lane[4] = {0, 0, 0, 0};
      for (int64_t l = 0; l < k4; ++l) lane[l % 4] = std::fma(a[i * k + l], bAt(l), lane[l % 4]);
      float s = (lane[0] + lane[1]) + (lane[2] + lane[3]);
      if (k % 4) {
        volatile float p[4] = {0, 0, 0, 0};
        for (int64_t l = k4; l < k; ++l) p[l - k4] = a[i * k + l] * bAt(l);
        float t = (p[0] + p[1]) + (p[2] + p[3]);
        s = k4 ? s + t : t;
      }
      c[i * n + j] = s;
    }
  return c;
}

}  // namespace

// YNNPACK's avx512 tile_k 4 kernels (Note [YNNPACK on AVX-512] in EmitDot.cpp): each
// batch's product as dotQuads sums it, every tail length k mod 4 and k below 4.
TEST_CASE("spmd_cpu_gemm in quads gives dotQuads' bits", "[gemm]") {
  for (bool tb : {false, true})
    for (int64_t k : {int64_t(1), int64_t(3), int64_t(4), int64_t(65), int64_t(66),
                      int64_t(303), int64_t(1200)}) {
      const int64_t batch = 2, m = 37, n = 29;
      INFO("tb " << tb << " k " << k);
      std::mt19937 rng(static_cast<unsigned>(k + 11));
      std::normal_distribution<double> normal;
      std::vector<float> a(size_t(batch * m * k)), b(size_t(batch * k * n)),
          c(size_t(batch * m * n), 12345.0f);
      for (float &x : a) x = float(normal(rng));
      for (float &x : b) x = float(normal(rng));
      spmd_cpu_gemm(kF32, batch, m, n, k, SPMD_GEMM_QUADS, a.data(), 0, b.data(), tb, c.data());
      for (int64_t i = 0; i < batch; ++i) {
        INFO("batch " << i);
        std::vector<float> ai(a.begin() + i * m * k, a.begin() + (i + 1) * m * k),
            bi(b.begin() + i * k * n, b.begin() + (i + 1) * k * n),
            ci(c.begin() + i * m * n, c.begin() + (i + 1) * m * n);
        std::vector<float> want = quadsNest(m, n, k, ai, bi, tb);
        CHECK(sameBits(ci, want));
        // Not one chain nor pairs: the test tells the orders apart.
        if (k >= 65) CHECK_FALSE(sameBits(ci, pairsNest(m, n, k, ai, bi, tb)));
      }
    }
}

namespace {

/// One output of Note [GEMM in tiles]'s order, written out per element: k below k1 = k - k
/// mod tile_k in slices of `slice` (0: one), each from +0 in `order`, the slices added in
/// k order; then the last k mod tile_k products, rounded, in lanes of their own (the
/// others +0), summed as the order sums its lanes, and added.
float tileElement(int32_t order, int64_t slice, int64_t k, const float *a, const float *b,
                  int64_t bstride) {
  const int tk = order == SPMD_GEMM_PAIRS ? 2 : order == SPMD_GEMM_QUADS ? 4 : 1;
  const int64_t k1 = k - k % tk, step = slice ? slice : k1;
  auto lanesSum = [&](float *l) {
    return tk == 4 ? (l[0] + l[1]) + (l[2] + l[3]) : tk == 2 ? l[0] + l[1] : l[0];
  };
  float c = 0;
  bool first = true;
  auto add = [&](float s) {
    c = first ? s : c + s;
    first = false;
  };
  for (int64_t k0 = 0; k0 < k1; k0 += step) {
    float lane[4] = {0, 0, 0, 0};
    for (int64_t l = k0; l < std::min(k1, k0 + step); ++l) {
      if (order == SPMD_GEMM_UNFUSED) {
        volatile float p = a[l] * b[l * bstride];
        lane[0] = lane[0] + p;
      } else {
        lane[(l - k0) % tk] = std::fma(a[l], b[l * bstride], lane[(l - k0) % tk]);
      }
    }
    add(lanesSum(lane));
  }
  if (k1 < k) {
    volatile float p[4] = {0, 0, 0, 0};
    for (int64_t l = k1; l < k; ++l) p[l - k1] = a[l] * b[l * bstride];
    float l4[4] = {p[0], p[1], p[2], p[3]};
    add(lanesSum(l4));
  }
  return c;
}

}  // namespace

// Note [GEMM in tiles]: four rectangles, each in its order and slices of k (YNNPACK's
// tiles, Note [YNNPACK's tiles] in EmitDot.cpp), per batch; B as [K, N] or stored [N, K].
TEST_CASE("spmd_cpu_gemm_tiles sums each rectangle in its order and slices", "[gemm]") {
  struct Case {
    int64_t m, n, k;
    std::vector<int64_t> plan;
  };
  const std::vector<Case> cases = {
      // 48x415x221 on an AVX-512 host: one chain, k in slices of 256 in the first 128
      // columns, of 352 in the rest.
      {48, 221, 415, {0, 128, 1, 256, 1, 352, 1, 256, 1, 352}},
      // Every order, slices with a k tail (k mod 4 = 3), rectangles of every size.
      {37, 29, 303, {32, 16, 3, 64, 2, 100, 4, 0, 1, 128}},
      {37, 29, 303, {32, 16, 1, 7, 3, 0, 2, 0, 3, 300}},
      // k below tile_k: the tail alone.
      {9, 5, 3, {4, 4, 3, 0, 2, 0, 3, 4, 2, 2}},
  };
  for (const Case &t : cases)
    for (bool tb : {false, true}) {
      const int64_t batch = 2, m = t.m, n = t.n, k = t.k;
      INFO("m " << m << " n " << n << " k " << k << " tb " << tb);
      std::mt19937 rng(static_cast<unsigned>(m * 7 + k));
      std::normal_distribution<double> normal;
      std::vector<float> a(size_t(batch * m * k)), b(size_t(batch * k * n)),
          c(size_t(batch * m * n), 12345.0f);
      for (float &x : a) x = float(normal(rng));
      for (float &x : b) x = float(normal(rng));
      spmd_cpu_gemm_tiles(kF32, batch, m, n, k, t.plan.data(), a.data(), 0, b.data(), tb,
                          c.data());
      std::vector<float> want(c.size());
      std::vector<float> col(static_cast<size_t>(k));
      for (int64_t q = 0; q < batch; ++q)
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            const int r = i < t.plan[0] ? 0 : 1, s = j < t.plan[1] ? 0 : 1;
            const int64_t *kind = t.plan.data() + 2 + 2 * (2 * r + s);
            const float *bq = b.data() + q * k * n;
            for (int64_t l = 0; l < k; ++l) col[size_t(l)] = tb ? bq[j * k + l] : bq[l * n + j];
            want[size_t((q * m + i) * n + j)] = tileElement(
                int32_t(kind[0]), kind[1], k, a.data() + (q * m + i) * k, col.data(), 1);
          }
      CHECK(sameBits(c, want));
    }
  // The slices matter: 48x415x221 in one chain is other bits.
  const int64_t m = 48, n = 221, k = 415;
  std::vector<int64_t> sliced = cases[0].plan, one = {0, 128, 1, 0, 1, 0, 1, 0, 1, 0};
  std::mt19937 rng(3);
  std::normal_distribution<double> normal;
  std::vector<float> a(size_t(m * k)), b(size_t(k * n)), c1(size_t(m * n)), c2(size_t(m * n));
  for (float &x : a) x = float(normal(rng));
  for (float &x : b) x = float(normal(rng));
  spmd_cpu_gemm_tiles(kF32, 1, m, n, k, sliced.data(), a.data(), 0, b.data(), 0, c1.data());
  spmd_cpu_gemm_tiles(kF32, 1, m, n, k, one.data(), a.data(), 0, b.data(), 0, c2.data());
  CHECK_FALSE(sameBits(c1, c2));
  CHECK(sameBits(c2, loopNest<float>(m, n, k, k, a, false, b, false)));
}

// Note [GEMM workspace]: BLIS's packing blocks and the pairs' second chain come from
// gemmWorkspace(), the latter grown without clearing.
// Note [BLIS on newer CPUs]: BLIS 0.9 calls a CPU it does not know (AMD family 26)
// `generic`, a reference micro-kernel without FMA; one with AVX2 and FMA gets zen3's or,
// with AVX-512, skx's.
TEST_CASE("an AVX2 + FMA CPU gets an FMA micro-kernel, not BLIS's generic one", "[gemm]") {
  std::string conf = spmd::rt::cpuGemmConfiguration();
  INFO("BLIS configuration: " << conf);
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) CHECK(conf != "generic");
}

// SPMD_BLIS_ARCH (Note [BLIS on newer CPUs]): CTest runs the [gemm] cases again under
// skx and zen3; the configuration asked for is the one that runs where the CPU can.
TEST_CASE("SPMD_BLIS_ARCH picks the configuration the products run on", "[gemm]") {
  const char *want = std::getenv("SPMD_BLIS_ARCH");
  if (!want) return;
  std::string conf = spmd::rt::cpuGemmConfiguration(), w = want;
  bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  INFO("SPMD_BLIS_ARCH=" << w << ", running " << conf);
  if (w == "skx" ? avx512 : avx2)
    CHECK(conf == w);
  else
    WARN("this CPU lacks " << w << "'s instructions: the [gemm] cases ran on " << conf);
}

TEST_CASE("BLIS packs into the GEMM workspace", "[gemm]") {
  spmd::rt::warmCpuGemm();
  // Packed B of this product: 256 x 2000 f32, 2 MB; the other tests here hold less than
  // 1 MB of the workspace in pairs buffers.
  const int64_t m = 12, n = 2000, k = 256;
  std::vector<float> a(size_t(m * k), 1.0f), b(size_t(k * n), 0.5f), c(size_t(m * n));
  std::thread([&] {
    spmd_cpu_gemm(kF32, 1, m, n, k, SPMD_GEMM_SLICES, a.data(), 0, b.data(), 0, c.data());
  }).join();
  CHECK(c[0] == 128.0f);
  CHECK(spmd::rt::gemmWorkspace().stats().held >= int64_t(sizeof(float)) * k * n);
}

TEST_CASE("a thread's first product in pairs, in reused workspace, gives the same bits",
          "[gemm]") {
  spmd::rt::warmCpuGemm();
  const int64_t m = 100, n = 200, k = 301;
  // A block of the second chain's size class, left full of NaNs in the pool: a product
  // that read its buffer before storing to it would give NaNs.
  auto &pool = spmd::rt::gemmWorkspace();
  void *dirty = pool.alloc(int64_t(sizeof(float)) * m * n);
  REQUIRE(dirty);
  std::vector<float> nans(size_t(m * n), std::numeric_limits<float>::quiet_NaN());
  std::memcpy(dirty, nans.data(), nans.size() * sizeof(float));
  pool.free(dirty);
  std::mt19937 rng(7);
  std::normal_distribution<double> normal;
  std::vector<float> a(size_t(m * k)), b(size_t(k * n));
  for (float &x : a) x = float(normal(rng));
  for (float &x : b) x = float(normal(rng));
  std::vector<float> want = pairsNest(m, n, k, a, b, true);
  // A fresh thread (its buffer grows from nothing), then the same thread again after a
  // smaller product and a larger one.
  std::vector<float> c1(size_t(m * n)), c2(size_t(m * n)), small(4), large(size_t(2 * m * n));
  std::vector<float> a2(size_t(2 * m * k), 1.0f);
  std::thread([&] {
    spmd_cpu_gemm(kF32, 1, m, n, k, SPMD_GEMM_PAIRS, a.data(), 0, b.data(), 1, c1.data());
    spmd_cpu_gemm(kF32, 1, 2, 2, k, SPMD_GEMM_PAIRS, a.data(), 0, b.data(), 1, small.data());
    spmd_cpu_gemm(kF32, 1, 2 * m, n, k, SPMD_GEMM_PAIRS, a2.data(), 0, b.data(), 1,
                  large.data());
    spmd_cpu_gemm(kF32, 1, m, n, k, SPMD_GEMM_PAIRS, a.data(), 0, b.data(), 1, c2.data());
  }).join();
  CHECK(sameBits(c1, want));
  CHECK(sameBits(c2, want));
}
