// ===- XlaSumEmit.h - the kernels of XLA:CPU's sum order (internal) --------===//
//
// Shared by XlaSum.cpp and XlaSumGroups.cpp only: the LLVM IR of YNNPACK's k1 and kn
// kernels and of XLA's loop emitter, as Note [XLA sum order] (XlaSum.cpp) describes them.
#pragma once

#include "codegen/XlaSum.h"

#include <llvm/IR/Intrinsics.h>

#include <algorithm>
#include <functional>
#include <vector>

namespace spmd::codegen::xlasum {

using namespace llvm;
using ir::DType;
using ir::Op;

constexpr int64_t kLanes = 16;         // YNNPACK's consistent f32 width
constexpr int64_t kTileArea = 32768;   // YNNPACK's tile, in f32 elements
constexpr int64_t kWindow = 32;        // XLA's TreeReductionRewriter window

inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// VF of LLVM's vectorisation of the row loop of a whole-array sum of [a, b], both in
/// 2..32: row a - 2, column b - 2; '0' when not vectorised. LLVM's cost model picks it
/// for the CPU that XLA compiles for, so the table is the host's (Note [XLA sum order]):
/// measured with JAX on an AVX-512 host (kVf) and on an AVX2 host without AVX-512
/// (kVfAvx2, an AMD EPYC: 8 and 4 for every b where AVX-512 gives 0 from b = 9).
inline const char *const kVfAvx512[31] = {
#include "codegen/XlaSumVf.inc"
};
inline const char *const kVfAvx2[31] = {
#include "codegen/XlaSumVfAvx2.inc"
};
/// The host's table: kVfAvx512 with AVX-512F, else kVfAvx2 (other CPUs are unmeasured).
/// SPMD_SUM_HOST=avx512 or avx2 in the environment picks one instead (tests use it to
/// check the other kind of host: Note [Host-dependent goldens] in tests/golden/run.sh).
const char *const *vfTable();
/// "avx512" or "avx2": which table vfTable() gives (part of the object cache's key).
const char *vfTableName();

struct Emit {
  LlvmEmitter &L;
  IRBuilder<> &b;
  Op comb;
  Type *f;
  FixedVectorType *v16;

  explicit Emit(LlvmEmitter &l, Op c)
      : L(l), b(l.b), comb(c), f(l.b.getFloatTy()), v16(FixedVectorType::get(f, kLanes)) {}

  Value *cf(float x) { return ConstantFP::get(f, x); }
  Value *zero16() { return ConstantFP::get(v16, 0.0); }
  Value *op(Value *x, Value *y) {
    if (auto *m = dyn_cast<Instruction>(y); m && comb == Op::Add && m->getMetadata(kContract)) {
      // Note [Contracted sums]
      Value *r = b.CreateIntrinsic(Intrinsic::fma, {f}, {m->getOperand(0), m->getOperand(1), x});
      if (m->use_empty()) m->eraseFromParent();
      return r;
    }
    return comb == Op::Add ? b.CreateFAdd(x, y) : b.CreateFMul(x, y);
  }
  /// x * y, which `op` contracts into its add: an element of a sum that XLA's loop
  /// emitter adds by a fused multiply-add (Note [Contracted sums]).
  Value *contractible(Value *x, Value *y) {
    auto *m = cast<Instruction>(b.CreateFMul(x, y));
    m->setMetadata(kContract, MDNode::get(b.getContext(), {}));
    return m;
  }
  static constexpr const char *kContract = "spmd.contract";
  Value *slot(Type *t, Value *init) {
    Value *p = L.entryAlloca(t);
    b.CreateStore(init, p);
    return p;
  }
  Value *ld(Type *t, Value *p) { return b.CreateLoad(t, p); }

  /// A loop lo <= i < hi (static bounds).
  void loop(int64_t lo, int64_t hi, const std::function<void(Value *)> &body) {
    if (hi <= lo) return;
    if (hi - lo == 1) return body(L.c64(lo));
    loopRange(L, L.c64(lo), L.c64(hi), body);
  }
  void ifThen(Value *cond, const std::function<void()> &then) { codegen::ifThen(L, cond, then); }
  /// Tiles of `tile` over [0, n) in order: body(start, size) with a static size.
  void tiles(int64_t n, int64_t tile, const std::function<void(Value *, int64_t)> &body) {
    int64_t full = n / tile, rest = n - full * tile;
    loop(0, full, [&](Value *t) { body(b.CreateMul(t, L.c64(tile)), tile); });
    if (rest) body(L.c64(full * tile), rest);
  }

  // ---- YNNPACK --------------------------------------------------------------------

  /// hsum: the upper half of the lanes onto the lower half, until one is left.
  Value *hsum(Value *v) {
    for (int64_t w = kLanes / 2; w >= 1; w /= 2) {
      SmallVector<int, 16> lo, hi;
      for (int64_t q = 0; q < w; ++q) lo.push_back(int(q)), hi.push_back(int(q + w));
      v = b.CreateFAdd(b.CreateShuffleVector(v, lo), b.CreateShuffleVector(v, hi));
    }
    return b.CreateExtractElement(v, uint64_t(0));
  }
  /// acc2 += a by Kahan summation with error err (vectors in slots); a := 0.
  void kahan(Value *aS, Value *accS, Value *errS) {
    Value *a = ld(v16, aS), *acc = ld(v16, accS), *err = ld(v16, errS);
    Value *y = b.CreateFSub(a, err);
    Value *t = b.CreateFAdd(acc, y);
    Value *e = b.CreateFSub(b.CreateFSub(t, acc), y);
    Value *fin = b.CreateFCmpOLT(b.CreateUnaryIntrinsic(Intrinsic::fabs, e),
                                 ConstantFP::getInfinity(v16));
    b.CreateStore(b.CreateSelect(fin, e, zero16()), errS);
    b.CreateStore(t, accS);
    b.CreateStore(zero16(), aS);
  }
  /// The tree of accumulators after `clock` (0: the final flush).
  void accumulate(Value *clock, Value *acc0, Value *acc1, Value *acc2, Value *err) {
    b.CreateStore(b.CreateFAdd(ld(v16, acc1), ld(v16, acc0)), acc1);
    b.CreateStore(zero16(), acc0);
    ifThen(b.CreateICmpEQ(b.CreateAnd(clock, L.c64(255)), L.c64(0)),
           [&] { kahan(acc1, acc2, err); });
  }

  /// YNNPACK's k1 kernel over elements 0 <= i < k: hsum(0 + acc2). vec(i0, valid): the
  /// 16 elements from i0, those at or past i0 + valid (valid < 16) as 0.0.
  Value *k1(int64_t k, const std::function<Value *(Value *, int64_t)> &vec) {
    Value *acc0 = slot(v16, zero16()), *acc1 = slot(v16, zero16()), *acc2 = slot(v16, zero16()),
          *err = slot(v16, zero16());
    auto block = [&](Value *base, int64_t valid) {  // local over 64 elements
      Value *local = zero16();
      for (int64_t j = 0; j < 4; ++j) {
        int64_t v = std::clamp<int64_t>(valid - 16 * j, 0, 16);
        local = b.CreateFAdd(local, v ? vec(b.CreateAdd(base, L.c64(16 * j)), v) : zero16());
      }
      b.CreateStore(b.CreateFAdd(ld(v16, acc0), local), acc0);
    };
    int64_t n256 = k / 256, n64 = (k - n256 * 256) / 64, rest = k % 64;
    loop(0, n256, [&](Value *t) {
      Value *base = b.CreateMul(t, L.c64(256));
      for (int64_t q = 0; q < 4; ++q) block(b.CreateAdd(base, L.c64(64 * q)), 64);
      accumulate(b.CreateMul(b.CreateAdd(t, L.c64(1)), L.c64(64)), acc0, acc1, acc2, err);
    });
    loop(0, n64, [&](Value *t) {
      block(b.CreateAdd(L.c64(n256 * 256), b.CreateMul(t, L.c64(64))), 64);
      Value *clock =
          b.CreateAdd(L.c64(n256 * 64), b.CreateMul(b.CreateAdd(t, L.c64(1)), L.c64(16)));
      accumulate(clock, acc0, acc1, acc2, err);
    });
    if (rest) block(L.c64(n256 * 256 + n64 * 64), rest);
    accumulate(L.c64(0), acc0, acc1, acc2, err);
    return hsum(b.CreateFAdd(zero16(), ld(v16, acc2)));
  }

  /// YNNPACK's kn kernel for 16 columns over rows 0 <= r < k: x0 + acc2. row(r): the 16
  /// columns of row r.
  Value *kn(int64_t k, Value *x0, const std::function<Value *(Value *)> &row) {
    auto local = [&](Value *r0, int64_t rows) {
      Value *acc = zero16();
      for (int64_t j = 0; j < 4; ++j)
        acc = b.CreateFAdd(acc, j < rows ? row(b.CreateAdd(r0, L.c64(j))) : zero16());
      return acc;
    };
    if (k <= 4) return b.CreateFAdd(x0, local(L.c64(0), k));
    Value *acc0 = slot(v16, zero16()), *acc1 = slot(v16, zero16()), *acc2 = slot(v16, zero16()),
          *err = slot(v16, zero16());
    loop(0, k / 4, [&](Value *g) {
      b.CreateStore(b.CreateFAdd(ld(v16, acc0), local(b.CreateMul(g, L.c64(4)), 4)), acc0);
      Value *clock = b.CreateMul(b.CreateAdd(g, L.c64(1)), L.c64(4));
      ifThen(b.CreateICmpEQ(b.CreateAnd(clock, L.c64(15)), L.c64(0)),
             [&] { accumulate(clock, acc0, acc1, acc2, err); });
    });
    if (k % 4)
      b.CreateStore(b.CreateFAdd(ld(v16, acc0), local(L.c64(k / 4 * 4), k % 4)), acc0);
    accumulate(L.c64(0), acc0, acc1, acc2, err);
    return b.CreateFAdd(x0, ld(v16, acc2));
  }

  // ---- XLA's loop emitter ------------------------------------------------------------

  /// init, then elements 0 <= i < n one by one.
  Value *seq(Value *init, int64_t n, const std::function<Value *(Value *)> &elem) {
    int64_t i0 = 0;
    if (n >= 2 && comb == Op::Add && isa<ConstantFP>(init) &&
        cast<ConstantFP>(init)->isExactlyValue(0.0)) {
      // Note [Contracted sums]: 0 + x * x is x * x (a square is never -0), then the
      // first product is the one fused with the second: fma(x0, x0, x1 * y1).
      Value *v0 = elem(L.c64(0));
      auto *m = dyn_cast<Instruction>(v0);
      if (m && m->getMetadata(kContract) && m->getOperand(0) == m->getOperand(1)) {
        Value *v1 = elem(L.c64(1));
        if (auto *m1 = dyn_cast<Instruction>(v1)) m1->setMetadata(kContract, nullptr);
        init = b.CreateIntrinsic(Intrinsic::fma, {f}, {m->getOperand(0), m->getOperand(1), v1});
        m->eraseFromParent();
        i0 = 2;
      } else {
        init = op(init, v0);
        i0 = 1;
      }
    }
    if (n - i0 <= 8) {
      for (int64_t i = i0; i < n; ++i) init = op(init, elem(L.c64(i)));
      return init;
    }
    Value *acc = slot(f, init);
    loop(i0, n, [&](Value *i) { b.CreateStore(op(ld(f, acc), elem(i)), acc); });
    return ld(f, acc);
  }
  /// The fold of a whole [a, c] (2 <= a, c <= 32) from `init` as LLVM vectorises XLA's
  /// loops: with the VF of vfTable(), rows r = l (mod VF) into lane l (lane 0 from init, the
  /// others from -0.0), each row in order; halving; the leftover rows in order.
  Value *slab(Value *init, int64_t a, int64_t c,
              const std::function<Value *(Value *, Value *)> &el) {
    // The table covers 2 <= a, c <= 32; a slab of one row or column, or an empty one (a side of
    // 0 or 1 in a 3-D array), is summed in order.
    bool measured = a >= 2 && c >= 2 && a <= 32 && c <= 32;
    int vf = measured ? vfTable()[a - 2][c - 2] - '0' : 0;
    if (vf == 0)
      return seq(init, a * c, [&](Value *k) {
        return el(b.CreateUDiv(k, L.c64(c)), b.CreateURem(k, L.c64(c)));
      });
    std::vector<Value *> lane(static_cast<size_t>(vf), nullptr);
    int64_t main = a / vf * vf;
    // Note [Contracted sums]: LLVM squares the whole vector before it shuffles the lanes
    // apart, so a square is not fused into the vectorised adds.
    auto vel = [&](Value *i, Value *j) {
      Value *v = el(i, j);
      auto *m = dyn_cast<Instruction>(v);
      if (m && m->getMetadata(kContract) && m->getOperand(0) == m->getOperand(1))
        m->setMetadata(kContract, nullptr);
      return v;
    };
    for (int l = 0; l < vf; ++l) {
      // the other lanes start at the identity that LLVM's reduction uses
      Value *acc = l == 0 ? init : cf(comb == Op::Add ? -0.0f : 1.0f);
      for (int64_t i = l; i < main; i += vf)
        for (int64_t j = 0; j < c; ++j) acc = op(acc, vel(L.c64(i), L.c64(j)));
      lane[size_t(l)] = acc;
    }
    for (int w = vf / 2; w >= 1; w /= 2)
      for (int q = 0; q < w; ++q) lane[size_t(q)] = op(lane[size_t(q)], lane[size_t(q + w)]);
    Value *out = lane[0];
    for (int64_t i = main; i < a; ++i)
      for (int64_t j = 0; j < c; ++j) out = op(out, el(L.c64(i), L.c64(j)));
    return out;
  }
  /// The fold of a whole array of shape `sh` (no side of 1, every side at most 32) from
  /// `init` as XLA's loops with LLVM's vectorisation: slab by slab over the last two
  /// dimensions (the outer indices in row-major order), each slab from the sum so far.
  Value *slabs(Value *init, const ir::Shape &sh,
               const std::function<Value *(const std::vector<Value *> &)> &el) {
    size_t r = sh.size();
    if (r < 2) {
      int64_t n = r ? sh[0] : 1;
      return seq(init, n, [&](Value *i) {
        return el(r ? std::vector<Value *>{i} : std::vector<Value *>{});
      });
    }
    ir::Shape outer(sh.begin(), sh.end() - 2);
    int64_t nOuter = 1;
    for (int64_t n : outer) nOuter *= n;
    Value *acc = slot(f, init);
    loop(0, nOuter, [&](Value *q) {
      std::vector<Value *> idx = L.delinearize(q, outer);
      idx.resize(r);
      b.CreateStore(slab(ld(f, acc), sh[r - 2], sh[r - 1], [&](Value *j, Value *k) {
        idx[r - 2] = j, idx[r - 1] = k;
        return el(idx);
      }), acc);
    });
    return ld(f, acc);
  }

  /// XLA's reduce_window pass over a whole array (no side of 1): every side
  /// n > 32 becomes ceil(n / 32) windows of 32 (SAME padding), every other side one
  /// window of all of it, which the result drops. Each window folds from `init`: its
  /// last two sides slab by slab (`slabs`) when both are whole, else in row-major order
  /// (LLVM does not vectorise a loop with a padding test). The result is in `w`.
  ir::Shape windowsND(Value *init, const ir::Shape &sh,
                      const std::function<Value *(const std::vector<Value *> &)> &el, Value *&w,
                      std::vector<Value *> &heap) {
    size_t r = sh.size();
    ir::Shape o;  // the windowed sides' window counts
    for (int64_t n : sh)
      if (n > kWindow) o.push_back(ceilDiv(n, kWindow));
    int64_t nOut = 1;
    for (int64_t n : o) nOut *= n;
    w = scratch(nOut, heap);
    bool inner = r >= 3 && sh[r - 1] <= kWindow && sh[r - 2] <= kWindow;
    size_t stop = inner ? r - 2 : r;  // dimensions looped over one by one
    // A last side padded by exactly one (32k - 1): LLVM moves the window's last column,
    // the only one tested, after the rest of the window (as in the 2-D case).
    bool lastAfter = sh[r - 1] > kWindow && ceilDiv(sh[r - 1], kWindow) * kWindow - sh[r - 1] == 1;
    int64_t lastLo = 0, lastHi = kWindow;  // the window offsets of the last side
    loop(0, nOut, [&](Value *q) {
      std::vector<Value *> oi = L.delinearize(q, o), idx(r, nullptr);
      Value *acc = slot(f, init);
      std::function<void(size_t, size_t)> nest = [&](size_t k, size_t wk) {
        if (k == stop) {
          Value *v = inner ? slab(ld(f, acc), sh[r - 2], sh[r - 1], [&](Value *j, Value *c) {
            std::vector<Value *> full = idx;
            full[r - 2] = j, full[r - 1] = c;
            return el(full);
          }) : op(ld(f, acc), el(idx));
          b.CreateStore(v, acc);
          return;
        }
        if (sh[size_t(k)] <= kWindow)
          return loop(0, sh[k], [&](Value *i) { idx[k] = i, nest(k + 1, wk); });
        Value *first = b.CreateSub(b.CreateMul(oi[wk], L.c64(kWindow)), L.c64(padLo(sh[k])));
        bool last = k == r - 1;
        loop(last ? lastLo : 0, last ? lastHi : kWindow, [&](Value *d) {
          Value *i = b.CreateAdd(first, d);
          idx[k] = i;
          ifThen(b.CreateAnd(b.CreateICmpSGE(i, L.c64(0)), b.CreateICmpSLT(i, L.c64(sh[k]))),
                 [&] { nest(k + 1, wk + 1); });
        });
      };
      if (lastAfter) lastHi = kWindow - 1;
      nest(0, 0);
      if (lastAfter) lastLo = kWindow - 1, lastHi = kWindow, nest(0, 0), lastLo = 0;
      b.CreateStore(ld(f, acc), at(w, q));
    });
    return o;
  }

  /// A whole array of rank >= 3 (no side of 1) folded as XLA's loop emitter does: window
  /// passes while a side is longer than 32, then `slabs` (Note [XLA sum order]).
  Value *foldND(Value *init, const ir::Shape &sh0,
                const std::function<Value *(const std::vector<Value *> &)> &el0,
                std::vector<Value *> &heap) {
    ir::Shape sh = sh0;
    std::function<Value *(const std::vector<Value *> &)> el = el0;
    // (a pass may leave fewer dimensions, [3000, 40, 2] -> [94, 2], windowed again)
    while (std::any_of(sh.begin(), sh.end(), [](int64_t n) { return n > kWindow; })) {
      Value *w = nullptr;
      ir::Shape o = windowsND(init, sh, el, w, heap);
      sh = o;
      el = [this, w, o](const std::vector<Value *> &idx) {
        return ld(f, at(w, L.linearIndex(idx, o)));
      };
    }
    return slabs(init, sh, el);
  }

  /// The windows of 32 of an axis of n > 32 (SAME padding): the window j covers
  /// [first(j), last(j)).
  static int64_t padLo(int64_t n) { return (ceilDiv(n, kWindow) * kWindow - n) / 2; }

  /// A scratch array of n floats (heap when large).
  Value *scratch(int64_t n, std::vector<Value *> &heap) {
    if (n <= 4096) return L.entryAlloca(ArrayType::get(f, uint64_t(n)));
    if (L.fs->kernel) return L.allocBytes(n * 4);  // hoisted: one per launch
    Value *p = L.hostAlloc(n * 4);
    heap.push_back(p);
    return p;
  }
  Value *at(Value *base, Value *i) { return b.CreateInBoundsGEP(f, base, i); }

  // Note [Rolled windows]: a window's 32 additions are a loop of the emitted code, not 32
  // copies of the element and its range test: the additions and their order are the
  // same, so are the bits, and LLVM does not unroll host loops (Note [Rolled loops] in
  // Jit.cpp). When no window is padded (n a multiple of 32) the range test is left out,
  // as it is always true. Unrolled, each level of windows (a sum of more than 32 elements)
  // was about 500 lines of IR; spec train_mlp's training step has three (sums over its 64
  // rows), 40% of that pmap body's IR (bench/notes.md, 2026-11-25, compile15).
  /// The 1-D fold of XLA's loop emitter: windows of 32 while longer than 32, then in order.
  Value *tree1(Value *init, int64_t n, const std::function<Value *(Value *)> &elem,
               std::vector<Value *> &heap) {
    if (n <= kWindow) return seq(init, n, elem);
    int64_t out = ceilDiv(n, kWindow), lo = padLo(n);
    Value *w = scratch(out, heap);
    loop(0, out, [&](Value *j) {
      // elements max(0, 32j - lo) .. min(n, 32j - lo + 32)
      Value *first = b.CreateSub(b.CreateMul(j, L.c64(kWindow)), L.c64(lo));
      Value *acc = slot(f, init);
      // Note [Rolled windows]
      loop(0, kWindow, [&](Value *q) {
        Value *i = b.CreateAdd(first, q);
        auto add = [&] { b.CreateStore(op(ld(f, acc), elem(i)), acc); };
        if (n % kWindow == 0) return add();  // no padding: every element is in range
        ifThen(b.CreateAnd(b.CreateICmpSGE(i, L.c64(0)), b.CreateICmpSLT(i, L.c64(n))), add);
      });
      b.CreateStore(ld(f, acc), at(w, j));
    });
    return tree1(init, out, [&](Value *j) { return ld(f, at(w, j)); }, heap);
  }
};

}  // namespace spmd::codegen::xlasum
