// ===- grad_eval.h - a float64 reference interpreter for jaxprs (grad tests) ---===//
//
// Evaluates a closed jaxpr in double precision whatever its declared float dtypes, so
// finite differences of it are accurate enough to check gradients. pmap bodies run for
// all replicas in lockstep (one environment per replica, equation by equation), so a
// collective sees every replica's operand and is computed across them; nested pmaps
// multiply the replicas. Random numbers are not supported (grad tests do not need them).
#pragma once

#include "ir/IR.h"

#include <vector>

namespace spmd::gradtest {

/// An array value: every element stored as a double (ints and bools exactly).
struct Value {
  ir::DType dtype = ir::DType::F64;
  ir::Shape shape;
  std::vector<double> data;
  int64_t numel() const { return int64_t(data.size()); }
};

/// A value of type `t` filled with `fill`.
Value makeValue(const ir::Type &t, double fill = 0);

/// Runs closed jaxpr `j` on `args` (one per invar) and returns its outputs.
std::vector<Value> evalJaxpr(const ir::Jaxpr &j, const std::vector<Value> &args);

} // namespace spmd::gradtest
