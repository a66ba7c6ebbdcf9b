// ===- Vmap.h - vmap as a batching transform -----------------------------------===//
#pragma once
#include "ir/IR.h"

#include <map>
#include <string>

namespace spmd::transforms {

/// The sizes of named axes, by the name the IR knows them by.
using AxisSizes = std::map<std::string, int64_t>;

/// Removes every `vmap` equation in `j` (recursively, including inside pmap bodies,
/// loops and conditionals) by batching its body with JAX's batching rules: each
/// primitive works on the whole batch at once (a matrix-vector product becomes one
/// batched dot_general, a psum over the vmap's axis a reduction along the batch
/// dimension). Captured values stay unbatched until they meet a batched one.
/// `outer` gives the sizes of the axes bound around `j` (the pmaps and vmaps enclosing a
/// function differentiated by grad): a collective over a tuple that mixes the vmap's axis
/// with others needs them; the pmaps and vmaps inside `j` add their own.
void eliminateVmaps(ir::Module &m, ir::Jaxpr &j, const AxisSizes &outer = {});

/// Whether the batching rule table has an entry for `op` (the op-coverage test).
bool hasBatchRule(ir::Op op);

/// The module pass: eliminateVmaps on `main`.
inline void vmapPass(ir::Module &m) { eliminateVmaps(m, m.main); }

}  // namespace spmd::transforms
