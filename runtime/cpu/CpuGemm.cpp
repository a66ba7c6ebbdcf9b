// ===- CpuGemm.cpp - spmd_cpu_gemm: matrix products in CPU code with BLIS -----===//
//
// The entry point that the generated host and CPU-device code calls for an f32 or f64
// dot_general of more than a few thousand multiply-adds (compiler/codegen/EmitDot.cpp,
// Note [Dot]). BLIS (Debian's libblis-serial-dev, linked statically) runs it in the
// calling thread: a device thread is already one core's worth of work.
//
// Note [BLIS order]: the generated loop nest sums each output element over k in slices
// of 256, each slice's products folded in k order with FMAs into a fresh partial sum that
// is then added to C. BLIS's conventional path (pack, GEBP, micro-kernel) does the same
// when KC = 256 and its micro-kernel keeps one accumulator per element of C, as every
// x86 micro-kernel of BLIS 0.9 does: each KC slice of k is a rank-KC update
// C += A_slice B_slice (beta = 1; the first slice stores instead, beta = 0, with the sign
// of zero fixed after, Note [GEMM without zeroing C]), the micro-kernel's accumulators
// starting at 0. So the results are the same bits as before BLIS, for every shape (checked bit for bit
// against the loop nest on 1x300x50 .. 1000x1200x1000, both layouts of B; bench/notes.md).
// Two things would break that, and both are pinned here:
// - the "sup" path for small or skinny products (unpacked kernels with other k
//   blockings: 50x1000x40 summed in slices of 512), turned off in the rntm; and
// - the KC of the configuration BLIS picks for the CPU (256 in zen3's, the one picked on
//   the project's machine; a property of each configuration), forced to 256 in a copy
//   of the context.
// JAX (XLA:CPU, YNNPACK) sums in a kernel-dependent order of its own; on an AVX2 host,
// f32 products with K <= 4096 are one FMA chain over all of k (Note [XLA dot order] in
// compiler/codegen/EmitDot.cpp), and `a @ b.T` for some N two (Note [GEMM in pairs]).
// The caller says which (spmd_gemm_order in spmdrt.h). One slice over all of k is a
// second context with KC pinned to SPMD_GEMM_MAX_CHAIN (BLIS's micro-kernel folds the whole
// slice into its accumulators in k order), and a smaller MC (kOneChainMC), so that the
// packed block of A, MC x K, stays in L2 for the longer slices: with MC 24, one core's
// rate at random_matmul's 1000 x 1000 x 1200 is that of slices of 256 (87 against 86
// GFLOP/s, bench/gemm_bench, 12 x 2 calls each, alternating; MC 144, the
// configuration's: 80 against 82; MC 48 and 72: 3 to 10% slower than 256 slices).
//
// Note [GEMM without zeroing C]: the loop nest's C starts at +0 and gets the first k
// slice's partial sum added, +0 + p. BLIS with beta = 0 stores p itself, without
// reading C, and so spares the zeroing of C before the call and the read of those zeros
// by the micro-kernel (a C of 784 x 512 f32 per device in train_mlp_wide's backward
// pass: 1.6 MB written and read again, out of cache). +0 + p is p, bit for bit, except
// where p is -0 (a partial sum whose products all underflowed with a negative sign, or
// were -0 after such an underflow), which +0 + p turns into +0; and once C differs from
// the loop nest's only by that sign, every later slice's x + q keeps them equal unless q
// is -0 too. So C after BLIS with beta = 0 differs from the loop nest's exactly at the
// elements that are -0, which a pass over C turns into +0 (clearNegativeZeros). That pass
// is made tile by tile, right after the micro-kernel stored a tile with beta = 0 (the
// first k slice, Note [BLIS order]), while the tile is in L1 (fixNegativeZeros, the
// context's micro-kernel): there +0 + p is formed exactly where the loop nest forms it.
// A pass over the whole of C after BLIS read and wrote C once more from L3 or memory
// (4 MB per product in random_matmul: 0 to 8% of the product's CPU time in gemm_bench on
// a loaded machine, mostly within its noise; bench/notes.md, 2026-11-24 perf11 and
// gemm12, has the measurements). Should BLIS ever call the micro-kernel with
// beta = 0 for a later slice, the pass is still exact: C is never -0 after the first
// slice (+0 + p is not), and c + q with q = -0 or +0 differs only for c = -0.
#include "cpu/CpuGemm.h"

#include "BufferPool.h"
#include "Device.h"
#include "cpu/Reduce.h"
#include "spmdrt.h"
#include "Settings.h"

#include "blis.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <immintrin.h>
#include <mutex>
#include <type_traits>

namespace {

/// Every -0 in c[0, n) becomes +0; nothing else changes (Note [GEMM without zeroing C]).
/// Integer compares, so that NaN payloads and denormals (DAZ) are left alone.
template <typename T>
SPMD_VECTORISE void clearNegativeZeros(T *c, int64_t n) {
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  constexpr U kNegZero = U(1) << (8 * sizeof(U) - 1);
  U *u = reinterpret_cast<U *>(c);
  for (int64_t i = 0; i < n; ++i) u[i] = u[i] == kNegZero ? U(0) : u[i];
}

/// c[i] = c[i] + d[i], each sum rounded once (Note [GEMM in pairs]).
template <typename T>
SPMD_VECTORISE void addRounded(T *c, const T *d, int64_t n) {
  for (int64_t i = 0; i < n; ++i) c[i] = c[i] + d[i];
}

/// c[j] = c[j] + round(x b[j csb]): the product rounded on its own (through a volatile,
/// so that no compiler contracts it into an FMA), then added.
template <typename T>
void lastProduct(T *c, T x, const T *b, inc_t csb, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    volatile T p = x * b[j * csb];
    c[j] = c[j] + p;
  }
}

/// The signature of BLIS 0.9's gemm micro-kernels: C (m x n, strides rs, cs) =
/// beta C + alpha A B over k, A and B packed.
template <typename T>
using Ukernel = void (*)(dim_t m, dim_t n, dim_t k, T *alpha, T *a, T *b, T *beta, T *c,
                         inc_t rs, inc_t cs, auxinfo_t *aux, cntx_t *ctx);

template <typename T>
Ukernel<T> nativeUkernel;  ///< the configuration's, set once by context()

/// Whether the m rows of 64 bytes at c (row stride rs) hold a -0: the check of a
/// micro-tile of the x86 configurations' row-major kernels (6 x 16 f32, 6 x 8 f64). The
/// portable version, for CPUs without AVX2 (GCC does not vectorise it: 16 scalar
/// compares per row).
template <typename T>
bool anyNegativeZeroRowsBase(const T *c, dim_t m, inc_t rs) {
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  constexpr U kNegZero = U(1) << (8 * sizeof(U) - 1);
  constexpr int kRow = 64 / sizeof(T);
  U any = 0;
  for (dim_t i = 0; i < m; ++i) {
    const U *u = reinterpret_cast<const U *>(c + i * rs);
    for (int j = 0; j < kRow; ++j) any |= U(u[j] == kNegZero);
  }
  return any != 0;
}

/// The same with AVX2: two loads, two integer compares and two ORs per row, one test at
/// the end. Written with intrinsics because the loop above stays scalar, ~100 cycles
/// per tile against the tile's ~800 of FMAs at k = 128 (bench/notes.md, 2026-11-24 gemm12).
template <typename T>
[[gnu::target("avx2")]] bool anyNegativeZeroRowsAvx2(const T *c, dim_t m, inc_t rs) {
  const __m256i negZero = sizeof(T) == 4
                              ? _mm256_set1_epi32(int32_t(0x80000000u))
                              : _mm256_set1_epi64x(int64_t(0x8000000000000000ull));
  __m256i any = _mm256_setzero_si256();
  for (dim_t i = 0; i < m; ++i) {
    const __m256i *row = reinterpret_cast<const __m256i *>(c + i * rs);
    __m256i lo = _mm256_loadu_si256(row), hi = _mm256_loadu_si256(row + 1);
    if constexpr (sizeof(T) == 4)
      any = _mm256_or_si256(any, _mm256_or_si256(_mm256_cmpeq_epi32(lo, negZero),
                                                 _mm256_cmpeq_epi32(hi, negZero)));
    else
      any = _mm256_or_si256(any, _mm256_or_si256(_mm256_cmpeq_epi64(lo, negZero),
                                                 _mm256_cmpeq_epi64(hi, negZero)));
  }
  return !_mm256_testz_si256(any, any);
}

const bool kAvx2 = __builtin_cpu_supports("avx2");

/// The context's micro-kernel: the configuration's, then, for a tile stored with
/// beta = 0, its -0s made +0 while it is in L1 (Note [GEMM without zeroing C]). A tile
/// almost never has one, so a full row-major tile is first checked without a store.
template <typename T>
void fixNegativeZeros(dim_t m, dim_t n, dim_t k, T *alpha, T *a, T *b, T *beta, T *c,
                      inc_t rs, inc_t cs, auxinfo_t *aux, cntx_t *ctx) {
  nativeUkernel<T>(m, n, k, alpha, a, b, beta, c, rs, cs, aux, ctx);
  if (*beta != T(0)) return;
  if (cs == 1 && n == 64 / dim_t(sizeof(T)) &&
      !(kAvx2 ? anyNegativeZeroRowsAvx2(c, m, rs) : anyNegativeZeroRowsBase(c, m, rs)))
    return;
  if (cs == 1)
    for (dim_t i = 0; i < m; ++i) clearNegativeZeros(c + i * rs, n);
  else if (rs == 1)
    for (dim_t j = 0; j < n; ++j) clearNegativeZeros(c + j * cs, m);
  else
    for (dim_t i = 0; i < m; ++i)
      for (dim_t j = 0; j < n; ++j) clearNegativeZeros(c + i * rs + j * cs, 1);
}

/// MC of the one-slice context (24 x 1200 f32 = 115 KiB), rounded up to a multiple of MR.
constexpr dim_t kOneChainMC = 24;

// Note [BLIS on newer CPUs]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// BLIS 0.9 picks its configuration from the CPU's vendor, family and model, and knows
// none newer than Zen 3 and Skylake-X: on an AMD EPYC of family 26 (Zen 5) it returns
// `generic`, whose micro-kernel is portable C compiled for baseline x86-64: no FMA (so
// other bits than the loop nest's, Note [BLIS order]: tests/unit/runtime/test_gemm.cpp
// failed 4 of its 6 cases there) and ~10x slower (random_matmul's product: 71% of the
// process's samples in bli_sgemm_generic_ref; bench/notes.md, 2026-12-02 perf16). A CPU
// that BLIS does not know gets the configuration its instruction set runs best: skx's
// (AVX-512 micro-kernels, 32 x 12 f32) with AVX-512 F, DQ, BW and VL, as BLIS's own skx
// test asks; else zen3's (the haswell 6 x 16 micro-kernel, AVX2 and FMA), the one this
// project's bits were first checked with. Every x86 micro-kernel of BLIS 0.9 keeps one
// accumulator per element of C and folds k in order with FMAs, so with KC pinned the
// bits are the same in both (test_gemm passes with either); MC of the one-slice
// contexts is rounded up to a multiple of the micro-kernel's MR (kOneChainMC).
// SPMD_BLIS_ARCH=skx (or zen3, haswell) in the environment picks that configuration
// where the CPU has its instructions, else is ignored: CTest runs test_gemm under skx and
// zen3 (unit_runtime_gemm_*), so that an AVX-512 host checks both kernels' bits whichever
// BLIS picks (BLIS 0.9 calls a Zen 4 zen3, a Zen 5 generic: bench/notes.md, perf17).
bool hasAvx512() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
}

bool hasAvx2Fma() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }

arch_t configuration() {
  if (const char *want = spmd::settings::value(spmd::settings::Id::BlisArch))
    for (arch_t id : {BLIS_ARCH_SKX, BLIS_ARCH_ZEN3, BLIS_ARCH_HASWELL})
      if (std::strcmp(want, bli_arch_string(id)) == 0 &&
          (id == BLIS_ARCH_SKX ? hasAvx512() : hasAvx2Fma()) && bli_gks_lookup_nat_cntx(id))
        return id;
  arch_t id = bli_arch_query_id();
  if (id != BLIS_ARCH_GENERIC) return id;
  if (hasAvx512() && bli_gks_lookup_nat_cntx(BLIS_ARCH_SKX)) return BLIS_ARCH_SKX;
  if (hasAvx2Fma() && bli_gks_lookup_nat_cntx(BLIS_ARCH_ZEN3)) return BLIS_ARCH_ZEN3;
  return id;
}

cntx_t *baseContext() { return bli_gks_lookup_nat_cntx(configuration()); }

/// BLIS's context for this CPU (baseContext) with KC pinned to `kcPin` (Note [BLIS
/// order]), MC set unless 0, and with `wrap` the micro-kernels wrapped by
/// fixNegativeZeros.
void makeContext(cntx_t &ctx, dim_t kcPin, dim_t mc, bool wrap) {
  ctx = *baseContext();
  blksz_t *kc = bli_cntx_get_blksz(BLIS_KC, &ctx);
  for (num_t dt : {BLIS_FLOAT, BLIS_DOUBLE}) {
    bli_blksz_set_def(kcPin, dt, kc);
    bli_blksz_set_max(kcPin, dt, kc);
  }
  if (mc > 0) {
    blksz_t *mcs = bli_cntx_get_blksz(BLIS_MC, &ctx);
    for (num_t dt : {BLIS_FLOAT, BLIS_DOUBLE}) {
      // A multiple of MR (6 in zen3's f32 kernel, 32 in skx's): no padded micro-panels.
      dim_t mr = bli_cntx_get_blksz_def_dt(dt, BLIS_MR, &ctx);
      dim_t m = (mc + mr - 1) / mr * mr;
      bli_blksz_set_def(m, dt, mcs);
      bli_blksz_set_max(m, dt, mcs);
    }
  }
  if (wrap) {
    // The macro-kernel calls the virtual micro-kernel, which for real types is the
    // native one; both are replaced, the native one's storage preference kept.
    func_t *nat = bli_cntx_get_l3_nat_ukrs(BLIS_GEMM_UKR, &ctx),
           *vir = bli_cntx_get_l3_vir_ukrs(BLIS_GEMM_UKR, &ctx);
    nativeUkernel<float> = reinterpret_cast<Ukernel<float>>(bli_func_get_dt(BLIS_FLOAT, nat));
    nativeUkernel<double> = reinterpret_cast<Ukernel<double>>(bli_func_get_dt(BLIS_DOUBLE, nat));
    for (func_t *f : {nat, vir}) {
      bli_func_set_dt(reinterpret_cast<void_fp>(&fixNegativeZeros<float>), BLIS_FLOAT, f);
      bli_func_set_dt(reinterpret_cast<void_fp>(&fixNegativeZeros<double>), BLIS_DOUBLE, f);
    }
  }
}

// Note [GEMM workspace]
// ~~~~~~~~~~~~~~~~~~~~~
// BLIS packs A and B into blocks of its own pools (the packed block allocator, pba),
// which start empty and take each block from malloc when a thread first needs one, then
// keep it. glibc maps a large block with 4 KiB pages, and this kernel (THP `madvise`)
// backs them with huge pages only where asked; so the first product on each thread faulted
// in its packed B page by page (random_matmul's 600 x 1000 f32 per chain: ~600 faults),
// and the pairs' second chain (below) a 4 MB buffer per thread, zero-filled as it grew:
// 978 faults and 2.3 to 2.6 ms of CPU for 4 MB, against 2 faults and 0.4 to 0.9 ms in
// 2 MiB pages (bench/notes.md, 2026-11-25 mm14). So both come from a BufferPool of their
// own (gemmWorkspace): blocks of 2 MiB or more are 2 MiB aligned and advised
// MADV_HUGEPAGE there, and the pairs' buffer is grown without being cleared (BLIS stores
// every element of it, beta = 0). The pba's pools are given the pool's alloc and free
// before any block exists (BLIS fills them only on demand; contexts() checks it).
// Nothing here changes what is computed: the same products, in other memory.
//
// warmCpuGemm does the once-per-process part (bli_init, the contexts, the pools'
// allocator: ~0.25 ms) on an idle device thread while the host compiles (CpuDevice.cpp),
// so the first product's devices do not wait on it. It does not touch packing memory in
// advance: the sizes are the program's, known only at the launch, and a guess would cost
// every program that makes no product (bench/notes.md, mm14).

using spmd::rt::gemmWorkspace;

/// gemmWorkspace's block of `bytes`. spmd_cpu_gemm has no device context to record an
/// error in and is called from generated code, which has no unwind tables (an exception
/// would abort), and BLIS does not expect a null block; so a refusal (Note [Memory limits]
/// in BufferPool.h) ends the process here with the message and exit status 1.
void *workspaceOrExit(int64_t bytes) {
  if (void *p = gemmWorkspace().alloc(bytes)) return p;
  std::fprintf(stderr, "error: out of host memory: a matrix product's workspace needs %s%s\n",
               spmd::rt::BufferPool::humanBytes(bytes).c_str(),
               spmd::rt::BufferPool::shortage(bytes, gemmWorkspace()).c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

void *workspaceAlloc(size_t bytes) { return workspaceOrExit(int64_t(bytes)); }
void workspaceFree(void *p) { gemmWorkspace().free(p); }

/// The contexts for sums in each order (spmd_gemm_order), made once per process with
/// BLIS and its pools (Note [GEMM workspace]).
struct Contexts {
  cntx_t slices, oneSlice, chains;
};

Contexts &contexts() {
  static Contexts ctxs;
  static std::once_flag once;
  std::call_once(once, [] {
    bli_init();
    pba_t *pba = bli_pba_query();
    for (pool_t &pool_ : pba->pools) {  // packed A blocks, B panels, C panels
      pool_t *pool = &pool_;
      if (bli_pool_num_blocks(pool) != 0) continue;  // malloc's blocks: free()d by it
      bli_pool_set_malloc_fp(&workspaceAlloc, pool);
      bli_pool_set_free_fp(&workspaceFree, pool);
    }
    makeContext(ctxs.slices, 256, 0, true);
    makeContext(ctxs.oneSlice, SPMD_GEMM_MAX_CHAIN, kOneChainMC, true);
    makeContext(ctxs.chains, SPMD_GEMM_MAX_CHAIN, kOneChainMC, false);
  });
  return ctxs;
}

/// The context for sums in `order` over k. The pairs' chains keep their -0s (Note [GEMM
/// in pairs]): the configuration's micro-kernel.
cntx_t *context(int64_t k, int32_t order) {
  Contexts &c = contexts();
  if (order == SPMD_GEMM_PAIRS || order == SPMD_GEMM_QUADS) return &c.chains;
  return order == SPMD_GEMM_ONE_CHAIN && k > 256 ? &c.oneSlice : &c.slices;
}

/// The calling thread's buffer number `slot` (0: pairs' and quads' chains; 1 and 2: a
/// tile and a slice of it, Note [GEMM in tiles]) of at least `bytes`, from gemmWorkspace,
/// kept between calls and grown without clearing (Note [GEMM workspace]) (the process
/// ends when there is no memory for it: workspaceOrExit).
void *threadBuffer(int64_t bytes, int slot = 0) {
  struct Buffer {
    void *p = nullptr;
    int64_t size = 0;
    ~Buffer() { gemmWorkspace().free(p); }
  };
  thread_local Buffer bufs[3];
  Buffer &buf = bufs[slot];
  if (buf.size < bytes) {
    gemmWorkspace().free(buf.p);
    buf.p = workspaceOrExit(bytes);
    buf.size = bytes;
  }
  return buf.p;
}

/// C (m x n, row stride n) = A B in one BLIS call: A's element (i, l) at a[i rsa +
/// l csa], B's (l, j) at b[l rsb + j csb]; beta = 0 (and -0s made +0 where ctx says).
template <typename T>
void blis(int64_t m, int64_t n, int64_t k, T *a, inc_t rsa, inc_t csa, T *b, inc_t rsb,
          inc_t csb, T *c, cntx_t *ctx) {
  rntm_t rntm;
  bli_rntm_init(&rntm);
  bli_rntm_set_num_threads(1, &rntm);
  bli_rntm_disable_l3_sup(&rntm);
  T one = 1, zero = 0;
  if constexpr (sizeof(T) == 4)
    bli_sgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, m, n, k, &one, a, rsa, csa, b, rsb, csb,
                 &zero, c, n, 1, ctx, &rntm);
  else
    bli_dgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, m, n, k, &one, a, rsa, csa, b, rsb, csb,
                 &zero, c, n, 1, ctx, &rntm);
  // Each tile's -0s made +0 by the wrapped micro-kernel (Note [GEMM without zeroing C]).
}

// Note [GEMM in pairs]: SPMD_GEMM_PAIRS (YNNPACK's `a @ b.T` for some N on an AVX2
// host, Note [XLA dot order]) is two chains, over the even k and the odd k, which are
// two products of half the depth over strided views of A and B (column stride 2 csa,
// row stride 2 rsb; BLIS packs any strides), each in one slice. Each chain starts at +0
// and is stored as it ends, -0 included (a context whose micro-kernel is the
// configuration's, not fixNegativeZeros), as the generated dotPairsNT keeps it; the two
// are added with one rounding, and for an odd k the last product is rounded and added.
// The odd chain goes to a buffer of the thread's, kept between calls (Note [GEMM
// workspace]).
template <typename T>
void pairs(int64_t m, int64_t n, int64_t k, T *a, inc_t rsa, inc_t csa, T *b, inc_t rsb,
           inc_t csb, T *c, cntx_t *ctx) {
  const int64_t half = k / 2, mn = m * n;
  if (half == 0) {
    std::memset(c, 0, sizeof(T) * size_t(mn));
  } else {
    T *odd = static_cast<T *>(threadBuffer(int64_t(sizeof(T)) * mn));
    blis(m, n, half, a, rsa, 2 * csa, b, 2 * rsb, csb, c, ctx);
    blis(m, n, half, a + csa, rsa, 2 * csa, b + rsb, 2 * rsb, csb, odd, ctx);
    addRounded(c, odd, mn);
  }
  if (k % 2) {
    const T *al = a + (k - 1) * csa, *bl = b + (k - 1) * rsb;
    for (int64_t i = 0; i < m; ++i) lastProduct(c + i * n, al[i * rsa], bl, csb, n);
  }
}

// Note [GEMM in quads]: SPMD_GEMM_QUADS (YNNPACK's avx512 tile_k 4 kernels, Note [YNNPACK
// on AVX-512] in compiler/codegen/EmitDot.cpp) is as Note [GEMM in pairs] with four
// chains, over k = q (mod 4) for q = 0..3, of k / 4 each (column stride 4 csa, row stride
// 4 rsb), added as (c0 + c1) + (c2 + c3); then the last k mod 4 products, each rounded,
// in four lanes (the others +0) summed the same way, and that sum added (the kernel run
// again over a zero-padded tile of k, its result added to C). c1..c3 go to the thread's
// buffer.
template <typename T>
void quads(int64_t m, int64_t n, int64_t k, T *a, inc_t rsa, inc_t csa, T *b, inc_t rsb,
           inc_t csb, T *c, cntx_t *ctx) {
  const int64_t k4 = k / 4, mn = m * n, tail = k % 4;
  if (k4 == 0) {
    std::memset(c, 0, sizeof(T) * size_t(mn));
  } else {
    T *d = static_cast<T *>(threadBuffer(int64_t(sizeof(T)) * 3 * mn));
    T *lane[4] = {c, d, d + mn, d + 2 * mn};
    for (int64_t q = 0; q < 4; ++q)
      blis(m, n, k4, a + q * csa, rsa, 4 * csa, b + q * rsb, 4 * rsb, csb, lane[q], ctx);
    addRounded(c, lane[1], mn);
    addRounded(lane[2], lane[3], mn);
    addRounded(c, lane[2], mn);
  }
  if (tail) {
    const int64_t k0 = 4 * k4;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        volatile T p[4] = {0, 0, 0, 0};  // the padded lanes' +0s; no contraction
        for (int64_t q = 0; q < tail; ++q)
          p[q] = a[i * rsa + (k0 + q) * csa] * b[(k0 + q) * rsb + j * csb];
        const T s = (p[0] + p[1]) + (p[2] + p[3]);
        c[i * n + j] = c[i * n + j] + s;
      }
  }
}

/// C (m x n, row stride n) = A B with each product rounded, then added, in k order from
/// +0 (SPMD_GEMM_UNFUSED: YNNPACK's kernels without FMA). The product goes through a
/// volatile, so that no compiler contracts it into an FMA. Rare (a narrow tile of a
/// product): plain loops.
template <typename T>
void unfused(int64_t m, int64_t n, int64_t k, const T *a, inc_t rsa, inc_t csa, const T *b,
             inc_t rsb, inc_t csb, T *c) {
  std::memset(c, 0, sizeof(T) * size_t(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t l = 0; l < k; ++l) {
      const T x = a[i * rsa + l * csa];
      for (int64_t j = 0; j < n; ++j) {
        volatile T p = x * b[l * rsb + j * csb];
        c[i * n + j] = c[i * n + j] + p;
      }
    }
}

// Note [GEMM in tiles]: spmd_cpu_gemm_tiles's rectangle (Note [YNNPACK's tiles] in
// compiler/codegen/EmitDot.cpp) is summed as YNNPACK's kernel sums its tiles: k below k1 =
// k - k mod tile_k in slices of `slice` (one slice when 0), each slice a product of its own
// in the order (one chain, pairs, quads, or unfused, from +0), the slices added to the
// first in k order, each sum rounded once; then the last k mod tile_k products (pairs()
// or quads() over them alone: their zero-padded tile) added the same way. The kernel adds
// each later slice's accumulators to C (C_in) after the slice; this is that, rectangle by
// rectangle instead of tile by tile (a tile's sums do not depend on its neighbours). The
// one chains use the context that makes -0 +0 (as the loop nest's +0 + p), so that a
// slice's -0 and +0 add alike (YNNPACK stores its first slice as it is: a sum that is -0
// there is +0 here, as on every other path of spmd_cpu_gemm). A rectangle as wide as C
// (rows nc apart) is summed in C, another in the thread's buffer 1 and then copied into
// C; the later slices go to buffer 2.
template <typename T>
void tileRect(int64_t m, int64_t n, int64_t k, int32_t order, int64_t slice, T *a, inc_t rsa,
              inc_t csa, T *b, inc_t rsb, inc_t csb, T *c, int64_t nc) {
  if (m == 0 || n == 0) return;
  const int64_t tk = order == SPMD_GEMM_PAIRS ? 2 : order == SPMD_GEMM_QUADS ? 4 : 1;
  const int64_t mn = m * n, k1 = k - k % tk, step = slice > 0 ? slice : k1;
  T *acc = n == nc ? c : static_cast<T *>(threadBuffer(int64_t(sizeof(T)) * mn, 1));
  T *part = static_cast<T *>(threadBuffer(int64_t(sizeof(T)) * mn, 2));
  bool first = true;
  auto sum = [&](int64_t k0, int64_t len) {
    T *out = first ? acc : part, *ak = a + k0 * csa, *bk = b + k0 * rsb;
    if (order == SPMD_GEMM_PAIRS)
      pairs(m, n, len, ak, rsa, csa, bk, rsb, csb, out, context(len, order));
    else if (order == SPMD_GEMM_QUADS)
      quads(m, n, len, ak, rsa, csa, bk, rsb, csb, out, context(len, order));
    else if (order == SPMD_GEMM_UNFUSED)
      unfused(m, n, len, ak, rsa, csa, bk, rsb, csb, out);
    else
      blis(m, n, len, ak, rsa, csa, bk, rsb, csb, out, context(len, SPMD_GEMM_ONE_CHAIN));
    if (!first) addRounded(acc, part, mn);
    first = false;
  };
  for (int64_t k0 = 0; k0 < k1; k0 += step) sum(k0, std::min(step, k1 - k0));
  if (k1 < k) sum(k1, k - k1);
  if (acc != c)
    for (int64_t i = 0; i < m; ++i) std::memcpy(c + i * nc, acc + i * n, sizeof(T) * size_t(n));
}

/// spmd_cpu_gemm_tiles per batch: the four rectangles of `plan`.
template <typename T>
void tiles(int64_t batch, int64_t m, int64_t n, int64_t k, const int64_t *plan, const T *a,
           bool ta, const T *b, bool tb, T *c) {
  if (k == 0) {
    std::memset(c, 0, sizeof(T) * size_t(batch * m * n));
    return;
  }
  const inc_t rsa = ta ? 1 : k, csa = ta ? m : 1, rsb = tb ? 1 : n, csb = tb ? k : 1;
  const int64_t rows[3] = {0, plan[0], m}, cols[3] = {0, plan[1], n};
  for (int64_t i = 0; i < batch; ++i) {
    T *ai = const_cast<T *>(a) + i * m * k, *bi = const_cast<T *>(b) + i * k * n,
      *ci = c + i * m * n;
    for (int r = 0; r < 2; ++r)
      for (int q = 0; q < 2; ++q) {
        const int64_t *t = plan + 2 + 2 * (2 * r + q);
        const int64_t i0 = rows[r], j0 = cols[q];
        tileRect(rows[r + 1] - i0, cols[q + 1] - j0, k, int32_t(t[0]), t[1], ai + i0 * rsa,
                 rsa, csa, bi + j0 * csb, rsb, csb, ci + i0 * n + j0, n);
      }
  }
}

template <typename T>
void gemm(int64_t batch, int64_t m, int64_t n, int64_t k, int32_t order, const T *a, bool ta,
          const T *b, bool tb, T *c) {
  if (k == 0) {
    std::memset(c, 0, sizeof(T) * size_t(batch * m * n));
    return;
  }
  cntx_t *ctx = context(k, order);
  // Row-major A (m x k) or, with ta, A stored transposed (k x m); B likewise.
  inc_t rsa = ta ? 1 : k, csa = ta ? m : 1, rsb = tb ? 1 : n, csb = tb ? k : 1;
  for (int64_t i = 0; i < batch; ++i) {
    T *ai = const_cast<T *>(a) + i * m * k, *bi = const_cast<T *>(b) + i * k * n,
      *ci = c + i * m * n;
    if (order == SPMD_GEMM_PAIRS)
      pairs(m, n, k, ai, rsa, csa, bi, rsb, csb, ci, ctx);
    else if (order == SPMD_GEMM_QUADS)
      quads(m, n, k, ai, rsa, csa, bi, rsb, csb, ci, ctx);
    else
      blis(m, n, k, ai, rsa, csa, bi, rsb, csb, ci, ctx);
  }
}

}  // namespace

namespace spmd::rt {

void warmCpuGemm() { contexts(); }

const char *cpuGemmConfiguration() {
  contexts();  // bli_init
  return bli_arch_string(configuration());
}

BufferPool &gemmWorkspace() {
  // Never destroyed: BLIS's pools and threads' buffers may give blocks back during exit.
  static BufferPool *pool = new BufferPool();
  return *pool;
}

}  // namespace spmd::rt

extern "C" void spmd_cpu_gemm(int32_t dtype, int64_t batch, int64_t m, int64_t n, int64_t k,
                              int32_t order, const void *a, int32_t ta, const void *b, int32_t tb,
                              void *c) {
  if (batch * m * n == 0) return;
  if (dtype == int32_t(spmd::rt::DType::F64))
    gemm(batch, m, n, k, order, static_cast<const double *>(a), ta != 0,
         static_cast<const double *>(b), tb != 0, static_cast<double *>(c));
  else
    gemm(batch, m, n, k, order, static_cast<const float *>(a), ta != 0,
         static_cast<const float *>(b), tb != 0, static_cast<float *>(c));
}

extern "C" void spmd_cpu_gemm_tiles(int32_t dtype, int64_t batch, int64_t m, int64_t n, int64_t k,
                                    const int64_t *plan, const void *a, int32_t ta,
                                    const void *b, int32_t tb, void *c) {
  if (batch * m * n == 0) return;
  if (dtype != int32_t(spmd::rt::DType::F32)) {
    std::fprintf(stderr, "internal error: spmd_cpu_gemm_tiles of dtype %d\n", int(dtype));
    std::abort();
  }
  tiles(batch, m, n, k, plan, static_cast<const float *>(a), ta != 0,
        static_cast<const float *>(b), tb != 0, static_cast<float *>(c));
}
