// ===- ThreefryEmit.h - JAX's PRNG (threefry2x32) emitted as LLVM IR --------===//
//
// Emits, per output element, the computations of runtime/prng/Threefry2x32.h (the C++
// reference, which is checked against JAX itself), so that CPU (JIT) and GPU (PTX)
// kernels generate random numbers on the device with no host loop. Every function
// takes and returns scalars or vectors alike (i32 / i64 / float or <N x ...>), uses
// only integer and float arithmetic, selects and the intrinsics fshl, fabs, sqrt,
// fma and maxnum (no libm calls), so it works unchanged on NVPTX.
//
// How the IR primitives (compiler/ir/Ops.def) are computed, per output element.
// A `key` element is 8 bytes: the u32 words [k0, k1], k0 first. `i` is the row-major
// flat index of the element within the primitive's own `shape` param (an i64):
//
//   random_seed(s)            key = emitRandomSeed(s)              = [0, u32(s)]
//   random_split(k)[shape]    out[..., j] = emitSplitAt(k[...], j)  (j flat over shape)
//   random_fold_in(k, d)      out[e] = emitFoldIn(k[e], u32(d[e]))  (elementwise)
//   random_bits(k)[32, shape] out[..., i] = emitRandomBitsAt(k[...], i)
//   random_wrap / unwrap      the same bytes: u32[..., 2] <-> key[...], no computation
//
// where emitSplitAt(k, i) = threefry2x32(k, (hi32(i), lo32(i))) and
// emitRandomBitsAt(k, i) = xor of those two words. A batch of keys (from vmap) maps
// each key to its own block: element (b, i) uses key b and index i.
//
// Floating point: nothing here carries fast-math flags, and the few fused
// multiply-adds that JAX/XLA performs are explicit llvm.fma calls (see
// Note [Float rounding] in runtime/prng/Threefry2x32.h). The target must therefore NOT be
// configured with AllowFPOpFusion::Fast, or the backend would fuse other products
// and sums and the bits would differ from JAX's.
#pragma once

#include <utility>

namespace llvm {
class IRBuilderBase;
class Value;
}  // namespace llvm

namespace spmd::codegen {

/// A key or a pair of hash words: (k0, k1), i32 values of the same (vector) type.
using WordPair = std::pair<llvm::Value *, llvm::Value *>;

/// Emits threefry2x32 (20 rounds) on key (k0,k1) and counter (x0,x1), all i32 values
/// of one type (scalars or vectors); returns the two output words.
WordPair emitThreefry2x32(llvm::IRBuilderBase &b, llvm::Value *k0, llvm::Value *k1, llvm::Value *x0,
                          llvm::Value *x1);

/// random_seed: the key [0, seed] of an i32/u32 seed (JAX's key(seed) with x64 off).
WordPair emitRandomSeed(llvm::IRBuilderBase &b, llvm::Value *seed);

/// Element `index` (an i64, or a vector of i64 matching the key's width) of
/// split(key, shape): threefry2x32(key, (index >> 32, index & 0xffffffff)).
WordPair emitSplitAt(llvm::IRBuilderBase &b, WordPair key, llvm::Value *index);

/// fold_in(key, data) for an i32/u32 datum: threefry2x32(key, (0, data)).
WordPair emitFoldIn(llvm::IRBuilderBase &b, WordPair key, llvm::Value *data);

/// Element `index` (i64) of random_bits(key, 32, shape): the xor of emitSplitAt's words.
llvm::Value *emitRandomBitsAt(llvm::IRBuilderBase &b, WordPair key, llvm::Value *index);

/// uniform's element from its u32 bits: max(lo, fma(u, hi - lo, lo)) with
/// u = bitcast((bits >> 9) | 0x3F800000) - 1. lo, hi: float values of bits' width.
llvm::Value *emitUniformFromBits(llvm::IRBuilderBase &b, llvm::Value *bits, llvm::Value *lo,
                                 llvm::Value *hi);

/// normal's element from its u32 bits: sqrt(2) * erf_inv(uniform(bits, -1 + 2^-24, 1)).
llvm::Value *emitNormalFromBits(llvm::IRBuilderBase &b, llvm::Value *bits);

/// randint's element (i32) from the bits of its two subkeys (see prng::randintFromBits):
/// `higher` from split_at(key, 0), `lower` from split_at(key, 1), both at the same index.
llvm::Value *emitRandintFromBits(llvm::IRBuilderBase &b, llvm::Value *higher, llvm::Value *lower,
                                 llvm::Value *lo, llvm::Value *hi);

/// Emits an erf_inv for float32 matching prng::erfInvF32 bit for bit (XLA's Giles
/// polynomials; bit for bit jax.lax.erf_inv on CPU).
llvm::Value *emitErfInvF32(llvm::IRBuilderBase &b, llvm::Value *x);

/// Emits prng::log1pF32 (XLA's log1p: a rational form for |x| < sqrt(2) - 1, else
/// log(1 + x)), bit for bit.
llvm::Value *emitLog1pF32(llvm::IRBuilderBase &b, llvm::Value *x);

/// Emits prng::logF32 (XLA's CPU log, Cephes's logf; bit for bit jnp.log on CPU).
llvm::Value *emitLogF32(llvm::IRBuilderBase &b, llvm::Value *x);

}  // namespace spmd::codegen
