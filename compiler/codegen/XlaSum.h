// ===- XlaSum.h - float sums in XLA:CPU's order ----------------------------===//
//
// Note [XLA sum order] (XlaSum.cpp): a float32 reduce_sum / reduce_prod on the host CPU
// adds its elements in the order that jax.jit(jnp.sum) on XLA:CPU (jaxlib 0.10.2) does,
// so that spmdrun prints JAX's bits.
#pragma once

#include "codegen/LlvmEmitter.h"

namespace spmd::codegen {

/// Emits the reduction `e` (reduce_sum or reduce_prod of f32, host code) in XLA:CPU's
/// order of additions (Note [XLA sum order]). Returns false, emitting nothing, for a
/// reduction whose order is not one of the cases the note lists.
bool emitXlaOrderReduce(LlvmEmitter &L, const ir::Eqn &e);

}  // namespace spmd::codegen
