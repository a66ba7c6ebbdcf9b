// ===- TypeRules.cpp - inferTypes: one type rule per primitive, in one table ------===//
//
// typeRules() maps every op of Ops.def to its rule: the elementwise categories, the
// reductions and the host effects share one per category; other ops set their own.
// tests/unit/codegen/test_op_coverage.cpp checks through hasTypeRule that no op lacks one.
#include "ir/TypeRules.h"

#include <algorithm>
#include <array>

namespace spmd::ir {

namespace {

using Types = std::vector<Type>;

/// What a type rule sees: the op, its operand types, params and regions.
struct TypeArgs {
  Op op;
  const Types &ins;
  const Params &params;
  const std::vector<Jaxpr> &regions;

  const Param &P(const char *k) const {
    auto it = params.find(k);
    internal_assert(it != params.end(), std::string("missing param '") + k + "' on " + name(op));
    return it->second;
  }
};
using TypeRule = Types (*)(const TypeArgs &);

/// `s` without the dimensions `axes`.
Shape removeAxes(const Shape &s, const std::vector<int64_t> &axes) {
  Shape r;
  for (int64_t d = 0; d < int64_t(s.size()); ++d)
    if (std::find(axes.begin(), axes.end(), d) == axes.end()) r.push_back(s[d]);
  return r;
}

/// The common shape of elementwise operands (scalars broadcast).
Shape elementwiseShape(const Types &ins, Op op) {
  Shape out;
  for (auto &t : ins) {
    if (t.rank() == 0) continue;
    if (out.empty())
      out = t.shape;
    else
      internal_assert(out == t.shape, std::string("elementwise shapes differ in ") + name(op));
  }
  return out;
}

// ---- the rules shared by a category ------------------------------------------------------

Types unaryRule(const TypeArgs &a) { return {a.ins[0]}; }

Types binaryRule(const TypeArgs &a) {
  internal_assert(a.ins[0].dtype == a.ins[1].dtype, std::string("operand dtypes differ in ") +
                                                        name(a.op) + ": " + a.ins[0].str() + " " +
                                                        a.ins[1].str());
  return {Type{a.ins[0].dtype, elementwiseShape(a.ins, a.op)}};
}

Types compareRule(const TypeArgs &a) {
  internal_assert(a.ins[0].dtype == a.ins[1].dtype,
                  std::string("operand dtypes differ in ") + name(a.op));
  return {Type{DType::Bool, elementwiseShape(a.ins, a.op)}};
}

Types selectRule(const TypeArgs &a) {
  internal_assert(a.ins[0].dtype == DType::Bool, "select_n predicate must be bool");
  internal_assert(a.ins[1].dtype == a.ins[2].dtype, "select_n branches differ in dtype");
  return {Type{a.ins[1].dtype, elementwiseShape(a.ins, a.op)}};
}

Types ternaryRule(const TypeArgs &a) {  // fma: three float operands of one dtype
  internal_assert(a.ins[0].dtype == a.ins[1].dtype && a.ins[1].dtype == a.ins[2].dtype,
                  std::string("operand dtypes differ in ") + name(a.op));
  internal_assert(isFloat(a.ins[0].dtype), std::string(name(a.op)) + " needs float operands");
  return {Type{a.ins[0].dtype, elementwiseShape(a.ins, a.op)}};
}

/// A reduction over `axes` to dtype `d`.
Types reduceTo(const TypeArgs &a, DType d) {
  auto axes = a.P("axes").toInts();
  for (auto x : axes) internal_assert(x >= 0 && x < a.ins[0].rank(), "reduction axis out of range");
  return {Type{d, removeAxes(a.ins[0].shape, axes)}};
}
Types reduceRule(const TypeArgs &a) { return reduceTo(a, a.ins[0].dtype); }

Types noResults(const TypeArgs &) { return {}; }

/// The rule every op of category `c` gets unless it sets its own, or null.
TypeRule categoryRule(OpCategory c) {
  switch (c) {
  case OpCategory::Unary: return unaryRule;
  case OpCategory::Binary: return binaryRule;
  case OpCategory::Compare: return compareRule;
  case OpCategory::Select: return selectRule;
  case OpCategory::Ternary: return ternaryRule;
  case OpCategory::Reduce: return reduceRule;
  case OpCategory::Host: return noResults;
  default: return nullptr;
  }
}

// ---- the per-op rules ------------------------------------------------------------------------

/// Shapes and data movement, indexing and dot_general.
void setShapeRules(std::array<TypeRule, kNumOps> &t) {
  auto set = [&](Op op, TypeRule r) { t[size_t(op)] = r; };
  for (Op op : {Op::Iota, Op::Constant})
    set(op, [](const TypeArgs &a) -> Types {
      return {Type{a.P("dtype").dtype, a.P("shape").toInts()}};
    });
  set(Op::BroadcastInDim, [](const TypeArgs &a) -> Types {
    Shape s = a.P("shape").toInts();
    auto dims = a.P("broadcast_dimensions").toInts();
    internal_assert(int(dims.size()) == a.ins[0].rank(), "broadcast_dimensions rank");
    for (size_t k = 0; k < dims.size(); ++k)
      internal_assert(a.ins[0].shape[k] == 1 || a.ins[0].shape[k] == s[dims[k]],
                      "broadcast_in_dim size");
    return {Type{a.ins[0].dtype, s}};
  });
  set(Op::Reshape, [](const TypeArgs &a) -> Types {
    Type t{a.ins[0].dtype, a.P("new_sizes").toInts()};
    internal_assert(t.numel() == a.ins[0].numel(), "reshape changes the element count");
    return {t};
  });
  set(Op::Transpose, [](const TypeArgs &a) -> Types {
    auto perm = a.P("permutation").toInts();
    internal_assert(int(perm.size()) == a.ins[0].rank(), "transpose permutation rank");
    Shape s;
    for (auto p : perm) s.push_back(a.ins[0].shape[p]);
    return {Type{a.ins[0].dtype, s}};
  });
  set(Op::Concatenate, [](const TypeArgs &a) -> Types {
    int64_t d = a.P("dimension").i;
    Shape s = a.ins.at(0).shape;
    for (size_t k = 1; k < a.ins.size(); ++k) {
      internal_assert(a.ins[k].rank() == a.ins[0].rank() && a.ins[k].dtype == a.ins[0].dtype,
                      "concatenate operands");
      s[d] += a.ins[k].shape[d];
    }
    return {Type{a.ins[0].dtype, s}};
  });
  set(Op::Slice, [](const TypeArgs &a) -> Types {
    auto st = a.P("start_indices").toInts(), li = a.P("limit_indices").toInts();
    std::vector<int64_t> str = a.params.count("strides") && a.P("strides").kind != Param::None
                                   ? a.P("strides").toInts()
                                   : std::vector<int64_t>(st.size(), 1);
    Shape s;
    for (size_t k = 0; k < st.size(); ++k) {
      internal_assert(0 <= st[k] && st[k] <= li[k] && li[k] <= a.ins[0].shape[k], "slice bounds");
      internal_assert(str[k] > 0, "slice stride");
      // ceil((li - st) / str) without overflow: a stride may be as large as an int64.
      s.push_back(li[k] == st[k] ? 0 : (li[k] - st[k] - 1) / str[k] + 1);
    }
    return {Type{a.ins[0].dtype, s}};
  });
  set(Op::Pad, [](const TypeArgs &a) -> Types {
    auto &cfg = a.P("padding_config").elems;
    Shape s;
    for (int k = 0; k < a.ins[0].rank(); ++k) {
      auto c = cfg[k].toInts();
      int64_t n = a.ins[0].shape[k];
      s.push_back(c[0] + c[1] + n + (n > 0 ? (n - 1) * c[2] : 0));
    }
    return {Type{a.ins[0].dtype, s}};
  });
  set(Op::Rev, unaryRule);
  set(Op::DynamicSlice, [](const TypeArgs &a) -> Types {
    return {Type{a.ins[0].dtype, a.P("slice_sizes").toInts()}};
  });
  set(Op::DynamicUpdateSlice, unaryRule);
  set(Op::DotGeneral, [](const TypeArgs &a) -> Types {
    auto &dn = a.P("dimension_numbers").elems;
    auto lc = dn[0].elems[0].toInts(), rc = dn[0].elems[1].toInts();
    auto lb = dn[1].elems[0].toInts(), rb = dn[1].elems[1].toInts();
    const Type &l = a.ins[0], &r = a.ins[1];
    Shape s;
    for (size_t k = 0; k < lb.size(); ++k) {
      internal_assert(l.shape[lb[k]] == r.shape[rb[k]], "dot_general batch sizes");
      s.push_back(l.shape[lb[k]]);
    }
    for (size_t k = 0; k < lc.size(); ++k)
      internal_assert(l.shape[lc[k]] == r.shape[rc[k]], "dot_general contracting sizes");
    auto free = [&](const Type &t, const std::vector<int64_t> &c, const std::vector<int64_t> &b) {
      for (int64_t d = 0; d < t.rank(); ++d)
        if (std::find(c.begin(), c.end(), d) == c.end() &&
            std::find(b.begin(), b.end(), d) == b.end())
          s.push_back(t.shape[d]);
    };
    free(l, lc, lb);
    free(r, rc, rb);
    internal_assert(l.dtype == r.dtype, "dot_general dtypes differ");
    return {Type{l.dtype, s}};
  });
}

/// Collectives, random numbers and regions.
void setOtherRules(std::array<TypeRule, kNumOps> &t) {
  auto set = [&](Op op, TypeRule r) { t[size_t(op)] = r; };
  // An all-reduce keeps its operand's type, but for the positional dimensions a vmap's
  // batching leaves in its axes while an enclosing vmap's axis is still to be batched
  // (Note [Positional axes of a reduction] in transforms/BatchCollectives.cpp).
  for (Op op : {Op::Psum, Op::Pmax, Op::Pmin})
    set(op, [](const TypeArgs &a) -> Types {
      const Param &axes = a.P("axes");
      if (axes.kind != Param::Tuple) return {a.ins[0]};
      std::vector<int64_t> dims;
      for (auto &e : axes.elems)
        if (e.kind == Param::Int) dims.push_back(e.i);
      for (auto x : dims) internal_assert(x >= 0 && x < a.ins[0].rank(), "psum axis out of range");
      return {Type{a.ins[0].dtype, removeAxes(a.ins[0].shape, dims)}};
    });
  set(Op::Ppermute, unaryRule);
  set(Op::AxisIndex, [](const TypeArgs &) -> Types { return {Type{DType::I32, {}}}; });
  set(Op::AllGather, [](const TypeArgs &a) -> Types {
    int64_t d = a.P("all_gather_dimension").i, n = a.P("axis_size").i;
    Shape s = a.ins[0].shape;
    if (a.P("tiled").i)
      s[d] *= n;
    else
      s.insert(s.begin() + d, n);
    return {Type{a.ins[0].dtype, s}};
  });
  set(Op::AllToAll, [](const TypeArgs &a) -> Types {
    int64_t sa = a.P("split_axis").i, ca = a.P("concat_axis").i, n = a.P("axis_size").i;
    Shape s = a.ins[0].shape;
    internal_assert(n > 0 && s[sa] % n == 0, "all_to_all split size");
    s[sa] /= n;
    s[ca] *= n;
    return {Type{a.ins[0].dtype, s}};
  });
  set(Op::ReduceScatter, [](const TypeArgs &a) -> Types {
    int64_t d = a.P("scatter_dimension").i, n = a.P("axis_size").i;
    Shape s = a.ins[0].shape;
    // n == 0 (a vmap of size 0): only untiled, over a dimension of size 0
    // (Note [Splitting over an empty axis]).
    internal_assert(n > 0 ? s[d] % n == 0 : s[d] == 0 && !a.P("tiled").i, "reduce_scatter size");
    if (a.P("tiled").i)
      s[d] /= n;
    else
      s.erase(s.begin() + d);
    return {Type{a.ins[0].dtype, s}};
  });

  set(Op::RandomSeed, [](const TypeArgs &) -> Types { return {Type{DType::Key, {}}}; });
  set(Op::RandomSplit, [](const TypeArgs &a) -> Types {
    Shape s = a.ins[0].shape;
    for (auto d : a.P("shape").toInts()) s.push_back(d);
    return {Type{DType::Key, s}};
  });
  set(Op::RandomFoldIn, [](const TypeArgs &a) -> Types {
    return {Type{DType::Key, elementwiseShape(a.ins, a.op)}};
  });
  set(Op::RandomBits, [](const TypeArgs &a) -> Types {
    Shape s = a.ins[0].shape;
    for (auto d : a.P("shape").toInts()) s.push_back(d);
    return {Type{DType::U32, s}};
  });
  set(Op::RandomWrap, [](const TypeArgs &a) -> Types {
    Shape s = a.ins[0].shape;
    internal_assert(!s.empty() && s.back() == 2, "random_wrap needs a trailing 2");
    s.pop_back();
    return {Type{DType::Key, s}};
  });
  set(Op::RandomUnwrap, [](const TypeArgs &a) -> Types {
    Shape s = a.ins[0].shape;
    s.push_back(2);
    return {Type{DType::U32, s}};
  });

  for (Op op : {Op::Pmap, Op::Vmap})
    set(op, [](const TypeArgs &a) -> Types {
      internal_assert(a.regions.size() == 1, "map needs one region");
      int64_t n = a.P("axis_size").i;
      auto outAxes = a.P("out_axes").toInts();
      const Jaxpr &body = a.regions[0];
      internal_assert(outAxes.size() == body.outvars.size(), "out_axes arity");
      Types r;
      for (size_t k = 0; k < body.outvars.size(); ++k) {
        Type t = body.outvars[k].type();
        t.shape.insert(t.shape.begin() + outAxes[k], n);
        r.push_back(t);
      }
      return r;
    });
  set(Op::ForLoop, [](const TypeArgs &a) -> Types {
    int64_t nc = a.P("num_consts").i;
    return Types(a.ins.begin() + nc, a.ins.end());
  });
  set(Op::Cond, [](const TypeArgs &a) -> Types {
    internal_assert(a.regions.size() == 2, "cond needs two branches");
    Types r;
    for (auto &x : a.regions[1].outvars) r.push_back(x.type());
    return r;
  });
}

const std::array<TypeRule, kNumOps> &typeRules() {
  static const std::array<TypeRule, kNumOps> table = [] {
    std::array<TypeRule, kNumOps> t{};
    for (int k = 0; k < kNumOps; ++k) t[k] = categoryRule(info(Op(k)).category);
    for (Op op : {Op::Convert, Op::BitcastConvert})
      t[size_t(op)] = [](const TypeArgs &a) -> Types {
        return {Type{a.P("new_dtype").dtype, a.ins[0].shape}};
      };
    for (Op op : {Op::Argmax, Op::Argmin})
      t[size_t(op)] = [](const TypeArgs &a) { return reduceTo(a, a.P("index_dtype").dtype); };
    setShapeRules(t);
    setOtherRules(t);
    return t;
  }();
  return table;
}

}  // namespace

bool hasTypeRule(Op op) { return typeRules()[size_t(op)] != nullptr; }

std::vector<Type> inferTypes(Op op, const std::vector<Type> &ins, const Params &params,
                             const std::vector<Jaxpr> &regions) {
  const OpInfo &oi = info(op);
  if (oi.arity >= 0)
    internal_assert(int(ins.size()) == oi.arity,
                    std::string(name(op)) + " takes " + std::to_string(oi.arity) + " operands");
  TypeRule rule = typeRules()[size_t(op)];
  if (!rule) internalError(__FILE__, __LINE__, std::string("no type rule for ") + name(op));
  return rule(TypeArgs{op, ins, params, regions});
}

}  // namespace spmd::ir
