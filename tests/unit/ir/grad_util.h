// ===- grad_util.h - building jaxprs and checking gradients, for test_grad ----===//
//
// `buildJaxpr` makes a closed jaxpr from a lambda over a Builder; `checkGradient`
// compares valueAndGrad's result, evaluated by the reference interpreter in float64
// (RefEval.h, Precision::Float64), with central finite differences of the function itself.
#pragma once

#include "RefEval.h"
#include "ir/IR.h"

#include <functional>
#include <random>
#include <string>
#include <vector>

namespace spmd::gradtest {

using testing::Arr;

/// Runs `j` on `args` in float64 (the reference interpreter, Precision::Float64).
std::vector<Arr> evalF64(const ir::Jaxpr &j, const std::vector<Arr> &args);

using BodyFn = std::function<std::vector<ir::Atom>(ir::Builder &, const std::vector<ir::Var> &)>;

/// A closed jaxpr with invars of `types` and the outputs `body` returns.
ir::Jaxpr buildJaxpr(ir::Module &m, const std::vector<ir::Type> &types, const BodyFn &body);

/// `ir::verify` on a jaxpr on its own (as the `main` of a scratch module).
void verifyJaxpr(const ir::Jaxpr &j);

/// Random values of type `t`, uniform in [lo, hi) (ints and bools rounded).
Arr randomValue(std::mt19937 &rng, const ir::Type &t, double lo, double hi);

/// valueAndGrad(f, argnums) checked at `args`: the value equals f's, every gradient
/// element matches a central difference of f within `tol` (relative to 1 + |fd|).
/// Returns the gradient jaxpr (already verified).
ir::Jaxpr checkGradient(ir::Module &m, const ir::Jaxpr &f, const std::vector<int> &argnums,
                        const std::vector<Arr> &args, double tol = 1e-6);

/// The scalar sum(y * w) of `y` weighted by a new invar `w` appended to `j`'s invars.
/// Turns an array-valued body into a scalar loss whose gradient is not all ones.
void weightedSum(ir::Module &m, ir::Jaxpr &j, ir::Atom y);

}  // namespace spmd::gradtest
