// ===- VmapTestUtil.h - building vmapped jaxprs and checking them against RefEval ===//
//
// The vmap property: eliminateVmaps(f)(xs) equals f evaluated example by example (the
// reference interpreter runs a vmap by running its body once per example). Helpers here
// build a jaxpr around one map equation with random in/out axes and check that property.
#pragma once

#include "RefEval.h"
#include "ir/IR.h"

#include <functional>
#include <random>
#include <string>
#include <vector>

namespace spmd::testing {

/// Builds a map body from its invars, emitting through the Builder; returns outvars.
using BodyFn = std::function<std::vector<ir::Atom>(ir::Builder &, const std::vector<ir::Var> &)>;

constexpr int kNone = -1;  ///< in_axes None

/// Emits `op` (vmap or pmap) of size `n` over `ins` with `inAxes` (kNone = broadcast),
/// body from `body`, results stacked at `outAxes` (empty: random valid axes from `rng`).
std::vector<ir::Var> emitMap(ir::Builder &b, ir::Op op, const std::vector<ir::Atom> &ins,
                             const std::vector<int> &inAxes, int64_t n, const std::string &axis,
                             const BodyFn &body, std::vector<int> outAxes, std::mt19937 &rng);

/// A random per-example shape of rank <= maxRank with dims in [1, 4].
ir::Shape randomShape(std::mt19937 &rng, int maxRank = 3, int minRank = 0);
/// A random in-axis for a per-example rank: 0, 1, last, or kNone.
int randomInAxis(std::mt19937 &rng, int exampleRank, bool allowNone = true);
/// The full (stacked) type of an example type with in-axis `ax` and batch size n.
ir::Type stackedType(ir::DType d, const ir::Shape &example, int ax, int64_t n);

/// Random inputs for `j`'s invars (floats in [-2, 2], ints in [-5, 5], random bools,
/// keys from random words).
std::vector<Arr> randomInputs(const ir::Jaxpr &j, std::mt19937 &rng);

/// Checks the vmap property for `j` on random inputs: verifies the batched jaxpr, that
/// it holds no vmap, and that it computes what `j` computes. Returns the batched jaxpr.
ir::Jaxpr checkVmap(ir::Module &m, const ir::Jaxpr &j, std::mt19937 &rng);

/// A top-level jaxpr with invars of `types`, one vmap over them, returning its results.
ir::Jaxpr vmapped(ir::Module &m, const std::vector<ir::Type> &types, const std::vector<int> &inAxes,
                  int64_t n, const std::string &axis, const BodyFn &body, std::mt19937 &rng,
                  std::vector<int> outAxes = {});

}  // namespace spmd::testing
