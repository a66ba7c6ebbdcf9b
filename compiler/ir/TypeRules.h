// ===- TypeRules.h - the per-primitive type rules (inferTypes' table) -------------===//
//
// inferTypes (ir/IR.h) looks the op's rule up in one table indexed by ir::Op; elementwise
// and reduction categories share theirs. Exposed for the op-coverage test
// (tests/unit/codegen/test_op_coverage.cpp), which walks Ops.def and fails for an op
// without a rule.
#pragma once

#include "ir/IR.h"

namespace spmd::ir {

/// Whether `op` has a type rule (inferTypes fails as an internal error for one without).
bool hasTypeRule(Op op);

}  // namespace spmd::ir
