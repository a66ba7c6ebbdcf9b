// ===- BatchRules.h - the batching rules behind eliminateVmaps (internal) -------===//
//
// The vmap pass (Vmap.cpp) walks a vmap's body once, equation by equation, and asks the
// rule table for each primitive how to compute it on the whole batch at once, as JAX's
// `batching.primitive_batchers` does. A value inside the walk is a BVal: an atom of the
// output jaxpr plus where its batch dimension is (or kNotMapped when every example sees
// the same value). Rules take the operands' BVals and emit batched equations through the
// Batcher's Builder, so every emitted type comes from inferTypes.
//
// Rules live in four files along natural seams: BatchRules.cpp (elementwise, shapes,
// indexing, dot_general, random), BatchCollectives.cpp (the named-axis collectives),
// BatchMixedAxes.cpp (collectives over the vmap's axis together with other axes) and
// Vmap.cpp (the table itself, region ops and the pass).
#pragma once

#include "ir/IR.h"
#include "transforms/Vmap.h"

#include <set>
#include <string>
#include <vector>

namespace spmd::transforms::batching {

/// JAX's `not_mapped`: the value is the same for every example.
constexpr int kNotMapped = -1;

/// A value while batching: `a` holds the whole batch, with the batch dimension at
/// `bdim`, or the per-example value itself when bdim is kNotMapped.
struct BVal {
  ir::Atom a;
  int bdim = kNotMapped;
  bool batched() const { return bdim != kNotMapped; }
};

/// The state of batching one vmap: the axis, and the Builder equations go to.
class Batcher {
public:
  Batcher(ir::Builder &b, std::string axis, int64_t size, AxisSizes sizes = {},
          std::set<std::string> outerVmaps = {})
      : b(b), axis(std::move(axis)), size(size), sizes(std::move(sizes)),
        outerVmaps(std::move(outerVmaps)) {}

  ir::Builder &b;
  std::string axis;  ///< the vmap's axis name; empty when anonymous
  int64_t size;      ///< the batch size N
  AxisSizes sizes;   ///< every named axis in scope (this one too), for mixed tuples
  /// The axes of the vmaps around this one, still to be batched (Note [Positional axes of
  /// a reduction] in BatchCollectives.cpp); empty where they are not known.
  std::set<std::string> outerVmaps;

  /// The same axis, emitting into another Builder (a region being batched).
  Batcher into(ir::Builder &nb) const { return Batcher(nb, axis, size, sizes, outerVmaps); }
  /// The size of axis `name`, which must be in scope.
  int64_t sizeOf(const std::string &name) const;

  /// The per-example type of `v` (its type without the batch dimension).
  ir::Type exampleType(const BVal &v) const;
  /// The whole batch with the batch dimension at `d`; an unbatched value is broadcast.
  ir::Atom moveTo(const BVal &v, int d);
  /// moveTo(v, 0): the form most rules want (JAX's `moveaxis(x, bd, 0)`).
  ir::Atom at0(const BVal &v) { return moveTo(v, 0); }
  /// The type of a batched value with its batch dimension at 0.
  ir::Type batchedType(const ir::Type &example) const;

  /// Batches `body` given its inputs and emits it through `b`; returns its outputs.
  std::vector<BVal> jaxpr(const ir::Jaxpr &body, const std::vector<BVal> &ins);
  /// Batches one equation (the rule table's dispatch).
  std::vector<BVal> eqn(const ir::Eqn &e, const std::vector<BVal> &ins);
  /// Re-emits `e` unchanged on unbatched operands (regions copied with fresh variables).
  std::vector<BVal> copy(const ir::Eqn &e, const std::vector<BVal> &ins);
  /// A new variable of `t` in the output module.
  ir::Var newVar(const ir::Type &t) { return b.newVar(t); }
};

/// A batching rule: emits the batched form of `e` given its operands' BVals.
using BatchRule = std::vector<BVal> (*)(Batcher &, const ir::Eqn &, const std::vector<BVal> &);

// ---- rules (BatchRules.cpp) ----
std::vector<BVal> batchElementwise(Batcher &, const ir::Eqn &, const std::vector<BVal> &);
std::vector<BVal> batchReduce(Batcher &, const ir::Eqn &, const std::vector<BVal> &);
std::vector<BVal> batchBroadcastInDim(Batcher &, const ir::Eqn &, const std::vector<BVal> &);
std::vector<BVal> batchReshape(Batcher &, const ir::Eqn &, const std::vector<BVal> &);
std::vector<BVal> batchTranspose(Batcher &, const ir::Eqn &, const std::vector<BVal> &);
std::vector<BVal> batchConcatenate(Batcher &, const ir::Eqn &, const std::vector<BVal> &);
std::vector<BVal> batchSlice(Batcher &, const ir::Eqn &, const std::vector<BVal> &);
std::vector<BVal> batchPad(Batcher &, const ir::Eqn &, const std::vector<BVal> &);
std::vector<BVal> batchRev(Batcher &, const ir::Eqn &, const std::vector<BVal> &);
std::vector<BVal> batchDynamicSlice(Batcher &, const ir::Eqn &, const std::vector<BVal> &);
std::vector<BVal> batchCheck(Batcher &, const ir::Eqn &, const std::vector<BVal> &);
std::vector<BVal> batchDynamicUpdateSlice(Batcher &, const ir::Eqn &, const std::vector<BVal> &);
std::vector<BVal> batchDotGeneral(Batcher &, const ir::Eqn &, const std::vector<BVal> &);
std::vector<BVal> batchRandomSeed(Batcher &, const ir::Eqn &, const std::vector<BVal> &);
/// random_split/bits/wrap/unwrap: the batch dimension is one more leading key dimension.
std::vector<BVal> batchLeadingKeyDims(Batcher &, const ir::Eqn &, const std::vector<BVal> &);

// ---- rules (BatchCollectives.cpp) ----
std::vector<BVal> batchAllReduce(Batcher &, const ir::Eqn &,
                                 const std::vector<BVal> &);  ///< psum pmax pmin
std::vector<BVal> batchAxisIndex(Batcher &, const ir::Eqn &, const std::vector<BVal> &);
std::vector<BVal> batchAllGather(Batcher &, const ir::Eqn &, const std::vector<BVal> &);
std::vector<BVal> batchPpermute(Batcher &, const ir::Eqn &, const std::vector<BVal> &);
std::vector<BVal> batchAllToAll(Batcher &, const ir::Eqn &, const std::vector<BVal> &);
std::vector<BVal> batchReduceScatter(Batcher &, const ir::Eqn &, const std::vector<BVal> &);

// ---- a collective over the vmap's axis and other axes (BatchMixedAxes.cpp) ----
/// The names of such a collective's tuple before and after the vmap's axis.
struct MixedAxes {
  std::vector<std::string> pre, post;
  /// The other axes, in the tuple's order.
  std::vector<std::string> rest() const {
    std::vector<std::string> r = pre;
    r.insert(r.end(), post.begin(), post.end());
    return r;
  }
};
std::vector<BVal> mixedAxisIndex(Batcher &, const ir::Eqn &, const MixedAxes &);
std::vector<BVal> mixedAllGather(Batcher &, const ir::Eqn &, const std::vector<BVal> &,
                                 const MixedAxes &);
std::vector<BVal> mixedPpermute(Batcher &, const ir::Eqn &, const std::vector<BVal> &,
                                const MixedAxes &);
std::vector<BVal> mixedAllToAll(Batcher &, const ir::Eqn &, const std::vector<BVal> &,
                                const MixedAxes &);
/// `total`: the sum of the operand over the batch (a per-example shape).
std::vector<BVal> mixedReduceScatter(Batcher &, const ir::Eqn &, const std::vector<BVal> &,
                                     const MixedAxes &, ir::Atom total);

// ---- helpers shared by the rule files ----
/// `ints` shifted by `k` (axis numbers of a per-example value -> of the batch at 0).
std::vector<int64_t> shifted(std::vector<int64_t> ints, int64_t k = 1);
/// `[n] + s`.
ir::Shape prepend(int64_t n, const ir::Shape &s);

}  // namespace spmd::transforms::batching
