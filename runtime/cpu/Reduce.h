// ===- Reduce.h - elementwise reductions over several buffers, in a fixed order ===//
//
// The arithmetic of allreduce and reduce_scatter on the CPU: dst[i] = identity op
// src0[i] op src1[i] op ... op srcN-1[i], always left to right in member order, so a sum
// is bit-identical from run to run whatever the thread timing (Note [Fold from the
// identity]). Integer sums wrap; bool sum/max are "or", prod/min are "and"; float
// max/min as XLA:CPU (Note [Collective max]).
#pragma once

#include "Device.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace spmd::rt {
namespace reduce_detail {

// Note [Fold from the identity]: XLA:CPU's all-reduce and reduce-scatter
// (in_process_communicator.cc, ReduceScatter) fill the result with the reduction's
// identity (0, 1, +-inf) and fold every member into it, `acc = acc op x_j`, j in group
// order, so the first member goes through the operation too: a sum of members that are
// all -0.0 is 0 + -0 + ... = +0 (`psum(-zeros)` is +0 in JAX; spmdrun gave -0 when it
// started from member 0's value), a lone member's denormal is flushed (0 + 1e-40 is 0
// under DAZ, Note [Denormals]) and a lone member's NaN is skipped by pmax (-inf). fold
// does the same, a group of one member included (reduce_scatter always; allreduce only
// when the launch has more than one device: XLA drops an all-reduce over a single
// device, which then copies, CpuCommunicator::allreduce). Starting at the identity
// changes nothing else: x + 0 is x, x * 1 is x, and an integer or bool operation with
// its identity is exact. Checked in JAX 0.10.2 (tests/golden/psum_negzero.py).
// Unobservable in spmdrun's output and not matched: which NaN's payload a sum of
// several NaNs keeps (XLA: the last member's; here whichever the compiler's operand
// order gives).
template <typename T>
struct Sum {
  static constexpr T identity() { return T(0); }
  static T apply(T a, T b) { return a + b; }
};
template <>
struct Sum<int32_t> {  // wraps instead of overflowing (no UB)
  static constexpr int32_t identity() { return 0; }
  static int32_t apply(int32_t a, int32_t b) {
    return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
  }
};
template <typename T>
struct Prod {
  static constexpr T identity() { return T(1); }
  static T apply(T a, T b) { return a * b; }
};
template <>
struct Prod<int32_t> {
  static constexpr int32_t identity() { return 1; }
  static int32_t apply(int32_t a, int32_t b) {
    return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
  }
};
// Note [Collective max]: XLA:CPU's all-reduce max starts from the identity (-inf) and
// takes each member's value in member order when it is greater, `x > acc ? x : acc`,
// with denormals read and written as 0 (Note [Denormals]). So, unlike jnp.max, pmax
// and pmin skip NaN (all NaN gives -inf, or inf for pmin), a tie such as -0.0 against
// 0.0 keeps the earlier member's, and a denormal result is a signed 0, as JAX on the
// CPU gives. fold starts from the identity (Note [Fold from the identity]), so a group
// of one member gives -inf for NaN, as XLA does. `a` is the running result, `b` the
// next member's value; a NaN `a` (never one fold makes) counts as the identity.
template <typename T>
T flushDenormal(T x) {
  if constexpr (std::is_floating_point_v<T>)
    if (x != 0 && std::abs(x) < std::numeric_limits<T>::min()) return std::copysign(T(0), x);
  return x;
}
template <typename T>
struct Max {
  static constexpr T identity() {
    return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::lowest();
  }
  static T apply(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      a = a != a ? -std::numeric_limits<T>::infinity() : flushDenormal(a);
      b = flushDenormal(b);
    }
    return b > a ? b : a;
  }
};
template <typename T>
struct Min {
  static constexpr T identity() {
    return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::max();
  }
  static T apply(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      a = a != a ? std::numeric_limits<T>::infinity() : flushDenormal(a);
      b = flushDenormal(b);
    }
    return b < a ? b : a;
  }
};
struct Or {  // bools are normalised to 0/1 on the way
  static constexpr uint8_t identity() { return 0; }
  static uint8_t apply(uint8_t a, uint8_t b) { return (a | b) != 0; }
};
struct And {
  static constexpr uint8_t identity() { return 1; }
  static uint8_t apply(uint8_t a, uint8_t b) { return (a != 0) & (b != 0); }
};

// GCC at -O2 (the default RelWithDebInfo build) vectorises only loops that need no
// run-time alias check, which fold's inner loop does: with its cheap cost model the
// fold stays scalar (addss), at a third of the speed of the -O3 code (addps). The
// vector code folds each element in the same order, so results are unchanged.
#if defined(__GNUC__) && !defined(__clang__)
#define SPMD_VECTORISE __attribute__((optimize("vect-cost-model=dynamic")))
#else
#define SPMD_VECTORISE
#endif

/// dst[0, n) = fold of op over srcs[j][first, first + n), j = 0..nsrc-1, from op's
/// identity (Note [Fold from the identity]), processed in blocks so that the running
/// result stays in cache.
template <typename T, typename Op>
SPMD_VECTORISE void fold(void *dst, const void *const *srcs, int64_t nsrc, int64_t first,
                         int64_t n) {
  constexpr int64_t kBlock = 2048;
  T *out = static_cast<T *>(dst);
  for (int64_t b = 0; b < n; b += kBlock) {
    int64_t e = std::min(n, b + kBlock);
    const T *s0 = static_cast<const T *>(srcs[0]) + first;
    for (int64_t i = b; i < e; ++i) out[i] = Op::apply(Op::identity(), s0[i]);  // may alias
    for (int64_t j = 1; j < nsrc; ++j) {
      const T *s = static_cast<const T *>(srcs[j]) + first;
      for (int64_t i = b; i < e; ++i) out[i] = Op::apply(out[i], s[i]);
    }
  }
}

template <typename T>
void foldOp(RedOp op, void *dst, const void *const *srcs, int64_t nsrc, int64_t first, int64_t n) {
  switch (op) {
  case RedOp::Sum: return fold<T, Sum<T>>(dst, srcs, nsrc, first, n);
  case RedOp::Prod: return fold<T, Prod<T>>(dst, srcs, nsrc, first, n);
  case RedOp::Max: return fold<T, Max<T>>(dst, srcs, nsrc, first, n);
  case RedOp::Min: return fold<T, Min<T>>(dst, srcs, nsrc, first, n);
  }
}

}  // namespace reduce_detail

/// dst[0, n) = srcs[0][first + i] op ... op srcs[nsrc-1][first + i] (element offsets).
/// dst may equal srcs[0] + first. dt must be a numeric dtype (not Key).
inline void reduceInto(void *dst, const void *const *srcs, int64_t nsrc, int64_t first, int64_t n,
                       DType dt, RedOp op) {
  using namespace reduce_detail;
  switch (dt) {
  case DType::Bool:
    if (op == RedOp::Sum || op == RedOp::Max) return fold<uint8_t, Or>(dst, srcs, nsrc, first, n);
    return fold<uint8_t, And>(dst, srcs, nsrc, first, n);
  case DType::I32: return foldOp<int32_t>(op, dst, srcs, nsrc, first, n);
  case DType::U32: return foldOp<uint32_t>(op, dst, srcs, nsrc, first, n);
  case DType::F32: return foldOp<float>(op, dst, srcs, nsrc, first, n);
  case DType::F64: return foldOp<double>(op, dst, srcs, nsrc, first, n);
  case DType::Key: return;
  }
}

}  // namespace spmd::rt
