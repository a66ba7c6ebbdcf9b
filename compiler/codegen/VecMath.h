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
// correctly rounded result over the whole float range for logistic, pow (which
// is glibc's powf, bit for bit) and exp, but the CPU's exp above 88.37 (XLA's, bit for
// bit: 5 ulp off at most, 0 where the result would be subnormal); tanh
// is XLA's own rational approximation (bit for bit what JAX computes on CPU, a few
// ulp from exact near |x| ~ 1e-3); sin, cos and tan are glibc's sinf, cosf and tanf
// (VecMathTrig.cpp: within 1 ulp over the whole float range; Payne-Hanek reduction for
// |x| >= 120, out of line so that the common path stays short).
#pragma once

#include <llvm/ADT/StringRef.h>
#include <llvm/IR/PassManager.h>

#include <functional>

namespace llvm {
class Function;
class IRBuilderBase;
class Module;
class PassBuilder;
class Value;
}  // namespace llvm

namespace spmd::codegen {

/// Eigen's bound for its Cody-Waite reduction (which XLA uses for its own sin and cos
/// on some targets): the unit tests sample up to it.
constexpr float kTrigMaxArg = 117435.992f;

/// Where sin, cos and tan will run: on a CPU their rare large-argument path is a
/// noinline call with vector variants (so loops still vectorise), on a GPU a branch.
enum class MathTarget { Cpu, Gpu };

/// exp(x): on a CPU XLA:CPU's, bit for bit (Note [XLA exp] in VecMath.cpp: Cephes' expf
/// with n = floor(x / ln 2 + 0.5) clamped to [-127, 127], 0 below e^-87.34 as flushed);
/// on a GPU round(x / ln 2) = n, a 2-part ln 2 reduction and a degree-7 polynomial on
/// [-ln2/2, ln2/2], scaled by 2^n in two exact steps (subnormal results round once).
llvm::Value *emitExpF32(llvm::IRBuilderBase &b, llvm::Value *x, MathTarget t = MathTarget::Cpu);

/// tanh(x): XLA's rational approximation (EmitFastTanh with FMA), x itself for
/// |x| < 4e-4, +-1 for |x| >= 20, NaN for NaN.
llvm::Value *emitTanhF32(llvm::IRBuilderBase &b, llvm::Value *x);

/// logistic(x) = 1 / (1 + exp(-x)), as XLA expands it (with `t`'s exp).
llvm::Value *emitLogisticF32(llvm::IRBuilderBase &b, llvm::Value *x,
                             MathTarget t = MathTarget::Cpu);

/// sin(x), cos(x) and tan(x) are glibc's sinf, cosf and tanf, bit for bit (Notes [glibc
/// sinf and cosf] and [glibc tanf] in VecMathTrig.cpp); signed zeros kept, NaN for +-inf
/// and NaN. Each is a call of an internal helper function with vector variants, added
/// to the insertion point's module (Note [Trig vector variants]).
llvm::Value *emitSinF32(llvm::IRBuilderBase &b, llvm::Value *x, MathTarget t = MathTarget::Cpu);
llvm::Value *emitCosF32(llvm::IRBuilderBase &b, llvm::Value *x, MathTarget t = MathTarget::Cpu);
llvm::Value *emitTanF32(llvm::IRBuilderBase &b, llvm::Value *x, MathTarget t = MathTarget::Cpu);

/// Adds to `pb`'s pipelines what sin, cos and tan's vector variants need after the
/// loop vectoriser (Note [Trig vector variants] in VecMathTrig.cpp): code optimised
/// without it is right but slower. `slowApart`: the slow paths of the variants are only
/// declared (Note [Slow paths apart] in Jit.cpp).
void registerVecMathPasses(llvm::PassBuilder &pb, bool slowApart = false);

/// Whether `name` is a trig function's out-of-line slow path (`spmd.vecmath.sin.slow`,
/// `spmd.vecmath.cos.v8.slow`): a function of its name alone (Note [Slow paths apart]).
bool isTrigSlowPath(llvm::StringRef name);

/// Turns the slow paths defined in `m` into external declarations.
void declareTrigSlowPaths(llvm::Module &m);

/// Defines the slow path `name` in `m`, external, and optimises it as a one-module
/// compile does: the scalar one with `pipeline` (the module's pipeline, which it goes
/// through when made at emission), a vector one with what tidies the bodies made after
/// the vectorisers. Null when `name` is not a slow path.
llvm::Function *defineTrigSlowPath(llvm::Module &m, llvm::StringRef name,
                                   llvm::FunctionAnalysisManager &fam,
                                   const std::function<void(llvm::Module &)> &pipeline);

/// rsqrt(x) as XLA:CPU computes it on an x86-64 CPU with AVX (Note [XLA rsqrt] in
/// VecMath.cpp): the hardware's rsqrtss estimate and one Newton-Raphson step with
/// fused multiply-adds, the estimate itself below FLT_MIN and at inf. A scalar float;
/// `hardwareRsqrt()` says whether this host takes this path (else 1 / sqrt(x)).
llvm::Value *emitRsqrtF32(llvm::IRBuilderBase &b, llvm::Value *x);
bool hardwareRsqrt();

/// pow(x, y): glibc's powf, bit for bit (Note [glibc powf] in VecMath.cpp: a table-driven
/// log2 and exp2 in double precision, within 0.82 ulp), with C99's special cases: negated
/// for x < 0 and odd integer y, NaN for x < 0 finite and y not an integer. Adds its
/// constant tables to the insertion point's module.
llvm::Value *emitPowF32(llvm::IRBuilderBase &b, llvm::Value *x, llvm::Value *y);

}  // namespace spmd::codegen
