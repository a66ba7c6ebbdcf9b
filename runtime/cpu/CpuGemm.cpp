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
// JAX (XLA:CPU, YNNPACK) sums in a kernel-dependent order of its own, so neither this
// nor the loop nest is bit-identical to it in general (bench/notes.md, 2026-11-23).
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
// elements that are -0, which one pass over C, still in cache, turns into +0
// (clearNegativeZeros). bench/notes.md (2026-11-24, perf11) has the measurements.
#include "Device.h"
#include "cpu/Reduce.h"

#include "blis.h"

#include <cstring>
#include <mutex>
#include <type_traits>

namespace {

/// BLIS's context for this CPU with KC pinned to 256 (Note [BLIS order]), made once.
cntx_t *context() {
  static cntx_t ctx;
  static std::once_flag once;
  std::call_once(once, [] {
    bli_init();
    ctx = *bli_gks_query_cntx();
    blksz_t *kc = bli_cntx_get_blksz(BLIS_KC, &ctx);
    for (num_t dt : {BLIS_FLOAT, BLIS_DOUBLE}) {
      bli_blksz_set_def(256, dt, kc);
      bli_blksz_set_max(256, dt, kc);
    }
  });
  return &ctx;
}

/// Every -0 in c[0, n) becomes +0; nothing else changes (Note [GEMM without zeroing C]).
/// Integer compares, so that NaN payloads and denormals (DAZ) are left alone.
template <typename T>
SPMD_VECTORISE void clearNegativeZeros(T *c, int64_t n) {
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  constexpr U kNegZero = U(1) << (8 * sizeof(U) - 1);
  U *u = reinterpret_cast<U *>(c);
  for (int64_t i = 0; i < n; ++i) u[i] = u[i] == kNegZero ? U(0) : u[i];
}

template <typename T>
void gemm(int64_t batch, int64_t m, int64_t n, int64_t k, const T *a, bool ta, const T *b,
          bool tb, T *c) {
  cntx_t *ctx = context();
  rntm_t rntm;
  bli_rntm_init(&rntm);
  bli_rntm_set_num_threads(1, &rntm);
  bli_rntm_disable_l3_sup(&rntm);
  T one = 1, zero = 0;
  if (k == 0) {
    std::memset(c, 0, sizeof(T) * size_t(batch * m * n));
    return;
  }
  // Row-major A (m x k) or, with ta, A stored transposed (k x m); B likewise.
  inc_t rsa = ta ? 1 : k, csa = ta ? m : 1, rsb = tb ? 1 : n, csb = tb ? k : 1;
  for (int64_t i = 0; i < batch; ++i) {
    T *ai = const_cast<T *>(a) + i * m * k, *bi = const_cast<T *>(b) + i * k * n,
      *ci = c + i * m * n;
    if constexpr (sizeof(T) == 4)
      bli_sgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, m, n, k, &one, ai, rsa, csa, bi, rsb,
                   csb, &zero, ci, n, 1, ctx, &rntm);
    else
      bli_dgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, m, n, k, &one, ai, rsa, csa, bi, rsb,
                   csb, &zero, ci, n, 1, ctx, &rntm);
    // C = A B with beta = 0, then the loop nest's +0 + C (Note [GEMM without zeroing C]).
    clearNegativeZeros(ci, m * n);
  }
}

}  // namespace

extern "C" void spmd_cpu_gemm(int32_t dtype, int64_t batch, int64_t m, int64_t n, int64_t k,
                              const void *a, int32_t ta, const void *b, int32_t tb, void *c) {
  if (batch * m * n == 0) return;
  if (dtype == int32_t(spmd::rt::DType::F64))
    gemm(batch, m, n, k, static_cast<const double *>(a), ta != 0, static_cast<const double *>(b),
         tb != 0, static_cast<double *>(c));
  else
    gemm(batch, m, n, k, static_cast<const float *>(a), ta != 0, static_cast<const float *>(b),
         tb != 0, static_cast<float *>(c));
}
