// ukernel_bench: one core's rate of f32 GEMM micro-kernels on packed panels, BLIS's and
// AVX-512 prototypes, to tell the micro-kernel's share of a product's time from packing
// and blocking (bench/notes.md, 2026-12-02 perf17). Not part of the build; compile by hand
// (one command):
//   g++ -O3 -std=c++20 -I/usr/include/x86_64-linux-gnu/blis-serial bench/ukernel_bench.cpp
//     /usr/lib/x86_64-linux-gnu/blis-serial/libblis.a -lm -lpthread -o /tmp/ukernel_bench
//   /tmp/ukernel_bench [CALLS [K]]
// Each kernel computes C (MR x NR, one tile) = beta C + A B over k = K (256: Note [BLIS
// order]'s slice) from packed panels, as BLIS's macro-kernel calls it. Two modes:
//   hot    the same A, B and C tile every call (everything in L1 and L2);
//   block  A's micro-panels cycling over a 192 x K block (L2), B's one micro-panel (L1)
//          and C's tiles moving over a 4 MB row-major C, beta 0 and 1 alternating.
// It prints thread CPU GFLOP/s (best of 3 rounds of CALLS calls) per kernel and mode, after
// checking each kernel's tile bit for bit against the loop nest's order: per element one
// FMA chain over k from 0, then fma(C, beta, sum) (alpha 1).
// The prototypes (proto<MR, NV>: MR rows, NV zmm vectors of 16 columns, row-major tiles,
// A's element broadcast) are for measuring only; spmdrun does not use them.
#include "blis.h"

#include <immintrin.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <vector>

extern "C" {
void bli_sgemm_haswell_asm_6x16(dim_t, dim_t, dim_t, float *, float *, float *, float *, float *,
                                inc_t, inc_t, auxinfo_t *, cntx_t *);
void bli_sgemm_skx_asm_32x12_l2(dim_t, dim_t, dim_t, float *, float *, float *, float *,
                                float *, inc_t, inc_t, auxinfo_t *, cntx_t *);
}

namespace {

using Ukernel = void (*)(dim_t, dim_t, dim_t, float *, float *, float *, float *, float *, inc_t,
                         inc_t, auxinfo_t *, cntx_t *);

double cpuMs() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

/// A full MR x (16 NV) row-major tile only (all this bench calls), alpha applied.
template <int MR, int NV>
[[gnu::target("avx512f,fma")]] void proto(dim_t, dim_t, dim_t k, float *alpha, float *a,
                                          float *b, float *beta, float *c, inc_t rs, inc_t,
                                          auxinfo_t *, cntx_t *) {
  constexpr int NR = 16 * NV;
  __m512 acc[MR][NV];
  for (int i = 0; i < MR; ++i)
    for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_setzero_ps();
  for (int i = 0; i < MR; ++i)
    for (int v = 0; v < NV; ++v)
      _mm_prefetch(reinterpret_cast<const char *>(c + i * rs + 16 * v), _MM_HINT_T0);
  for (dim_t l = 0; l < k; ++l) {
    __m512 bv[NV];
    for (int v = 0; v < NV; ++v) bv[v] = _mm512_loadu_ps(b + l * NR + 16 * v);
    for (int i = 0; i < MR; ++i) {
      __m512 ai = _mm512_set1_ps(a[l * MR + i]);
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_fmadd_ps(ai, bv[v], acc[i][v]);
    }
  }
  __m512 al = _mm512_set1_ps(*alpha), be = _mm512_set1_ps(*beta);
  for (int i = 0; i < MR; ++i)
    for (int v = 0; v < NV; ++v) {
      float *p = c + i * rs + 16 * v;
      __m512 x = _mm512_mul_ps(acc[i][v], al);
      if (*beta != 0.0f) x = _mm512_fmadd_ps(_mm512_loadu_ps(p), be, x);
      _mm512_storeu_ps(p, x);
    }
}

struct Kernel {
  const char *name;
  Ukernel f;
  int mr, nr;
  bool columns;  ///< column-preferring (C tile column-major: rs 1), as skx's
};

float *buffer(size_t n, std::mt19937 &gen) {
  float *p = static_cast<float *>(std::aligned_alloc(64, (n * 4 + 63) / 64 * 64));
  std::normal_distribution<float> dist;
  for (size_t i = 0; i < n; ++i) p[i] = dist(gen);
  return p;
}

/// Whether kernel `k` gives the loop nest's bits for one tile, beta 0 and 1.
bool check(const Kernel &k, int K, cntx_t *ctx, std::mt19937 &gen) {
  float *a = buffer(size_t(k.mr) * K, gen), *b = buffer(size_t(K) * k.nr, gen);
  std::vector<float> c(size_t(k.mr) * k.nr), want(c.size());
  auxinfo_t aux{};
  bool ok = true;
  for (float beta : {0.0f, 1.0f}) {
    for (size_t i = 0; i < c.size(); ++i) c[i] = want[i] = float(i % 7) - 3.5f;
    for (int i = 0; i < k.mr; ++i)
      for (int j = 0; j < k.nr; ++j) {
        float s = 0;
        for (int l = 0; l < K; ++l) s = std::fma(a[l * k.mr + i], b[l * k.nr + j], s);
        float &w = want[size_t(i) * k.nr + j];
        w = beta == 0 ? s : std::fma(w, beta, s);
      }
    float one = 1;
    inc_t rs = k.columns ? 1 : k.nr, cs = k.columns ? k.mr : 1;
    std::vector<float> tile(c.size());  // in the kernel's layout
    for (int i = 0; i < k.mr; ++i)
      for (int j = 0; j < k.nr; ++j) tile[i * rs + j * cs] = c[size_t(i) * k.nr + j];
    k.f(k.mr, k.nr, K, &one, a, b, &beta, tile.data(), rs, cs, &aux, ctx);
    for (int i = 0; i < k.mr; ++i)
      for (int j = 0; j < k.nr; ++j)
        ok &= std::memcmp(&tile[i * rs + j * cs], &want[size_t(i) * k.nr + j], 4) == 0;
  }
  std::free(a);
  std::free(b);
  return ok;
}

}  // namespace

int main(int argc, char **argv) {
  long calls = argc > 1 ? std::atol(argv[1]) : 20000;
  int K = argc > 2 ? std::atoi(argv[2]) : 256;
  bli_init();
  cntx_t *ctx = bli_gks_query_cntx();
  bool avx512 = __builtin_cpu_supports("avx512f");
  std::vector<Kernel> ks = {{"haswell 6x16", bli_sgemm_haswell_asm_6x16, 6, 16, false}};
  if (avx512) {
    ks.push_back({"skx 32x12", bli_sgemm_skx_asm_32x12_l2, 32, 12, true});
    ks.push_back({"proto 24x16", proto<24, 1>, 24, 16, false});
    ks.push_back({"proto 12x32", proto<12, 2>, 12, 32, false});
    ks.push_back({"proto 14x32", proto<14, 2>, 14, 32, false});
    ks.push_back({"proto 8x48", proto<8, 3>, 8, 48, false});
  }
  std::mt19937 gen(0);
  const int block = 192;  // rows of A's block in block mode: a multiple of every MR here
  const long ldc = 1000;  // C: 1000 x 1000 row-major (4 MB), tiles at moving offsets
  float *a = buffer(size_t(block) * K, gen), *b = buffer(size_t(K) * 48, gen),
        *c = buffer(size_t(ldc) * (ldc + 64), gen);
  auxinfo_t aux{};
  float one = 1, zero = 0;
  for (const Kernel &k : ks) {
    std::printf("%-12s bits %s", k.name, check(k, K, ctx, gen) ? "as the loop nest" : "DIFFER");
    for (int mode = 0; mode < 2; ++mode) {
      double best = 0;
      for (int round = 0; round < 3; ++round) {
        long n = 0;
        double t0 = cpuMs();
        for (long r = 0; r < calls; ++r) {
          int panels = mode ? block / k.mr : 1;
          for (int p = 0; p < panels; ++p, ++n) {
            float *cp = c;
            if (mode) cp += (r * 7 + p) % (ldc / 32) * 32 * ldc + r % 20 * 48;
            inc_t rs = k.columns ? 1 : ldc, cs = k.columns ? ldc : 1;
            k.f(k.mr, k.nr, K, &one, a + size_t(p) * k.mr * K, b, (r & 1) ? &one : &zero, cp,
                rs, cs, &aux, ctx);
          }
        }
        double gflops = 2.0 * double(n) * k.mr * k.nr * K / (cpuMs() - t0) / 1e6;
        if (gflops > best) best = gflops;
      }
      std::printf("   %s %.1f GFLOP/s", mode ? "block" : "hot", best);
    }
    std::printf("\n");
  }
}
