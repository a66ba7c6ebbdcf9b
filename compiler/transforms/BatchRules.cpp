// ===- BatchRules.cpp - batching rules for the array primitives -----------------===//
//
// Elementwise ops, reductions, shape and data movement, dynamic indexing, dot_general
// and the PRNG primitives. Most rules move the batch dimension to 0 (JAX's `moveaxis`)
// and shift the per-example axis numbers in the params by one. Dynamic indexing with a
// batched index has no gather to lean on; Note [Batched dynamic indices] says what is
// emitted instead.
#include "transforms/BatchRules.h"

#include <algorithm>

#include "spmdrt.h"  // SPMD_INDEX_ERROR

namespace spmd::transforms::batching {
using namespace ir;

namespace {

std::vector<BVal> one(Var v, int bdim = 0) { return {BVal{v, bdim}}; }

/// The common case: operand 0 moved to batch dim 0, `key` params shifted by one.
std::vector<BVal> shiftParams(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins,
                              std::initializer_list<const char *> keys) {
  Params p = e.params;
  for (auto k : keys) {
    auto v = shifted(e.intsParam(k));
    p[k] = e.param(k).kind == Param::List ? Param::ints(v, true) : Param::ints(v);
  }
  return one(bt.b.emit1(e.op, {bt.at0(ins[0])}, p));
}

Params withParam(Params p, const std::string &k, Param v) {
  p[k] = std::move(v);
  return p;
}

}  // namespace

std::vector<BVal> batchElementwise(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins) {
  Shape out;  // the per-example result shape (scalars broadcast, as inferTypes allows)
  for (auto &v : ins)
    if (out.empty()) out = bt.exampleType(v).shape;
  Shape full = prepend(bt.size, out);
  std::vector<Atom> as;
  for (auto &v : ins) {
    int r = bt.exampleType(v).rank();
    if (v.batched()) {
      Atom x = bt.at0(v);
      as.push_back(r == 0 && !out.empty() ? Atom(bt.b.broadcastInDim(x, full, {0})) : x);
    } else if (r == 0) {
      as.push_back(v.a);  // scalars and literals mix with arrays as they are
    } else {
      std::vector<int64_t> dims;
      for (int k = 0; k < r; ++k) dims.push_back(k + 1);
      as.push_back(bt.b.broadcastInDim(v.a, full, dims));
    }
  }
  return one(bt.b.emit1(e.op, as, e.params));
}

std::vector<BVal> batchReduce(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins) {
  return shiftParams(bt, e, ins, {"axes"});
}

std::vector<BVal> batchBroadcastInDim(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins) {
  Shape s = prepend(bt.size, e.intsParam("shape"));
  auto dims = shifted(e.intsParam("broadcast_dimensions"));
  dims.insert(dims.begin(), 0);
  Params p = withParam(e.params, "shape", Param::ints(s));
  p["broadcast_dimensions"] = Param::ints(dims);
  return one(bt.b.emit1(e.op, {bt.at0(ins[0])}, p));
}

std::vector<BVal> batchReshape(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins) {
  return one(bt.b.emit1(
      e.op, {bt.at0(ins[0])},
      withParam(e.params, "new_sizes", Param::ints(prepend(bt.size, e.intsParam("new_sizes"))))));
}

std::vector<BVal> batchTranspose(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins) {
  auto perm = shifted(e.intsParam("permutation"));
  perm.insert(perm.begin(), 0);
  return one(
      bt.b.emit1(e.op, {bt.at0(ins[0])}, withParam(e.params, "permutation", Param::ints(perm))));
}

std::vector<BVal> batchConcatenate(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins) {
  std::vector<Atom> as;
  for (auto &v : ins) as.push_back(bt.at0(v));
  return one(bt.b.emit1(e.op, as,
                        withParam(e.params, "dimension", Param::of(e.intParam("dimension") + 1))));
}

std::vector<BVal> batchSlice(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins) {
  Params p = e.params;
  auto st = e.intsParam("start_indices"), li = e.intsParam("limit_indices");
  st.insert(st.begin(), 0);
  li.insert(li.begin(), bt.size);
  p["start_indices"] = Param::ints(st);
  p["limit_indices"] = Param::ints(li);
  if (e.has("strides") && e.param("strides").kind != Param::None) {
    auto s = e.intsParam("strides");
    s.insert(s.begin(), 1);
    p["strides"] = Param::ints(s);
  }
  return one(bt.b.emit1(e.op, {bt.at0(ins[0])}, p));
}

std::vector<BVal> batchPad(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins) {
  Params p = e.params;
  auto &cfg = p["padding_config"].elems;
  cfg.insert(cfg.begin(), Param::ints({0, 0, 0}));
  Atom x = bt.at0(ins[0]);
  if (!ins[1].batched()) return one(bt.b.emit1(e.op, {x, ins[1].a}, p));
  // A batched padding value: pad with zero, then select it where a padded mask is false.
  Type ex = bt.exampleType(ins[0]);
  Var padded = bt.b.emit1(e.op, {x, bt.b.lit(ex.dtype, 0)}, p);
  Params pm = e.params;
  Var mask = bt.b.emit1(e.op, {bt.b.fill(DType::Bool, ex.shape, 1), bt.b.lit(DType::Bool, 0)}, pm);
  Eqn sel;
  sel.op = Op::Select;
  return batchElementwise(bt, sel, {{mask, kNotMapped}, ins[1], {padded, 0}});
}

std::vector<BVal> batchRev(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins) {
  return shiftParams(bt, e, ins, {"dimensions"});
}

// Note [Batched dynamic indices]
// dynamic_slice and dynamic_update_slice with an index that differs per example would
// need a gather/scatter. Instead, for each dimension d whose index is batched, we build
// a one-hot selection with iota and compare: for dynamic_slice, broadcast x to
// [B, .., s, n, ..] (s the slice size, n the dimension size), keep the element where
// k == start[b] + j, zero elsewhere, and reduce over k; dynamic_update_slice moves the
// update the same way to its place in x's shape and selects it where the (per-example)
// window mask holds. The cost is O(s*n) per row; there is no loop. Keys take the same
// path through their u32 words.
//
// Out of range, a per-example index is the same run-time error as without vmap (Note
// [Index errors] in codegen/EmitArrays.cpp): a check equation (Note [Run-time checks])
// checks every example's index first, with the bounds, reported size and negative-index
// wrap that dynamic_slice's own check would use. The starts are then clamped only so that the
// one-hot selection stays defined.

namespace {

/// The start of a window of size `s` in a dimension of size `n`: an i32 of shape [B]
/// (or scalar when unbatched), clamped into [0, n - s] as lax.dynamic_slice does.
BVal clampedStart(Batcher &bt, const BVal &i, int64_t n, int64_t s) {
  Eqn conv;
  conv.op = Op::Convert;
  conv.params = {{"new_dtype", Param::ofDType(DType::I32)}, {"weak_type", Param::ofBool(false)}};
  BVal x = i;
  if (i.a.type().dtype != DType::I32)
    x = i.batched() ? batchElementwise(bt, conv, {i})[0]
                    : BVal{bt.b.convert(i.a, DType::I32), kNotMapped};
  auto bin = [&](Op op, BVal a, double c) {
    Eqn q;
    q.op = op;
    Atom lit = bt.b.lit(DType::I32, c);
    if (!a.batched()) return BVal{bt.b.binary(op, a.a, lit), kNotMapped};
    return batchElementwise(bt, q, {a, {lit, kNotMapped}})[0];
  };
  return bin(Op::Max, bin(Op::Min, x, double(n - s)), 0);
}

/// A window of each example as a one-hot product (x batched at 0): x broadcast to
/// [.., s, n, ..] (dimensions d+1 and d+2) keeps element (j, i) where i == j + start
/// (the example's) and zero elsewhere, then the sum (or, for bools) over n (a slice: x
/// has n at d+1, the result s) or over s (placing: x has s at d+1, the result n). `len`
/// is the side x lacks (s or n).
Atom oneHotWindow(Batcher &bt, Atom x, int d, int64_t len, const BVal &start, bool place) {
  Builder &b = bt.b;
  bool key = x.type().dtype == DType::Key;
  if (key) x = b.emit1(Op::RandomUnwrap, {x});
  Shape xs = x.type().shape;
  Shape big = xs;
  int newAxis = place ? d + 2 : d + 1;  // the axis x lacks
  big.insert(big.begin() + newAxis, len);  // [.., s, n, ..]
  std::vector<int64_t> dims;
  for (int k = 0; k < int(xs.size()); ++k) dims.push_back(k < newAxis ? k : k + 1);
  Var xb = b.broadcastInDim(x, big, dims);
  auto iota = [&](int64_t dim) {
    return b.emit1(Op::Iota, {},
                   {{"dtype", Param::ofDType(DType::I32)},
                    {"shape", Param::ints(big)},
                    {"dimension", Param::of(dim)}});
  };
  Atom st = start.batched() ? Atom(b.broadcastInDim(start.a, big, {0})) : start.a;
  Var mask = b.binary(Op::Eq, iota(d + 2), b.binary(Op::Add, iota(d + 1), st));
  DType dt = xb.type.dtype;
  Var sel = b.emit1(Op::Select, {mask, b.fill(dt, big, 0), xb});
  Var r = b.reduce(dt == DType::Bool ? Op::ReduceOr : Op::ReduceSum, sel, {place ? d + 1 : d + 2});
  return key ? Atom(b.emit1(Op::RandomWrap, {r})) : Atom(r);
}

/// x: batched at 0, dimension d+1 of size n; start: i32 [B] or scalar. Returns x with
/// dimension d+1 cut to the window [start, start + s) of each example.
Atom oneHotSlice(Batcher &bt, Atom x, int d, int64_t s, const BVal &start) {
  return oneHotWindow(bt, x, d, s, start, /*place=*/false);
}

/// The inverse move: u batched at 0 with dimension d+1 of size s is spread into size n,
/// each example's window starting at start[b] (zeros elsewhere).
Atom oneHotPlace(Batcher &bt, Atom u, int d, int64_t n, const BVal &start) {
  return oneHotWindow(bt, u, d, n, start, /*place=*/true);
}

bool anyIndexBatched(const std::vector<BVal> &ins, size_t first) {
  for (size_t k = first; k < ins.size(); ++k)
    if (ins[k].batched()) return true;
  return false;
}

Atom zeroIndex(Batcher &bt, const std::vector<BVal> &ins, size_t first) {
  return bt.b.lit(ins.size() > first ? ins[first].a.type().dtype : DType::I32, 0);
}

}  // namespace

/// Emits a check on each batched index among ins[first..] (a window of `sizes[d]` along
/// dimension d of the example shape `ex`), as dynamicStarts checks one index: the index
/// must lie in [0, n - s]; the error reports a negative index of a one-element window as
/// written (index - n) and the size n (Note [Index errors] in codegen/EmitArrays.cpp).
static void checkBatchedIndices(Batcher &bt, const std::vector<BVal> &ins, size_t first,
                                const Type &ex, const std::vector<int64_t> &sizes) {
  Builder &b = bt.b;
  for (size_t k = first; k < ins.size(); ++k) {
    if (!ins[k].batched()) continue;
    int64_t n = ex.shape[k - first], s = sizes[k - first], limit = n - s;
    Atom i = ins[k].a;
    DType d = i.type().dtype;
    bool sign = d != DType::U32;
    Atom zero = b.lit(d, 0), bad;
    if (limit < 0)
      bad = b.broadcastInDim(b.lit(DType::Bool, 1), i.type().shape, {});
    else {
      bad = b.binary(Op::Gt, i, b.lit(d, double(limit)));
      if (sign) bad = b.binary(Op::Or, bad, b.binary(Op::Lt, i, zero));
    }
    Atom reported = i;
    if (s == 1 && sign)
      reported = b.emit1(Op::Select, {b.binary(Op::Lt, i, zero), i,
                                      b.binary(Op::Sub, i, b.lit(d, double(n)))});
    b.emit(Op::Check, {bad, reported, b.lit(DType::I32, double(limit < 0 ? n : limit + 1))},
           {{"message", Param::ofStr(SPMD_INDEX_ERROR)}});
  }
}

std::vector<BVal> batchCheck(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins) {
  // Every element is checked: the operands go with the batch dimension first, the
  // unbatched ones broadcast to the condition's shape (a scalar stays a scalar).
  bool any = false;
  for (auto &v : ins) any |= v.batched();
  if (!any) {
    std::vector<Atom> as;
    for (auto &v : ins) as.push_back(v.a);
    bt.b.emit(Op::Check, as, e.params);
    return {};
  }
  Type ex = bt.exampleType(ins[0]);
  Shape full = prepend(bt.size, ex.shape);
  std::vector<Atom> as;
  for (auto &v : ins) {
    Atom a = v.batched() ? bt.at0(v) : v.a;
    if (a.type().shape != full && !(!v.batched() && a.type().rank() == 0)) {
      std::vector<int64_t> dims;
      for (int64_t k = v.batched() ? 0 : 1; k < int64_t(a.type().rank()) + (v.batched() ? 0 : 1); ++k)
        dims.push_back(k);
      a = bt.b.broadcastInDim(a, full, dims);
    }
    as.push_back(a);
  }
  bt.b.emit(Op::Check, as, e.params);
  return {};
}

std::vector<BVal> batchDynamicSlice(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins) {
  auto sizes = e.intsParam("slice_sizes");
  Type ex = bt.exampleType(ins[0]);
  checkBatchedIndices(bt, ins, 1, ex, sizes);
  if (!anyIndexBatched(ins, 1)) {
    std::vector<Atom> as{bt.at0(ins[0]), zeroIndex(bt, ins, 1)};
    for (size_t k = 1; k < ins.size(); ++k) as.push_back(ins[k].a);
    return one(bt.b.emit1(
        e.op, as, withParam(e.params, "slice_sizes", Param::ints(prepend(bt.size, sizes)))));
  }
  // Note [Batched dynamic indices]: unbatched indices first, in one dynamic_slice.
  Atom x = bt.at0(ins[0]);
  std::vector<Atom> as{x, zeroIndex(bt, ins, 1)};
  Shape s1 = prepend(bt.size, sizes);
  for (size_t k = 1; k < ins.size(); ++k) {
    bool bat = ins[k].batched();
    as.push_back(bat ? zeroIndex(bt, ins, 1) : ins[k].a);
    if (bat) s1[k] = ex.shape[k - 1];
  }
  if (s1 != x.type().shape)
    x = bt.b.emit1(e.op, as, withParam(e.params, "slice_sizes", Param::ints(s1)));
  for (size_t k = 1; k < ins.size(); ++k) {
    if (!ins[k].batched()) continue;
    int d = int(k - 1);
    int64_t n = ex.shape[d], s = sizes[d];
    if (s == n) continue;  // the clamped start is 0
    x = oneHotSlice(bt, x, d, s, clampedStart(bt, ins[k], n, s));
  }
  return {BVal{x, 0}};
}

std::vector<BVal> batchDynamicUpdateSlice(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins) {
  Type ex = bt.exampleType(ins[0]);
  checkBatchedIndices(bt, ins, 2, ex, bt.exampleType(ins[1]).shape);
  if (!anyIndexBatched(ins, 2)) {
    std::vector<Atom> as{bt.at0(ins[0]), bt.at0(ins[1]), zeroIndex(bt, ins, 2)};
    for (size_t k = 2; k < ins.size(); ++k) as.push_back(ins[k].a);
    return one(bt.b.emit1(e.op, as, e.params));
  }
  // Note [Batched dynamic indices]: move the update to its window, then select.
  Builder &b = bt.b;
  Type ut = bt.exampleType(ins[1]);
  Atom u = bt.at0(ins[1]);
  Shape full = prepend(bt.size, ex.shape);
  Atom mask;
  bool haveMask = false;
  for (int d = 0; d < ex.rank(); ++d) {
    int64_t n = ex.shape[d], s = ut.shape[d];
    if (s == n) continue;
    BVal st = clampedStart(bt, ins[2 + d], n, s);
    u = oneHotPlace(bt, u, d, n, st);
    // in window: st <= k < st + s along dimension d+1
    auto iota = b.emit1(Op::Iota, {},
                        {{"dtype", Param::ofDType(DType::I32)},
                         {"shape", Param::ints(full)},
                         {"dimension", Param::of(d + 1)}});
    Atom stb = st.batched() ? Atom(b.broadcastInDim(st.a, full, {0})) : st.a;
    Var lo = b.binary(Op::Ge, iota, stb);
    Var hi = b.binary(Op::Lt, iota, b.binary(Op::Add, stb, b.lit(DType::I32, double(s))));
    Var in = b.binary(Op::And, lo, hi);
    mask = haveMask ? Atom(b.binary(Op::And, mask, in)) : Atom(in);
    haveMask = true;
  }
  if (!haveMask) return {BVal{u, 0}};  // the update covers x
  Atom x = bt.at0(ins[0]);
  return one(b.emit1(Op::Select, {mask, x, u}));
}

std::vector<BVal> batchDotGeneral(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins) {
  auto &dn = e.param("dimension_numbers").elems;
  auto lc = dn[0].elems[0].toInts(), rc = dn[0].elems[1].toInts();
  auto lb = dn[1].elems[0].toInts(), rb = dn[1].elems[1].toInts();
  Atom l = ins[0].a, r = ins[1].a;
  int outBdim = 0;
  if (ins[0].batched() && ins[1].batched()) {  // a new batch dimension, first (JAX)
    l = bt.at0(ins[0]);
    r = bt.at0(ins[1]);
    lc = shifted(lc), rc = shifted(rc);
    lb = shifted(lb), rb = shifted(rb);
    lb.insert(lb.begin(), 0);
    rb.insert(rb.begin(), 0);
  } else if (ins[0].batched()) {  // a free lhs dimension, the first after the batch dims
    l = bt.at0(ins[0]);
    lc = shifted(lc), lb = shifted(lb);
    outBdim = int(lb.size());
  } else {  // a free rhs dimension, after the batch and lhs free dims
    r = bt.at0(ins[1]);
    rc = shifted(rc), rb = shifted(rb);
    outBdim = int(lb.size()) + l.type().rank() - int(lc.size()) - int(lb.size());
  }
  auto L = [](const std::vector<int64_t> &v) { return Param::ints(v, true); };
  Params p = withParam(e.params, "dimension_numbers",
                       Param::tuple({Param::tuple({L(lc), L(rc)}), Param::tuple({L(lb), L(rb)})}));
  return one(bt.b.emit1(e.op, {l, r}, p), outBdim);
}

/// random_seed(seed) is the key (0, seed) (JAX's threefry_seed for 32-bit seeds); a
/// batch of seeds becomes random_wrap of those words, since random_seed takes a scalar.
std::vector<BVal> batchRandomSeed(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins) {
  Builder &b = bt.b;
  Atom s = bt.at0(ins[0]);  // [B]
  if (s.type().dtype != DType::U32)
    s = b.emit1(Op::BitcastConvert, {s}, {{"new_dtype", Param::ofDType(DType::U32)}});
  Shape col{bt.size, 1};
  Var hi = b.fill(DType::U32, col, 0);
  Var lo = b.broadcastInDim(s, col, {0});
  Var words = b.emit1(Op::Concatenate, {hi, lo}, {{"dimension", Param::of(1)}});
  return one(b.emit1(Op::RandomWrap, {words}));
}

std::vector<BVal> batchLeadingKeyDims(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins) {
  return one(bt.b.emit1(e.op, {bt.at0(ins[0])}, e.params));
}

}  // namespace spmd::transforms::batching
