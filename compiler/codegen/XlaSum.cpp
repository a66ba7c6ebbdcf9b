// ===- XlaSum.cpp - float sums in XLA:CPU's order --------------------------===//
//
// Note [XLA sum order]: every order of additions gives different bits, and JAX's are
// XLA:CPU's (jaxlib 0.10.2, measured on an x86-64 CPU with AVX-512 against
// jax.jit(jnp.sum) for random data, bit for bit). XLA sends a float32 sum down one of
// two roads, chosen by the size of its input:
//
// 1. Inputs of at least 4096 elements go to YNNPACK (XLA's ynn_fusion, for reduce with
//    add; not for multiply). YNNPACK tiles the input: dimension by dimension from the
//    innermost, a dimension's tile is min(extent, 32768 / (the product of the inner
//    tiles)) (at least 1). When a reduced dimension is split, each tile is first reduced
//    on its own into a partial (starting from 0), then the partials are reduced as a new
//    input, whole (its reduced dimensions are not tiled again). A tile is reduced by one
//    of two kernels:
//    - k1 (a contiguous run of k elements, a row or a run of whole rows): 16 lanes;
//      each block of 64 elements is summed as four vectors of 16, local = (((0 + v0) +
//      v1) + v2) + v3 (a short block is padded with 0.0); the block sums go into a
//      tree of accumulators: acc0 += local; every 64 elements (every 256 within the
//      4-block unrolled part, which sums four locals into acc0 first) acc1 += acc0; every
//      1024 elements acc1 is added into acc2 by Kahan summation (an error that is not
//      finite is dropped); at the end acc1 += acc0 and one more Kahan step. The result is
//      out + hsum(0 + acc2), hsum adding the upper half of the lanes onto the lower half
//      until one lane is left.
//    - kn (a reduced dimension that is not innermost: columns): for each column, rows
//      four at a time, local = (((0 + r0) + r1) + r2) + r3, into the same tree with a
//      clock counting rows (acc1 every 16 rows, Kahan into acc2 every 256); with at most
//      4 rows, out + local directly. The result is out + acc2.
//    The lane count, 16, is YNNPACK's "consistent arithmetic" width for f32 and does not
//    depend on the CPU: YNNPACK gives the same bits on AVX2, AVX-512 and Arm.
// 2. Smaller inputs (and every product) go to XLA's own loop emitter. First a reduced
//    dimension longer than 32 is cut into windows of 32 (reduce_window, "SAME" padding:
//    (ceil(n/32)*32 - n) / 2 pad elements before the first element), each window summed
//    in order from the initial value; repeated until every reduced dimension is at most
//    32 long. Then the reduce runs as loops, each output starting at the initial value
//    and adding its elements in row-major order; LLVM unrolls the innermost loop and
//    vectorises the next one. Only when that next loop is itself a reduced dimension (a
//    2-D [a, b] summed whole) does that reorder the additions: rows r = l (mod VF) go
//    into lane l (lane 0 starting at the initial value, the others at -0.0), the lanes
//    meet by halving (as hsum), and the rows left over (a mod VF) follow one by one. VF
//    (2, 4 or 8, or no vectorisation) comes from LLVM's cost model for the machine XLA
//    compiles for (XLA asks LLVM for 256-bit vectors), so JAX's bits for these shapes
//    depend on the host: vfTable() is the table measured on the host's kind, AVX-512
//    (kVfAvx512) or AVX2 without AVX-512 (kVfAvx2, measured on an AMD EPYC with
//    jax.jit(jnp.sum) of 3 to 13 random arrays per shape, each shape's VF the only one
//    that gives JAX's bits). They differ from 9 columns on: AVX-512 leaves [8, 25] in
//    row-major order where AVX2 takes VF 8 (sum(xs * xs), xs: [8, 25]: 250.19104 in
//    row-major order, 250.19098 in JAX on the AVX2 host), and [8, 8] is VF 4 there and
//    8 here (80.8381 against 80.838104). Other CPUs and another LLVM are unmeasured.
//    An array of 3 or more dimensions (size-1 ones squeezed) is windowed the same way,
//    on every side over 32 at once (the others are whole in each window, and the result
//    drops them: [40, 40, 4] -> [2, 2]); each window adds its elements in row-major
//    order from the initial value, except that when its last two sides are whole (both
//    at most 32) LLVM vectorises each [b, c] of it as the 2-D case. When every side is
//    at most 32 the array is summed slab by slab, each [b, c] as the 2-D case from the
//    sum so far (Emit::foldND). Products take the same road at every size, with the same
//    VF table (measured), their other lanes starting at 1.0. (Measured on 70 random 3-D
//    and 4-D shapes below 4096 elements and 20 products of 1-D to 4-D shapes.)
// Several reduced axes, not all (measured on random shapes): from 4096 elements,
// YNNPACK's kernel fuses adjacent dimensions that are both reduced or both kept, so
// when its tiles (of the unfused dimensions) split no reduced dimension, the sum is that
// of the fused shape ([a, b, c] over (1, 2) is [a, b * c] over 1). Below 4096, with every
// reduced side at most 32, each output's block (the reduced axes, in order) is summed as
// a whole array from the initial value (slab by slab, LLVM vectorising each [b, c] as in
// the 2-D case) when the reduced axes are the last ones. When they are not (the block
// strided), the host decides again: on the AVX-512 host each output added its elements
// in row-major order; on the AVX2 host (AMD EPYC) the strided block is summed as a whole
// array too, with the AVX2 VF table: [2, 3, 4] over (0, 2) is per output the [2, 4] slab,
// VF 2, rows in two lanes (host14: 89 shapes, 3-D and 4-D, sides 2 to 20, every element
// as jnp.sum; row-major order agrees only where VF is 0; reduce_degenerate's
// mean(reshape(v, [2, 2, 7]), axis=(0, 1)) is 1.2777778 ... here, 1.2777777 ... in its
// AVX-512 .out).
// When the last side is 32k - 1 (its windows padded by exactly one element, at the end:
// [30, 63], [2, 4, 127]), LLVM moves each window's last column, the only one it tests,
// after the rest of the window: that column's elements are added last, in row-major
// order (measured on 13 shapes, 2-D and 3-D, sums and products).
// Known differences: below 4096 elements, a 2-D array summed whole whose rows are
// windowed with few columns, padded by one ([95, 3]) or not at all ([128, 4]): LLVM
// vectorises the window's row loop, and they are summed here in plain row-major order.
// Reductions of other shapes (several reduced axes that
// are not the whole array with a reduced side over 32 below 4096 elements; from 4096
// elements, a tile that splits a reduced axis with another reduced axis just outside
// it, [5, 35, 1442] over (0, 1): jaxlib's YNNPACK schedules those partials otherwise,
// not found yet; more than 2 dimensions summed whole at 4096 or more whose trailing
// ones exceed 32768 elements)
// are not in XLA's order yet: emitReduce's own order (Note [Cascade]) is used for them.
// From 4096 elements, two groups of reduced axes ([a, b, c] over (0, 2)) and the other
// tiles that split a group of reduced axes follow Note [YNNPACK groups] (XlaSumGroups.cpp).
// Also, XLA moves a slice of a reduce's result before the reduce inside one jit (a pmap
// body): JAX then sums fewer elements, in that smaller reduce's order.
// A fused input (an elementwise expression, never materialised: Note [Fusion]) of the
// YNNPACK road is computed into one tile-sized scratch buffer just before the kernel
// reads it: each run for k1, each tile of rows for kn (with C <= 4096 columns). The
// additions are the same; the whole expression is never in memory (tests/stats/
// fused_sum.spmd: 40 MiB peak instead of 128).
// Note [Contracted sums]: in a pmap body, XLA fuses a multiply into the reduce that
// consumes it when the reduce needs no windows (every reduced side at most 32, below
// 4096 elements), and LLVM then contracts each `acc + x * y` of the loop into fma(x, y,
// acc) (Note [FMA contraction] in EmitElementwise.cpp says which multiplies). With a
// window (a reduced side over 32) the multiply is a fusion of its own and its products
// are rounded: no fma. Two exceptions seen in the object code (--xla_dump_to): 0 + x * x
// is folded to x * x (a square is never -0), so a sum of squares starts fma(x0, x0,
// x1 * x1) (Emit::seq); and in a 2-D slab that LLVM vectorises (Emit::slab) a square is
// taken of the whole vector before its lanes are shuffled apart: no fma there. Here the
// multiply's operands are computed into buffers and Emit::op contracts their product.
// A division by a broadcast that XLA turns into a multiply by the reciprocal (Note
// [Reciprocal of a broadcast]) is contracted the same way, its operands A and 1 / B
// (conf11: 24 of 24 printed lines of tests/golden/sum_div_contracted differed before).
// fma_classes.py (seed 1, 40 programs): class red 16 exact before, 36 after; class mean
// (mean((x - y) ** 2)) 18 before, 37 after. Still different: sums whose slabs LLVM
// vectorises otherwise ([28, 18] sum(x * y), [20, 4] mean((x - y) ** 2), [21, 8] over its
// last axis) and sum(x * y + c) of 2-D and 3-D whole arrays.
#include "codegen/XlaSum.h"
#include "Settings.h"

#include "codegen/XlaSumGroups.h"

#include <llvm/TargetParser/Host.h>

#include <cstdlib>
#include <cstring>
#include <numeric>

namespace spmd::codegen {

using namespace xlasum;

const char *const *xlasum::vfTable() {
  static const char *const *t = [] {
    if (const char *v = settings::value(settings::Id::SumHost)) {
      if (std::strcmp(v, "avx512") == 0) return kVfAvx512;
      if (std::strcmp(v, "avx2") == 0) return kVfAvx2;
    }
    auto f = sys::getHostCPUFeatures();
    auto it = f.find("avx512f");
    return it != f.end() && it->second ? kVfAvx512 : kVfAvx2;
  }();
  return t;
}

const char *xlasum::vfTableName() { return vfTable() == kVfAvx512 ? "avx512" : "avx2"; }

namespace {

/// Squeezes size-1 dimensions: the shape, which of its axes are reduced, and the
/// original index for a squeezed one.
struct Squeezed {
  ir::Shape shape;
  std::vector<bool> red;
  std::vector<int> orig;  // squeezed axis -> original axis
  size_t rank0 = 0;
};

/// Whether YNNPACK's tiles split a reduced dimension: a dimension's tile is min(extent,
/// 32768 / the product of the inner tiles), at least 1, from the innermost.
bool ynnSplitsReduced(const Squeezed &s) {
  int64_t area = 1;
  for (size_t k = s.shape.size(); k-- > 0;) {
    int64_t t = std::max<int64_t>(1, std::min(s.shape[k], kTileArea / area));
    if (s.red[k] && t < s.shape[k]) return true;
    area *= t;
  }
  return false;
}

/// YNNPACK's kernel call fuses adjacent dimensions that are both reduced or both kept
/// (their strides chain): within one tile, the sum is that of the fused shape.
Squeezed fuseAdjacent(const Squeezed &s) {
  Squeezed f;
  f.rank0 = s.rank0;
  for (size_t k = 0; k < s.shape.size(); ++k) {
    if (!f.shape.empty() && f.red.back() == s.red[k]) {
      f.shape.back() *= s.shape[k];
      continue;
    }
    f.shape.push_back(s.shape[k]), f.red.push_back(s.red[k]), f.orig.push_back(s.orig[k]);
  }
  return f;
}

}  // namespace

namespace {
/// Where the elements of a reduction's input come from: a buffer (read by linear index),
/// else `elem` at a full index (`cheap`: a literal, read inline, never materialised).
struct Source {
  Value *buf = nullptr;
  std::function<Value *(const std::vector<Value *> &)> elem;
  bool cheap = false;
  /// When elem is a multiply that XLA contracts into the sum's add: its operands.
  std::function<Value *(const std::vector<Value *> &)> mulX, mulY;  // mulY null: x * x
};

/// The reduction of `in` over `axes` (comb: Add or Mul) in XLA's order into the buffer
/// that dstOf gives; false, emitting nothing, for a case Note [XLA sum order] leaves out.
bool emitOrdered(LlvmEmitter &L, Op comb, const ir::Shape &in, const std::vector<int64_t> &axes,
                 const Source &x, const std::function<Value *()> &dstOf) {
  std::vector<bool> red0(in.size(), false);
  for (auto a : axes) red0[size_t(a)] = true;
  Squeezed s;
  s.rank0 = in.size();
  for (size_t k = 0; k < in.size(); ++k)
    if (in[k] != 1) s.shape.push_back(in[k]), s.red.push_back(red0[k]), s.orig.push_back(int(k));
  int64_t numel = 1;
  for (auto n : in) numel *= n;
  // No element: every output is the initial value, whatever the order (emitReduce's; the
  // windows below would divide by a side of 0).
  if (numel == 0) return false;
  bool ynn = comb == Op::Add && numel >= kYnnMinElems;
  // YNNPACK with reduced axes in two or more groups, or in one group of several axes that
  // its tiles split: Note [YNNPACK groups] (XlaSumGroups.cpp).
  bool groups = false;
  if (ynn) {
    size_t nRed0 = size_t(std::count(s.red.begin(), s.red.end(), true));
    Squeezed f = fuseAdjacent(s);
    groups = std::count(f.red.begin(), f.red.end(), true) >= 2 ||
             (ynnSplitsReduced(s) && nRed0 >= 2 && nRed0 < s.shape.size());
    if (groups && (x.cheap || !ynnGroupsModelled(s.shape, s.red))) return false;
  }
  if (ynn && !groups && !ynnSplitsReduced(s)) s = fuseAdjacent(s);
  size_t r = s.shape.size();
  size_t nRed = size_t(std::count(s.red.begin(), s.red.end(), true));
  if (nRed == 0) return false;
  // The cases of Note [XLA sum order].
  enum Kind { Full, Axis, Multi, Groups } kind;
  size_t axis = 0;
  if (groups) {
    kind = Groups;
  } else if (!ynn && nRed >= 2 && nRed < r) {
    // Several reduced axes, not all, below 4096 elements: without windows (every reduced
    // side at most 32), each output's block (its reduced axes) is summed as a whole array,
    // slab by slab, LLVM vectorising each [b, c], or on an AVX-512 host in row-major
    // order where the reduced axes are not the last ones (Note [XLA sum order]).
    for (size_t k = 0; k < r; ++k)
      if (s.red[k] && s.shape[k] > kWindow) return false;
    kind = Multi;
  } else if (nRed == r) {
    kind = Full;
  } else if (nRed == 1) {
    kind = Axis;
    axis = size_t(std::find(s.red.begin(), s.red.end(), true) - s.red.begin());
  } else {
    return false;
  }
  // Window buffers of a reduced axis are allocated per output: keep them on the stack.
  if (!ynn && kind == Axis && s.shape[axis] > kWindow * 4096) return false;
  int64_t A = 1, R = 1, C = 1;  // [A, R, C]: outer kept, reduced, inner (kept or reduced)
  if (kind == Full) {
    R = r >= 2 ? s.shape[0] : 1;
    for (size_t k = r >= 2 ? 1 : 0; k < r; ++k) C *= s.shape[k];
    if (ynn && r > 2 && C > kTileArea) return false;  // tiles of several runs: not modelled
  } else if (kind == Axis) {
    for (size_t k = 0; k < axis; ++k) A *= s.shape[k];
    R = s.shape[axis];
    for (size_t k = axis + 1; k < r; ++k) C *= s.shape[k];
  }

  Emit E(L, comb);
  auto &b = L.b;
  Value *dst = dstOf();
  Value *init = E.cf(comb == Op::Add ? 0.0f : 1.0f);
  std::vector<Value *> heap;
  // A plain buffer is read directly, by linear index; a fused value through x.elem.
  bool plain = x.buf != nullptr;
  Value *base = x.buf;
  Value *baseY = nullptr;  // the other operand of a contracted multiply (Note [Contracted sums])
  bool windowed = false;   // a reduced side over 32: XLA's windows (reduce_window) first
  for (size_t k = 0; k < r; ++k) windowed |= s.red[k] && s.shape[k] > kWindow;
  // YNNPACK's k1 kernel reads contiguous runs of at most one tile (32768 elements). A
  // fused input is computed a run at a time into one tile-sized scratch buffer just
  // before the run is summed, never whole: sum(x * x) or a vmapped sum(sin(x * v))
  // would otherwise write and read the whole product (bench/pool_map: 400 MB of page
  // faults, 5x the time).
  bool tiled = !plain && !x.cheap && ynn && kind != Groups && (kind == Full || C == 1);
  // The same for kn (a reduced axis with C > 1 inner elements): a tile of sR rows at a
  // time, each column group's partial kept, while those partials stay small (C <= 4096:
  // they are about numel * C / 32768 floats).
  bool tiledCols = !plain && !x.cheap && ynn && !tiled && kind == Axis && C <= 4096;
  // fillRun(lin0, n, align): elements lin0 .. lin0 + n - 1 (row-major) of x into
  // the tile; align divides lin0, so rows of the last axis are whole when it allows.
  auto fillRun = [&](Value *lin0, int64_t n, int64_t align) {
    // By the input's own (unsqueezed, unfused) shape: squeezing and fusing keep the
    // row-major linear index. Rows of its innermost side longer than 1 when aligned.
    size_t d = in.size() - 1;
    while (d > 0 && in[d] == 1) --d;
    int64_t last = in[d];
    std::vector<Value *> full(in.size(), L.c64(0));
    auto put = [&](Value *i) { L.store(DType::F32, x.elem(full), base, i); };
    if (align % last == 0 && n % last == 0) {
      ir::Shape outer(in.begin(), in.begin() + long(d));
      Value *row0 = b.CreateUDiv(lin0, L.c64(last));
      E.loop(0, n / last, [&](Value *q) {
        std::vector<Value *> oi = L.delinearize(b.CreateAdd(row0, q), outer);
        for (size_t k = 0; k < d; ++k) full[k] = oi[k];
        Value *off = b.CreateMul(q, L.c64(last));
        E.loop(0, last, [&](Value *j) { full[d] = j, put(b.CreateAdd(off, j)); });
      });
    } else {
      E.loop(0, n, [&](Value *i) { full = L.delinearize(b.CreateAdd(lin0, i), in), put(i); });
    }
  };
  if (tiled || tiledCols) {
    base = E.scratch(std::min(numel, kTileArea), heap);
    plain = true;
  } else if (!plain && !x.cheap && x.mulX && !ynn && kind != Groups && !windowed) {
    // Note [Contracted sums]: the multiply's operands, each into a buffer; elemLin gives
    // their product marked for Emit::op to contract.
    base = L.allocBytes(numel * 4);
    baseY = x.mulY ? L.allocBytes(numel * 4) : base;
    L.loopNest(in, [&](const std::vector<Value *> &idx) {
      L.store(DType::F32, x.mulX(idx), base, L.linearIndex(idx, in));
      if (x.mulY) L.store(DType::F32, x.mulY(idx), baseY, L.linearIndex(idx, in));
    });
    plain = true;
  } else if (!plain && !x.cheap) {
    // A fused input is computed once into a buffer: the kernels read it in vectors (and
    // do not inline its computation at every one of their many reads).
    base = L.fs->kernel ? L.allocBytes(numel * 4)
                        : L.hostAlloc(numel * 4);
    if (!L.fs->kernel) heap.push_back(base);
    L.loopNest(in, [&](const std::vector<Value *> &idx) {
      L.store(DType::F32, x.elem(idx), base, L.linearIndex(idx, in));
    });
    plain = true;
  }
  auto elemLin = [&](Value *lin) -> Value * {  // element at a row-major linear index
    if (baseY) {
      Value *v = L.load(DType::F32, base, lin);
      return E.contractible(v, baseY == base ? v : L.load(DType::F32, baseY, lin));
    }
    if (plain) return L.load(DType::F32, base, lin);
    // (squeezing and fusing keep the row-major linear index of the input)
    return x.elem(L.delinearize(lin, in));
  };
  // 16 consecutive elements from linear index i0; lanes at or past `valid` are 0.0.
  auto vecLin = [&](Value *i0, int64_t valid) -> Value * {
    if (plain && valid == kLanes)
      return b.CreateAlignedLoad(E.v16, b.CreateInBoundsGEP(E.f, base, i0), Align(4));
    Value *v = E.zero16();
    for (int64_t q = 0; q < valid; ++q)
      v = b.CreateInsertElement(v, elemLin(b.CreateAdd(i0, L.c64(q))), uint64_t(q));
    return v;
  };
  // 16 columns c0.. of a row starting at linear index rowLin (C columns; lanes past C
  // repeat column C - 1, their results unused).
  auto rowVec = [&](Value *rowLin, Value *c0, bool full) -> Value * {
    if (plain && full)
      return b.CreateAlignedLoad(E.v16, b.CreateInBoundsGEP(E.f, base, b.CreateAdd(rowLin, c0)),
                                 Align(4));
    Value *v = E.zero16();
    for (int64_t q = 0; q < kLanes; ++q) {
      Value *c = b.CreateAdd(c0, L.c64(q));
      c = b.CreateSelect(b.CreateICmpSLT(c, L.c64(C)), c, L.c64(C - 1));
      v = b.CreateInsertElement(v, elemLin(b.CreateAdd(rowLin, c)), uint64_t(q));
    }
    return v;
  };

  if (kind == Groups) {
    emitYnnGroups(E, s.shape, s.red, base, dst, heap);
  } else if (kind == Multi) {
    // One output per index of the kept axes (row-major), its reduced elements in order.
    std::vector<int64_t> stride(r, 1), keptN, keptS, redN, redS;
    for (size_t k = r - 1; k > 0; --k) stride[k - 1] = stride[k] * s.shape[k];
    int64_t nOut = 1;
    for (size_t k = 0; k < r; ++k) {
      (s.red[k] ? redN : keptN).push_back(s.shape[k]);
      (s.red[k] ? redS : keptS).push_back(stride[k]);
      if (!s.red[k]) nOut *= s.shape[k];
    }
    // sum of digit * stride over a mixed-radix index i of the sides n
    auto offset = [&](Value *i, const std::vector<int64_t> &n, const std::vector<int64_t> &st) {
      Value *off = L.c64(0);
      for (size_t k = n.size(); k-- > 0;) {
        off = b.CreateAdd(off, b.CreateMul(b.CreateURem(i, L.c64(n[k])), L.c64(st[k])));
        i = b.CreateUDiv(i, L.c64(n[k]));
      }
      return off;
    };
    // Each output's block (its reduced axes, in order) summed as a whole array, slab by
    // slab, each [b, c] as the 2-D case: always on an AVX2 host, only when the reduced
    // axes are the last ones (the block contiguous) on an AVX-512 one, which adds a
    // strided block's elements in row-major order (Note [XLA sum order]).
    bool trailing = std::all_of(s.red.end() - long(nRed), s.red.end(), [](bool x) { return x; });
    bool asWhole = trailing || vfTable() == kVfAvx2;
    int64_t nIn = 1;
    for (auto n : redN) nIn *= n;
    E.loop(0, nOut, [&](Value *o) {
      Value *first = offset(o, keptN, keptS);
      Value *v;
      if (asWhole) {
        v = E.slabs(init, redN, [&](const std::vector<Value *> &idx) {
          Value *off = first;
          for (size_t k = 0; k < idx.size(); ++k)
            off = b.CreateAdd(off, b.CreateMul(idx[k], L.c64(redS[k])));
          return elemLin(off);
        });
      } else {
        v = E.seq(init, nIn,
                  [&](Value *k) { return elemLin(b.CreateAdd(first, offset(k, redN, redS))); });
      }
      L.store(DType::F32, v, dst, o);
    });
  } else if (ynn && (kind == Full || C == 1)) {
    // Rows of C (Full: R rows of C; a reduced last axis: A rows of R).
    int64_t rows = kind == Full ? R : A, len = kind == Full ? C : R;
    int64_t s0 = std::min(kTileArea, len),
            s1 = std::max<int64_t>(1, std::min(kTileArea / s0, rows));
    // A run of k elements from start (align divides start); a fused input's run is
    // computed into the tile first.
    auto k1At = [&](Value *start, int64_t k, int64_t align) {
      if (tiled) fillRun(start, k, align), start = L.c64(0);
      return E.k1(k, [&](Value *i, int64_t valid) { return vecLin(b.CreateAdd(start, i), valid); });
    };
    int64_t pieceAlign = std::gcd(len, s0);  // of row * len + c0, c0 a multiple of s0
    if (kind == Axis) {
      // Each row alone: one k1 when it fits a tile, else partials of 32768 then a k1.
      int64_t nC = ceilDiv(len, s0);
      Value *parts = nC > 1 ? E.scratch(nC, heap) : nullptr;
      E.loop(0, rows, [&](Value *row) {
        Value *rowLin = b.CreateMul(row, L.c64(len));
        if (nC == 1)
          return L.store(DType::F32, b.CreateFAdd(init, k1At(rowLin, len, len)), dst, row);
        E.tiles(len, s0, [&](Value *c0, int64_t k) {
          Value *p = b.CreateFAdd(init, k1At(b.CreateAdd(rowLin, c0), k, pieceAlign));
          b.CreateStore(p, E.at(parts, b.CreateUDiv(c0, L.c64(s0))));
        });
        Value *v = E.k1(nC, [&](Value *i, int64_t valid) {
          Value *vv = E.zero16();
          for (int64_t q = 0; q < valid; ++q)
            vv = b.CreateInsertElement(vv, E.ld(E.f, E.at(parts, b.CreateAdd(i, L.c64(q)))),
                                       uint64_t(q));
          return vv;
        });
        L.store(DType::F32, b.CreateFAdd(init, v), dst, row);
      });
    } else {
      // The whole array: partials over tiles of s1 rows (or of row pieces of s0), then
      // the partials as a new input.
      int64_t nR = ceilDiv(rows, s1), nC = ceilDiv(len, s0);
      Value *out;
      if (nR * nC == 1) {
        out = b.CreateFAdd(init, k1At(L.c64(0), rows * len, rows * len));
      } else {
        Value *parts = E.scratch(nR * nC, heap);
        if (nC == 1) {
          E.tiles(rows, s1, [&](Value *r0, int64_t k) {
            Value *p = b.CreateFAdd(init, k1At(b.CreateMul(r0, L.c64(len)), k * len, len));
            b.CreateStore(p, E.at(parts, b.CreateUDiv(r0, L.c64(s1))));
          });
        } else {
          E.loop(0, rows, [&](Value *row) {
            E.tiles(len, s0, [&](Value *c0, int64_t k) {
              Value *p = b.CreateFAdd(
                  init, k1At(b.CreateAdd(b.CreateMul(row, L.c64(len)), c0), k, pieceAlign));
              Value *j = b.CreateAdd(b.CreateMul(row, L.c64(nC)), b.CreateUDiv(c0, L.c64(s0)));
              b.CreateStore(p, E.at(parts, j));
            });
          });
        }
        // The partials [nR, nC] as a new input: one k1 over all of them (the second
        // reduce's reduced dimensions are not tiled).
        int64_t total = nR * nC;
        Value *acc = E.slot(E.f, init);
        E.tiles(total, total, [&](Value *p0, int64_t k) {
          Value *v = E.k1(k, [&](Value *i, int64_t valid) {
            Value *vv = E.zero16();
            Value *i0 = b.CreateAdd(p0, i);
            for (int64_t q = 0; q < valid; ++q)
              vv = b.CreateInsertElement(vv, E.ld(E.f, E.at(parts, b.CreateAdd(i0, L.c64(q)))),
                                         uint64_t(q));
            return vv;
          });
          b.CreateStore(b.CreateFAdd(E.ld(E.f, acc), v), acc);
        });
        out = E.ld(E.f, acc);
      }
      L.store(DType::F32, out, dst, L.c64(0));
    }
  } else if (tiledCols) {
    // kn over a fused input: per slab, the tiles of sR rows in turn, each computed into
    // the tile buffer and summed for every column group; then each group's partials (the
    // same additions as the branch below, which keeps the groups outermost).
    int64_t sR = std::max<int64_t>(1, std::min(kTileArea / C, R)), nR = ceilDiv(R, sR);
    int64_t G = ceilDiv(C, kLanes);
    Value *parts = nR > 1 ? E.scratch(nR * G * kLanes, heap) : nullptr;
    auto storeLanes = [&](Value *a, Value *c0, Value *res) {
      for (int64_t q = 0; q < kLanes; ++q) {
        Value *c = b.CreateAdd(c0, L.c64(q));
        E.ifThen(b.CreateICmpSLT(c, L.c64(C)), [&] {
          L.store(DType::F32, b.CreateExtractElement(res, uint64_t(q)), dst,
                  b.CreateAdd(b.CreateMul(a, L.c64(C)), c));
        });
      }
    };
    auto partAt = [&](Value *tile, Value *g) {
      return b.CreateInBoundsGEP(
          E.f, parts, b.CreateMul(b.CreateAdd(b.CreateMul(tile, L.c64(G)), g), L.c64(kLanes)));
    };
    E.loop(0, A, [&](Value *a) {
      Value *slab = b.CreateMul(a, L.c64(R * C));
      E.tiles(R, sR, [&](Value *r0, int64_t k) {
        fillRun(b.CreateAdd(slab, b.CreateMul(r0, L.c64(C))), k * C, C);
        Value *tile = b.CreateUDiv(r0, L.c64(sR));
        auto group = [&](Value *g, bool full) {
          Value *c0 = b.CreateMul(g, L.c64(kLanes));
          Value *p = E.kn(k, E.zero16(),
                          [&](Value *rr) { return rowVec(b.CreateMul(rr, L.c64(C)), c0, full); });
          if (nR == 1) return storeLanes(a, c0, p);
          b.CreateAlignedStore(p, partAt(tile, g), Align(4));
        };
        E.loop(0, C / kLanes, [&](Value *g) { group(g, true); });
        if (C % kLanes) group(L.c64(C / kLanes), false);
      });
      if (nR > 1)
        E.loop(0, G, [&](Value *g) {
          Value *res = E.kn(nR, E.zero16(), [&](Value *rr) {
            return b.CreateAlignedLoad(E.v16, partAt(rr, g), Align(4));
          });
          storeLanes(a, b.CreateMul(g, L.c64(kLanes)), res);
        });
    });
  } else if (ynn) {
    // A reduced axis with C > 1 inner elements: columns, by the kn kernel.
    int64_t sR = C > kTileArea ? 1 : std::max<int64_t>(1, std::min(kTileArea / C, R));
    int64_t nR = ceilDiv(R, sR);
    Value *parts = nR > 1 ? E.scratch(nR * kLanes, heap) : nullptr;
    auto v16At = [&](Value *p, Value *i) {
      return b.CreateAlignedLoad(E.v16, b.CreateInBoundsGEP(E.f, p, b.CreateMul(i, L.c64(kLanes))),
                                 Align(4));
    };
    E.loop(0, A, [&](Value *a) {
      Value *slab = b.CreateMul(a, L.c64(R * C));
      auto group = [&](Value *c0, bool full) {
        auto row = [&](Value *rr) {
          return rowVec(b.CreateAdd(slab, b.CreateMul(rr, L.c64(C))), c0, full);
        };
        Value *res;
        if (nR == 1) {
          res = E.kn(R, E.zero16(), row);
        } else {
          E.tiles(R, sR, [&](Value *r0, int64_t k) {
            Value *p = E.kn(k, E.zero16(), [&](Value *rr) { return row(b.CreateAdd(r0, rr)); });
            b.CreateAlignedStore(
                p,
                b.CreateInBoundsGEP(E.f, parts,
                                    b.CreateMul(b.CreateUDiv(r0, L.c64(sR)), L.c64(kLanes))),
                Align(4));
          });
          // The partials as a new input: one kn over all of them (the second reduce's
          // reduced dimension is not tiled).
          res = E.kn(nR, E.zero16(), [&](Value *rr) { return v16At(parts, rr); });
        }
        // The output is init (0) plus the kernel's sum: x0 started at 0 above.
        for (int64_t q = 0; q < kLanes; ++q) {
          Value *c = b.CreateAdd(c0, L.c64(q));
          E.ifThen(b.CreateICmpSLT(c, L.c64(C)), [&] {
            L.store(DType::F32, b.CreateExtractElement(res, uint64_t(q)), dst,
                    b.CreateAdd(b.CreateMul(a, L.c64(C)), c));
          });
        }
      };
      E.loop(0, C / kLanes, [&](Value *g) { group(b.CreateMul(g, L.c64(kLanes)), true); });
      if (C % kLanes) group(L.c64(C / kLanes * kLanes), false);
    });
  } else if (kind == Axis) {
    // One output per (a, c): windows along the axis, each in order.
    E.loop(0, A, [&](Value *a) {
      E.loop(0, C, [&](Value *c) {
        Value *first = b.CreateAdd(b.CreateMul(a, L.c64(R * C)), c);
        Value *v = E.tree1(init, R, [&](Value *i) {
          return elemLin(b.CreateAdd(first, b.CreateMul(i, L.c64(C))));
        }, heap);
        L.store(DType::F32, v, dst, b.CreateAdd(b.CreateMul(a, L.c64(C)), c));
      });
    });
  } else if (r >= 3) {
    // Windows of 32 while a side is longer than 32, then slab by slab (Emit::foldND).
    Value *v = E.foldND(init, s.shape, [&](const std::vector<Value *> &idx) {
      return elemLin(L.linearIndex(idx, s.shape));
    }, heap);
    L.store(DType::F32, v, dst, L.c64(0));
  } else if (r == 1 || R == 1) {
    L.store(DType::F32, E.tree1(init, R * C, elemLin, heap), dst, L.c64(0));
  } else {
    // A 2-D [R, C] summed whole: windows of 32 x 32 while a side is longer than 32.
    int64_t a = R, c = C;
    std::function<Value *(Value *, Value *)> el = [&](Value *i, Value *j) {
      return elemLin(b.CreateAdd(b.CreateMul(i, L.c64(C)), j));
    };
    std::vector<std::function<Value *(Value *, Value *)>> keep;  // owns the chain
    while (a > kWindow || c > kWindow) {
      int64_t wa = std::min(a, kWindow), wc = std::min(c, kWindow);
      int64_t oa = ceilDiv(a, wa), oc = ceilDiv(c, wc);
      int64_t la = a > kWindow ? Emit::padLo(a) : 0, lc = c > kWindow ? Emit::padLo(c) : 0;
      Value *w = E.scratch(oa * oc, heap);
      auto prev = el;
      int64_t pa = a, pc = c;
      // Columns padded by exactly one (c = 32k - 1, no padding before): LLVM moves the
      // window's last column, the only one tested, after its rows (Note [XLA sum order]).
      bool lastAfter = c > kWindow && oc * kWindow - c == 1;
      E.loop(0, oa, [&](Value *i) {
        E.loop(0, oc, [&](Value *j) {
          Value *acc = E.slot(E.f, init);
          Value *fi = b.CreateSub(b.CreateMul(i, L.c64(wa)), L.c64(la));
          Value *fj = b.CreateSub(b.CreateMul(j, L.c64(wc)), L.c64(lc));
          auto rows = [&](int64_t dj0, int64_t dj1) {
            E.loop(0, wa, [&](Value *di) {
              Value *ii = b.CreateAdd(fi, di);
              Value *inI =
                  b.CreateAnd(b.CreateICmpSGE(ii, L.c64(0)), b.CreateICmpSLT(ii, L.c64(pa)));
              E.ifThen(inI, [&] {
                E.loop(dj0, dj1, [&](Value *dj) {
                  Value *jj = b.CreateAdd(fj, dj);
                  Value *inJ =
                      b.CreateAnd(b.CreateICmpSGE(jj, L.c64(0)), b.CreateICmpSLT(jj, L.c64(pc)));
                  E.ifThen(inJ, [&] { b.CreateStore(E.op(E.ld(E.f, acc), prev(ii, jj)), acc); });
                });
              });
            });
          };
          rows(0, lastAfter ? wc - 1 : wc);
          if (lastAfter) rows(wc - 1, wc);
          b.CreateStore(E.ld(E.f, acc), E.at(w, b.CreateAdd(b.CreateMul(i, L.c64(oc)), j)));
        });
      });
      a = oa, c = oc;
      int64_t cc = oc;
      el = [&E, &b, &L, w, cc](Value *i, Value *j) {
        return E.ld(E.f, E.at(w, b.CreateAdd(b.CreateMul(i, L.c64(cc)), j)));
      };
    }
    Value *out;
    if (a == 1 || c == 1) {
      int64_t cc = c;
      out = E.seq(init, a * c, [&](Value *k) {
        return cc == 1 ? el(k, L.c64(0)) : el(L.c64(0), k);
      });
    } else {
      out = E.slab(init, a, c, el);
    }
    L.store(DType::F32, out, dst, L.c64(0));
  }
  for (Value *p : heap) b.CreateCall(L.rt("spmd_host_free"), {L.fs->host, p});
  return true;
}
}  // namespace

bool emitXlaOrderReduce(LlvmEmitter &L, const ir::Eqn &e) {
  const ir::Atom &x = e.in[0];
  if (e.out[0].type.dtype != DType::F32 || x.type().dtype != DType::F32) return false;
  if (e.op != Op::ReduceSum && e.op != Op::ReduceProd) return false;
  Source src;
  src.cheap = x.isLit;
  if (!x.isLit && !L.fs->fused.count(x.var.id) && !L.fs->scalars.count(x.var.id))
    src.buf = L.fs->buf.at(x.var.id);
  src.elem = [&](const std::vector<Value *> &idx) { return L.elemAt(x, idx); };
  ir::Atom mx, my;
  if (e.op == Op::ReduceSum && L.contractibleMul(x, DType::F32, mx, my)) {
    src.mulX = [&](const std::vector<Value *> &idx) { return L.elemAt(mx, idx); };
    bool square = !mx.isLit && !my.isLit && mx.var.id == my.var.id;
    if (!square) src.mulY = [&](const std::vector<Value *> &idx) { return L.elemAt(my, idx); };
  } else if (e.op == Op::ReduceSum && !x.isLit && L.fs->kernel &&
             !L.fs->sharedMul.count(x.var.id) && L.fs->fused.count(x.var.id) &&
             L.reciprocalDiv(*L.fs->fused.at(x.var.id))) {
    // Note [Contracted sums]: A / broadcast(B) is A * broadcast(1 / B) by then, a multiply
    // that the reduce contracts like any other (psum(sum(gs / maximum(nrm, 1.0), axis=0))
    // in a pmap body, conf10a_dp_sgd: fma(a, 1 / b, acc), measured against JAX's partial
    // sums).
    const ir::Eqn &dv = *L.fs->fused.at(x.var.id);
    mx = dv.in[0], my = dv.in[1];
    src.mulX = [&](const std::vector<Value *> &idx) { return L.elemAt(mx, idx); };
    src.mulY = [&](const std::vector<Value *> &idx) {
      return L.binaryOp(Op::Div, DType::F32, L.constOf(DType::F32, 1.0), L.elemAt(my, idx));
    };
  }
  return emitOrdered(L, e.op == Op::ReduceSum ? Op::Add : Op::Mul, x.type().shape,
                     e.intsParam("axes"), src, [&] { return L.defBuffer(e.out[0]); });
}

void emitXlaOrderDot(LlvmEmitter &L, Value *A, Value *B, Value *dst, int64_t batch, int64_t K) {
  auto &b = L.b;
  Source src;
  src.elem = [&](const std::vector<Value *> &idx) {
    Value *i = b.CreateAdd(b.CreateMul(idx[0], L.c64(K)), idx[1]);
    return L.binaryOp(Op::Mul, DType::F32, L.load(DType::F32, A, i), L.load(DType::F32, B, i));
  };
  bool done = emitOrdered(L, Op::Add, {batch, K}, {1}, src, [&] { return dst; });
  internal_assert(done, "XLA's order of a sum over the last axis of [" + std::to_string(batch) +
                            ", " + std::to_string(K) + "] (a vector product)");
}

}  // namespace spmd::codegen
