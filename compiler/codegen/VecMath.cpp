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
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/Module.h>
#include <llvm/TargetParser/Host.h>

#include <bit>
#include <limits>
#include <vector>

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

}  // namespace

// Note [XLA exp]
// XLA:CPU does not call expf for an f32 exp: it emits Cephes' expf in vector form
// (GenerateVF32Exp in xla/service/cpu/llvm_ir_runtime.cc, read in an older XLA; the bits
// below are JAX 0.10.2's), which is neither correctly rounded nor what exp of a double
// rounded gives (1 in 10 floats in [-87, 88] differ from glibc's expf). Checked against
// jnp.exp, jitted, eager and in a pmap alike: x clamped to [-87.8, 88.8]; n = floor(x
// log2(e) + 0.5) clamped to [-127, 127]; a = x - n C1 - n C2 with C1 + C2 = ln 2 (C1 =
// 0.693359375, exact in few bits); exp(a) = 1 + (a + a^2 P(a)) with Cephes' degree-5 P;
// the result z 2^n with 2^n built in the exponent field (0 for n = -127), one rounding,
// flushed to 0 if subnormal (Note [Denormals]). XLA's muladds are contracted: the
// reduction and Horner steps are fused multiply-adds (fusing x log2(e) + 0.5 or not gives
// the same bits for every float in [-88, 89]). A C model of this differs from JAX in 0 of
// 70,000 random floats; with the reduction unfused in 124, with Horner unfused in 663.
// The clamp of n is why exp(88.72283) is 3.4027977e+38, not the correctly rounded
// 3.4027985e+38: a reaches 0.77, outside the polynomial's range. Not followed: XLA takes
// glibc's expf for the tail of an unfused exp of a 1-D array of 3, 5-7, 11 or 13-15
// elements (tests/conformance/sweep_math.md). GPUs keep the older algorithm below
// (Cephes' polynomial on a round-to-nearest reduction with an exact two-step scaling,
// within 2 ulp, subnormal results kept), since they run without flushing and XLA uses
// libdevice there.
Value *emitExpF32(IRBuilderBase &b, Value *x, MathTarget t) {
  Type *ty = x->getType(), *ity = like(x, b.getInt32Ty());
  auto clamp = [&](Value *v, double lo, double hi) {
    return call(b, Intrinsic::minnum, {call(b, Intrinsic::maxnum, {v, fc(ty, lo)}), fc(ty, hi)});
  };
  const std::initializer_list<double> cephesP = {1.9875691500e-4, 1.3981999507e-3,
                                                 8.3334519073e-3, 4.1665795894e-2,
                                                 1.6666665459e-1, 5.0000001201e-1};
  if (t == MathTarget::Cpu) {
    Value *xc = clamp(x, -87.8, 88.8);
    Value *n = call(b, Intrinsic::floor, {fma(b, xc, fc(ty, 0x1.715476p0), fc(ty, 0.5))});
    n = clamp(n, -127.0, 127.0);
    Value *a = fma(b, fc(ty, -0.693359375), n, xc);
    a = fma(b, fc(ty, 2.12194440e-4), n, a);
    Value *z = fma(b, horner(b, a, cephesP), b.CreateFMul(a, a), a);
    z = b.CreateFAdd(z, fc(ty, 1.0));
    Value *v = b.CreateFMul(z, pow2F32(b, b.CreateFPToSI(n, ity)));
    return b.CreateSelect(b.CreateFCmpUNO(x, x), x, v);
  }
  // exp(x) overflows above 88.72 and is below half the least subnormal under -103.98;
  // the clamp keeps n in [-150, 128] so 2^n's two halves are normal floats.
  Value *xc = clamp(x, -104.0, 88.8);
  Value *n = call(b, Intrinsic::roundeven, {b.CreateFMul(xc, fc(ty, 0x1.715476p0))});
  Value *r = fma(b, n, fc(ty, -0x1.62e43p-1), xc);
  r = fma(b, n, fc(ty, 0x1.05c61p-29), r);
  // exp(r) = 1 + r + r^2 P(r): Cephes' expf minimax polynomial.
  Value *p = horner(b, r, cephesP);
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

Value *emitLogisticF32(IRBuilderBase &b, Value *x, MathTarget t) {
  Type *ty = x->getType();
  Value *one = fc(ty, 1.0);
  return b.CreateFDiv(one, b.CreateFAdd(one, emitExpF32(b, b.CreateFNeg(x), t)));
}

namespace {

/// Note [glibc powf]: on the CPU, XLA computes f32 pow by calling the C library's
/// powf, so JAX's results are glibc's bit for bit (checked over random bit patterns of
/// every exponent: all equal but where XLA flushes subnormals), and glibc's powf is not
/// correctly rounded (0.82 ulp): a correctly rounded pow differs in about 1 of 1,500
/// results. So pow is glibc's algorithm (Arm's optimized-routines powf.c, as glibc
/// builds it for x86-64 CPUs with FMA, its __powf_fma variant: every a * b + c
/// contracted into an fma), in double precision: log2|x| = k + log2(c) + log1p(z/c -
/// 1)/ln2 with |x| = 2^k z, z in [0x1.66p-1, 0x1.66p0) split into 16 intervals, c near
/// the centre of z's, the table holding 1/c and log2(c), and a degree-5 polynomial;
/// then 2^(y log2|x|) = 2^(m/32) 2^r with m the nearest integer to 32 y log2|x| (by
/// adding 1.5 * 2^47), 2^(m/32) from a 32-entry table whose entry i is 2^(i/32) less i
/// in the exponent field, and a cubic in r. The tables are loads (gathers in a
/// vectorised loop); the rest is arithmetic and selects.
struct PowTables {
  GlobalVariable *invc, *logc, *exp2;
};

GlobalVariable *constTable(Module &m, const char *name, Constant *init) {
  if (GlobalVariable *g = m.getNamedGlobal(name)) return g;
  auto *g = new GlobalVariable(m, init->getType(), true, GlobalValue::InternalLinkage, init, name);
  g->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  return g;
}

PowTables powTables(Module &m) {
  LLVMContext &c = m.getContext();
  // 1/c and log2(c) for each of the 16 intervals (glibc's __powf_log2_data).
  static const double invc[16] = {
      0x1.661ec79f8f3bep+0,  0x1.571ed4aaf883dp+0,  0x1.49539f0f010bp+0,   0x1.3c995b0b80385p+0,
      0x1.30d190c8864a5p+0,  0x1.25e227b0b8eap+0,   0x1.1bb4a4a1a343fp+0,  0x1.12358f08ae5bap+0,
      0x1.0953f419900a7p+0,  0x1p+0,                0x1.e608cfd9a47acp-1,  0x1.ca4b31f026aap-1,
      0x1.b2036576afce6p-1,  0x1.9c2d163a1aa2dp-1,  0x1.886e6037841edp-1,  0x1.767dcf5534862p-1};
  static const double logc[16] = {
      -0x1.efec65b963019p-2, -0x1.b0b6832d4fca4p-2, -0x1.7418b0a1fb77bp-2, -0x1.39de91a6dcf7bp-2,
      -0x1.01d9bf3f2b631p-2, -0x1.97c1d1b3b7afp-3,  -0x1.2f9e393af3c9fp-3, -0x1.960cbbf788d5cp-4,
      -0x1.a6f9db6475fcep-5, 0x0p+0,                0x1.338ca9f24f53dp-4,  0x1.476a9543891bap-3,
      0x1.e840b4ac4e4d2p-3,  0x1.40645f0c6651cp-2,  0x1.88e9c2c1b9ff8p-2,  0x1.ce0a44eb17bccp-2};
  // 2^(i/32) rounded to double, i = 0..31.
  static const double exp2[32] = {
      0x1p+0,               0x1.059b0d3158574p+0, 0x1.0b5586cf9890fp+0, 0x1.11301d0125b51p+0,
      0x1.172b83c7d517bp+0, 0x1.1d4873168b9aap+0, 0x1.2387a6e756238p+0, 0x1.29e9df51fdee1p+0,
      0x1.306fe0a31b715p+0, 0x1.371a7373aa9cbp+0, 0x1.3dea64c123422p+0, 0x1.44e086061892dp+0,
      0x1.4bfdad5362a27p+0, 0x1.5342b569d4f82p+0, 0x1.5ab07dd485429p+0, 0x1.6247eb03a5585p+0,
      0x1.6a09e667f3bcdp+0, 0x1.71f75e8ec5f74p+0, 0x1.7a11473eb0187p+0, 0x1.82589994cce13p+0,
      0x1.8ace5422aa0dbp+0, 0x1.93737b0cdc5e5p+0, 0x1.9c49182a3f09p+0,  0x1.a5503b23e255dp+0,
      0x1.ae89f995ad3adp+0, 0x1.b7f76f2fb5e47p+0, 0x1.c199bdd85529cp+0, 0x1.cb720dcef9069p+0,
      0x1.d5818dcfba487p+0, 0x1.dfc97337b9b5fp+0, 0x1.ea4afa2a490dap+0, 0x1.f50765b6e4540p+0};
  std::vector<uint64_t> bits;
  for (int i = 0; i < 32; ++i) bits.push_back(std::bit_cast<uint64_t>(exp2[i]) - (uint64_t(i) << 47));
  return {constTable(m, "spmd.vecmath.pow.invc", ConstantDataArray::get(c, ArrayRef(invc))),
          constTable(m, "spmd.vecmath.pow.logc", ConstantDataArray::get(c, ArrayRef(logc))),
          constTable(m, "spmd.vecmath.pow.exp2", ConstantDataArray::get(c, ArrayRef(bits)))};
}

/// table[idx] (elements of type `elem`): a load for a scalar index, a gather for a
/// vector of them.
Value *load(IRBuilderBase &b, GlobalVariable *table, Type *elem, Value *idx) {
  Value *p = b.CreateInBoundsGEP(elem, table, idx);
  if (auto *vt = dyn_cast<VectorType>(idx->getType()))
    return b.CreateMaskedGather(VectorType::get(elem, vt->getElementCount()), p, Align(8));
  return b.CreateLoad(elem, p);
}

}  // namespace

Value *emitPowF32(IRBuilderBase &b, Value *x, Value *y) {
  Type *ty = x->getType(), *dty = like(x, b.getDoubleTy()), *ity = like(x, b.getInt32Ty()),
       *lty = like(x, b.getInt64Ty());
  PowTables tab = powTables(*b.GetInsertBlock()->getModule());
  Value *zero = fc(ty, 0.0), *one = fc(ty, 1.0), *inf = fc(ty, kInf), *nan = fc(ty, kNaN);
  Value *ix = b.CreateBitCast(x, ity), *iy = b.CreateBitCast(y, ity);
  Value *ax = fabs(b, x), *ay = fabs(b, y);
  Value *xNeg = b.CreateICmpSLT(ix, ic(ity, 0)), *yNeg = b.CreateICmpSLT(iy, ic(ity, 0));
  // y's parity: every float with |y| >= 2^24 (and +-inf) is an even integer.
  Value *yInt = b.CreateFCmpOEQ(call(b, Intrinsic::floor, {y}), y);
  Value *small = b.CreateFCmpOLT(ay, fc(ty, 0x1p24));
  Value *yi = b.CreateFPToSI(b.CreateSelect(small, y, zero), ity);
  Value *yOdd = b.CreateAnd(b.CreateAnd(yInt, small), b.CreateTrunc(yi, like(x, b.getInt1Ty())));
  Value *negResult = b.CreateAnd(xNeg, yOdd);

  // log2|x| (a subnormal |x| scaled by 2^23 and its exponent field lowered by 23).
  Value *iax = b.CreateBitCast(ax, ity);
  Value *scaled = b.CreateSub(b.CreateBitCast(b.CreateFMul(ax, fc(ty, 0x1p23)), ity),
                              ic(ity, 23 << 23));
  iax = b.CreateSelect(b.CreateICmpULT(iax, ic(ity, 0x00800000)), scaled, iax);
  Value *tmp = b.CreateSub(iax, ic(ity, 0x3f330000));
  Value *i = b.CreateAnd(b.CreateLShr(tmp, ic(ity, 19)), ic(ity, 15));
  Value *top = b.CreateAnd(tmp, ic(ity, int32_t(0xff800000)));
  Value *z = b.CreateFPExt(b.CreateBitCast(b.CreateSub(iax, top), ty), dty);
  Value *k = b.CreateSIToFP(b.CreateAShr(top, ic(ity, 23)), dty);
  Value *invc = load(b, tab.invc, b.getDoubleTy(), i);
  Value *logc = load(b, tab.logc, b.getDoubleTy(), i);
  Value *r = fma(b, z, invc, fc(dty, -1.0));
  Value *y0 = b.CreateFAdd(logc, k);
  Value *r2 = b.CreateFMul(r, r);
  Value *p = fma(b, fc(dty, 0x1.27616c9496e0bp-2), r, fc(dty, -0x1.71969a075c67ap-2));
  Value *p2 = fma(b, fc(dty, 0x1.ec70a6ca7baddp-2), r, fc(dty, -0x1.7154748bef6c8p-1));
  Value *r4 = b.CreateFMul(r2, r2);
  Value *q = fma(b, fc(dty, 0x1.71547652ab82bp0), r, y0);
  q = fma(b, p2, r2, q);
  Value *log2x = fma(b, p, r4, q);
  Value *ylogx = b.CreateFMul(b.CreateFPExt(y, dty), log2x);

  // 2^ylogx, negated for a negative x and an odd y (by the sign bit of the scale).
  const double shift = 0x1.8p52 / 32;
  Value *kd = b.CreateFAdd(ylogx, fc(dty, shift));
  Value *ki = b.CreateBitCast(kd, lty);
  Value *rr = b.CreateFSub(ylogx, b.CreateFSub(kd, fc(dty, shift)));
  Value *t = load(b, tab.exp2, b.getInt64Ty(), b.CreateTrunc(b.CreateAnd(ki, ic(lty, 31)), ity));
  Value *ski = b.CreateAdd(ki, b.CreateShl(b.CreateZExt(negResult, lty), ic(lty, 16)));
  Value *s = b.CreateBitCast(b.CreateAdd(t, b.CreateShl(ski, ic(lty, 47))), dty);
  Value *e = fma(b, fc(dty, 0x1.c6af84b912394p-5), rr, fc(dty, 0x1.ebfce50fac4f3p-3));
  Value *rr2 = b.CreateFMul(rr, rr);
  Value *e2 = fma(b, fc(dty, 0x1.62e42ff0c52d6p-1), rr, fc(dty, 1.0));
  Value *v = b.CreateFPTrunc(b.CreateFMul(fma(b, e, rr2, e2), s), ty);
  // Overflow and underflow by ylogx alone (the table's scale would leave the range).
  Value *signedInf = b.CreateSelect(negResult, b.CreateFNeg(inf), inf);
  Value *signedZero = b.CreateSelect(negResult, b.CreateFNeg(zero), zero);
  v = b.CreateSelect(b.CreateFCmpOGT(ylogx, fc(dty, 0x1.fffffffd1d571p+6)), signedInf, v);
  v = b.CreateSelect(b.CreateFCmpOLE(ylogx, fc(dty, -150.0)), signedZero, v);

  // Special cases, later ones winning (C99 F.9.4.4, in glibc's order).
  // x < 0 finite and y not an integer: NaN.
  v = b.CreateSelect(b.CreateAnd(b.CreateFCmpOLT(x, zero), b.CreateNot(yInt)), nan, v);
  // x is +-0, +-inf or NaN (y finite and not 0): x^2 or 1/x^2, signed.
  Value *xZeroInfNaN = b.CreateOr(b.CreateFCmpOEQ(ax, zero), b.CreateFCmpUGE(ax, inf));
  Value *x2 = b.CreateFMul(x, x);
  x2 = b.CreateSelect(negResult, b.CreateFNeg(x2), x2);
  v = b.CreateSelect(xZeroInfNaN, b.CreateSelect(yNeg, b.CreateFDiv(one, x2), x2), v);
  // y is +-0, +-inf or NaN: 1 for y = 0 or x = 1, NaN for a NaN, 1 for x = -1, 0 or inf
  // as |x| < 1 and the sign of the infinite y say.
  Value *yv = b.CreateSelect(b.CreateICmpEQ(b.CreateFCmpOLT(ax, one), b.CreateNot(yNeg)), zero,
                             inf);
  yv = b.CreateSelect(b.CreateFCmpOEQ(ax, one), one, yv);
  yv = b.CreateSelect(b.CreateFCmpUNO(x, y), nan, yv);
  yv = b.CreateSelect(b.CreateOr(b.CreateFCmpOEQ(y, zero), b.CreateFCmpOEQ(x, one)), one, yv);
  Value *yZeroInfNaN = b.CreateOr(b.CreateFCmpOEQ(ay, zero), b.CreateFCmpUGE(ay, inf));
  return b.CreateSelect(yZeroInfNaN, yv, v);
}

// Note [XLA rsqrt]
// XLA:CPU does not divide 1 by sqrt(x) for rsqrt: on x86-64 with AVX it takes the
// hardware's estimate (rsqrtps / rsqrtss, 12 bits) and refines it by one Newton-Raphson
// step as Eigen writes it, h = fma(x * g, g, -1), g' = fma(g * -0.5, h, g), keeping the
// estimate where x < FLT_MIN (0, denormals, negatives, NaN) or x is inf. Measured against
// JAX 0.10.2 (jax.lax.rsqrt, this repository's AVX2 machine): 400,010 floats over the
// whole range, 0 differ; 1 / sqrt(x) differed in 88,000 (a third of them, by 1 ulp:
// rsqrt(1000.0) 0.031622775 in JAX, 0.031622779 divided). The estimate is the CPU's own
// (vendors' tables differ), as it is for JAX on the same machine. Without AVX, and for
// f64 without AVX-512 (x64 is off in the JAX this follows), XLA divides, and so do we.
bool hardwareRsqrt() {
#if defined(__x86_64__)
  static const bool avx = [] {
    auto f = sys::getHostCPUFeatures();
    auto it = f.find("avx");
    return it != f.end() && it->second;
  }();
  return avx;
#else
  return false;
#endif
}

Value *emitRsqrtF32(IRBuilderBase &b, Value *x) {
  Type *f = b.getFloatTy();
  auto *v4 = FixedVectorType::get(f, 4);
  Value *vx = b.CreateInsertElement(ConstantAggregateZero::get(v4), x, b.getInt32(0));
  Value *g =
      b.CreateExtractElement(b.CreateIntrinsic(Intrinsic::x86_sse_rsqrt_ss, {}, {vx}), b.getInt32(0));
  auto fma = [&](Value *p, Value *q, Value *r) {
    return b.CreateIntrinsic(Intrinsic::fma, {f}, {p, q, r});
  };
  Value *h = fma(b.CreateFMul(x, g), g, ConstantFP::get(f, -1.0));
  Value *refined = fma(b.CreateFMul(g, ConstantFP::get(f, -0.5)), h, g);
  Value *keep = b.CreateOr(b.CreateFCmpOLT(x, ConstantFP::get(f, 1.17549435e-38)),
                           b.CreateFCmpOEQ(x, ConstantFP::getInfinity(f)));
  return b.CreateSelect(keep, g, refined);
}

}  // namespace spmd::codegen
