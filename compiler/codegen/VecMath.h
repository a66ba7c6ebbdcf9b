// ===- VecMath.h - vectorisable float32 transcendental functions as LLVM IR ===//
//
// Branch-free emitters (arithmetic, selects and the intrinsics fma, fabs, roundeven,
// minnum, maxnum, copysign) for the f32 transcendental primitives, in the manner of
// XLA's CPU backend, which emits its own polynomial approximations instead of calling
// libm: a loop that uses them stays a straight-line body the loop vectoriser widens.
// Every function takes and returns a float or a <N x float> alike. log and log1p are
// ThreefryEmit.h's (emitLogF32, emitLog1pF32); f64 keeps libm (LlvmEmitter::mathCall).
//
// Accuracy (tests/unit/codegen/test_vecmath.cpp checks it against long double libm
// on ~1e5 inputs per function, special values included): within 2 ulp of the
// correctly rounded result over the whole float range for exp, logistic, pow (which
// is glibc's powf, bit for bit); tanh
// is XLA's own rational approximation (bit for bit what JAX computes on CPU, a few
// ulp from exact near |x| ~ 1e-3); sin and cos within 2 ulp and tan within 3 over the
// whole float range (VecMathTrig.cpp: Cody-Waite reduction up to kTrigMaxArg,
// Payne-Hanek beyond, out of line so that the common path stays short).
#pragma once

namespace llvm {
class IRBuilderBase;
class PassBuilder;
class Value;
}  // namespace llvm

namespace spmd::codegen {

/// |x| up to which sin, cos and tan reduce x inline by the 3-part Cody-Waite method
/// (the same bound as Eigen's, which XLA uses); larger finite |x| take the
/// Payne-Hanek reduction, out of line (Note [Trig vector variants] in VecMathTrig.cpp).
constexpr float kTrigMaxArg = 117435.992f;

/// Where sin, cos and tan will run: on a CPU their rare large-argument path is a
/// noinline call with vector variants (so loops still vectorise), on a GPU a branch.
enum class MathTarget { Cpu, Gpu };

/// exp(x): round(x / ln 2) = n, a 2-part ln 2 reduction and a degree-7 polynomial
/// on [-ln2/2, ln2/2], scaled by 2^n in two exact steps (subnormal results round once).
llvm::Value *emitExpF32(llvm::IRBuilderBase &b, llvm::Value *x);

/// tanh(x): XLA's rational approximation (EmitFastTanh with FMA), x itself for
/// |x| < 4e-4, +-1 for |x| >= 20, NaN for NaN.
llvm::Value *emitTanhF32(llvm::IRBuilderBase &b, llvm::Value *x);

/// logistic(x) = 1 / (1 + exp(-x)), as XLA expands it.
llvm::Value *emitLogisticF32(llvm::IRBuilderBase &b, llvm::Value *x);

/// sin(x) and cos(x) are glibc's sinf and cosf, bit for bit (Note [glibc sinf and cosf]
/// in VecMathTrig.cpp). tan(x): reduction by pi/2 (Cody-Waite with fma, Payne-Hanek for
/// |x| > kTrigMaxArg) and minimax polynomials on [-pi/4, pi/4]; signed zeros kept,
/// NaN for +-inf and NaN. They add internal helper functions to the insertion
/// point's module.
llvm::Value *emitSinF32(llvm::IRBuilderBase &b, llvm::Value *x, MathTarget t = MathTarget::Cpu);
llvm::Value *emitCosF32(llvm::IRBuilderBase &b, llvm::Value *x, MathTarget t = MathTarget::Cpu);
llvm::Value *emitTanF32(llvm::IRBuilderBase &b, llvm::Value *x, MathTarget t = MathTarget::Cpu);

/// Adds to `pb`'s pipelines what sin, cos and tan's vector variants need after the
/// loop vectoriser (Note [Trig vector variants] in VecMathTrig.cpp): code optimised
/// without it is right but slower.
void registerVecMathPasses(llvm::PassBuilder &pb);

/// pow(x, y): glibc's powf, bit for bit (Note [glibc powf] in VecMath.cpp: a table-driven
/// log2 and exp2 in double precision, within 0.82 ulp), with C99's special cases: negated
/// for x < 0 and odd integer y, NaN for x < 0 finite and y not an integer. Adds its
/// constant tables to the insertion point's module.
llvm::Value *emitPowF32(llvm::IRBuilderBase &b, llvm::Value *x, llvm::Value *y);

}  // namespace spmd::codegen
