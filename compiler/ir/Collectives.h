// ===- Collectives.h - what each collective does with its group's values ------===//
//
// One table for the facts about collectives that several layers need: the batching
// rule (transforms/BatchCollectives.cpp) reduces a vmapped axis with `localReduce`, the
// replication check of shard_map (sema/ShardMap.cpp) asks `invariant`, and the code
// generator derives its runtime reduction codes and device combiners from `combiner`
// (codegen/EmitRegions.cpp, collectiveReduction). The op-coverage test fails for a
// collective in Ops.def without an entry.
#pragma once

#include "ir/IR.h"

namespace spmd::ir {

struct CollectiveInfo {
  /// Whether it folds the group's values (psum, pmax, pmin, reduce_scatter) rather than
  /// only moving them (all_gather, ppermute, all_to_all, axis_index).
  bool combines = false;
  /// For one that folds: the elementwise op folding two values, and the reduction that
  /// folds an axis of values in one array (a vmapped axis of the group).
  Op combiner = Op::Add, localReduce = Op::ReduceSum;
  /// Whether its result is the same on every member of the group (psum, pmax, pmin,
  /// all_gather), so that it no longer varies along the group's axes.
  bool invariant = false;
};

/// The entry of `op`, or null when `op` is not a collective.
const CollectiveInfo *collectiveInfo(Op op);

}  // namespace spmd::ir
