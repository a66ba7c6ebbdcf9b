// ===- InPlace.h - may a jaxpr write an output over one of its inputs? ----------===//
//
// The IR half of buffer donation (Note [Buffer donation] in InPlace.cpp): whether a pmap
// body may have its output written into the memory of one of its inputs. The other
// half (the input dies at the launch, the buffers and the layouts agree) is the
// code generator's, which knows the buffers (codegen/EmitRegions.cpp).
#pragma once

#include "ir/IR.h"

namespace spmd::ir {

/// Whether `body` computes its outvar `y` correctly when y's buffer is the buffer of its
/// invar `x` (same type): x and everything computed from it are read before y is
/// written, or at the same element by the elementwise equation that writes y.
bool canWriteOver(const Jaxpr &body, const Var &x, const Atom &y);

}  // namespace spmd::ir
