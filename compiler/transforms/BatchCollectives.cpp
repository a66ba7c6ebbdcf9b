// ===- BatchCollectives.cpp - batching rules for the named-axis collectives ------===//
//
// A collective over the vmap's own axis becomes array work along the batch dimension:
// psum is a reduction (whose result is the same for every example, so unbatched),
// all_gather a move of the batch dimension, ppermute static slices and zeros,
// all_to_all a reshape and transpose, reduce_scatter a reduction then a split, and
// axis_index an iota. A collective over other axes (pmap axes bound outside, or an
// outer vmap's axis, Note [Innermost first]) stays a collective: a batched operand keeps
// its batch dimension, and axis parameters shift past it. A reduction over several axes
// reduces the vmap's part here and leaves a collective over the rest; every other
// collective over the vmap's axis together with other axes becomes one collective over
// the other axes plus local work (BatchMixedAxes.cpp, Note [Mixed axis tuples]).
#include "ir/Collectives.h"
#include "transforms/BatchRules.h"

namespace spmd::transforms::batching {
using namespace ir;

namespace {

/// The axes a collective names, split into "the vmap's axis" and the others.
struct AxisSplit {
  bool hasV = false;
  std::vector<std::string> rest;
  bool tuple = false;  ///< written as a tuple (kept so for the rest)
  MixedAxes mixed;     ///< the others, before and after the vmap's axis
  bool isMixed() const { return hasV && !rest.empty(); }

  Param restParam() const {
    if (rest.size() == 1 && !tuple) return Param::ofStr(rest[0]);
    std::vector<Param> e;
    for (auto &s : rest) e.push_back(Param::ofStr(s));
    return Param::tuple(e);
  }
};

AxisSplit splitAxes(const Batcher &bt, const Param &p) {
  AxisSplit r;
  std::vector<std::string> names;
  if (p.kind == Param::Str)
    names.push_back(p.s);
  else {
    r.tuple = true;
    for (auto &e : p.elems) names.push_back(e.s);
  }
  for (auto &n : names) {
    if (!bt.axis.empty() && n == bt.axis) {
      r.hasV = true;
      continue;
    }
    r.rest.push_back(n);
    (r.hasV ? r.mixed.post : r.mixed.pre).push_back(n);
  }
  return r;
}

const char *axisKey(Op op) {
  return op == Op::Psum || op == Op::Pmax || op == Op::Pmin ? "axes" : "axis_name";
}

AxisSplit splitOf(const Batcher &bt, const Eqn &e) { return splitAxes(bt, e.param(axisKey(e.op))); }

/// Over other axes only: the collective itself, on the batch at 0 with `shiftKeys`
/// moved past the batch dimension.
std::vector<BVal> otherAxes(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins,
                            std::initializer_list<const char *> shiftKeys) {
  if (!ins.empty() && !ins[0].batched()) return bt.copy(e, ins);
  Params p = e.params;
  for (auto k : shiftKeys) p[k] = Param::of(e.intParam(k) + 1);
  return {BVal{bt.b.emit1(e.op, {bt.at0(ins[0])}, p), 0}};
}

/// The sum over the examples of `x` (N times x when unbatched): a per-example shape.
Atom sumOverBatch(Batcher &bt, const BVal &x) {
  if (x.batched()) return bt.b.reduce(Op::ReduceSum, x.a, {x.bdim});
  return bt.b.binary(Op::Mul, x.a, bt.b.lit(x.a.type().dtype, double(bt.size)));
}

}  // namespace

std::vector<BVal> batchAllReduce(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins) {
  AxisSplit s = splitOf(bt, e);
  if (!s.hasV) {
    if (!ins[0].batched()) return bt.copy(e, ins);
    return {BVal{bt.b.emit1(e.op, {ins[0].a}, e.params), ins[0].bdim}};  // per replica, elementwise
  }
  Atom r = ins[0].a;
  if (e.op == Op::Psum)
    r = sumOverBatch(bt, ins[0]);
  else if (ins[0].batched())
    r = bt.b.reduce(collectiveInfo(e.op)->localReduce, r, {ins[0].bdim});
  if (!s.rest.empty()) {
    Params p = e.params;
    p["axes"] = s.restParam();
    r = bt.b.emit1(e.op, {r}, p);
  }
  return {BVal{r, kNotMapped}};  // the same for every example
}

std::vector<BVal> batchAxisIndex(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins) {
  AxisSplit s = splitOf(bt, e);
  if (!s.hasV) return bt.copy(e, ins);
  if (s.isMixed()) return mixedAxisIndex(bt, e, s.mixed);
  Params p{{"dtype", Param::ofDType(DType::I32)},
           {"shape", Param::ints({bt.size})},
           {"dimension", Param::of(0)}};
  return {BVal{bt.b.emit1(Op::Iota, {}, p), 0}};
}

std::vector<BVal> batchAllGather(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins) {
  AxisSplit s = splitOf(bt, e);
  if (!s.hasV) return otherAxes(bt, e, ins, {"all_gather_dimension"});
  if (s.isMixed()) return mixedAllGather(bt, e, ins, s.mixed);
  int d = int(e.intParam("all_gather_dimension"));
  Atom x = bt.moveTo(ins[0], d);  // every example's value, stacked at d
  Shape sh = bt.exampleType(ins[0]).shape;
  if (e.param("tiled").i)
    sh[size_t(d)] *= bt.size;
  else
    sh.insert(sh.begin() + d, bt.size);
  if (x.type().shape != sh) x = bt.b.reshape(x, sh);
  return {BVal{x, kNotMapped}};
}

std::vector<BVal> batchPpermute(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins) {
  AxisSplit s = splitOf(bt, e);
  if (!s.hasV) {
    if (!ins[0].batched()) return bt.copy(e, ins);
    return {BVal{bt.b.emit1(e.op, {ins[0].a}, e.params), ins[0].bdim}};
  }
  if (s.isMixed()) return mixedPpermute(bt, e, ins, s.mixed);
  Builder &b = bt.b;
  Atom x = bt.at0(ins[0]);
  Type ex = bt.exampleType(ins[0]);
  std::vector<int64_t> srcOf(size_t(bt.size), -1);
  for (auto &pair : e.param("perm").elems) {
    auto sd = pair.toInts();
    srcOf[size_t(sd[1])] = sd[0];
  }
  // Runs of destinations that read consecutive sources become one static slice; runs of
  // destinations that receive nothing become zeros.
  std::vector<Atom> pieces;
  for (int64_t d = 0; d < bt.size;) {
    int64_t len = 1;
    if (srcOf[d] >= 0) {
      while (d + len < bt.size && srcOf[d + len] == srcOf[d] + len) ++len;
      Shape lo(size_t(ex.rank() + 1), 0), hi = prepend(bt.size, ex.shape);
      lo[0] = srcOf[d];
      hi[0] = srcOf[d] + len;
      pieces.push_back(b.emit1(Op::Slice, {x},
                               {{"start_indices", Param::ints(lo)},
                                {"limit_indices", Param::ints(hi)},
                                {"strides", Param::none()}}));
    } else {
      while (d + len < bt.size && srcOf[d + len] < 0) ++len;
      Shape zs = prepend(len, ex.shape);
      if (ex.dtype != DType::Key)
        pieces.push_back(b.fill(ex.dtype, zs, 0));
      else {  // zero keys: the words (0, 0)
        zs.push_back(2);
        pieces.push_back(b.emit1(Op::RandomWrap, {b.fill(DType::U32, zs, 0)}));
      }
    }
    d += len;
  }
  if (pieces.empty()) return {BVal{x, 0}};  // a vmap of size 0: nothing to move
  if (pieces.size() == 1) return {BVal{pieces[0], 0}};
  return {BVal{b.emit1(Op::Concatenate, pieces, {{"dimension", Param::of(0)}}), 0}};
}

std::vector<BVal> batchAllToAll(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins) {
  AxisSplit s = splitOf(bt, e);
  if (!s.hasV) return otherAxes(bt, e, ins, {"split_axis", "concat_axis"});
  if (s.isMixed()) return mixedAllToAll(bt, e, ins, s.mixed);
  Builder &b = bt.b;
  int sa = int(e.intParam("split_axis")), ca = int(e.intParam("concat_axis"));
  int64_t n = bt.size;
  Shape p = bt.exampleType(ins[0]).shape;
  int r = int(p.size());
  // [j, p0, .., (k, c) at sa, ..]: j the sender, k the chunk (= the receiver).
  Shape split{n};
  std::vector<int64_t> pos(static_cast<size_t>(r));
  int64_t kpos = 0, cpos = 0;
  for (int d = 0; d < r; ++d) {
    if (d == sa) {
      kpos = int64_t(split.size());
      split.push_back(n);
      cpos = int64_t(split.size());
      split.push_back(p[d] / n);
    } else {
      pos[size_t(d)] = int64_t(split.size());
      split.push_back(p[d]);
    }
  }
  Var xs = b.reshape(bt.at0(ins[0]), split);
  // Receiver first; the sender j goes just before the concat axis so it merges into it.
  std::vector<int64_t> perm{kpos};
  for (int d = 0; d < r; ++d) {
    if (d == ca) perm.push_back(0);
    perm.push_back(d == sa ? cpos : pos[size_t(d)]);
  }
  Shape out = p;
  out[size_t(sa)] /= n;
  out[size_t(ca)] *= n;
  return {BVal{b.reshape(b.transpose(xs, perm), prepend(n, out)), 0}};
}

std::vector<BVal> batchReduceScatter(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins) {
  AxisSplit ax = splitOf(bt, e);
  if (!ax.hasV) return otherAxes(bt, e, ins, {"scatter_dimension"});
  int d = int(e.intParam("scatter_dimension"));
  Atom s = sumOverBatch(bt, ins[0]);  // the total; example k keeps block k along d
  if (ax.isMixed()) return mixedReduceScatter(bt, e, ins, ax.mixed, s);
  if (!e.param("tiled").i) return {BVal{s, d}};
  Shape sh = s.type().shape;
  sh[size_t(d)] /= bt.size;
  sh.insert(sh.begin() + d, bt.size);
  return {BVal{bt.b.reshape(s, sh), d}};
}

}  // namespace spmd::transforms::batching
