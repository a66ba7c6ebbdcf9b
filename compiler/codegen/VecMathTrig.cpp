// ===- VecMathTrig.cpp - f32 sin, cos, tan over the whole float range -------===//
//
// See VecMath.h. sin, cos and tan reduce x by pi/2 (x = n pi/2 + r, |r| <= pi/4) and
// evaluate minimax polynomials in r. Two reductions (Note [Trig range reduction]):
// Cody-Waite, inline and branch-free, exact enough for |x| <= kTrigMaxArg; and
// Payne-Hanek for larger finite |x|, out of line in helper functions that the CPU's
// loop vectoriser widens (Note [Trig vector variants]).
#include "codegen/VecMath.h"
#include "codegen/VecMathDetail.h"

#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

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
/// x * 2/pi (only n mod 4, the quadrant, matters) and |r| <= pi/4 (about).
///
/// Cody-Waite (reduceSmall), for |x| <= kTrigMaxArg: n = round(x * 2/pi) in float and
/// pi/2 split into three floats P1 + P2 + P3 (24 bits each), subtracted with fma so
/// each product is exact. The error is about n * 2^-74 + ulp(r), so sin and cos stay
/// within 2 ulp; beyond kTrigMaxArg (Eigen's bound, which XLA uses too) n * 2^-74
/// grows past ulp(r) and, past ~1e7, n itself is off by whole units.
///
/// Payne-Hanek (reduceLarge), for larger finite |x|, exact to ~2^-61 in n + r/(pi/2)
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

Reduced reduceSmall(IRBuilderBase &b, Value *x) {
  Type *ty = x->getType();
  Value *n = call(b, Intrinsic::roundeven, {b.CreateFMul(x, fc(ty, 0x1.45f306p-1))});
  Value *r = fma(b, n, fc(ty, -0x1.921fb6p0), x);
  r = fma(b, n, fc(ty, 0x1.777a5cp-25), r);
  r = fma(b, n, fc(ty, 0x1.ee59dap-50), r);
  // For +-inf, NaN and huge x, n is not a number or not an i32 and the conversion is
  // poison: freeze it (r is NaN for +-inf and NaN; huge x take reduceLarge's result).
  Value *q = b.CreateFreeze(b.CreateFPToSI(n, like(x, b.getInt32Ty())));
  return {r, q};
}

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

/// reduceLargeAbs with r in float, for x of either sign.
Reduced reduceLarge(IRBuilderBase &b, Value *x) {
  Type *ity = like(x, b.getInt32Ty());
  Reduced red = reduceLargeAbs(b, x);
  Value *r = b.CreateFPTrunc(red.r, x->getType()), *q = red.q;
  // sin, cos and tan of -|x|: -r in quadrant -n.
  Value *neg = b.CreateICmpSLT(b.CreateBitCast(x, ity), ic(ity, 0));
  return {b.CreateSelect(neg, b.CreateFNeg(r), r), b.CreateSelect(neg, b.CreateNeg(q), q)};
}

/// Note [glibc sinf and cosf]: on the CPU, XLA computes f32 sin and cos by calling the C
/// library's sinf and cosf, so JAX's results are glibc's, bit for bit (checked over
/// random bit patterns of every exponent: all equal), and about 20% of them differ by
/// an ulp from the float polynomials of fromReduced. sin and cos are therefore glibc's
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

GlibcReduced glibcReduceFast(IRBuilderBase &b, Value *x) {
  Type *ity = like(x, b.getInt32Ty()), *dty = like(x, b.getDoubleTy());
  Value *xd = b.CreateFPExt(x, dty);
  // Out-of-range lanes (|x| >= 120, inf, NaN) give poison here: frozen, and replaced.
  Value *t = b.CreateFreeze(b.CreateFPToSI(b.CreateFMul(xd, fc(dty, 0x1.45F306DC9C883p+23)), ity));
  Value *n = b.CreateAShr(b.CreateAdd(t, ic(ity, 0x800000)), ic(ity, 24));
  Value *r = fma(b, b.CreateFNeg(b.CreateSIToFP(n, dty)), fc(dty, 0x1.921FB54442D18p0), xd);
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

/// sin(r) and cos(r) for |r| <= pi/4: Cephes' single-precision minimax polynomials.
Value *sinPoly(IRBuilderBase &b, Value *r) {
  Value *z = b.CreateFMul(r, r);
  Value *p = horner(b, z, {-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1});
  return fma(b, b.CreateFMul(r, z), p, r);
}
Value *cosPoly(IRBuilderBase &b, Value *r) {
  Type *ty = r->getType();
  Value *z = b.CreateFMul(r, r);
  Value *p = horner(b, z, {2.443315711809948e-5, -1.388731625493765e-3, 4.166664568298827e-2});
  return fma(b, b.CreateFMul(z, z), p, fma(b, fc(ty, -0.5), z, fc(ty, 1.0)));
}

enum class Trig { Sin, Cos, Tan, GlibcSin, GlibcCos };

bool isGlibc(Trig k) { return k == Trig::GlibcSin || k == Trig::GlibcCos; }

/// The function of the reduced argument: sin(x) = sin(r + n pi/2) and so on.
Value *fromReduced(IRBuilderBase &b, Trig k, Reduced red) {
  Type *ty = red.r->getType(), *ity = red.q->getType();
  if (k == Trig::Tan) {
    // tan(r) = r + r^3 P(r^2) on [-pi/4, pi/4] (Cephes' tanf); tan(r + pi/2) = -1/tan(r).
    Value *z = b.CreateFMul(red.r, red.r);
    Value *p = horner(b, z,
                      {9.38540185543e-3, 3.11992232697e-3, 2.44301354525e-2, 5.34112807005e-2,
                       1.33387994085e-1, 3.33331568548e-1});
    Value *t = fma(b, b.CreateFMul(red.r, z), p, red.r);
    Value *odd = b.CreateICmpNE(b.CreateAnd(red.q, ic(ity, 1)), ic(ity, 0));
    return b.CreateSelect(odd, b.CreateFDiv(fc(ty, -1.0), t), t);
  }
  // cos(x) = sin(x + pi/2): one quadrant on.
  Value *q = b.CreateAdd(red.q, ic(ity, k == Trig::Cos ? 1 : 0));
  Value *odd = b.CreateICmpNE(b.CreateAnd(q, ic(ity, 1)), ic(ity, 0));
  Value *neg = b.CreateICmpNE(b.CreateAnd(q, ic(ity, 2)), ic(ity, 0));
  Value *v = b.CreateSelect(odd, cosPoly(b, red.r), sinPoly(b, red.r));
  return b.CreateSelect(neg, b.CreateFNeg(v), v);
}

/// Whether x is finite with |x| > kTrigMaxArg: one unsigned compare of its bits.
/// (For glibc's sinf and cosf: finite with |x| >= 120, as far as its abstop12 test tells.)
Value *needsLargeReduction(IRBuilderBase &b, Value *x, Trig k) {
  Type *ity = like(x, b.getInt32Ty());
  Value *abits = b.CreateAnd(b.CreateBitCast(x, ity), ic(ity, 0x7fffffff));
  const int64_t lo = isGlibc(k) ? 0x42f00000 : int64_t(std::bit_cast<uint32_t>(kTrigMaxArg)) + 1,
                inf = 0x7f800000;
  return b.CreateICmpULT(b.CreateSub(abits, ic(ity, lo)), ic(ity, inf - lo));
}

/// Note [Trig vector variants]: sin(x) is `helper(x, fast)`, where fast is the inline
/// Cody-Waite result and helper returns it unless x needs the Payne-Hanek reduction,
/// which it then computes. The helper is a function so that this rare path costs a
/// branch, not its work in every lane: on a CPU the helper is noinline and the call
/// names vector variants (LLVM's "vector-function-abi-variant", VFABI names
/// `_ZGV_LLVM_N<vf>vv_<helper>(<variant>)`) for every width the loop vectoriser may
/// pick, so a loop of sin still vectorises; each variant tests all its lanes at once
/// and, when one needs it, runs the reduction on the whole vector (gathers for the
/// table) and selects. The variants are alwaysinline, and registerVecMathPasses
/// inlines them after the vectoriser: a vector call would clobber every vector
/// register each iteration (x86's calling convention saves none), where the inlined
/// test is a compare and a branch never taken, to a noinline call of the reduction
/// (so the loop's code stays small: it is unrolled, one test per part). On a GPU
/// there is no vectoriser: the helper is inlined, a branch per thread. Helpers are
/// internal and made once per module; the variants are kept in llvm.compiler.used
/// until the vectoriser has seen them. Widths: x86's loop vectoriser sizes vectors by
/// the widest type in the loop (f32 here), so 16 lanes at most (AVX-512); a width
/// without a variant would scalarise the call, still correct.
/// The result for an x that needs the large reduction.
Value *largeResult(IRBuilderBase &b, Trig k, Value *x) {
  if (isGlibc(k)) return glibcPoly(b, glibcReduceLarge(b, x), k == Trig::GlibcCos, x->getType());
  return fromReduced(b, k, reduceLarge(b, x));
}

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

/// A vector variant's out-of-line part: the Payne-Hanek result where lanes need it,
/// fast elsewhere (noinline: called only when some lane does).
Function *slowVariant(Module &m, Trig k, unsigned vf, const std::string &name) {
  if (Function *f = m.getFunction(name)) return f;
  Type *ty = FixedVectorType::get(Type::getFloatTy(m.getContext()), vf);
  auto *f = Function::Create(FunctionType::get(ty, {ty, ty}, false), GlobalValue::InternalLinkage,
                             name, m);
  setHelperAttributes(f);
  f->addFnAttr(Attribute::NoInline);
  IRBuilder<> b(BasicBlock::Create(m.getContext(), "entry", f));
  Value *x = f->getArg(0);
  b.CreateRet(b.CreateSelect(needsLargeReduction(b, x, k), largeResult(b, k, x), f->getArg(1)));
  return f;
}

Function *largeHelper(Module &m, Trig k, MathTarget target, unsigned vf) {
  static const char *const names[] = {"sin", "cos", "tan", "gsin", "gcos"};
  std::string name = std::string("spmd.vecmath.") + names[int(k)] + ".large" +
                     (target == MathTarget::Gpu ? ".gpu" : "") +
                     (vf ? ".v" + std::to_string(vf) : "");
  if (Function *f = m.getFunction(name)) return f;
  LLVMContext &c = m.getContext();
  Type *ty = Type::getFloatTy(c);
  if (vf) ty = FixedVectorType::get(ty, vf);
  auto *f = Function::Create(FunctionType::get(ty, {ty, ty}, false), GlobalValue::InternalLinkage,
                             name, m);
  setHelperAttributes(f);
  if (target == MathTarget::Cpu) f->addFnAttr(vf ? Attribute::AlwaysInline : Attribute::NoInline);
  auto *entry = BasicBlock::Create(c, "entry", f), *large = BasicBlock::Create(c, "large", f),
       *done = BasicBlock::Create(c, "done", f);
  IRBuilder<> b(entry);
  Value *x = f->getArg(0), *fast = f->getArg(1);
  Value *need = needsLargeReduction(b, x, k);
  MDBuilder md(c);
  b.CreateCondBr(vf ? b.CreateOrReduce(need) : need, large, done, md.createUnlikelyBranchWeights());
  b.SetInsertPoint(large);
  Value *v;
  if (vf && target == MathTarget::Cpu)
    v = b.CreateCall(slowVariant(m, k, vf, name + ".slow"), {x, fast});
  else if (vf)
    v = b.CreateSelect(need, largeResult(b, k, x), fast);
  else
    v = largeResult(b, k, x);
  b.CreateBr(done);
  b.SetInsertPoint(done);
  PHINode *phi = b.CreatePHI(ty, 2);
  phi->addIncoming(fast, entry);
  phi->addIncoming(v, large);
  b.CreateRet(phi);
  if (vf) appendToCompilerUsed(m, {f});
  return f;
}

/// `fast`, or fromReduced(reduceLarge(x)) where x needs it (Note [Trig vector variants]).
Value *withLargeReduction(IRBuilderBase &b, Trig k, MathTarget target, Value *x, Value *fast) {
  Module &m = *b.GetInsertBlock()->getModule();
  if (auto *vt = dyn_cast<FixedVectorType>(x->getType()))
    return b.CreateCall(largeHelper(m, k, target, vt->getNumElements()), {x, fast});
  Function *helper = largeHelper(m, k, target, 0);
  CallInst *c = b.CreateCall(helper, {x, fast});
  if (target == MathTarget::Cpu) {
    std::string variants;
    for (unsigned vf : kVariantWidths) {
      Function *v = largeHelper(m, k, target, vf);
      if (!variants.empty()) variants += ",";
      variants += "_ZGV_LLVM_N" + std::to_string(vf) + "vv_" + helper->getName().str() + "(" +
                  v->getName().str() + ")";
    }
    c->addFnAttr(Attribute::get(m.getContext(), "vector-function-abi-variant", variants));
  }
  return c;
}

Value *sinCosTan(IRBuilderBase &b, Trig k, Value *x, MathTarget target) {
  if (isGlibc(k)) {  // Note [glibc sinf and cosf]
    Type *ty = x->getType(), *ity = like(x, b.getInt32Ty());
    bool cosine = k == Trig::GlibcCos;
    Value *v = withLargeReduction(b, k, target, x, glibcPoly(b, glibcReduceFast(b, x), cosine, ty));
    Value *abits = b.CreateAnd(b.CreateBitCast(x, ity), ic(ity, 0x7fffffff));
    v = b.CreateSelect(b.CreateICmpULT(abits, ic(ity, 0x39800000)),
                       cosine ? static_cast<Value *>(fc(ty, 1.0)) : x, v);
    return b.CreateSelect(b.CreateICmpUGE(abits, ic(ity, 0x7f800000)), fc(ty, kNaNf), v);
  }
  Value *v = withLargeReduction(b, k, target, x, fromReduced(b, k, reduceSmall(b, x)));
  if (k == Trig::Cos) return v;
  // The reduction turns -0 into +0: keep the sign of a zero input.
  return b.CreateSelect(b.CreateFCmpOEQ(x, fc(x->getType(), 0.0)), x, v);
}

}  // namespace

namespace {
/// Once the vectoriser has run: takes the vector variants off llvm.compiler.used and
/// deletes the helpers left uncalled (the variants, once inlined, and the slow parts
/// of widths not used), so they are not compiled.
struct DropTrigVariants : PassInfoMixin<DropTrigVariants> {
  PreservedAnalyses run(Module &m, ModuleAnalysisManager &) {
    auto isHelper = [](const Value *v) {
      const auto *f = dyn_cast<Function>(v->stripPointerCasts());
      return f && f->hasInternalLinkage() && f->getName().starts_with("spmd.vecmath.");
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

void registerVecMathPasses(PassBuilder &pb) {
  pb.registerOptimizerLastEPCallback([](ModulePassManager &mpm, OptimizationLevel) {
    mpm.addPass(AlwaysInlinerPass(/*InsertLifetimeIntrinsics=*/false));
    mpm.addPass(DropTrigVariants());
  });
}

Value *emitSinF32(IRBuilderBase &b, Value *x, MathTarget t) {
  return sinCosTan(b, Trig::GlibcSin, x, t);
}
Value *emitCosF32(IRBuilderBase &b, Value *x, MathTarget t) {
  return sinCosTan(b, Trig::GlibcCos, x, t);
}
Value *emitTanF32(IRBuilderBase &b, Value *x, MathTarget t) {
  return sinCosTan(b, Trig::Tan, x, t);
}

}  // namespace spmd::codegen
