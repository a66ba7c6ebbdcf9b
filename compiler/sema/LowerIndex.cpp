// ===- LowerIndex.cpp - indexing ---------------------------------------------------===//
//
// `x[3]`, `x[-1]`, `x[1:3]`, `x[::2]`, `x[:, i]`: static items become slice, rev and reshape;
// a traced scalar index a dynamic_slice behind a range check.
#include "sema/AstLowering.h"

#include <algorithm>
#include <cmath>

namespace spmd::sema {
using namespace ast;
using ir::Atom;
using ir::DType;
using ir::Op;
using ir::Param;

// ---- indexing --------------------------------------------------------------------------------

// Note [Bool indices]
// ~~~~~~~~~~~~~~~~~~~
// A static bool is a Python int elsewhere (a slice bound, a shape, a tuple index), but
// NumPy and JAX read a bool scalar *indexing an array* as a mask: `x[True]` is x with a
// new axis of length 1 in front, `x[False]` one of length 0, and `x.at[True].set(v)` sets
// every element. spmdrun took `true` as the index 1 and `false` as 0: another array,
// silently. It does not model mask indexing (a traced bool index is a
// NonConcreteBooleanIndexError in jitted JAX), so a bool index into an array, static or
// not, is an error that says what JAX would do, in `x[...]` and in set() alike.
[[noreturn]] void boolIndex(SrcRange loc, const std::string &what) {
  userError(loc, "an array index must be an integer, not a bool: NumPy and JAX read " + what +
                     " as a mask (a new axis of length 1 for True, 0 for False), not as "
                     "the index 1 or 0",
            {{SrcRange{}, "write i32(c) to index by 0 or 1, or expand_dims(x, 0) for the new "
                          "axis (docs/language.md, Indexing)"}});
}

ValueP AstLowering::index(ValueP base, const IndexExpr &e) {
  // Tuples and static lists: static indexing and slicing.
  if (base->kind == Value::Tuple) {
    // A static list of numbers spelled as a nested list is the array it spells:
    // [[1, 2], [3, 4]][:, 0] indexes it as jnp.array would.
    if (e.items.size() != 1 && base->isList && base->isStatic())
      return index(toArray(base, e.loc), e);
    if (e.items.size() != 1) userError(e.loc, "a " + describe(*base) + " takes one index");
    const IndexItem &it = e.items[0];
    int64_t n = int64_t(base->elems.size());
    if (!it.isSlice) {
      ValueP iv = expr(*it.index);
      if (iv->kind == Value::Array && base->isList && base->isStatic()) {
        ValueP arr = toArray(base, e.loc);
        return index(arr, e);
      }
      int64_t k = staticInt(iv, it.index->loc, "an index into a tuple");
      int64_t kk = k < 0 ? k + n : k;
      if (kk < 0 || kk >= n)
        userError(it.index->loc,
                  "index " + std::to_string(k) + " is out of range for a " + describe(*base));
      return base->elems[kk];
    }
    // Python's slice of a tuple or list (slice.indices): a negative step walks back from
    // the end, t[::-1] reverses, bounds past either end clamp.
    int64_t st = it.step ? staticInt(expr(*it.step), it.step->loc, "a slice step") : 1;
    if (st == 0) userError(it.step->loc, "a slice step cannot be zero");
    auto bound = [&](const ExprP &b, int64_t dflt) {
      if (!b) return dflt;
      int64_t v = staticInt(expr(*b), b->loc, "a slice bound");
      if (v < 0) v = v < -n ? (st < 0 ? -1 : 0) : v + n;
      else if (v >= n) v = st < 0 ? n - 1 : n;
      return v;
    };
    int64_t lo = bound(it.lo, st < 0 ? n - 1 : 0), hi = bound(it.hi, st < 0 ? -1 : n);
    std::vector<ValueP> r;
    for (int64_t k = lo; st > 0 ? k < hi : k > hi;) {
      r.push_back(base->elems[k]);
      if (st > 0 ? hi - k <= st : k - hi <= -st) break;  // no overflow for a huge step
      k += st;
    }
    return Value::tuple(r, base->isList);
  }
  if (base->kind != Value::Array)
    userError(e.base->loc, "a " + describe(*base) + " cannot be indexed");
  Atom x = base->atom;
  ir::Type t = x.type();
  // Note [None in an index]: `x[:, None]` adds an axis of length 1 where the None stands,
  // as NumPy's newaxis: its position in the result counts the slices and Nones before it
  // (an integer index leaves no axis). `None` is not a name of the language otherwise;
  // bound by a let, it is that value.
  std::vector<const IndexItem *> items;
  std::vector<int64_t> newAxes;
  int64_t outDims = 0;
  for (auto &it : e.items) {
    if (!it.isSlice && it.index->kind == ExprKind::Name &&
        static_cast<const NameExpr &>(*it.index).name == "None" && !scope->lookup("None")) {
      newAxes.push_back(outDims++);
      continue;
    }
    items.push_back(&it);
    outDims += it.isSlice;
  }
  if (int(items.size()) > t.rank())
    userError(items[t.rank()]->loc, "too many indices for an array of type " + t.str());
  std::vector<int64_t> start(t.rank(), 0), limit = t.shape, stride(t.rank(), 1), revDims;
  std::vector<bool> dropped(t.rank(), false);
  std::vector<std::pair<int, Atom>> dynamic;
  for (size_t d = 0; d < items.size(); ++d) {
    const IndexItem &it = *items[d];
    int64_t n = t.shape[d];
    if (!it.isSlice) {
      ValueP iv = expr(*it.index);
      if (iv->kind == Value::Array) {
        if (iv->type().rank() != 0 || !ir::isInt(iv->type().dtype))
          userError(it.index->loc, "an index must be an integer scalar, not " + iv->type().str());
        indexLit(n, it.index->loc);  // Note [Indices past i32]
        dynamic.push_back({int(d), iv->atom});
        dropped[d] = true;
        continue;
      }
      if (iv->kind == Value::Bool) boolIndex(it.index->loc, "x[" + std::string(iv->i ? "True" : "False") + "]");
      int64_t k = staticInt(iv, it.index->loc, "an index");
      int64_t kk = k < 0 ? k + n : k;
      if (kk < 0 || kk >= n)
        userError(it.index->loc, "index " + std::to_string(k) + " is out of range for axis " +
                                     std::to_string(d) + " of size " + std::to_string(n));
      start[d] = kk;
      limit[d] = kk + 1;
      dropped[d] = true;
      continue;
    }
    int64_t st = it.step ? staticInt(expr(*it.step), it.step->loc, "a slice step") : 1;
    if (st == 0) userError(it.step->loc, "a slice step cannot be zero");
    // A step longer than the axis takes at most one element, as the axis' length does; so
    // clamped, no bound or length below can overflow (a step may be any int64).
    st = std::clamp<int64_t>(st, -std::max<int64_t>(n, 1), std::max<int64_t>(n, 1));
    // Python slice semantics, then a forward slice (with rev for negative steps).
    int64_t lo, hi;
    if (st > 0) {
      lo = it.lo ? staticInt(expr(*it.lo), it.lo->loc, "a slice bound") : 0;
      hi = it.hi ? staticInt(expr(*it.hi), it.hi->loc, "a slice bound") : n;
      if (lo < 0) lo += n;
      if (hi < 0) hi += n;
      lo = std::clamp<int64_t>(lo, 0, n);
      hi = std::clamp<int64_t>(hi, lo, n);
      start[d] = lo;
      limit[d] = hi;
      stride[d] = st;
    } else {
      lo = it.lo ? staticInt(expr(*it.lo), it.lo->loc, "a slice bound") : n - 1;
      hi = it.hi ? staticInt(expr(*it.hi), it.hi->loc, "a slice bound") : -n - 1;
      if (it.lo && lo < 0) lo += n;
      if (it.hi && hi < 0) hi += n;
      lo = std::clamp<int64_t>(lo, -1, n - 1);
      hi = std::clamp<int64_t>(hi, -1, n - 1);
      // Elements lo, lo+st, ... > hi. In the reversed array index r = n-1-i.
      int64_t rlo = n - 1 - lo, rhi = n - 1 - hi;
      if (rhi < rlo) rhi = rlo;
      revDims.push_back(int64_t(d));
      start[d] = rlo;
      limit[d] = rhi;
      stride[d] = -st;
    }
  }
  if (!revDims.empty()) x = emit1(Op::Rev, {x}, {{"dimensions", Param::ints(revDims)}});
  bool trivial = start == std::vector<int64_t>(t.rank(), 0) && limit == t.shape &&
                 stride == std::vector<int64_t>(t.rank(), 1);
  if (!trivial)
    x = emit1(
        Op::Slice, {x},
        {{"start_indices", Param::ints(start)},
         {"limit_indices", Param::ints(limit)},
         {"strides", std::all_of(stride.begin(), stride.end(), [](int64_t s) { return s == 1; })
                         ? Param::none()
                         : Param::ints(stride)}});
  if (!dynamic.empty()) {
    ir::Type xt = x.type();
    std::vector<Atom> ins{x};
    std::vector<int64_t> sizes = xt.shape;
    std::vector<Atom> idx(xt.rank(), b().lit(DType::I32, 0));
    for (auto &[d, a] : dynamic) {
      // Negative indices count from the end, as in NumPy; out of range is a run-time error.
      Atom i = castTo(a, DType::I32);
      Atom n = b().lit(DType::I32, double(xt.shape[d]));  // fits: checked above
      Atom neg = emit1(Op::Lt, {i, b().lit(DType::I32, 0)});
      idx[d] = emit1(Op::Select, {neg, i, emit1(Op::Add, {i, n})});
      sizes[d] = 1;
    }
    ins.insert(ins.end(), idx.begin(), idx.end());
    x = emit1(Op::DynamicSlice, ins, {{"slice_sizes", Param::ints(sizes)}});
  }
  ir::Shape out;
  ir::Shape cur = x.type().shape;
  for (int d = 0; d < t.rank(); ++d)
    if (!dropped[d]) out.push_back(cur[d]);
  for (int64_t a : newAxes) out.insert(out.begin() + a, 1);
  if (out != cur)
    x = emit1(Op::Reshape, {x}, {{"new_sizes", Param::ints(out)}, {"dimensions", Param::none()}});
  return Value::array(x, base->weak);
}

}  // namespace spmd::sema
