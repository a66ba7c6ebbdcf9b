// ===- VecMath.cpp - vectorisable float32 transcendental functions as LLVM IR =//
//
// See VecMath.h. Every emitter is straight-line code over one value (scalar or
// vector): constants are splatted to the operand's type, special inputs (NaN, +-inf,
// zeros, overflow, underflow) are fixed up with selects at the end, and products that
// must not be rounded twice are explicit llvm.fma calls (so the result does not
// depend on whether the backend contracts a*b+c).
#include "codegen/VecMath.h"

#include "codegen/ThreefryEmit.h"
#include "codegen/VecMathDetail.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>

#include <limits>

using namespace llvm;

namespace spmd::codegen {
using namespace vecmath;
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// 2^k for integer k in [-126, 127] (i32 of x's shape) as a float of x's shape.
Value *pow2F32(IRBuilderBase &b, Value *k) {
  Value *bits = b.CreateShl(b.CreateAdd(k, ic(k->getType(), 127)), ic(k->getType(), 23));
  return b.CreateBitCast(bits, like(k, b.getFloatTy()));
}

// Double-precision log and exp for pow: accurate to ~1e-15, far more than pow needs
// (|y log x| <= ~104 where the float result is neither 0 nor inf, so an absolute error
// of 1e-13 in it moves the result by < 2^-40 relative).

/// log(x) for a positive normal double (every positive float is one).
Value *logF64(IRBuilderBase &b, Value *x) {
  Type *ty = x->getType(), *ity = like(x, b.getInt64Ty());
  const int64_t kSqrtHalf = 0x3fe6a09e667f3bcd;  // bits of sqrt(1/2)
  Value *ix = b.CreateSub(b.CreateBitCast(x, ity), ic(ity, kSqrtHalf));
  Value *k = b.CreateAShr(ix, ic(ity, 52));  // x = 2^k m, m in [sqrt(1/2), sqrt(2))
  Value *m = b.CreateBitCast(
      b.CreateAdd(b.CreateAnd(ix, ic(ity, 0x000fffffffffffff)), ic(ity, kSqrtHalf)), ty);
  Value *f = b.CreateFSub(m, fc(ty, 1.0));
  Value *s = b.CreateFDiv(f, b.CreateFAdd(fc(ty, 2.0), f));  // log m = 2 atanh(s)
  Value *z = b.CreateFMul(s, s);                             // z < 0.0295
  Value *p =
      horner(b, z, {1.0 / 17, 1.0 / 15, 1.0 / 13, 1.0 / 11, 1.0 / 9, 1.0 / 7, 1.0 / 5, 1.0 / 3});
  Value *s2 = b.CreateFAdd(s, s);
  Value *logm = fma(b, b.CreateFMul(s2, z), p, s2);
  Value *dk = b.CreateSIToFP(k, ty);
  return fma(b, dk, fc(ty, 0x1.62e42fefa39efp-1), fma(b, dk, fc(ty, 0x1.abc9e3b39803fp-56), logm));
}

/// exp(t) for a double t, rounded to float (0 and inf beyond float's range; NaN
/// inputs give an arbitrary number: the caller selects them out).
Value *expF64ToF32(IRBuilderBase &b, Value *t) {
  Type *ty = t->getType(), *ity = like(t, b.getInt64Ty());
  t = call(b, Intrinsic::minnum, {call(b, Intrinsic::maxnum, {t, fc(ty, -120.0)}), fc(ty, 100.0)});
  Value *n = call(b, Intrinsic::roundeven, {b.CreateFMul(t, fc(ty, 0x1.71547652b82fep0))});
  Value *r = fma(b, n, fc(ty, -0x1.62e42fefa39efp-1), t);
  r = fma(b, n, fc(ty, -0x1.abc9e3b39803fp-56), r);  // |r| <= ln2/2
  double c[13];
  c[12] = 1;
  for (int i = 1; i <= 12; ++i) c[12 - i] = c[13 - i] / i;  // 1/12!, ..., 1/1!, 1
  Value *e = horner(
      b, r, {c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11], c[12]});
  Value *k = b.CreateFPToSI(n, ity);  // in [-174, 145]: 2^k is a normal double
  Value *scale = b.CreateBitCast(b.CreateShl(b.CreateAdd(k, ic(ity, 1023)), ic(ity, 52)), ty);
  return b.CreateFPTrunc(b.CreateFMul(e, scale), like(t, b.getFloatTy()));
}

}  // namespace

Value *emitExpF32(IRBuilderBase &b, Value *x) {
  Type *ty = x->getType(), *ity = like(x, b.getInt32Ty());
  // exp(x) overflows above 88.72 and is below half the least subnormal under -103.98;
  // the clamp keeps n in [-150, 128] so 2^n's two halves are normal floats.
  Value *xc =
      call(b, Intrinsic::minnum, {call(b, Intrinsic::maxnum, {x, fc(ty, -104.0)}), fc(ty, 88.8)});
  Value *n = call(b, Intrinsic::roundeven, {b.CreateFMul(xc, fc(ty, 0x1.715476p0))});
  Value *r = fma(b, n, fc(ty, -0x1.62e43p-1), xc);
  r = fma(b, n, fc(ty, 0x1.05c61p-29), r);
  // exp(r) = 1 + r + r^2 P(r): Cephes' expf minimax polynomial.
  Value *p = horner(b, r,
                    {1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
                     1.6666665459e-1, 5.0000001201e-1});
  Value *e = b.CreateFAdd(fma(b, b.CreateFMul(r, r), p, r), fc(ty, 1.0));
  // e * 2^n as e * 2^(n>>1) * 2^(n - (n>>1)): the first product is exact, so a
  // subnormal result is rounded once.
  Value *k = b.CreateFPToSI(n, ity);
  Value *k1 = b.CreateAShr(k, ic(ity, 1));
  Value *v = b.CreateFMul(b.CreateFMul(e, pow2F32(b, k1)), pow2F32(b, b.CreateSub(k, k1)));
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, v);
}

Value *emitTanhF32(IRBuilderBase &b, Value *x) {
  Type *ty = x->getType();
  // The clamp is where the approximation (with FMA) reaches exactly +-1.
  const double clamp = 7.99881172180175781;
  Value *xc =
      call(b, Intrinsic::minnum, {call(b, Intrinsic::maxnum, {x, fc(ty, -clamp)}), fc(ty, clamp)});
  Value *x2 = b.CreateFMul(xc, xc);
  // Odd numerator (degree 13) over even denominator (degree 6), in float precision.
  Value *num = horner(b, x2,
                      {double(-2.76076847742355e-16f), double(2.00018790482477e-13f),
                       double(-8.60467152213735e-11f), double(5.12229709037114e-08f),
                       double(1.48572235717979e-05f), double(6.37261928875436e-04f),
                       double(4.89352455891786e-03f)});
  Value *den = horner(b, x2,
                      {double(1.19825839466702e-06f), double(1.18534705686654e-04f),
                       double(2.26843463243900e-03f), double(4.89352518554385e-03f)});
  Value *v = b.CreateFDiv(b.CreateFMul(xc, num), den);
  Value *ax = fabs(b, x);
  v = b.CreateSelect(b.CreateFCmpOLT(ax, fc(ty, 0.0004)), x, v);
  v = b.CreateSelect(b.CreateFCmpOGE(ax, fc(ty, 20.0)),
                     call(b, Intrinsic::copysign, {fc(ty, 1.0), x}), v);
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, v);
}

Value *emitLogisticF32(IRBuilderBase &b, Value *x) {
  Type *ty = x->getType();
  Value *one = fc(ty, 1.0);
  return b.CreateFDiv(one, b.CreateFAdd(one, emitExpF32(b, b.CreateFNeg(x))));
}

Value *emitPowF32(IRBuilderBase &b, Value *x, Value *y) {
  Type *ty = x->getType(), *dty = like(x, b.getDoubleTy()), *ity = like(x, b.getInt32Ty());
  Value *zero = fc(ty, 0.0), *one = fc(ty, 1.0), *inf = fc(ty, kInf);
  Value *ax = fabs(b, x), *ay = fabs(b, y);
  // y's parity: every float with |y| >= 2^24 (and +-inf) is an even integer.
  Value *yInt = b.CreateFCmpOEQ(call(b, Intrinsic::floor, {y}), y);
  Value *small = b.CreateFCmpOLT(ay, fc(ty, 0x1p24));
  Value *yi = b.CreateFPToSI(b.CreateSelect(small, y, zero), ity);
  Value *yOdd = b.CreateAnd(b.CreateAnd(yInt, small), b.CreateTrunc(yi, like(x, b.getInt1Ty())));
  // |x|^y = exp(y log|x|) in double; log 0 = -inf and log inf = inf by selects.
  Value *axd = b.CreateFPExt(ax, dty);
  Value *lx = logF64(b, b.CreateSelect(b.CreateFCmpOEQ(ax, inf), fc(dty, 1.0), axd));
  lx = b.CreateSelect(b.CreateFCmpOEQ(ax, zero), fc(dty, -kInf), lx);
  lx = b.CreateSelect(b.CreateFCmpOEQ(ax, inf), fc(dty, kInf), lx);
  Value *v = expF64ToF32(b, b.CreateFMul(b.CreateFPExt(y, dty), lx));
  Value *xNeg = b.CreateICmpSLT(b.CreateBitCast(x, ity), ic(ity, 0));  // -0 too
  v = b.CreateSelect(b.CreateAnd(xNeg, yOdd), b.CreateFNeg(v), v);
  // Special cases, later ones winning (C99 F.9.4.4, as JAX computes them).
  Value *negFiniteNonInt = b.CreateAnd(
      b.CreateAnd(b.CreateFCmpOLT(x, zero), b.CreateFCmpONE(ax, inf)), b.CreateNot(yInt));
  v = b.CreateSelect(b.CreateOr(negFiniteNonInt, b.CreateFCmpUNO(x, y)), fc(ty, kNaN), v);
  Value *minusOneInf = b.CreateAnd(b.CreateFCmpOEQ(x, fc(ty, -1.0)), b.CreateFCmpOEQ(ay, inf));
  Value *isOne =
      b.CreateOr(b.CreateOr(b.CreateFCmpOEQ(y, zero), b.CreateFCmpOEQ(x, one)), minusOneInf);
  return b.CreateSelect(isOne, one, v);
}

}  // namespace spmd::codegen
