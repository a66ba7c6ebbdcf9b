// ===- Grad.h - reverse-mode differentiation of jaxprs ------------------------===//
#pragma once
#include "ir/IR.h"
#include "transforms/Vmap.h"

#include <vector>

namespace spmd::transforms {

/// Given `f`, a closed jaxpr whose first output is an f32[] scalar, returns a closed
/// jaxpr with the same invars whose outputs are the value of f's first output followed
/// by the gradient with respect to each invar listed in `argnums` (in order). The
/// backward pass of a pmap is a pmap on the same devices; vmaps in `f` are batched away
/// first; loops store what the backward pass needs. Non-differentiable primitives
/// (pmax, pmin, integer or key values on the path) raise a UserError at `loc`.
/// `outer`: the sizes of the axes in scope where f is differentiated (for vmaps in f).
ir::Jaxpr valueAndGrad(ir::Module &m, const ir::Jaxpr &f, const std::vector<int> &argnums,
                       SrcRange loc, const AxisSizes &outer = {});

/// Whether the VJP table has an entry for `op`: a rule, a zero cotangent (integer
/// results) or an explicit "not differentiable" (the op-coverage test).
bool hasVjpRule(ir::Op op);

}  // namespace spmd::transforms
