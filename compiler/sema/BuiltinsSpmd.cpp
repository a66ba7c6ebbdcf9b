// ===- BuiltinsSpmd.cpp - differentiation, trees and collectives -------------------===//
//
// grad, value_and_grad and tree_map; the collectives (psum, ppermute, all_to_all, ...)
// and axis_index, axis_size.
#include "sema/BuiltinTable.h"

#include "sema/AxisCheck.h"

namespace spmd::sema::builtins {

/// The axes named by a collective's axis argument: their IR names, and the product of
/// their sizes (the group size).
int64_t collectiveAxes(const ArgV &a, std::vector<std::string> &names) {
  int64_t n = 1;
  for (auto &e : a.value->elems) {
    names.push_back(e->s);
    n *= e->i;
  }
  return n;
}

Param axesParam(const std::vector<std::string> &names) {
  std::vector<Param> p;
  for (auto &n : names) p.push_back(Param::ofStr(n));
  return Param::tuple(p);
}

/// Applies `f` to every leaf of a (possibly tuple) value.
ValueP mapLeaves(AstLowering &L, ValueP v, const std::function<ValueP(ValueP)> &f) {
  if (v->kind == Value::Tuple) {
    std::vector<ValueP> e;
    for (auto &x : v->elems) e.push_back(mapLeaves(L, x, f));
    return Value::tuple(e, v->isList);
  }
  return f(v);
}

Param axisNameParam(const std::vector<std::string> &names) {
  return names.size() == 1 ? Param::ofStr(names[0]) : axesParam(names);
}

/// Collectives over pmap axes or vmap axes: the same IR; the vmap pass rewrites those
/// over vmap axes. All axes must be bound: checked lexically, again here.
BuiltinDef reduceCollective(Op op, bool mean) {
  return {{"x", "axes"},
          2,
          [op, mean](AstLowering &L, Bound &a, auto &, SrcRange loc) {
            std::vector<std::string> names;
            int64_t n = collectiveAxes(a[1], names);
            return mapLeaves(L, a[0].value, [&](ValueP v) {
              ValueP av = L.toArray(v, a[0].loc);
              L.rejectKeys(*av, a[0].loc,
                           std::string(op == Op::Pmax   ? "pmax"
                                       : op == Op::Pmin ? "pmin"
                                       : mean           ? "pmean"
                                                        : "psum") +
                               "()");
              Atom x = av->atom;
              if (x.isLit)
                x = L.broadcast(x, {}),
                x = L.emit1(Op::Reshape, {x},
                            {{"new_sizes", Param::tuple({})}, {"dimensions", Param::none()}});
              // As jax.lax.psum: bools are counted, as int32.
              if (op == Op::Psum && x.type().dtype == DType::Bool) x = L.castTo(x, DType::I32);
              Atom r = L.emit1(op, {x},
                               {{"axes", axesParam(names)}, {"axis_index_groups", Param::none()}});
              // As jax.lax.pmean: psum(x) / n, so integers are summed as integers (wrapping
              // as JAX's do) and only the sum is converted to f32.
              if (mean && !ir::isFloat(r.type().dtype)) r = L.castTo(r, DType::F32);
              // lax.pmean is plain Python, so its `/ n` is eager outside every pmap (in a
              // vmap called from Python): a quotient of one element divides exactly there
              // (Note [Eager division] in LowerArith.cpp).
              ir::Params dp;
              if (L.pmapStack.empty()) dp["_eager"] = Param::of(int64_t(1));
              if (mean) r = L.emit1(Op::Div, {r, L.b().lit(r.type().dtype, double(n))}, dp);
              return Value::array(r, av->weak);
            });
          },
          /*axisParam=*/1};
}

ValueP gradFn(AstLowering &L, Bound &a, bool withValue, SrcRange loc) {
  ValueP f = a[0].value;
  if (f->kind != Value::Func) userError(a[0].loc, "grad() needs a function, not a " + describe(*f));
  auto g = std::make_shared<Value>();
  g->kind = Value::Func;
  g->fkind = Value::Grad;
  g->inner = f;
  g->withValue = withValue;
  g->fname = withValue ? "value_and_grad" : "grad";
  if (a.has(1)) {
    if (a[1].value->kind == Value::Tuple) {
      g->argnumsTuple = true;
      for (auto x : L.staticInts(a[1], "argnums")) g->argnums.push_back(int(x));
    } else {
      g->argnums.push_back(int(L.staticInt(a[1].value, a[1].loc, "argnums")));
    }
  } else {
    g->argnums.push_back(0);
  }
  return g;
}

// Note [Splitting over an empty axis]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// vmap maps over an axis of size 0 (JAX allows it), so a collective may see an axis of
// size 0 (a pmap never does: it needs a device). Gathers, sums, ppermute and an untiled
// psum_scatter (whose dimension must then have size 0) are fine and give empty results.
// all_to_all and a tiled psum_scatter split a dimension into axis-size blocks, which
// has no meaning for 0 blocks: JAX fails there with "ZeroDivisionError: integer modulo
// by zero", and spmdrun divided by zero (SIGFPE). So both are an error at the axis name.
[[noreturn]] static void emptySplit(SrcRange loc, const std::string &what) {
  userError(loc, what + " over an axis of size 0 cannot split into 0 blocks",
            {{SrcRange{}, "the axis is a vmap over an empty axis; JAX raises "
                          "ZeroDivisionError there"}});
}

/// differentiation and trees, then collectives
void addSpmdBuiltins(Table &m) {
  // -- differentiation and trees --
  m["grad"] = {{"f", "argnums"}, 1, [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
                 return gradFn(L, a, false, loc);
               }};
  m["value_and_grad"] = {{"f", "argnums"}, 1, [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
                           return gradFn(L, a, true, loc);
                         }};
  m["tree_map"] = {{"f", "*"}, 1, [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
                     ValueP f = a[0].value;
                     if (a.rest.empty()) userError(loc, "tree_map() needs at least one tree");
                     std::function<ValueP(std::vector<ValueP>)> go =
                         [&](std::vector<ValueP> ts) -> ValueP {
                       // A list of numbers is an array literal: a leaf, as the array it
                       // spells (Note [Vars of lists]), not a tree of Python numbers.
                       for (auto &t : ts) t = L.listAsArray(t, loc);
                       if (ts[0]->kind == Value::Tuple) {
                         for (auto &t : ts)
                           if (t->kind != Value::Tuple || t->elems.size() != ts[0]->elems.size())
                             userError(loc, "tree_map() needs trees of the same structure");
                         std::vector<ValueP> out;
                         for (size_t k = 0; k < ts[0]->elems.size(); ++k) {
                           std::vector<ValueP> sub;
                           for (auto &t : ts) sub.push_back(t->elems[k]);
                           out.push_back(go(sub));
                         }
                         return Value::tuple(out, ts[0]->isList);
                       }
                       std::vector<ArgV> args;
                       for (auto &t : ts) {
                         ArgV av;
                         av.value = t;
                         av.loc = loc;
                         args.push_back(av);
                       }
                       return L.callValue(f, args, {}, loc);
                     };
                     std::vector<ValueP> ts;
                     for (auto &r : a.rest) ts.push_back(r.value);
                     return go(ts);
                   }};
  // -- collectives --
  m["psum"] = reduceCollective(Op::Psum, false);
  m["pmean"] = reduceCollective(Op::Psum, true);
  m["pmax"] = reduceCollective(Op::Pmax, false);
  m["pmin"] = reduceCollective(Op::Pmin, false);
  m["all_gather"] = {
      {"x", "axis_name", "tiled", "axis"},
      2,
      [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
        std::vector<std::string> names;
        int64_t n = collectiveAxes(a[1], names);
        bool tiled = boolArg(L, a[2], false);
        int64_t dim = a.has(3) ? L.staticInt(a[3].value, a[3].loc, "an axis") : 0;
        return mapLeaves(L, a[0].value, [&](ValueP v) {
          ValueP av = L.toArray(v, a[0].loc);
          Atom x = av->atom.isLit ? L.broadcast(av->atom, {}) : av->atom;
          if (x.isLit)
            x = L.emit1(Op::Reshape, {x},
                        {{"new_sizes", Param::tuple({})}, {"dimensions", Param::none()}});
          if (tiled && x.type().rank() == 0)
            userError(a[0].loc, "a tiled all_gather needs an array of rank 1 or more");
          // As JAX: a new axis in 0..rank, or (tiled) an existing one; negative counts from the
          // end.
          int64_t r = x.type().rank() + (tiled ? 0 : 1);
          if (dim < -r || dim >= r)
            userError(a[3].loc, "all_gather axis " + std::to_string(dim) + " is out of range for " +
                                    (tiled ? "a tiled gather of " : "stacking ") + x.type().str());
          int64_t at = dim < 0 ? dim + r : dim;
          return Value::array(L.emit1(Op::AllGather, {x},
                                      {{"all_gather_dimension", Param::of(at)},
                                       {"axis_name", axisNameParam(names)},
                                       {"axis_size", Param::of(n)},
                                       {"tiled", Param::ofBool(tiled)},
                                       {"axis_index_groups", Param::none()}}),
                              av->weak);
        });
      },
      /*axisParam=*/1};
  m["ppermute"] = {
      {"x", "axis_name", "perm"},
      3,
      [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
        std::vector<std::string> names;
        int64_t n = collectiveAxes(a[1], names);
        ValueP pv = a[2].value;
        if (pv->kind != Value::Tuple || !pv->isStatic())
          userError(a[2].loc,
                    "the permutation must be a static list of (source, destination) pairs");
        std::vector<Param> pairs;
        std::vector<bool> src(n, false), dst(n, false);
        for (auto &p : pv->elems) {
          if (p->kind != Value::Tuple || p->elems.size() != 2)
            userError(a[2].loc,
                      "each entry of the permutation must be a (source, destination) pair");
          int64_t s = L.staticInt(p->elems[0], a[2].loc, "a permutation index");
          int64_t d = L.staticInt(p->elems[1], a[2].loc, "a permutation index");
          for (int64_t x : {s, d})
            if (x < 0 || x >= n)
              userError(a[2].loc, "invalid permutation: index " + std::to_string(x) +
                                      " is out of range for axis size " + std::to_string(n));
          if (src[s])
            userError(a[2].loc,
                      "invalid permutation: source " + std::to_string(s) + " appears twice");
          if (dst[d])
            userError(a[2].loc,
                      "invalid permutation: destination " + std::to_string(d) + " appears twice");
          src[s] = dst[d] = true;
          pairs.push_back(Param::tuple({Param::of(s), Param::of(d)}));
        }
        return mapLeaves(L, a[0].value, [&](ValueP v) {
          ValueP av = L.toArray(v, a[0].loc);
          Atom x = av->atom;
          if (x.isLit)
            x = L.broadcast(x, {}),
            x = L.emit1(Op::Reshape, {x},
                        {{"new_sizes", Param::tuple({})}, {"dimensions", Param::none()}});
          return Value::array(
              L.emit1(Op::Ppermute, {x},
                      {{"axis_name", axisNameParam(names)}, {"perm", Param::tuple(pairs)}}),
              av->weak);
        });
      },
      /*axisParam=*/1};
  // all_to_all as JAX: untiled (the default), x.shape[split_axis] must be the axis
  // size and the received chunks stack along a new axis at concat_axis; it is the
  // tiled primitive between an expand_dims and a squeeze, as in jax.lax.all_to_all.
  m["all_to_all"] = {
      {"x", "axis_name", "split_axis", "concat_axis", "tiled"},
      4,
      [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
        std::vector<std::string> names;
        int64_t n = collectiveAxes(a[1], names);
        bool tiled = boolArg(L, a[4], false);
        int64_t sa0 = L.staticInt(a[2].value, a[2].loc, "split_axis"),
                ca0 = L.staticInt(a[3].value, a[3].loc, "concat_axis");
        // A tuple is exchanged leaf by leaf, as JAX's collectives take pytrees.
        return mapLeaves(L, a[0].value, [&](ValueP v) {
          ValueP av = L.toArray(v, a[0].loc);
          int r = av->type().rank();
          int64_t sa = sa0, ca = ca0;
          if (sa < 0) sa += r;
          if (ca < 0) ca += r;
          if (sa < 0 || sa >= r)
            userError(a[2].loc, "split_axis out of range for " + av->type().str());
          if (ca < 0 || ca >= r)
            userError(a[3].loc, "concat_axis out of range for " + av->type().str());
          int64_t size = av->type().shape[sa];
          if (n == 0) emptySplit(a[1].loc, "all_to_all");  // Note [Splitting over an empty axis]
          if (tiled && size % n)
            userError(a[2].loc, "all_to_all splits axis " + std::to_string(sa) + " of size " +
                                    std::to_string(size) + " into " + std::to_string(n) +
                                    " equal parts");
          if (!tiled && size != n)
            userError(a[2].loc, "an untiled all_to_all needs split_axis " + std::to_string(sa) +
                                    " of size " + std::to_string(n) + " (the axis size), not " +
                                    std::to_string(size) + "; tiled=true splits it into blocks");
          Atom x = av->atom;
          bool reshaped = !tiled && sa != ca;
          if (reshaped) {  // a new axis at concat_axis (counted without split_axis)
            ir::Shape s = av->type().shape;
            int64_t at = sa < ca ? ca + 1 : ca;
            s.insert(s.begin() + at, 1);
            x = L.emit1(Op::Reshape, {x},
                        {{"new_sizes", Param::ints(s)}, {"dimensions", Param::none()}});
            if (sa < ca)
              ca = at;
            else
              ++sa;
          }
          Atom y = L.emit1(Op::AllToAll, {x},
                           {{"axis_name", axisNameParam(names)},
                            {"split_axis", Param::of(sa)},
                            {"concat_axis", Param::of(ca)},
                            {"axis_size", Param::of(n)},
                            {"axis_index_groups", Param::none()}});
          if (reshaped) {  // squeeze the split axis, now of size 1
            ir::Shape s = y.type().shape;
            s.erase(s.begin() + sa);
            y = L.emit1(Op::Reshape, {y},
                        {{"new_sizes", Param::ints(s)}, {"dimensions", Param::none()}});
          }
          return Value::array(y, av->weak);
        });
      },
      /*axisParam=*/1};
  m["psum_scatter"] = {
      {"x", "axis_name", "scatter_dimension", "tiled"},
      2,
      [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
        std::vector<std::string> names;
        int64_t n = collectiveAxes(a[1], names);
        bool tiled = boolArg(L, a[3], false);
        int64_t d0 = a.has(2) ? L.staticInt(a[2].value, a[2].loc, "scatter_dimension") : 0;
        return mapLeaves(L, a[0].value, [&](ValueP v) {  // leaf by leaf, as all_to_all
          ValueP av = L.toArray(v, a[0].loc);
          L.rejectKeys(*av, a[0].loc, "psum_scatter()");
          if (av->type().dtype == DType::Bool)  // as jax.lax.psum_scatter (unlike psum, no cast)
            userError(a[0].loc, "psum_scatter() does not add bool values, as in JAX; convert them "
                                "first, e.g. i32(x)");
          int r = av->type().rank();
          int64_t d = d0;
          if (d < 0) d += r;
          if (d < 0 || d >= r)
            userError(a[0].loc,
                      "psum_scatter needs an array with a dimension " + std::to_string(d));
          int64_t sz = av->type().shape[d];
          if (tiled && n == 0) emptySplit(a[1].loc, "a tiled psum_scatter");
          if (tiled ? sz % n : sz != n)
            userError(a[0].loc, "psum_scatter over an axis of size " + std::to_string(n) +
                                    " needs dimension " + std::to_string(d) +
                                    (tiled ? " divisible by " : " of size ") + std::to_string(n) +
                                    ", not " + av->type().str());
          return Value::array(L.emit1(Op::ReduceScatter, {av->atom},
                                      {{"axis_name", axisNameParam(names)},
                                       {"scatter_dimension", Param::of(d)},
                                       {"axis_size", Param::of(n)},
                                       {"tiled", Param::ofBool(tiled)},
                                       {"axis_index_groups", Param::none()}}),
                              av->weak);
        });
      },
      /*axisParam=*/1};
  m["axis_index"] = {
      {"axis_name"},
      1,
      [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
        std::vector<std::string> names;
        collectiveAxes(a[0], names);
        return Value::array(L.emit1(Op::AxisIndex, {}, {{"axis_name", axisNameParam(names)}}));
      },
      /*axisParam=*/0};
  m["axis_size"] = {{"axis_name"},
                    1,
                    [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
                      std::vector<std::string> names;
                      return Value::integer(collectiveAxes(a[0], names));
                    },
                    /*axisParam=*/0};
}

}  // namespace spmd::sema::builtins
