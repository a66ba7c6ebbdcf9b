// ===- ThreefryEmit.cpp - JAX's PRNG (threefry2x32) emitted as LLVM IR ------===//
//
// Each emitter mirrors one function of runtime/prng/Threefry2x32.h operation for operation, in
// the same order, so the emitted code and the reference agree bit for bit (the unit
// test tests/unit/codegen/test_threefry.cpp JIT-compiles them and compares). Values
// may be scalars or vectors; constants are splatted to the operand's type.
#include "codegen/ThreefryEmit.h"

#include "Threefry2x32.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>

#include <limits>

using namespace llvm;

namespace spmd::codegen {
namespace {

Constant *u32(Type *ty, uint32_t v) { return ConstantInt::get(ty, v); }
Constant *f32(Type *ty, float v) { return ConstantFP::get(ty, double(v)); }

/// The i32 type with the shape (scalar or vector) of `v`.
Type *i32Like(Value *v) { return v->getType()->getWithNewType(Type::getInt32Ty(v->getContext())); }
Type *f32Like(Value *v) { return v->getType()->getWithNewType(Type::getFloatTy(v->getContext())); }

Value *rotl(IRBuilderBase &b, Value *x, int r) {
  return b.CreateIntrinsic(Intrinsic::fshl, {x->getType()}, {x, x, u32(x->getType(), uint32_t(r))});
}

Value *fma(IRBuilderBase &b, Value *x, Value *y, Value *z) {
  return b.CreateIntrinsic(Intrinsic::fma, {x->getType()}, {x, y, z});
}

/// The two u32 words (hi, lo) of a 64-bit index.
WordPair splitIndex(IRBuilderBase &b, Value *index) {
  Type *i32 = index->getType()->getWithNewType(b.getInt32Ty());
  Value *hi = b.CreateTrunc(b.CreateLShr(index, ConstantInt::get(index->getType(), 32)), i32);
  return {hi, b.CreateTrunc(index, i32)};
}

}  // namespace

WordPair emitThreefry2x32(IRBuilderBase &b, Value *k0, Value *k1, Value *x0, Value *x1) {
  static constexpr int kRot[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  Type *ty = k0->getType();
  Value *ks[3] = {k0, k1, b.CreateXor(b.CreateXor(k0, k1), u32(ty, 0x1BD11BDAu))};
  x0 = b.CreateAdd(x0, ks[0]);
  x1 = b.CreateAdd(x1, ks[1]);
  for (int i = 0; i < 5; ++i) {  // as prng::threefry2x32
    for (int r : kRot[i % 2]) {
      x0 = b.CreateAdd(x0, x1);
      x1 = b.CreateXor(rotl(b, x1, r), x0);
    }
    x0 = b.CreateAdd(x0, ks[(i + 1) % 3]);
    x1 = b.CreateAdd(x1, b.CreateAdd(ks[(i + 2) % 3], u32(ty, uint32_t(i + 1))));
  }
  return {x0, x1};
}

WordPair emitRandomSeed(IRBuilderBase &b, Value *seed) {
  return {Constant::getNullValue(seed->getType()), seed};
}

WordPair emitSplitAt(IRBuilderBase &b, WordPair key, Value *index) {
  auto [hi, lo] = splitIndex(b, index);
  return emitThreefry2x32(b, key.first, key.second, hi, lo);
}

WordPair emitFoldIn(IRBuilderBase &b, WordPair key, Value *data) {
  return emitThreefry2x32(b, key.first, key.second, Constant::getNullValue(data->getType()), data);
}

Value *emitRandomBitsAt(IRBuilderBase &b, WordPair key, Value *index) {
  auto [y0, y1] = emitSplitAt(b, key, index);
  return b.CreateXor(y0, y1);
}

Value *emitUniformFromBits(IRBuilderBase &b, Value *bits, Value *lo, Value *hi) {
  Type *ty = bits->getType(), *fty = f32Like(bits);
  Value *one = b.CreateOr(b.CreateLShr(bits, u32(ty, 9)), u32(ty, 0x3F800000u));
  Value *unit = b.CreateFSub(b.CreateBitCast(one, fty), f32(fty, 1.0f));
  Value *v = fma(b, unit, b.CreateFSub(hi, lo), lo);
  return b.CreateIntrinsic(Intrinsic::maxnum, {fty}, {lo, v});
}

Value *emitNormalFromBits(IRBuilderBase &b, Value *bits) {
  Type *fty = f32Like(bits);
  Value *u = emitUniformFromBits(b, bits, f32(fty, prng::kNormalLo), f32(fty, 1.0f));
  return b.CreateFMul(f32(fty, prng::kSqrt2), emitErfInvF32(b, u));
}

Value *emitRandintFromBits(IRBuilderBase &b, Value *higher, Value *lower, Value *lo, Value *hi) {
  Type *ty = higher->getType();
  Value *span = b.CreateSelect(b.CreateICmpSGT(hi, lo), b.CreateSub(hi, lo), u32(ty, 1));
  Value *r16 = b.CreateURem(u32(ty, 65536), span);
  Value *m = b.CreateURem(b.CreateMul(r16, r16), span);
  Value *off = b.CreateAdd(b.CreateMul(b.CreateURem(higher, span), m), b.CreateURem(lower, span));
  return b.CreateAdd(lo, b.CreateURem(off, span));
}

/// prng::flushDenormal: |x| < 2^-126 becomes a zero of x's sign.
static Value *emitFlushDenormal(IRBuilderBase &b, Value *x) {
  Type *fty = x->getType();
  Value *absx = b.CreateIntrinsic(Intrinsic::fabs, {fty}, {x});
  Value *zero = b.CreateIntrinsic(Intrinsic::copysign, {fty}, {f32(fty, 0.0f), x});
  return b.CreateSelect(b.CreateFCmpOLT(absx, f32(fty, prng::kMinNormal)), zero, x);
}

Value *emitLogF32(IRBuilderBase &b, Value *y) {
  using prng::kLogP;
  Type *fty = y->getType(), *ity = i32Like(y);
  y = emitFlushDenormal(b, y);
  // The polynomial's input: y itself when it is a positive normal, else the smallest
  // normal (the edges are selected at the end).
  Value *pos = b.CreateFCmpOGT(y, f32(fty, prng::kMinNormal));
  Value *bits = b.CreateBitCast(b.CreateSelect(pos, y, f32(fty, prng::kMinNormal)), ity);
  Value *e = b.CreateFAdd(
      b.CreateSIToFP(b.CreateSub(b.CreateLShr(bits, u32(ity, 23)), u32(ity, 127)), fty),
      f32(fty, 1.0f));
  Value *m = b.CreateBitCast(
      b.CreateOr(b.CreateAnd(bits, u32(ity, 0x807fffffu)), u32(ity, 0x3f000000u)), fty);
  Value *low = b.CreateFCmpOLT(m, f32(fty, prng::kLogSqrtHalf));
  Value *t = b.CreateFAdd(b.CreateFAdd(m, f32(fty, -1.0f)), b.CreateSelect(low, m, f32(fty, 0.0f)));
  e = b.CreateFSub(e, b.CreateSelect(low, f32(fty, 1.0f), f32(fty, 0.0f)));
  Value *t2 = b.CreateFMul(t, t), *t3 = b.CreateFMul(t2, t);
  auto group = [&](int k) {  // P(k) + P(k+1) t + P(k+2) t^2
    return fma(b, fma(b, t, f32(fty, kLogP[k + 2]), f32(fty, kLogP[k + 1])), t, f32(fty, kLogP[k]));
  };
  Value *p = fma(b, fma(b, group(6), t3, group(3)), t3, group(0));
  Value *tail = fma(b, p, t3, b.CreateFMul(e, f32(fty, prng::kLogLn2Lo)));
  Value *head = fma(b, b.CreateFNeg(t2), f32(fty, 0.5f), t);
  Value *res = fma(b, e, f32(fty, prng::kLogLn2Hi), b.CreateFAdd(head, tail));
  // Edges, as prng::logF32: +-0 -> -inf, negative or NaN -> NaN, +inf -> +inf.
  const float inf = std::numeric_limits<float>::infinity();
  res = b.CreateSelect(b.CreateFCmpOEQ(y, f32(fty, inf)), f32(fty, inf), res);
  res = b.CreateSelect(b.CreateFCmpOEQ(y, f32(fty, 0.0f)), f32(fty, -inf), res);
  return b.CreateSelect(b.CreateFCmpULT(y, f32(fty, 0.0f)),
                        f32(fty, std::numeric_limits<float>::quiet_NaN()), res);
}

Value *emitLog1pF32(IRBuilderBase &b, Value *x) {
  Type *fty = x->getType();
  x = emitFlushDenormal(b, x);
  Value *large = emitLogF32(b, b.CreateFAdd(f32(fty, 1.0f), x));
  Value *p = f32(fty, prng::kLog1pNum[0]), *q = f32(fty, prng::kLog1pDen[0]);
  for (int i = 1; i < 7; ++i) {
    p = fma(b, p, x, f32(fty, prng::kLog1pNum[i]));
    q = fma(b, q, x, f32(fty, prng::kLog1pDen[i]));
  }
  Value *x2 = b.CreateFMul(x, x);
  Value *t = b.CreateFMul(b.CreateFMul(x, x2), b.CreateFDiv(p, q));
  Value *small = b.CreateFAdd(x, fma(b, f32(fty, -0.5f), x2, t));
  Value *absx = b.CreateIntrinsic(Intrinsic::fabs, {fty}, {x});
  return b.CreateSelect(b.CreateFCmpOLT(absx, f32(fty, prng::kLog1pSmall)), small, large);
}

Value *emitErfInvF32(IRBuilderBase &b, Value *x) {
  Type *fty = x->getType();
  x = emitFlushDenormal(b, x);
  Value *w = b.CreateFNeg(emitLog1pF32(b, b.CreateFMul(x, b.CreateFNeg(x))));
  Value *small = b.CreateFCmpOLT(w, f32(fty, 5.0f));
  auto coef = [&](int i) {
    return b.CreateSelect(small, f32(fty, prng::kErfInvSmall[i]), f32(fty, prng::kErfInvLarge[i]));
  };
  Value *sq = b.CreateIntrinsic(Intrinsic::sqrt, {fty}, {w});
  Value *t =
      b.CreateSelect(small, b.CreateFSub(w, f32(fty, 2.5f)), b.CreateFSub(sq, f32(fty, 3.0f)));
  Value *p = coef(0);
  for (int i = 1; i < 9; ++i) p = fma(b, p, t, coef(i));
  Value *absx = b.CreateIntrinsic(Intrinsic::fabs, {fty}, {x});
  Value *edge = b.CreateFMul(x, f32(fty, std::numeric_limits<float>::infinity()));
  return b.CreateSelect(b.CreateFCmpOEQ(absx, f32(fty, 1.0f)), edge,
                        emitFlushDenormal(b, b.CreateFMul(p, x)));
}

}  // namespace spmd::codegen
