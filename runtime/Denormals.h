// ===- Denormals.h - the floating-point mode generated CPU code runs in -------===//
//
// Note [Denormals]: XLA runs its CPU code with denormal (subnormal) floats flushed to
// zero, results (FTZ) and inputs (DAZ) alike (tsl's ScopedFlushDenormal around every
// executable), so in JAX on the CPU `jnp.float32(1e-39) * 1.0` is 0, `x < 1e-39` reads
// both sides as 0, and a psum of denormals is 0; NumPy, which prints the results, does
// not flush. spmdrun does the same: CPU device threads run with FTZ and DAZ set for
// their whole life, the host thread sets them around the jitted main (Host::run), and
// the host entries that format or compare values for the user (print, assert_close)
// clear them again while they run, so a denormal that is stored, such as the literal
// `1e-40`, prints as NumPy prints it. LLVM is not told the mode ("denormal-fp-math"):
// its folding of constants is only partly aware of it, and mixing the two modes broke
// the explicit flushes of log and the PRNG (Threefry emitter) on literal inputs; instead
// the code generator hides literal sources from LLVM's folder, so arithmetic on literals
// alone runs, and flushes, at run time (Note [Folding literals] in EmitElementwise.cpp).
// CUDA code does not flush (XLA's GPU default, xla_gpu_ftz=false), nor does the host
// of a CUDA run.
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace spmd::rt {

/// Sets (flush = true) or clears (false) FTZ and DAZ on this thread for its lifetime,
/// then restores what was there. A no-op on targets other than x86 and AArch64.
class DenormalMode {
public:
  explicit DenormalMode(bool flush) {
#if defined(__x86_64__) || defined(__i386__)
    saved_ = _mm_getcsr();
    constexpr unsigned kFtzDaz = 0x8040;  // MXCSR bit 15 (FTZ) and bit 6 (DAZ)
    _mm_setcsr(flush ? (saved_ | kFtzDaz) : (saved_ & ~kFtzDaz));
#elif defined(__aarch64__)
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(saved_));
    constexpr unsigned long kFz = 1ul << 24;  // FPCR.FZ flushes inputs and results
    unsigned long v = flush ? (saved_ | kFz) : (saved_ & ~kFz);
    __asm__ __volatile__("msr fpcr, %0" : : "r"(v));
#else
    (void)flush;
#endif
  }
  ~DenormalMode() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_setcsr(saved_);
#elif defined(__aarch64__)
    __asm__ __volatile__("msr fpcr, %0" : : "r"(saved_));
#endif
  }
  DenormalMode(const DenormalMode &) = delete;
  DenormalMode &operator=(const DenormalMode &) = delete;

private:
#if defined(__aarch64__)
  unsigned long saved_ = 0;
#else
  unsigned saved_ = 0;
#endif
};

}  // namespace spmd::rt
