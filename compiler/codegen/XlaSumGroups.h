// ===- XlaSumGroups.h - YNNPACK's order for any reduced axes (internal) -----===//
//
// Note [YNNPACK groups] (XlaSumGroups.cpp).
#pragma once

#include "codegen/XlaSumEmit.h"

namespace spmd::codegen::xlasum {

/// Whether Note [YNNPACK groups] gives XLA's order for a sum of `shape` over the axes
/// marked in `red` (at least 4096 elements).
bool ynnGroupsModelled(const std::vector<int64_t> &shape, const std::vector<bool> &red);

/// The f32 sum of the row-major array at `src` (shape `shape`) over the axes marked in
/// `red` into `dst` (its kept axes, row-major), in YNNPACK's order (Note [YNNPACK
/// groups]). Large scratch buffers are appended to `heap` (freed by the caller).
void emitYnnGroups(Emit &E, const std::vector<int64_t> &shape, const std::vector<bool> &red,
                   Value *src, Value *dst, std::vector<Value *> &heap);

}  // namespace spmd::codegen::xlasum
