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

#include <algorithm>

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

/// The axes of a collective other than psum, pmax and pmin (those read theirs as
/// ReduceAxes, Note [Positional axes of a reduction]).
AxisSplit splitOf(const Batcher &bt, const Eqn &e) { return splitAxes(bt, e.param("axis_name")); }

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

// Note [Positional axes of a reduction]: JAX batches a psum (pmax, pmin) over the vmap's
// axis by putting the batch dimension into the primitive's own axes, as a position
// (`_batched_reduction_collective` in jax/_src/lax/parallel.py): under vmap a { vmap b {
// psum(x, (a, b)) } } the inner batching binds `psum[axes=('a', 0)]`, the outer one
// `psum[axes=(0, 1)]`, and the lowering reduces all positional dimensions in one reduce
// before any all-reduce over the names left. So the sum runs over both examples' axes in
// one reduction, in XLA's order for that reduce, not as a sum over b and then a sum over
// a. An operand that is the same for every example is reduced over the other axes first
// and then multiplied by the axis size (JAX's `_constant_reduction`): psum(x, (i, b)) is
// psum(x, i) * N, which rounds differently from psum(x * N, i).
//
// spmdrun keeps a mixed `axes` tuple (names and positions) only while a name in it is the
// axis of an enclosing vmap, still to be batched (the vmaps are batched innermost first,
// Note [Innermost first]); otherwise it splits the reduction at once into a reduce over
// the positions and a collective over the names left, so no mixed tuple leaves the vmap
// pass (codegen and grad see names only). Where the enclosing vmaps are not known (a
// function differentiated inside them: Grad.cpp batches its body alone) every name
// counts as a pmap's, and the reduction splits at each vmap as before.

namespace {

/// A reduction's axes: names, and positional dimensions of the operand that batching put
/// there (Note [Positional axes of a reduction]).
struct ReduceAxes {
  std::vector<std::string> names;
  std::vector<int64_t> dims;
  bool tuple = false;  ///< written as a tuple (kept so for the names)

  static ReduceAxes of(const Param &p) {
    ReduceAxes r;
    if (p.kind == Param::Str) {
      r.names.push_back(p.s);
      return r;
    }
    r.tuple = true;
    for (auto &e : p.elems) {
      if (e.kind == Param::Int)
        r.dims.push_back(e.i);
      else
        r.names.push_back(e.s);
    }
    return r;
  }

  /// Removes `n` from the names; whether it was there.
  bool take(const std::string &n) {
    auto it = std::find(names.begin(), names.end(), n);
    if (n.empty() || it == names.end()) return false;
    names.erase(it);
    return true;
  }

  /// The dimensions of the batch with its batch dimension at `bdim`.
  void shiftPast(int bdim) {
    for (auto &d : dims) d += d >= bdim ? 1 : 0;
  }
};

/// Emits the reduction `op` of `x` over `ax`: one equation with a mixed tuple while a name
/// is an enclosing vmap's, else a reduce over the positions and a collective over the names.
Atom emitReduction(Batcher &bt, const Eqn &e, Atom x, ReduceAxes ax) {
  std::sort(ax.dims.begin(), ax.dims.end());
  auto names = [&] {
    std::vector<Param> elems;
    for (auto &n : ax.names) elems.push_back(Param::ofStr(n));
    return elems;
  };
  Params p = e.params;
  bool pending = std::any_of(ax.names.begin(), ax.names.end(),
                             [&](const std::string &n) { return bt.outerVmaps.count(n) != 0; });
  if (pending && !ax.dims.empty()) {
    std::vector<Param> elems = names();
    for (auto d : ax.dims) elems.push_back(Param::of(d));
    p["axes"] = Param::tuple(elems);
    return bt.b.emit1(e.op, {x}, p);
  }
  if (!ax.dims.empty()) x = bt.b.reduce(collectiveInfo(e.op)->localReduce, x, ax.dims);
  if (ax.names.empty()) return x;
  p["axes"] = ax.names.size() == 1 && !ax.tuple ? Param::ofStr(ax.names[0]) : Param::tuple(names());
  return bt.b.emit1(e.op, {x}, p);
}

}  // namespace

std::vector<BVal> batchAllReduce(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins) {
  ReduceAxes ax = ReduceAxes::of(e.param("axes"));
  bool hasV = ax.take(bt.axis);
  const BVal &x = ins[0];
  if (!hasV) {
    if (!x.batched()) return bt.copy(e, ins);
    // Per example, so elementwise over the batch, which keeps its dimension: the
    // positions move past it, and those before it come out.
    ax.shiftPast(x.bdim);
    int before = int(std::count_if(ax.dims.begin(), ax.dims.end(),
                                   [&](int64_t d) { return d < x.bdim; }));
    return {BVal{emitReduction(bt, e, x.a, ax), x.bdim - before}};
  }
  if (!x.batched()) {  // the other axes first, then the axis size (JAX's _constant_reduction)
    Atom r = emitReduction(bt, e, x.a, ax);
    if (e.op == Op::Psum) r = bt.b.binary(Op::Mul, r, bt.b.lit(r.type().dtype, double(bt.size)));
    return {BVal{r, kNotMapped}};
  }
  ax.shiftPast(x.bdim);
  ax.dims.push_back(x.bdim);
  return {BVal{emitReduction(bt, e, x.a, ax), kNotMapped}};  // the same for every example
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
