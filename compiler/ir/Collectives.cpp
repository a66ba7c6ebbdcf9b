// ===- Collectives.cpp - the table of Collectives.h ---------------------------===//
#include "ir/Collectives.h"

#include <array>
#include <optional>

namespace spmd::ir {

const CollectiveInfo *collectiveInfo(Op op) {
  static const std::array<std::optional<CollectiveInfo>, kNumOps> table = [] {
    std::array<std::optional<CollectiveInfo>, kNumOps> t{};
    auto folds = [&](Op op, Op combiner, Op localReduce, bool invariant) {
      t[size_t(op)] = CollectiveInfo{true, combiner, localReduce, invariant};
    };
    folds(Op::Psum, Op::Add, Op::ReduceSum, true);
    folds(Op::Pmax, Op::Max, Op::ReduceMax, true);
    folds(Op::Pmin, Op::Min, Op::ReduceMin, true);
    folds(Op::ReduceScatter, Op::Add, Op::ReduceSum, false);  // each member keeps a block
    auto moves = [&](Op op, bool invariant) {
      CollectiveInfo c;
      c.invariant = invariant;
      t[size_t(op)] = c;
    };
    moves(Op::AllGather, true);
    moves(Op::Ppermute, false);
    moves(Op::AllToAll, false);
    moves(Op::AxisIndex, false);
    return t;
  }();
  auto &r = table[size_t(op)];
  return r ? &*r : nullptr;
}

}  // namespace spmd::ir
