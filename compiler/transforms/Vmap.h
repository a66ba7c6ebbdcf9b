// ===- Vmap.h - vmap as a batching transform -----------------------------------===//
#pragma once
#include "ir/IR.h"

namespace spmd::transforms {

/// Removes every `vmap` equation in `j` (recursively, including inside pmap bodies,
/// loops and conditionals) by batching its body with JAX's batching rules: each
/// primitive works on the whole batch at once (a matrix-vector product becomes one
/// batched dot_general, a psum over the vmap's axis a reduction along the batch
/// dimension). Captured values stay unbatched until they meet a batched one.
void eliminateVmaps(ir::Module &m, ir::Jaxpr &j);

/// The module pass: eliminateVmaps on `main`.
inline void vmapPass(ir::Module &m) { eliminateVmaps(m, m.main); }

} // namespace spmd::transforms
