// ===- BuiltinsMath.cpp - elementwise math and reductions --------------------------===//
//
// Elementwise functions (exp, where, clip, ...) and reductions (sum, argmax, logsumexp,
// ...), with the reduction helper they share.
#include "sema/BuiltinTable.h"

#include <cmath>
#include <optional>

namespace spmd::sema::builtins {

enum class Red { Sum, Max, Min, Prod, All, Any, Mean, Argmax, Argmin, LogSumExp };

BuiltinDef reduction(Red kind, const char *name) {
  // sum, prod and mean take jnp's dtype= (Note [Reduction dtype]); the others do not.
  bool withDtype = kind == Red::Sum || kind == Red::Prod || kind == Red::Mean;
  std::vector<std::string> params{"x", "axis", "keepdims"};
  if (withDtype) params.push_back("dtype");
  return {
      params,
      1,
      [kind, name](AstLowering &L, Bound &a, auto &, SrcRange loc) -> ValueP {
        ValueP v = arr(L, a[0]);
        L.rejectKeys(*v, a[0].loc, std::string(name) + "()");
        Atom x = v->atom;
        if (x.isLit)
          x = L.broadcast(x, {}),
          x = L.emit1(Op::Reshape, {x},
                      {{"new_sizes", Param::tuple({})}, {"dimensions", Param::none()}});
        // Note [Reduction dtype]
        // ~~~~~~~~~~~~~~~~~~~~~~
        // jnp.sum(x, dtype=d) (and prod, mean) converts x to d first, then reduces in d
        // (its jaxpr: convert_element_type, reduce_sum): sum([1.7, 1.7], dtype=i32) is
        // 2. A mean in an integer dtype divides the integer sum by the count, truncating
        // (lax.div); a bool sum or product converts x to bool, then counts in i32 and converts back, as
        // NumPy's (True where any / all are nonzero).
        std::optional<DType> outDtype;
        if (a.args.size() > 3 && a.has(3)) {
          DType d = L.dtypeFrom(a[3].value, a[3].loc);
          if (d == DType::Key) userError(a[3].loc, std::string(name) + "() cannot make keys");
          if (kind == Red::Mean && d == DType::Bool)
            userError(a[3].loc, "mean() with dtype=bool has no meaning; sum() or any()");
          if (d == DType::Bool) {
            x = L.castTo(L.castTo(x, DType::Bool), DType::I32);
            outDtype = DType::Bool;
          } else {
            x = L.castTo(x, d);
          }
        }
        ir::Type t = x.type();
        auto axes = axesArg(L, a[1], t.rank());
        bool keep = boolArg(L, a[2], false);
        DType d = t.dtype;
        // As NumPy and JAX: max, min, argmax and argmin have no identity, so reducing
        // an axis of size 0 is an error (not -inf or index 0).
        if (kind == Red::Max || kind == Red::Min || kind == Red::Argmax || kind == Red::Argmin)
          for (auto k : (a[1].value || (kind != Red::Argmax && kind != Red::Argmin))
                            ? axes
                            : std::vector<int64_t>{})
            if (t.shape[k] == 0)
              userError(a[0].loc, std::string(name) + "() of an empty axis: axis " +
                                      std::to_string(k) + " of " + t.str() + " has size 0" +
                                      (kind == Red::Max || kind == Red::Min
                                           ? " and the reduction has no identity"
                                           : ""));
        if ((kind == Red::Argmax || kind == Red::Argmin) && !a[1].value && t.numel() == 0)
          userError(a[0].loc, std::string(name) + "() of an empty array (" + t.str() + ")");
        Atom r;
        switch (kind) {
        case Red::Sum:
          if (d == DType::Bool) x = L.castTo(x, DType::I32);
          r = L.emit1(Op::ReduceSum, {x}, reduceParams(axes));
          break;
        case Red::Prod:
          if (d == DType::Bool) x = L.castTo(x, DType::I32);
          r = L.emit1(Op::ReduceProd, {x}, reduceParams(axes));
          break;
        case Red::Max: r = L.emit1(Op::ReduceMax, {x}, reduceParams(axes)); break;
        case Red::Min: r = L.emit1(Op::ReduceMin, {x}, reduceParams(axes)); break;
        case Red::All:
          r = L.emit1(Op::ReduceAnd, {L.castTo(x, DType::Bool)}, reduceParams(axes));
          break;
        case Red::Any:
          r = L.emit1(Op::ReduceOr, {L.castTo(x, DType::Bool)}, reduceParams(axes));
          break;
        case Red::Mean: {
          if (!ir::isFloat(d) && !(a.args.size() > 3 && a.has(3))) x = L.castTo(x, DType::F32);
          int64_t n = 1;
          for (auto k : axes) n *= t.shape[k];
          Atom s = L.emit1(Op::ReduceSum, {x}, reduceParams(axes));
          // jnp.mean divides by the count, which XLA drops when it is 1 (so the mean of
          // one denormal keeps its bits, as in JAX on the CPU).
          r = n == 1 ? s : L.emit1(Op::Div, {s, L.b().lit(x.type().dtype, double(n))});
          break;
        }
        case Red::Argmax:
        case Red::Argmin: {
          if (!a[1].value) {
            // NumPy: over the flattened array.
            x = L.emit1(Op::Reshape, {x},
                        {{"new_sizes", Param::ints({t.numel()})}, {"dimensions", Param::none()}});
            axes = {0};
            t = x.type();
          }
          if (axes.size() != 1) userError(a[1].loc, std::string(name) + "() takes a single axis");
          if (t.shape[axes[0]] - 1 > INT32_MAX)  // Note [Indices past i32]
            userError(a[0].loc,
                      std::string(name) + "() over an axis of " +
                          std::to_string(t.shape[axes[0]]) +
                          " elements: its i32 index cannot hold every position",
                      {{SrcRange{}, "indices are i32, as in JAX without x64 (JAX wraps the "
                                    "index to a negative number there)"}});
          r = L.emit1(kind == Red::Argmax ? Op::Argmax : Op::Argmin, {x},
                      {{"axes", Param::ints(axes)}, {"index_dtype", Param::ofDType(DType::I32)}});
          break;
        }
        case Red::LogSumExp: {
          if (!ir::isFloat(d)) x = L.castTo(x, DType::F32);
          // max-shifted for stability: m + log(sum(exp(x - m))), with m treated as a constant.
          // As jax.nn.logsumexp, an infinite or NaN max shifts by 0 instead, so +inf gives
          // inf and all -inf gives -inf (not inf - inf = NaN).
          // The shift carries no gradient (jax.nn.logsumexp's stop_gradient): through it,
          // 1 - sum(softmax) is not exactly 0 and changes the last digit of the gradient.
          ir::Params mp = reduceParams(axes);
          mp["stop_gradient"] = Param::of(1);
          Atom m0 = L.emit1(Op::ReduceMax, {x}, mp);
          Atom fin = L.emit1(Op::Eq, {L.emit1(Op::Sub, {m0, m0}), L.b().lit(x.type().dtype, 0)});
          Atom m = L.emit1(Op::Select,
                           {fin, L.broadcast(L.b().lit(x.type().dtype, 0), m0.type().shape), m0});
          ir::Shape ks = t.shape;
          for (auto k : axes) ks[k] = 1;
          Atom mk = L.emit1(Op::Reshape, {m},
                            {{"new_sizes", Param::ints(ks)}, {"dimensions", Param::none()}});
          Atom mb = L.broadcast(mk, t.shape);
          Atom ex = L.emit1(Op::Exp, {L.emit1(Op::Sub, {x, mb})});
          Atom s = L.emit1(Op::ReduceSum, {ex}, reduceParams(axes));
          r = L.emit1(Op::Add, {L.emit1(Op::Log, {s}), m});
          break;
        }
        }
        if (keep) r = keepDims(L, r, t.shape, axes);
        if (outDtype) r = L.castTo(r, *outDtype);
        bool given = a.args.size() > 3 && a.has(3);  // a dtype= result is not weak
        return Value::array(r, v->weak && !given && kind != Red::Argmax && kind != Red::Argmin);
      }};
}

/// jax.nn.sigmoid (lax.logistic) and lax.rsqrt accept floats only: an int or bool
/// argument, a weak literal such as `sigmoid(1)` included, raises TypeError in JAX where
/// exp and its kin promote to f32.
static BuiltinDef floatOnlyMath(Op op, const char *name) {
  return {{"x"}, 1, [op, name](AstLowering &L, Bound &a, auto &, SrcRange) {
            ValueP v = arr(L, a[0]);
            DType d = v->type().dtype;
            if (d != DType::Key && !ir::isFloat(d))
              userError(a[0].loc, std::string(name) + "() takes floats, not " + v->type().str() +
                                      (v->weak ? " (write 1.0 for a literal)"
                                               : "; cast with f32(...) first"));
            auto [x, weak] = floatArg(L, a[0], name);
            return Value::array(L.emit1(op, {x}), weak);
          }};
}

/// elementwise math, then reductions
void addMathBuiltins(Table &m) {
  // -- elementwise math --
  m["exp"] = unaryMath(Op::Exp, "exp");
  m["log"] = unaryMath(Op::Log, "log");
  m["log1p"] = unaryMath(Op::Log1p, "log1p");
  m["sqrt"] = unaryMath(Op::Sqrt, "sqrt");
  m["rsqrt"] = floatOnlyMath(Op::Rsqrt, "rsqrt");
  m["sin"] = unaryMath(Op::Sin, "sin");
  m["cos"] = unaryMath(Op::Cos, "cos");
  m["tan"] = unaryMath(Op::Tan, "tan");
  m["tanh"] = unaryMath(Op::Tanh, "tanh");
  m["sigmoid"] = floatOnlyMath(Op::Logistic, "sigmoid");
  m["abs"] = unaryKeep(Op::Abs, false);
  m["sign"] = unaryKeep(Op::Sign, false);
  m["floor"] = unaryKeep(Op::Floor, true);
  m["ceil"] = unaryKeep(Op::Ceil, true);
  m["round"] = unaryKeep(Op::Round, true);
  m["relu"] = {{"x"}, 1, [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
                 DType d;
                 bool weak;
                 auto xs = L.unify({a[0].value, Value::integer(0)}, loc, &d, &weak, "relu");
                 // jax.nn.relu's custom JVP: the gradient is select(x > 0, g, 0), not max's
                 // tie split (the "relu" parameter picks that rule in VjpRules).
                 return Value::array(L.emit1(Op::Max, xs, {{"relu", ir::Param::of(1)}}), weak);
               }};
  // Note [stop_gradient]
  // jax.lax.stop_gradient: the value, with no gradient through it. JAX users write it
  // where a shift is numerically needed but mathematically inert, as the max of a stable
  // softmax, `pmax(stop_gradient(max(z)), i)`: without it the gradient flows through the
  // shift (a last-digit difference from JAX) and a pmax on that path is an error, as in
  // JAX. It is a same-dtype convert marked stop_gradient; the gradient's activity sweep
  // (Grad.cpp) treats the mark's outputs as constants, as for logsumexp's shift. Only
  // floats carry gradients, so other values pass through unchanged. As JAX's, it takes
  // any pytree: a tuple (of tuples) is stopped leaf by leaf, keeping its structure; a
  // list is an array literal, as everywhere (`stop_gradient([a, b])` stacks them).
  m["stop_gradient"] = {{"x"}, 1, [](AstLowering &L, Bound &a, auto &, SrcRange) {
                          std::function<ValueP(const ValueP &)> stop = [&](const ValueP &x) {
                            if (x->kind == Value::Tuple && !x->isList) {
                              std::vector<ValueP> e;
                              for (auto &y : x->elems) e.push_back(stop(y));
                              return Value::tuple(e, false);
                            }
                            ValueP v = L.toArray(x, a[0].loc);
                            if (!ir::isFloat(v->type().dtype)) return v;
                            ir::Params p = {{"new_dtype", ir::Param::ofDType(v->type().dtype)},
                                            {"stop_gradient", ir::Param::of(1)}};
                            return Value::array(L.emit1(Op::Convert, {v->atom}, p), v->weak);
                          };
                          return stop(a[0].value);
                        }};
  m["maximum"] = binaryElementwise(Op::Max, "maximum");
  m["minimum"] = binaryElementwise(Op::Min, "minimum");
  m["where"] = {
      {"cond", "a", "b"}, 3, [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
        DType d, cd;
        bool weak, cw;
        ValueP c = arr(L, a[0]);
        L.rejectKeys(*c, a[0].loc, "the condition of where()");
        Atom cb = L.castTo(c->atom, DType::Bool);
        auto isKey = [](const Value &v) {
          return v.kind == Value::Array && v.type().dtype == DType::Key;
        };
        if (isKey(*a[1].value) || isKey(*a[2].value)) {
          // Keys select like numbers (jnp.where on key arrays): on their words.
          if (!isKey(*a[1].value) || !isKey(*a[2].value))
            userError(loc, "where() selects between two keys or two numbers, not between " +
                               describe(*a[1].value) + " and " + describe(*a[2].value));
          ir::Shape full;
          for (const ir::Shape &xs :
               {cb.type().shape, a[1].value->type().shape, a[2].value->type().shape}) {
            if (xs.size() > full.size()) full.insert(full.begin(), xs.size() - full.size(), 1);
            for (size_t k = 0; k < xs.size(); ++k) {
              int64_t &o = full[full.size() - xs.size() + k];
              if (o == 1)
                o = xs[k];
              else if (xs[k] != 1 && xs[k] != o)
                userError(loc, "incompatible shapes for where: " + cb.type().str() + ", " +
                                   a[1].value->type().str() + " and " + a[2].value->type().str());
            }
          }
          ir::Shape fw = full;
          fw.push_back(2);
          Atom cc = L.broadcast(cb, full);
          if (cc.isLit)
            cc =
                L.emit1(Op::BroadcastInDim, {cc},
                        {{"shape", Param::ints(full)}, {"broadcast_dimensions", Param::tuple({})}});
          std::vector<int64_t> dims;
          for (size_t k = 0; k < full.size(); ++k) dims.push_back(int64_t(k));
          cc = L.emit1(Op::BroadcastInDim, {cc},
                       {{"shape", Param::ints(fw)}, {"broadcast_dimensions", Param::ints(dims)}});
          Atom t = L.broadcast(L.emit1(Op::RandomUnwrap, {a[1].value->atom}), fw);
          Atom f = L.broadcast(L.emit1(Op::RandomUnwrap, {a[2].value->atom}), fw);
          return Value::array(L.emit1(Op::RandomWrap, {L.emit1(Op::Select, {cc, f, t})},
                                      {{"impl", Param::ofStr("fry")}}));
        }
        auto xs = L.unify({a[1].value, a[2].value}, loc, &d, &weak, "where");
        // Broadcast all three together.
        auto all = L.unify({Value::array(cb), Value::array(xs[0], weak), Value::array(xs[1], weak)},
                           loc, &cd, &cw, "where");
        (void)all;
        ir::Shape s;
        for (auto *x : {&cb, &xs[0], &xs[1]})
          if (x->type().rank() > int(s.size())) s = x->type().shape;
        // Recompute with proper dtypes: the condition stays bool.
        ir::Shape full = s;
        for (auto *x : {&cb, &xs[0], &xs[1]}) {
          ir::Shape xs2 = x->type().shape;
          if (xs2.size() > full.size()) full.insert(full.begin(), xs2.size() - full.size(), 1);
          for (size_t k = 0; k < xs2.size(); ++k) {
            int64_t &o = full[full.size() - xs2.size() + k];
            if (o == 1) o = xs2[k];
          }
        }
        Atom cc = L.broadcast(cb, full), t = L.broadcast(xs[0], full), f = L.broadcast(xs[1], full);
        if (cc.isLit)
          cc = L.emit1(Op::BroadcastInDim, {cc},
                       {{"shape", Param::ints(full)}, {"broadcast_dimensions", Param::tuple({})}});
        return Value::array(L.emit1(Op::Select, {cc, f, t}), weak);
      }};
  // As jnp.clip(arr, min=None, max=None): either bound may be left out (clip(x, 0.0),
  // clip(x, hi=1.0), JAX's max=1.0), and the result promotes x with the bounds given.
  m["clip"] = {
      {"x", "lo", "hi"}, 1, [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
        if (!a.has(1) && !a.has(2)) return arr(L, a[0]);  // jnp.clip(x) is x
        DType d;
        bool weak;
        std::vector<ValueP> in{a[0].value};
        for (int k : {1, 2})
          if (a.has(k)) in.push_back(a[k].value);
        auto xs = L.unify(in, loc, &d, &weak, "clip");
        Atom r = xs[0];
        if (a.has(1)) r = L.emit1(Op::Max, {r, xs[1]});
        if (a.has(2)) r = L.emit1(Op::Min, {r, xs.back()});
        return Value::array(r, weak);
      }};
  for (auto [nm, d] : std::vector<std::pair<const char *, DType>>{{"f32", DType::F32},
                                                                  {"i32", DType::I32},
                                                                  {"u32", DType::U32},
                                                                  {"bool", DType::Bool},
                                                                  {"f64", DType::F64}}) {
    m[nm] = {{"x"}, 1, [d = d](AstLowering &L, Bound &a, auto &, SrcRange) {
               ValueP v = a[0].value;
               // Static numbers and lists convert exactly: u32([0, 4294967295]).
               if (ValueP s = L.staticAs(v, d, a[0].loc)) return s;
               if (v->kind == Value::Tuple) v = L.toArray(v, a[0].loc);
               ValueP av = arr(L, a[0]);
               if (av->type().dtype == DType::Key)
                 userError(a[0].loc, "keys cannot be cast; use key_data(k)");
               return Value::array(L.castTo(av->atom, d));
             }};
  }
  // -- reductions --
  m["sum"] = reduction(Red::Sum, "sum");
  m["mean"] = reduction(Red::Mean, "mean");
  m["max"] = reduction(Red::Max, "max");
  m["min"] = reduction(Red::Min, "min");
  m["prod"] = reduction(Red::Prod, "prod");
  m["argmax"] = reduction(Red::Argmax, "argmax");
  m["argmin"] = reduction(Red::Argmin, "argmin");
  m["all"] = reduction(Red::All, "all");
  m["any"] = reduction(Red::Any, "any");
  m["logsumexp"] = reduction(Red::LogSumExp, "logsumexp");
  // np.dot: a scalar operand multiplies (where `@` refuses it, as np.matmul does).
  m["dot"] = {{"a", "b"}, 2, [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
                auto scalar = [](const Value &v) {
                  return v.isNumber() || (v.kind == Value::Array && v.type().rank() == 0);
                };
                if (scalar(*a[0].value) || scalar(*a[1].value))
                  return L.binary(ast::BinOp::Mul, a[0].value, a[1].value, loc);
                return L.matmul(a[0].value, a[1].value, loc);
              }};
}

}  // namespace spmd::sema::builtins
