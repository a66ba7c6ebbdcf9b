// ===- VecMathTrig.cpp - f32 sin, cos, tan over the whole float range -------===//
//
// See VecMath.h. sin, cos and tan are glibc's sinf, cosf and tanf, bit for bit (XLA
// calls them on the CPU, so JAX's results are theirs): x = n pi/2 + r with |r| <~ pi/4,
// reduced in double precision inline for |x| < 120 and by Payne-Hanek (Note [Trig range
// reduction]) for larger finite |x|, out of line; then glibc's polynomials in r (Notes
// [glibc sinf and cosf], [glibc tanf]). Each is a helper function with vector variants
// that the vectorisers widen (Note [Trig vector variants]).
#include "codegen/VecMath.h"
#include "codegen/VecMathDetail.h"

#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <string>
#include <vector>

using namespace llvm;

namespace spmd::codegen {
using namespace vecmath;
namespace {

constexpr double kNaNf = std::numeric_limits<double>::quiet_NaN();

/// Note [Trig range reduction]: x = n * pi/2 + r, with n the nearest integer to
/// x * 2/pi (only n mod 4, the quadrant, matters) and |r| <= pi/4 (about). For
/// |x| < 120, glibc's reduce_fast in double (glibcReduceFast). For larger finite |x|,
/// Payne-Hanek (reduceLargeAbs), exact to ~2^-61 in n + r/(pi/2)
/// (the closest a float comes to a multiple of pi/2 is ~2^-30, so r keeps > 30 good
/// bits): |x| = m 2^(E-150) with m the 24-bit integer mantissa and E the biased
/// exponent. x * 2/pi mod 4 only needs the bits of 2/pi whose weight in
/// m 2^(E-150) 2/pi lies between 2 and 2^-94: a 96-bit window of 2/pi that starts
/// at bit E - 152 (bits before the point read as 0). The window is three 32-bit words
/// of a table whose entry t holds the 32 bits that start at bit 8 t; the window's
/// offset past 8 t (0 to 7 bits) shifts m left instead (m < 2^31 still). The product
/// m * window mod 2^96, from one 32-bit and two 32x32->64-bit multiplies, gives
/// x * 2/pi mod 4 as a 64-bit fixed-point number with 62 fraction bits: its top two
/// bits (rounded) are n, the rest (signed) times pi/2 is r, scaled in double.
struct Reduced {
  Value *r;  ///< the reduced argument, |r| <~ pi/4
  Value *q;  ///< n as an i32 (only its low two bits matter)
};


/// The first 224 bits of 2/pi (0.a2f9836e... in hexadecimal).
constexpr uint32_t kTwoOverPi[] = {0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0,
                                   0xdb629599, 0x3c439041, 0xfe5163ab};
/// Entries of the window table: the largest finite E needs entries up to 16 + 8.
constexpr int kTableEntries = 25;

/// Bit j of 2/pi's fraction behind 32 zero bits (bit 32 is the first after the point).
uint32_t twoOverPiBit(int j) {
  j -= 32;
  return j < 0 ? 0 : (kTwoOverPi[j / 32] >> (31 - j % 32)) & 1;
}

/// The table of Note [Trig range reduction]: entry t is bits 8t .. 8t+31.
GlobalVariable *windowTable(Module &m) {
  const char *name = "spmd.vecmath.two_over_pi";
  if (GlobalVariable *g = m.getNamedGlobal(name)) return g;
  std::vector<uint32_t> words;
  for (int t = 0; t < kTableEntries; ++t) {
    uint32_t w = 0;
    for (int j = 8 * t; j < 8 * t + 32; ++j) w = w << 1 | twoOverPiBit(j);
    words.push_back(w);
  }
  Constant *init = ConstantDataArray::get(m.getContext(), ArrayRef<uint32_t>(words));
  auto *g = new GlobalVariable(m, init->getType(), true, GlobalValue::InternalLinkage, init, name);
  g->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  return g;
}

/// table[idx]: a load for a scalar index, a gather for a vector of them.
Value *tableAt(IRBuilderBase &b, GlobalVariable *table, Value *idx) {
  Type *i32 = b.getInt32Ty();
  Value *p = b.CreateInBoundsGEP(i32, table, idx);
  if (auto *vt = dyn_cast<VectorType>(idx->getType()))
    return b.CreateMaskedGather(VectorType::get(i32, vt->getElementCount()), p, Align(4));
  return b.CreateLoad(i32, p);
}

/// Payne-Hanek (Note [Trig range reduction]) of |x|, right for every finite x with
/// |x| >= 1: r as a double (|r| <= pi/4) and n, so that |x| = n pi/2 + r. This is
/// glibc's reduce_large (sinf.c) operation for operation.
Reduced reduceLargeAbs(IRBuilderBase &b, Value *x) {
  Type *ity = like(x, b.getInt32Ty()), *lty = like(x, b.getInt64Ty()),
       *dty = like(x, b.getDoubleTy());
  Value *bits = b.CreateBitCast(x, ity);
  Value *abits = b.CreateAnd(bits, ic(ity, 0x7fffffff));
  Value *mant = b.CreateOr(b.CreateAnd(abits, ic(ity, 0x7fffff)), ic(ity, 0x800000));
  // The window starts at bit E - 152 of 2/pi, bit E - 120 of the zero-padded table
  // (clamped: lanes outside the range compute garbage that is not used).
  Value *start = b.CreateSub(b.CreateLShr(abits, ic(ity, 23)), ic(ity, 120));
  start = call(b, Intrinsic::smin,
               {call(b, Intrinsic::smax, {start, ic(ity, 0)}), ic(ity, 8 * 16 + 7)});
  Value *t = b.CreateLShr(start, ic(ity, 3));
  Value *m = b.CreateShl(mant, b.CreateAnd(start, ic(ity, 7)));
  GlobalVariable *table = windowTable(*b.GetInsertBlock()->getModule());
  Value *w0 = tableAt(b, table, t);
  Value *w1 = tableAt(b, table, b.CreateAdd(t, ic(ity, 4)));
  Value *w2 = tableAt(b, table, b.CreateAdd(t, ic(ity, 8)));
  // m * (w0 2^64 + w1 2^32 + w2) mod 2^96, its top 64 bits: x * 2/pi mod 4 in 2^-62.
  Value *m64 = b.CreateZExt(m, lty);
  Value *hi = b.CreateShl(b.CreateZExt(b.CreateMul(m, w0), lty), ic(lty, 32));
  Value *mid = b.CreateMul(m64, b.CreateZExt(w1, lty));
  Value *lo = b.CreateLShr(b.CreateMul(m64, b.CreateZExt(w2, lty)), ic(lty, 32));
  Value *y = b.CreateAdd(b.CreateAdd(hi, mid), lo);
  Value *n = b.CreateLShr(b.CreateAdd(y, ic(lty, int64_t(1) << 61)), ic(lty, 62));
  Value *frac = b.CreateSub(y, b.CreateShl(n, ic(lty, 62)));  // in [-2^61, 2^61)
  Value *r = b.CreateFMul(b.CreateSIToFP(frac, dty), fc(dty, 0x1.921fb54442d18p0 * 0x1p-62));
  return {r, b.CreateTrunc(n, ity)};
}


/// Note [glibc sinf and cosf]: on the CPU, XLA computes f32 sin and cos by calling the C
/// library's sinf and cosf, so JAX's results are glibc's, bit for bit (checked over
/// random bit patterns of every exponent: all equal), and about 20% of them differ by
/// an ulp from float polynomials. sin and cos are therefore glibc's
/// algorithm (Arm's optimized-routines sinf.c, cosf.c, sincosf.h, as glibc builds them
/// for x86-64 CPUs with FMA, its __sinf_fma/__cosf_fma variants: every a + b * c
/// contracted into an fma), in double precision: |x| < 2^-12 gives x (sin) or 1 (cos);
/// |x| < 120 is reduced by n = ((int)(x * 2^24 * 2/pi) + 2^23) >> 24 and r = x - n pi/2
/// (one fma); larger finite x by reduceLargeAbs, the quadrant then n + sign(x). Then
/// the sine polynomial of r * (+-1) or the cosine polynomial (negated in quadrants 2
/// and 3), rounded once to float.
struct GlibcReduced {
  Value *r;  ///< the reduced argument, a double
  Value *n;  ///< the quadrant count (i32)
  Value *k;  ///< n, plus 1 for a negative x reduced as |x| (the sign and table index)
};

/// glibc's reduce_fast for |x| < 120, with x - n pi/2 one fma (sinf, cosf: built with
/// FMA) or a product and a difference (tanf: built for baseline x86-64).
GlibcReduced glibcReduceFast(IRBuilderBase &b, Value *x, bool fused) {
  Type *ity = like(x, b.getInt32Ty()), *dty = like(x, b.getDoubleTy());
  // Lanes out of range (|x| >= 120, inf, NaN: their result is replaced) reduce 0
  // instead, so the conversion below never overflows. A freeze of its poison would do
  // too, but the SLP vectoriser stops at a freeze: the conversions went lane by lane.
  Value *abits = b.CreateAnd(b.CreateBitCast(x, ity), ic(ity, 0x7fffffff));
  x = b.CreateSelect(b.CreateICmpULT(abits, ic(ity, 0x42f00000)), x, fc(x->getType(), 0.0));
  Value *xd = b.CreateFPExt(x, dty);
  Value *t = b.CreateFPToSI(b.CreateFMul(xd, fc(dty, 0x1.45F306DC9C883p+23)), ity);
  Value *n = b.CreateAShr(b.CreateAdd(t, ic(ity, 0x800000)), ic(ity, 24));
  Value *nd = b.CreateSIToFP(n, dty);
  Value *r = fused ? fma(b, b.CreateFNeg(nd), fc(dty, 0x1.921FB54442D18p0), xd)
                   : b.CreateFSub(xd, b.CreateFMul(nd, fc(dty, 0x1.921FB54442D18p0)));
  return {r, n, n};
}

GlibcReduced glibcReduceLarge(IRBuilderBase &b, Value *x) {
  Type *ity = like(x, b.getInt32Ty());
  Reduced red = reduceLargeAbs(b, x);
  Value *sign = b.CreateLShr(b.CreateBitCast(x, ity), ic(ity, 31));
  return {red.r, red.q, b.CreateAdd(red.q, sign)};
}

/// sinf_poly of glibc (with fma), rounded to float: sin for even n + cos, else cos.
Value *glibcPoly(IRBuilderBase &b, GlibcReduced red, bool cosine, Type *fty) {
  Type *dty = red.r->getType(), *ity = red.n->getType();
  auto bit = [&](Value *v, int m) {
    return b.CreateICmpNE(b.CreateAnd(v, ic(ity, m)), ic(ity, 0));
  };
  Value *k1 = bit(red.k, 1), *k2 = bit(red.k, 2);
  Value *x = b.CreateSelect(b.CreateXor(k1, k2), b.CreateFNeg(red.r), red.r);  // r * sign[k & 3]
  Value *x2 = b.CreateFMul(red.r, red.r);
  // The sine polynomial.
  Value *x3 = b.CreateFMul(x2, x);
  Value *s1 = fma(b, x2, fc(dty, -0x1.994eb3774cf24p-13), fc(dty, 0x1.1107605230bc4p-7));
  Value *x7 = b.CreateFMul(x2, x3);
  Value *s = fma(b, x3, fc(dty, -0x1.555545995a603p-3), x);
  Value *sinv = fma(b, s1, x7, s);
  // The cosine polynomial (glibc's second table negates its coefficients: the same
  // value negated, as rounding is symmetric).
  Value *x4 = b.CreateFMul(x2, x2);
  Value *c1 = fma(b, x2, fc(dty, -0x1.ffffffd0c621cp-2), fc(dty, 1.0));
  Value *c2 = fma(b, x2, fc(dty, 0x1.99343027bf8c3p-16), fc(dty, -0x1.6c087e89a359dp-10));
  Value *x6 = b.CreateFMul(x2, x4);
  Value *c = fma(b, x4, fc(dty, 0x1.55553e1068f19p-5), c1);
  Value *cosv = fma(b, c2, x6, c);
  cosv = b.CreateSelect(k2, b.CreateFNeg(cosv), cosv);
  Value *odd = bit(cosine ? b.CreateAdd(red.n, ic(ity, 1)) : red.n, 1);
  return b.CreateFPTrunc(b.CreateSelect(odd, cosv, sinv), fty);
}

/// glibcPoly for the fast path, where k = n: the sign it gives (by negating r for the
/// sine, the polynomial for the cosine) is bit 1 of m = n (sin) or n + 1 (cos) in every
/// quadrant, and both polynomials are odd or even with rounding symmetric, so it is
/// one xor into the float's sign bit at the end: fewer operations and constants than
/// glibcPoly's selects (the loop around it is short of registers).
Value *glibcPolyFast(IRBuilderBase &b, GlibcReduced red, bool cosine, Type *fty) {
  Type *dty = red.r->getType(), *ity = red.n->getType();
  Value *m = cosine ? b.CreateAdd(red.n, ic(ity, 1)) : red.n, *r = red.r;
  Value *x2 = b.CreateFMul(r, r);
  Value *x3 = b.CreateFMul(x2, r);
  Value *s1 = fma(b, x2, fc(dty, -0x1.994eb3774cf24p-13), fc(dty, 0x1.1107605230bc4p-7));
  Value *x7 = b.CreateFMul(x2, x3);
  Value *sinv = fma(b, s1, x7, fma(b, x3, fc(dty, -0x1.555545995a603p-3), r));
  Value *x4 = b.CreateFMul(x2, x2);
  Value *c1 = fma(b, x2, fc(dty, -0x1.ffffffd0c621cp-2), fc(dty, 1.0));
  Value *c2 = fma(b, x2, fc(dty, 0x1.99343027bf8c3p-16), fc(dty, -0x1.6c087e89a359dp-10));
  Value *x6 = b.CreateFMul(x2, x4);
  Value *cosv = fma(b, c2, x6, fma(b, x4, fc(dty, 0x1.55553e1068f19p-5), c1));
  Value *odd = b.CreateICmpNE(b.CreateAnd(m, ic(ity, 1)), ic(ity, 0));
  Value *v = b.CreateBitCast(b.CreateFPTrunc(b.CreateSelect(odd, cosv, sinv), fty), ity);
  Value *sign = b.CreateShl(b.CreateLShr(m, ic(ity, 1)), ic(ity, 31));
  return b.CreateBitCast(b.CreateXor(v, sign), fty);
}

/// Note [glibc tanf]: XLA's f32 tan on the CPU also ends in the C library's tanf (JAX's
/// results equal glibc 2.36's tanf on 249,254 values of every exponent, and differ from
/// tan rounded from double on 2.3% of them). glibc's tanf (sysdeps/ieee754/flt-32:
/// s_tanf.c, k_tanf.c, from Sun's fdlibm) has no FMA variant: it is float arithmetic
/// as written, no contraction, which this follows operation for operation (its own
/// code, branch-free): |x| <= pi/4 (bits <= 0x3f490fda) goes to the kernel as is; else
/// x is reduced (reduce_fast of Note [glibc sinf and cosf] without the fma below 120,
/// reduceLargeAbs and the sign of x above), r split into a float y0 and the float y1 of
/// r - y0, and the kernel gets (y0, y1, n odd). The kernel, for t = y0 + y1: tiny |y0|
/// < 2^-13 gives y0 (n even) or -1/y0; |y0| >= 0.6744 is reflected to pi/4 - |t| (two
/// float parts of pi/4), which if below 2^-13 gives +-(1 - 2 t') directly; then the odd
/// polynomial with fdlibm's 13 coefficients, split into even and odd powers of t^4,
/// and: the reflected case's identity tan(pi/4 - t') = 1 - 2 (t' - tan^2/(tan + 1))
/// (or with -1 for odd n); even n: the sum w; odd n: -1/w, refined with w and -1/w
/// rounded to 12 mantissa bits (one Newton-like step, "accurate -1/(x+r)").
Value *tanKernel(IRBuilderBase &b, Value *x, Value *y, Value *odd) {
  Type *ty = x->getType(), *ity = like(x, b.getInt32Ty());
  auto f = [&](uint32_t bits) { return fc(ty, double(std::bit_cast<float>(bits))); };
  auto maskLow12 = [&](Value *v) {
    return b.CreateBitCast(b.CreateAnd(b.CreateBitCast(v, ity), ic(ity, int64_t(0xfffff000))), ty);
  };
  Value *one = fc(ty, 1.0), *iy = b.CreateSelect(odd, fc(ty, -1.0), one);
  Value *hx = b.CreateBitCast(x, ity), *ix = b.CreateAnd(hx, ic(ity, 0x7fffffff));
  Value *neg = b.CreateICmpSLT(hx, ic(ity, 0));
  Value *sgn = b.CreateSelect(neg, fc(ty, -1.0), one);
  // Tiny: x, or -1/x (1/|x| for a zero: never met, as no float reduces to 0).
  Value *tiny = b.CreateICmpULT(ix, ic(ity, 0x39000000));
  Value *tinyOdd = b.CreateSelect(b.CreateICmpEQ(ix, ic(ity, 0)), b.CreateFDiv(one, fabs(b, x)),
                                  b.CreateFDiv(fc(ty, -1.0), x));
  Value *tinyV = b.CreateSelect(odd, tinyOdd, x);
  // Reflected: |x| >= 0.6744.
  Value *big = b.CreateICmpUGE(ix, ic(ity, 0x3f2ca140));
  Value *xa = b.CreateSelect(neg, b.CreateFNeg(x), x), *ya = b.CreateSelect(neg, b.CreateFNeg(y), y);
  Value *xr = b.CreateFAdd(b.CreateFSub(f(0x3f490fda), xa), b.CreateFSub(f(0x33222168), ya));
  Value *bigTiny = b.CreateFCmpOLT(fabs(b, xr), fc(ty, 0x1p-13));
  Value *bigTinyV = b.CreateFMul(b.CreateFMul(sgn, iy),
                                 b.CreateFSub(one, b.CreateFMul(b.CreateFMul(fc(ty, 2.0), iy), xr)));
  x = b.CreateSelect(big, xr, x);
  y = b.CreateSelect(big, fc(ty, 0.0), y);
  // The polynomial.
  Value *z = b.CreateFMul(x, x), *w = b.CreateFMul(z, z);
  auto chain = [&](std::initializer_list<uint32_t> c) {  // c0 + w (c1 + w (... + w cn))
    std::vector<uint32_t> cs(c);
    Value *p = f(cs.back());
    for (size_t i = cs.size() - 1; i-- > 0;) p = b.CreateFAdd(f(cs[i]), b.CreateFMul(w, p));
    return p;
  };
  Value *r = chain({0x3e088889, 0x3cb327a4, 0x3b6b6916, 0x3a1a26c8, 0x38a3f445, 0xb79bae5f});
  Value *v = b.CreateFMul(z, chain({0x3d5d0dd1, 0x3c11371f, 0x3abede48, 0x398137b9, 0x3895c07a,
                                    0x37d95384}));
  Value *s = b.CreateFMul(z, x);
  r = b.CreateFAdd(y, b.CreateFMul(z, b.CreateFAdd(b.CreateFMul(s, b.CreateFAdd(r, v)), y)));
  r = b.CreateFAdd(r, b.CreateFMul(f(0x3eaaaaab), s));
  w = b.CreateFAdd(x, r);
  Value *ratio = b.CreateFDiv(b.CreateFMul(w, w), b.CreateFAdd(w, iy));
  Value *bigV = b.CreateFMul(
      sgn, b.CreateFSub(iy, b.CreateFMul(fc(ty, 2.0), b.CreateFSub(x, b.CreateFSub(ratio, r)))));
  // Odd n: -1/w accurately.
  Value *zh = maskLow12(w);
  Value *vl = b.CreateFSub(r, b.CreateFSub(zh, x));
  Value *a = b.CreateFDiv(fc(ty, -1.0), w);
  Value *th = maskLow12(a);
  Value *sl = b.CreateFAdd(one, b.CreateFMul(th, zh));
  Value *oddV = b.CreateFAdd(th, b.CreateFMul(a, b.CreateFAdd(sl, b.CreateFMul(th, vl))));
  Value *res = b.CreateSelect(big, b.CreateSelect(bigTiny, bigTinyV, bigV),
                              b.CreateSelect(odd, oddV, w));
  return b.CreateSelect(tiny, tinyV, res);
}

/// tanf's reduction result (y0, y1, n odd) into its kernel.
Value *glibcTanOf(IRBuilderBase &b, GlibcReduced red, Type *fty) {
  Type *ity = red.n->getType();
  Value *y0 = b.CreateFPTrunc(red.r, fty);
  Value *y1 = b.CreateFPTrunc(b.CreateFSub(red.r, b.CreateFPExt(y0, red.r->getType())), fty);
  Value *odd = b.CreateICmpNE(b.CreateAnd(red.n, ic(ity, 1)), ic(ity, 0));
  return tanKernel(b, y0, y1, odd);
}

enum class Trig { Sin, Cos, Tan };

/// The result for |x| < 120 (others give garbage, replaced).
Value *fastResult(IRBuilderBase &b, Trig k, Value *x) {
  Type *ty = x->getType(), *ity = like(x, b.getInt32Ty());
  if (k != Trig::Tan) return glibcPolyFast(b, glibcReduceFast(b, x, true), k == Trig::Cos, ty);
  Value *abits = b.CreateAnd(b.CreateBitCast(x, ity), ic(ity, 0x7fffffff));
  GlibcReduced red = glibcReduceFast(b, x, false);
  Value *y0 = b.CreateFPTrunc(red.r, ty);
  Value *y1 = b.CreateFPTrunc(b.CreateFSub(red.r, b.CreateFPExt(y0, red.r->getType())), ty);
  Value *odd = b.CreateICmpNE(b.CreateAnd(red.n, ic(ity, 1)), ic(ity, 0));
  // |x| <= pi/4 is not reduced.
  Value *small = b.CreateICmpULE(abits, ic(ity, 0x3f490fda));
  return tanKernel(b, b.CreateSelect(small, x, y0), b.CreateSelect(small, fc(ty, 0.0), y1),
                   b.CreateSelect(small, ConstantInt::getFalse(odd->getType()), odd));
}

/// The result for finite |x| >= 120.
Value *largeResult(IRBuilderBase &b, Trig k, Value *x) {
  Type *ty = x->getType();
  if (k != Trig::Tan) return glibcPoly(b, glibcReduceLarge(b, x), k == Trig::Cos, ty);
  Type *ity = like(x, b.getInt32Ty());
  Reduced red = reduceLargeAbs(b, x);
  Value *neg = b.CreateICmpSLT(b.CreateBitCast(x, ity), ic(ity, 0));
  Value *r = b.CreateSelect(neg, b.CreateFNeg(red.r), red.r);
  return glibcTanOf(b, {r, red.q, red.q}, ty);
}

/// Whether x takes the slow path: |x| >= 120 (glibc's abstop12 test), inf or NaN. One
/// unsigned compare, the inverse of glibcReduceFast's (the two fold into one).
Value *needsSlowPath(IRBuilderBase &b, Value *x) {
  Type *ity = like(x, b.getInt32Ty());
  Value *abits = b.CreateAnd(b.CreateBitCast(x, ity), ic(ity, 0x7fffffff));
  return b.CreateICmpUGE(abits, ic(ity, 0x42f00000));
}

/// The slow path: the Payne-Hanek result where x needs it (NaN for inf and NaN),
/// `fast` in the other lanes.
Value *slowResult(IRBuilderBase &b, Trig k, Value *x, Value *fast) {
  Type *ty = x->getType(), *ity = like(x, b.getInt32Ty());
  Value *abits = b.CreateAnd(b.CreateBitCast(x, ity), ic(ity, 0x7fffffff));
  Value *large = b.CreateSelect(b.CreateICmpUGE(abits, ic(ity, 0x7f800000)), fc(ty, kNaNf),
                                largeResult(b, k, x));
  return b.CreateSelect(needsSlowPath(b, x), large, fast);
}

/// sin's and cos's |x| < 2^-12 (x and 1), last.
Value *finish(IRBuilderBase &b, Trig k, Value *x, Value *v) {
  Type *ty = x->getType(), *ity = like(x, b.getInt32Ty());
  if (k == Trig::Tan) return v;
  Value *abits = b.CreateAnd(b.CreateBitCast(x, ity), ic(ity, 0x7fffffff));
  return b.CreateSelect(b.CreateICmpULT(abits, ic(ity, 0x39800000)),
                        k == Trig::Cos ? static_cast<Value *>(fc(ty, 1.0)) : x, v);
}

/// Note [Trig vector variants]: sin(x) is a call of an internal helper function
/// `spmd.vecmath.sin(x)` that computes it all: the inline part for |x| < 120, then a
/// test of its lanes and, only when one has |x| >= 120 (or is inf or NaN), a branch
/// to the Payne-Hanek part. On a CPU the scalar helper is noinline and the call names vector
/// variants (LLVM's "vector-function-abi-variant", VFABI names
/// `_ZGV_LLVM_N<vf>v_<helper>(<variant>)`) for every width the vectorisers may pick, so
/// a loop of sin still vectorises, at the width of its floats: the helper's doubles
/// do not narrow the loop (they did while the code was inline: the loop vectoriser
/// sizes vectors by the widest type, and the SLP vectoriser of pool_map's unrolled sum
/// stopped at two lanes), and each variant splits its floats into double halves as
/// the target needs. The variants are alwaysinline, and registerVecMathPasses inlines
/// them, and the scalar helpers, after the vectorisers: a vector call would clobber
/// every vector register each iteration (x86's calling convention saves none), where
/// the inlined test is a compare and a branch never taken to a noinline call of the
/// large part (`.slow`: so the loop's code stays small). On a GPU there is no
/// vectoriser: the helper is inlined, a branch per thread. Helpers are internal and
/// made once per module; the variants are kept in llvm.compiler.used until the
/// vectorisers have seen them, and get their bodies only then (Note [Variants defined
/// late]). Widths: 2 to 16 (AVX-512's 16 floats); any other
/// width scalarises the call, still correct.
constexpr unsigned kVariantWidths[] = {2, 4, 8, 16};

/// Sets the attributes every helper has: it reads only the constant table, so no
/// memory effects (as LLVM's own inference says), and it always returns.
void setHelperAttributes(Function *f) {
  f->setMemoryEffects(MemoryEffects::none());
  f->setDoesNotThrow();
  f->setWillReturn();
  f->setNoSync();
  f->setDoesNotFreeMemory();
}

const char *const kTrigNames[] = {"sin", "cos", "tan"};
constexpr const char *kHelperPrefix = "spmd.vecmath.";
constexpr const char *kScalarMark = "spmd-scalar-trig";  ///< inlined after the vectorisers

Function *newHelper(Module &m, Type *ty, unsigned args, const std::string &name) {
  auto *f = Function::Create(FunctionType::get(ty, std::vector<Type *>(args, ty), false),
                             GlobalValue::InternalLinkage, name, m);
  setHelperAttributes(f);
  return f;
}

/// Makes `f`, a slow path, the declaration the parts of a split compile call (Note [Slow
/// paths apart]): external, with the attributes LLVM infers for its body (which calls
/// nothing) besides those every helper has.
void declareApart(Function &f) {
  if (!f.isDeclaration()) f.deleteBody();
  f.setLinkage(GlobalValue::ExternalLinkage);
  f.addFnAttr(Attribute::NoRecurse);
  f.addFnAttr(Attribute::MustProgress);
}

/// What tidies a body made after the vectorisers (Note [Variants defined late]).
void tidyLate(Function &f, FunctionAnalysisManager &fam) {
  FunctionPassManager fpm;
  fpm.addPass(EarlyCSEPass());
  fpm.addPass(InstCombinePass());
  fpm.addPass(SimplifyCFGPass());
  fpm.run(f, fam);
}

/// The out-of-line slow path (slowResult; noinline: called only when some lane needs it).
/// `apart`: only declared, as the parts of a split compile have it (Note [Slow paths
/// apart]).
Function *slowHelper(Module &m, Trig k, Type *ty, const std::string &name, bool apart) {
  if (Function *f = m.getFunction(name)) return f;
  Function *f = newHelper(m, ty, 2, name);
  f->addFnAttr(Attribute::NoInline);
  if (apart) {
    declareApart(*f);
    return f;
  }
  IRBuilder<> b(BasicBlock::Create(m.getContext(), "entry", f));
  Value *x = f->getArg(0);
  b.CreateRet(slowResult(b, k, x, f->getArg(1)));
  return f;
}

/// Gives `f`, a helper of Note [Trig vector variants] declared by trigHelper, its body;
/// `apart`: its slow path only declared (Note [Slow paths apart]).
void defineHelper(Function *f, Trig k, MathTarget target, bool apart = false) {
  Module &m = *f->getParent();
  LLVMContext &c = m.getContext();
  Type *ty = f->getReturnType();
  auto *vt = dyn_cast<FixedVectorType>(ty);
  f->setLinkage(GlobalValue::InternalLinkage);
  auto *entry = BasicBlock::Create(c, "entry", f), *large = BasicBlock::Create(c, "large", f),
       *done = BasicBlock::Create(c, "done", f);
  IRBuilder<> b(entry);
  Value *x = f->getArg(0);
  Value *fast = fastResult(b, k, x);
  Value *need = needsSlowPath(b, x);
  MDBuilder md(c);
  b.CreateCondBr(vt ? b.CreateOrReduce(need) : need, large, done, md.createUnlikelyBranchWeights());
  b.SetInsertPoint(large);
  Value *v = target == MathTarget::Cpu
                 ? b.CreateCall(slowHelper(m, k, ty, f->getName().str() + ".slow", apart), {x, fast})
                 : slowResult(b, k, x, fast);
  b.CreateBr(done);
  b.SetInsertPoint(done);
  PHINode *phi = b.CreatePHI(ty, 2);
  phi->addIncoming(fast, entry);
  phi->addIncoming(v, large);
  b.CreateRet(finish(b, k, x, phi));
}

/// The helper of Note [Trig vector variants] for `ty` (float or <vf x float>). A CPU
/// vector variant is only declared here (Note [Variants defined late]).
Function *trigHelper(Module &m, Trig k, MathTarget target, Type *ty) {
  auto *vt = dyn_cast<FixedVectorType>(ty);
  std::string name = std::string(kHelperPrefix) + kTrigNames[int(k)] +
                     (target == MathTarget::Gpu ? ".gpu" : "") +
                     (vt ? ".v" + std::to_string(vt->getNumElements()) : "");
  if (Function *f = m.getFunction(name)) return f;
  Function *f = newHelper(m, ty, 1, name);
  if (target == MathTarget::Cpu) {
    // Variants: inlined once the vectorisers are done. The scalar helper: kept
    // out of line until then (kScalarMark), so loops see one call to widen.
    f->addFnAttr(vt ? Attribute::AlwaysInline : Attribute::NoInline);
    if (!vt) f->addFnAttr(kScalarMark);
  }
  if (vt && target == MathTarget::Cpu) {
    f->setLinkage(GlobalValue::ExternalLinkage);  // a declaration, until DefineTrigVariants
    appendToCompilerUsed(m, {f});
    return f;
  }
  defineHelper(f, k, target);
  if (vt) appendToCompilerUsed(m, {f});
  return f;
}

Value *sinCosTan(IRBuilderBase &b, Trig k, Value *x, MathTarget target) {
  Module &m = *b.GetInsertBlock()->getModule();
  Function *helper = trigHelper(m, k, target, x->getType());
  CallInst *c = b.CreateCall(helper, {x});
  if (target == MathTarget::Cpu && !x->getType()->isVectorTy()) {
    std::string variants;
    for (unsigned vf : kVariantWidths) {
      Function *v = trigHelper(m, k, target, FixedVectorType::get(x->getType(), vf));
      if (!variants.empty()) variants += ",";
      variants += "_ZGV_LLVM_N" + std::to_string(vf) + "v_" + helper->getName().str() + "(" +
                  v->getName().str() + ")";
    }
    c->addFnAttr(Attribute::get(m.getContext(), "vector-function-abi-variant", variants));
  }
  return c;
}

// Note [Variants defined late]: the vector variants of Note [Trig vector variants] are
// declarations until the vectorisers are done; only their names and attributes are
// needed to widen a call (as for a vector library's functions). DefineTrigVariants then
// gives a body to the variants called and cleans up those bodies (and their `.slow`
// parts) with EarlyCSE, InstCombine and SimplifyCFG; the others are deleted undefined.
// When every width was defined at emission, the eight or so functions per trig
// function went through the whole simplification pipeline (InstCombine alone runs on
// each several times), though at most one or two widths are ever called: in spec
// pool_map they were 520 of the 1,322 lines of IR (bench/notes.md, 2026-11-24, compile
// time). The bodies are the same code; only the passes that tidy them differ, and
// without fast-math flags none of them changes a float result.

/// After the vectorisers: defines the vector variants that are called (Note [Variants
/// defined late]).
struct DefineTrigVariants : PassInfoMixin<DefineTrigVariants> {
  bool slowApart = false;  ///< Note [Slow paths apart]
  PreservedAnalyses run(Module &m, ModuleAnalysisManager &mam) {
    auto called = [](Function &f) {
      for (User *u : f.users())
        if (auto *call = dyn_cast<CallBase>(u); call && call->getCalledOperand() == &f) return true;
      return false;
    };
    std::vector<Function *> todo;
    for (Function &f : m)
      if (f.isDeclaration() && f.getName().starts_with(kHelperPrefix) &&
          !f.getName().ends_with(".slow") && called(f))
        todo.push_back(&f);
    if (todo.empty()) return PreservedAnalyses::all();
    std::vector<Function *> before;
    for (Function &f : m) before.push_back(&f);
    for (Function *f : todo) {
      StringRef rest = f->getName().drop_front(StringRef(kHelperPrefix).size());
      StringRef trig = rest.take_until([](char ch) { return ch == '.'; });
      int k = 0;
      while (k < 3 && trig != kTrigNames[k]) ++k;
      if (k < 3) defineHelper(f, Trig(k), MathTarget::Cpu, slowApart);
    }
    auto &fam = mam.getResult<FunctionAnalysisManagerModuleProxy>(m).getManager();
    for (Function &f : m)
      if (!f.isDeclaration() && (std::find(todo.begin(), todo.end(), &f) != todo.end() ||
                                 std::find(before.begin(), before.end(), &f) == before.end()))
        tidyLate(f, fam);
    return PreservedAnalyses::none();
  }
};

/// Once the vectorisers have run: lets the scalar helpers be inlined (Note [Trig vector
/// variants]); the AlwaysInliner runs next.
struct InlineScalarTrig : PassInfoMixin<InlineScalarTrig> {
  PreservedAnalyses run(Module &m, ModuleAnalysisManager &) {
    bool changed = false;
    for (Function &f : m)
      if (f.hasFnAttribute(kScalarMark)) {
        f.removeFnAttr(kScalarMark);
        f.removeFnAttr(Attribute::NoInline);
        f.addFnAttr(Attribute::AlwaysInline);
        changed = true;
      }
    return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
};

/// Then: takes the vector variants off llvm.compiler.used and deletes the helpers left
/// uncalled (the inlined ones, and the variants not used, still declarations).
struct DropTrigVariants : PassInfoMixin<DropTrigVariants> {
  PreservedAnalyses run(Module &m, ModuleAnalysisManager &) {
    auto isHelper = [](const Value *v) {
      const auto *f = dyn_cast<Function>(v->stripPointerCasts());
      return f && (f->hasInternalLinkage() || f->isDeclaration()) &&
             f->getName().starts_with(kHelperPrefix);
    };
    removeFromUsedLists(m, [&](Constant *c) { return isHelper(c); });
    bool changed = false;
    for (bool again = true; again;) {
      std::vector<Function *> dead;
      for (Function &f : m)
        if (isHelper(&f) && f.use_empty()) dead.push_back(&f);
      for (Function *f : dead) f->eraseFromParent();
      again = !dead.empty();
      changed |= again;
    }
    return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
};
}  // namespace

void registerVecMathPasses(PassBuilder &pb, bool slowApart) {
  pb.registerOptimizerLastEPCallback([slowApart](ModulePassManager &mpm, OptimizationLevel) {
    DefineTrigVariants define;
    define.slowApart = slowApart;
    mpm.addPass(std::move(define));
    mpm.addPass(InlineScalarTrig());
    mpm.addPass(AlwaysInlinerPass(/*InsertLifetimeIntrinsics=*/false));
    mpm.addPass(DropTrigVariants());
  });
}

bool isTrigSlowPath(StringRef name) {
  return name.starts_with(kHelperPrefix) && name.ends_with(".slow");
}

void declareTrigSlowPaths(Module &m) {
  for (Function &f : m)
    if (isTrigSlowPath(f.getName())) declareApart(f);
}

Function *defineTrigSlowPath(Module &m, StringRef name, FunctionAnalysisManager &fam,
                             const std::function<void(Module &)> &pipeline) {
  if (!isTrigSlowPath(name)) return nullptr;
  StringRef rest = name.drop_front(StringRef(kHelperPrefix).size()).drop_back(5);
  auto [trig, width] = rest.split('.');
  int k = 0;
  while (k < 3 && trig != kTrigNames[k]) ++k;
  unsigned vf = 0;
  if (k == 3 || (!width.empty() && (!width.consume_front("v") || width.getAsInteger(10, vf))))
    return nullptr;
  Type *ty = Type::getFloatTy(m.getContext());
  if (vf) ty = FixedVectorType::get(ty, vf);
  Function *f = slowHelper(m, Trig(k), ty, name.str(), false);
  f->setLinkage(GlobalValue::ExternalLinkage);
  if (vf)
    tidyLate(*f, fam);  // made by DefineTrigVariants
  else
    pipeline(m);  // made at emission, optimised with the rest
  return f;
}

Value *emitSinF32(IRBuilderBase &b, Value *x, MathTarget t) {
  return sinCosTan(b, Trig::Sin, x, t);
}
Value *emitCosF32(IRBuilderBase &b, Value *x, MathTarget t) {
  return sinCosTan(b, Trig::Cos, x, t);
}
Value *emitTanF32(IRBuilderBase &b, Value *x, MathTarget t) {
  return sinCosTan(b, Trig::Tan, x, t);
}

}  // namespace spmd::codegen
