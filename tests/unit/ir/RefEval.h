// ===- RefEval.h - a tiny reference interpreter of the IR, for tests only -------===//
//
// Evaluates a jaxpr on host arrays with plain loops, in double precision. pmap and vmap
// are evaluated the obvious way: the body runs once per example, all examples in lock
// step, so collectives see every replica of their axes. That makes it the reference the
// vmap tests compare the batched program against. Random primitives use a simple hash,
// not threefry: the tests only need them deterministic and elementwise over keys.
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

/// Evaluates `j` (no axes bound) on its inputs. Host ops (print, assert_close) append
/// their operands to `hostLog` when given.
std::vector<Arr> refEval(const ir::Jaxpr &j, const std::vector<Arr> &ins, std::vector<Arr> *hostLog = nullptr);

} // namespace spmd::testing
