// ===- RefEval.h - the reference interpreter of the IR, for tests only ---------===//
//
// Evaluates a jaxpr on host arrays with plain loops, in double precision. The one
// interpreter behind every IR test: the vmap tests compare a batched program with it, the
// grad tests take finite differences of it.
//
// pmap and vmap are evaluated the obvious way: the body runs once per example, all
// examples (replicas) in lock step, so a collective sees every replica of its axes and is
// computed across them; nested maps multiply the replicas (Note [Replicas] in RefEval.cpp).
// Random primitives use a simple hash, not threefry: the tests only need them
// deterministic and elementwise over keys.
//
// Two precisions: `Declared` rounds every result to its dtype (f32 rounding, 32-bit
// wraparound), as compiled code does; `Float64` keeps floats in double whatever their
// declared dtype (ints still wrap), so finite differences of it are accurate enough to
// check gradients.
#pragma once

#include "ir/IR.h"

#include <vector>

namespace spmd::testing {

/// A host array. Ints and bools are stored exactly in doubles; a key is two u32 words.
struct Arr {
  ir::DType dtype = ir::DType::F32;
  ir::Shape shape;
  std::vector<double> v;  ///< row-major; keys: 2 words per element
  ir::Type type() const { return {dtype, shape}; }
  int64_t numel() const;
};

/// An array of type `t` with every word `fill`.
Arr full(const ir::Type &t, double fill = 0);

enum class Precision {
  Declared,  ///< floats rounded to their dtype after every primitive
  Float64,   ///< floats kept in double (for finite differences)
};

struct EvalOptions {
  Precision precision = Precision::Declared;
  /// Host ops (print, assert_close) append their operands here when given.
  std::vector<Arr> *hostLog = nullptr;
};

/// Whether the interpreter has a rule for `op` (and, for an elementwise op or a collective,
/// its per-op part). tests/unit/codegen/test_op_coverage.cpp walks Ops.def with it.
bool refEvalHasRule(ir::Op op);

/// Evaluates `j` (no axes bound) on its inputs, one per invar.
std::vector<Arr> refEval(const ir::Jaxpr &j, const std::vector<Arr> &ins,
                         const EvalOptions &opts = {});

}  // namespace spmd::testing
