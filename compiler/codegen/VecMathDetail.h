// ===- VecMathDetail.h - helpers shared by the VecMath emitters -------------===//
//
// Small IR-building helpers for VecMath.cpp and VecMathTrig.cpp: constants splatted to
// an operand's shape, intrinsic calls, Horner's rule with fused multiply-adds.
#pragma once

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>

#include <initializer_list>

namespace spmd::codegen::vecmath {

inline llvm::Constant *fc(llvm::Type *ty, double v) { return llvm::ConstantFP::get(ty, v); }
inline llvm::Constant *ic(llvm::Type *ty, int64_t v) {
  return llvm::ConstantInt::get(ty, uint64_t(v), true);
}

/// `v`'s shape (scalar or vector) with element type `elem`.
inline llvm::Type *like(llvm::Value *v, llvm::Type *elem) {
  return v->getType()->getWithNewType(elem);
}

inline llvm::Value *call(llvm::IRBuilderBase &b, llvm::Intrinsic::ID id,
                         std::initializer_list<llvm::Value *> args) {
  return b.CreateIntrinsic(id, {(*args.begin())->getType()}, args);
}
inline llvm::Value *fma(llvm::IRBuilderBase &b, llvm::Value *x, llvm::Value *y, llvm::Value *z) {
  return call(b, llvm::Intrinsic::fma, {x, y, z});
}
inline llvm::Value *fabs(llvm::IRBuilderBase &b, llvm::Value *x) {
  return call(b, llvm::Intrinsic::fabs, {x});
}

/// c[0] * t^(n-1) + ... + c[n-1] by Horner's rule with fused multiply-adds.
inline llvm::Value *horner(llvm::IRBuilderBase &b, llvm::Value *t,
                           std::initializer_list<double> c) {
  llvm::Type *ty = t->getType();
  llvm::Value *p = fc(ty, *c.begin());
  for (auto it = c.begin() + 1; it != c.end(); ++it) p = fma(b, p, t, fc(ty, *it));
  return p;
}

}  // namespace spmd::codegen::vecmath
