// ===- RefEvalArrays.h - host-array helpers of the reference interpreter (tests) -===//
//
// Shared by RefEval.cpp (replicas, maps, collectives) and RefEvalPrims.cpp (one
// primitive on one replica). Plain loops over row-major arrays; nothing clever.
#pragma once

#include "RefEval.h"

#include <functional>

namespace spmd::testing::ref {

int W(const Arr &a);                 ///< words per element: 2 for keys, else 1
Arr make(ir::DType d, ir::Shape s);  ///< zeros
std::vector<int64_t> strides(const ir::Shape &s);
/// Calls f(multi-index, flat index) for every element of `s`.
void forEach(const ir::Shape &s,
             const std::function<void(const std::vector<int64_t> &, int64_t)> &f);
int64_t flatOf(const std::vector<int64_t> &idx, const ir::Shape &s);
void copyElem(Arr &dst, int64_t di, const Arr &src, int64_t si);
/// `x` rounded/wrapped to what dtype `d` can hold (f32 rounding, 32-bit wraparound);
/// with Precision::Float64 floats are kept as they are.
double wrap(ir::DType d, double x, Precision p = Precision::Declared);
uint32_t u32(double x);
/// Element `flat` of `a` broadcast to an elementwise result (scalars repeat).
double at(const Arr &a, int64_t flat);
Arr transposeArr(const Arr &x, const std::vector<int64_t> &perm);
/// Stacks `xs` along a new dimension `d`.
Arr stack(const std::vector<Arr> &xs, int64_t d);
/// Index `i` of dimension `d` (the dimension removed).
Arr take(const Arr &x, int64_t d, int64_t i);
/// Elements [lo, hi) of dimension d.
Arr sliceDim(const Arr &x, int64_t d, int64_t lo, int64_t hi);
Arr concat(const std::vector<Arr> &xs, int64_t d);
Arr reshapeArr(Arr x, ir::Shape s);

/// A binary or compare primitive on two elements of dtype `d` (not yet wrapped).
double binary(ir::Op op, ir::DType d, double a, double b);
/// One non-region, non-collective, non-host primitive on one replica's operands.
Arr refEvalPrim(const ir::Eqn &e, const std::vector<Arr> &in, Precision p);
/// Whether refEvalPrim has a rule for `op` (for an elementwise op: its scalar function too).
bool hasPrimRule(ir::Op op);

}  // namespace spmd::testing::ref
