// ===- XlaSum.h - float sums in XLA:CPU's order ----------------------------===//
//
// Note [XLA sum order] (XlaSum.cpp): a float32 reduce_sum / reduce_prod on the host CPU
// adds its elements in the order that jax.jit(jnp.sum) on XLA:CPU (jaxlib 0.10.2) does,
// so that spmdrun prints JAX's bits.
#pragma once

#include "codegen/LlvmEmitter.h"

namespace spmd::codegen {

/// XLA:CPU sends a float sum of this many elements or more to YNNPACK (Note [XLA sum
/// order]), whose loop neither follows XLA's emitter nor contracts its fused input (Note
/// [FMA contraction] in EmitElementwise.cpp).
constexpr int64_t kYnnMinElems = 4096;

/// Emits the reduction `e` (reduce_sum or reduce_prod of f32, host code) in XLA:CPU's
/// order of additions (Note [XLA sum order]). Returns false, emitting nothing, for a
/// reduction whose order is not one of the cases the note lists.
bool emitXlaOrderReduce(LlvmEmitter &L, const ir::Eqn &e);

/// XLA's f32 vector . vector over more than 32 elements, `batch` times (Note [XLA dot
/// order] in EmitDot.cpp): dst[i] = sum_k A[i, k] * B[i, k], each product rounded, the
/// sums in the order of reduce_sum over the last axis of [batch, K]. A and B are
/// row-major [batch, K]; host code.
void emitXlaOrderDot(LlvmEmitter &L, llvm::Value *A, llvm::Value *B, llvm::Value *dst,
                     int64_t batch, int64_t K);

}  // namespace spmd::codegen
