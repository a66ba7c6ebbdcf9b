// ===- Threefry.cpp - JAX's PRNG (threefry2x32) emitted as LLVM IR ----------===//
//
// Each emitter mirrors one function of runtime/Threefry.h operation for operation, in
// the same order, so the emitted code and the reference agree bit for bit (the unit
// test tests/unit/codegen/test_threefry.cpp JIT-compiles them and compares). Values
// may be scalars or vectors; constants are splatted to the operand's type.
#include "codegen/Threefry.h"

#include "../../runtime/Threefry.h"

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

} // namespace

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

Value *emitLogF32(IRBuilderBase &b, Value *u) {
  using prng::kLogLg;
  Type *fty = u->getType(), *ity = i32Like(u);
  // Subnormals: scale by 2^25 first.
  Value *sub = b.CreateFCmpOLT(u, f32(fty, 0x1p-126f));
  Value *us = b.CreateSelect(sub, b.CreateFMul(u, f32(fty, 0x1p25f)), u);
  Value *k0 = b.CreateSelect(sub, u32(ity, uint32_t(-25)), u32(ity, 0));
  Value *iu = b.CreateAdd(b.CreateBitCast(us, ity), u32(ity, 0x3f800000u - 0x3f3504f3u));
  Value *k = b.CreateAdd(k0, b.CreateSub(b.CreateLShr(iu, u32(ity, 23)), u32(ity, 0x7f)));
  Value *fbits = b.CreateAdd(b.CreateAnd(iu, u32(ity, 0x007fffffu)), u32(ity, 0x3f3504f3u));
  Value *f = b.CreateFSub(b.CreateBitCast(fbits, fty), f32(fty, 1.0f));
  Value *s = b.CreateFDiv(f, b.CreateFAdd(f32(fty, 2.0f), f));
  Value *z = b.CreateFMul(s, s), *w = b.CreateFMul(z, z);
  Value *r = b.CreateFAdd(
      b.CreateFMul(z, b.CreateFAdd(f32(fty, kLogLg[0]), b.CreateFMul(w, f32(fty, kLogLg[2])))),
      b.CreateFMul(w, b.CreateFAdd(f32(fty, kLogLg[1]), b.CreateFMul(w, f32(fty, kLogLg[3])))));
  Value *hfsq = b.CreateFMul(b.CreateFMul(f32(fty, 0.5f), f), f);
  Value *dk = b.CreateSIToFP(k, fty);
  Value *res = b.CreateFMul(s, b.CreateFAdd(hfsq, r));
  res = b.CreateFAdd(res, b.CreateFMul(dk, f32(fty, prng::kLn2Lo)));
  res = b.CreateFSub(res, hfsq);
  res = b.CreateFAdd(res, f);
  res = b.CreateFAdd(res, b.CreateFMul(dk, f32(fty, prng::kLn2Hi)));
  // Edges, as prng::logF32: 0 -> -inf, negative -> NaN, NaN and +inf unchanged.
  const float inf = std::numeric_limits<float>::infinity();
  res = b.CreateSelect(b.CreateFCmpOEQ(u, f32(fty, 0.0f)), f32(fty, -inf), res);
  res = b.CreateSelect(b.CreateFCmpOLT(u, f32(fty, 0.0f)),
                       f32(fty, std::numeric_limits<float>::quiet_NaN()), res);
  return b.CreateSelect(b.CreateFCmpUEQ(u, f32(fty, inf)), u, res);
}

Value *emitLog1pF32(IRBuilderBase &b, Value *x) {
  Type *fty = x->getType();
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
  Value *w = b.CreateFNeg(emitLog1pF32(b, b.CreateFMul(x, b.CreateFNeg(x))));
  Value *small = b.CreateFCmpOLT(w, f32(fty, 5.0f));
  auto coef = [&](int i) {
    return b.CreateSelect(small, f32(fty, prng::kErfInvSmall[i]), f32(fty, prng::kErfInvLarge[i]));
  };
  Value *sq = b.CreateIntrinsic(Intrinsic::sqrt, {fty}, {w});
  Value *t = b.CreateSelect(small, b.CreateFSub(w, f32(fty, 2.5f)), b.CreateFSub(sq, f32(fty, 3.0f)));
  Value *p = coef(0);
  for (int i = 1; i < 9; ++i) p = fma(b, p, t, coef(i));
  Value *absx = b.CreateIntrinsic(Intrinsic::fabs, {fty}, {x});
  Value *edge = b.CreateFMul(x, f32(fty, std::numeric_limits<float>::infinity()));
  return b.CreateSelect(b.CreateFCmpOEQ(absx, f32(fty, 1.0f)), edge, b.CreateFMul(p, x));
}

} // namespace spmd::codegen
