// ===- Builtins.cpp - the built-in functions of spec section 7 -----------------===//
//
// One table: each builtin's parameter names (with defaults) and its lowering. Arguments
// are bound by position or keyword against the table, so arity and unknown-keyword errors
// come from one place.
#include "sema/Lowering.h"

#include "sema/AxisCheck.h"

#include "../../runtime/Threefry.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <map>
#include <sstream>

namespace spmd::sema {
using ir::Atom;
using ir::DType;
using ir::Op;
using ir::Param;

namespace {

/// The arguments of one builtin call, bound to its parameter names.
struct Bound {
  std::vector<ArgV> args;        ///< in parameter order; value null when absent
  std::vector<ArgV> rest;        ///< extra positional arguments (variadic builtins)
  const ArgV &operator[](size_t k) const { return args[k]; }
  bool has(size_t k) const { return args[k].value != nullptr; }
};

struct BuiltinDef {
  std::vector<std::string> params;  ///< a trailing "*" makes it variadic
  size_t required;
  std::function<ValueP(Lowering &, Bound &, const std::vector<AxisP> &, SrcRange)> fn;
};

const std::map<std::string, BuiltinDef> &table();

ir::Params reduceParams(std::vector<int64_t> axes) { return {{"axes", Param::ints(axes)}}; }

} // namespace

bool Lowering::isBuiltin(const std::string &name) { return table().count(name) != 0; }

ValueP Lowering::builtin(const std::string &name, std::vector<ArgV> &args, const std::vector<AxisP> &axes, SrcRange loc) {
  const BuiltinDef &def = table().at(name);
  bool variadic = !def.params.empty() && def.params.back() == "*";
  size_t np = def.params.size() - (variadic ? 1 : 0);
  Bound bound;
  bound.args.resize(np);
  size_t pos = 0;
  for (auto &a : args) {
    if (a.keyword.empty()) {
      if (pos < np) bound.args[pos++] = a;
      else if (variadic) bound.rest.push_back(a);
      else if (np == 0)
        userError(a.loc, name + "() takes no arguments");
      else
        userError(a.loc, name + "() takes at most " + std::to_string(np) + " argument" + (np == 1 ? "" : "s"));
      continue;
    }
    auto it = std::find(def.params.begin(), def.params.begin() + np, a.keyword);
    if (it == def.params.begin() + np && np == 0)
      userError(a.keywordLoc, name + "() takes no keyword arguments",
                name == "print" ? std::vector<std::pair<SrcRange, std::string>>{{SrcRange{}, "print(a, b, ...) writes its arguments separated by one space "
                                                                                             "and ends the line; it has no options such as sep= or end="}}
                                : std::vector<std::pair<SrcRange, std::string>>{});
    if (it == def.params.begin() + np) {
      std::string ps;
      for (size_t k = 0; k < np; ++k) ps += (k ? ", " : "") + def.params[k];
      userError(a.keywordLoc, name + "() has no argument named '" + a.keyword + "'",
                {{SrcRange{}, np ? "its arguments are: " + ps : name + "() takes no arguments"}});
    }
    size_t k = size_t(it - def.params.begin());
    if (bound.args[k].value) userError(a.keywordLoc, name + "() got argument '" + a.keyword + "' twice");
    bound.args[k] = a;
  }
  for (size_t k = 0; k < def.required; ++k)
    if (!bound.args[k].value)
      userError(loc, name + "() is missing its argument '" + def.params[k] + "'");
  if (!axes.empty()) userError(loc, name + "() takes no axis arguments in [ ]");
  for (auto &a : bound.args)
    if (a.value && a.value->s2 == "axes" && a.value->kind == Value::Tuple) continue;
  return def.fn(*this, bound, axes, loc);
}

namespace {

// ---- helpers shared by the builtins -------------------------------------------------------

ValueP arr(Lowering &L, const ArgV &a) { return L.toArray(a.value, a.loc); }

/// A float array for math functions (ints are promoted to f32, as JAX does).
std::pair<Atom, bool> floatArg(Lowering &L, const ArgV &a, const char *fn) {
  ValueP v = arr(L, a);
  Atom x = v->atom;
  DType d = x.type().dtype;
  if (d == DType::Key) userError(a.loc, std::string(fn) + "() cannot take keys");
  if (!ir::isFloat(d)) x = L.castTo(x, DType::F32);
  if (x.isLit) x = L.broadcast(x, {}), x = L.emit1(Op::Reshape, {x}, {{"new_sizes", Param::tuple({})}, {"dimensions", Param::none()}});
  return {x, v->weak};
}

BuiltinDef unaryMath(Op op, const char *name) {
  return {{"x"}, 1, [op, name](Lowering &L, Bound &a, auto &, SrcRange) {
            auto [x, weak] = floatArg(L, a[0], name);
            return Value::array(L.emit1(op, {x}), weak);
          }};
}

/// Unary ops that keep integer dtypes (abs, sign) or are identities on ints (floor...).
BuiltinDef unaryKeep(Op op, bool identityOnInt) {
  return {{"x"}, 1, [op, identityOnInt](Lowering &L, Bound &a, auto &, SrcRange) {
            ValueP v = arr(L, a[0]);
            L.rejectKeys(*v, a[0].loc, std::string(ir::name(op)) + "()");
            Atom x = v->atom;
            if (x.isLit) x = L.broadcast(x, {}), x = L.emit1(Op::Reshape, {x}, {{"new_sizes", Param::tuple({})}, {"dimensions", Param::none()}});
            if (identityOnInt && !ir::isFloat(x.type().dtype)) return Value::array(x, v->weak);
            ir::Params p;
            if (op == Op::Round) p["rounding_method"] = Param::of(1);
            return Value::array(L.emit1(op, {x}, p), v->weak);
          }};
}

BuiltinDef binaryElementwise(Op op, const char *name) {
  return {{"a", "b"}, 2, [op, name](Lowering &L, Bound &a, auto &, SrcRange loc) {
            DType d;
            bool weak;
            auto xs = L.unify({a[0].value, a[1].value}, loc, &d, &weak, name);
            return Value::array(L.emit1(op, xs), weak);
          }};
}

std::vector<int64_t> axesArg(Lowering &L, const ArgV &a, int rank) {
  std::vector<int64_t> axes;
  if (!a.value) {
    for (int k = 0; k < rank; ++k) axes.push_back(k);
    return axes;
  }
  for (auto x : L.staticInts(a, "an axis")) {
    int64_t k = x < 0 ? x + rank : x;
    if (k < 0 || k >= rank)
      userError(a.loc, "axis " + std::to_string(x) + " is out of range for an array of rank " + std::to_string(rank));
    if (std::find(axes.begin(), axes.end(), k) != axes.end()) userError(a.loc, "repeated axis " + std::to_string(x));
    axes.push_back(k);
  }
  std::sort(axes.begin(), axes.end());
  return axes;
}

/// Restores reduced axes as size-1 dimensions (keepdims=true).
Atom keepDims(Lowering &L, Atom r, const ir::Shape &in, const std::vector<int64_t> &axes) {
  ir::Shape s = in;
  for (auto k : axes) s[k] = 1;
  return L.emit1(Op::Reshape, {r}, {{"new_sizes", Param::ints(s)}, {"dimensions", Param::none()}});
}

/// A static integer as a literal of dtype d, as NumPy's scalar constructors convert a
/// Python int (np.uint32(4000000000) is fine, np.int32(2**31) an OverflowError).
Atom staticIntAs(Lowering &L, int64_t i, DType d, SrcRange loc) {
  if (d == DType::Key) userError(loc, "a number cannot be converted to a key; use key(seed)");
  bool fits = d == DType::I32 ? i >= INT32_MIN && i <= INT32_MAX : d == DType::U32 ? i >= 0 && i <= int64_t(UINT32_MAX) : true;
  if (!fits)
    userError(loc, "the integer " + std::to_string(i) + " does not fit in " + ir::name(d),
              {{SrcRange{}, "as in JAX, where converting it raises OverflowError"}});
  // An f32 literal holds the f32 value (2^24 + 1 rounds to 2^24), as jnp.float32(i).
  return L.b().lit(d, d == DType::Bool ? double(i != 0) : d == DType::F32 ? double(float(i)) : double(i));
}

bool boolArg(Lowering &L, const ArgV &a, bool dflt) {
  if (!a.value) return dflt;
  if (a.value->kind == Value::Bool || a.value->kind == Value::Int) return a.value->i != 0;
  userError(a.loc, "expected true or false here, not a " + describe(*a.value));
}

double floatStatic(Lowering &L, const ArgV &a, double dflt, const char *what) {
  if (!a.value) return dflt;
  if (a.value->kind == Value::Float) return a.value->f;
  if (a.value->kind == Value::Int) return double(a.value->i);
  userError(a.loc, std::string(what) + " must be a number known at compile time");
}

enum class Red { Sum, Max, Min, Prod, All, Any, Mean, Argmax, Argmin, LogSumExp };

BuiltinDef reduction(Red kind, const char *name) {
  return {{"x", "axis", "keepdims"}, 1, [kind, name](Lowering &L, Bound &a, auto &, SrcRange loc) -> ValueP {
            ValueP v = arr(L, a[0]);
            L.rejectKeys(*v, a[0].loc, std::string(name) + "()");
            Atom x = v->atom;
            if (x.isLit) x = L.broadcast(x, {}), x = L.emit1(Op::Reshape, {x}, {{"new_sizes", Param::tuple({})}, {"dimensions", Param::none()}});
            ir::Type t = x.type();
            auto axes = axesArg(L, a[1], t.rank());
            bool keep = boolArg(L, a[2], false);
            DType d = t.dtype;
            // As NumPy and JAX: max, min, argmax and argmin have no identity, so reducing
            // an axis of size 0 is an error (not -inf or index 0).
            if (kind == Red::Max || kind == Red::Min || kind == Red::Argmax || kind == Red::Argmin)
              for (auto k : (a[1].value || (kind != Red::Argmax && kind != Red::Argmin)) ? axes : std::vector<int64_t>{})
                if (t.shape[k] == 0)
                  userError(a[0].loc, std::string(name) + "() of an empty axis: axis " + std::to_string(k) + " of " + t.str() + " has size 0" +
                                          (kind == Red::Max || kind == Red::Min ? " and the reduction has no identity" : ""));
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
            case Red::All: r = L.emit1(Op::ReduceAnd, {L.castTo(x, DType::Bool)}, reduceParams(axes)); break;
            case Red::Any: r = L.emit1(Op::ReduceOr, {L.castTo(x, DType::Bool)}, reduceParams(axes)); break;
            case Red::Mean: {
              if (!ir::isFloat(d)) x = L.castTo(x, DType::F32);
              int64_t n = 1;
              for (auto k : axes) n *= t.shape[k];
              Atom s = L.emit1(Op::ReduceSum, {x}, reduceParams(axes));
              r = L.emit1(Op::Div, {s, L.b().lit(x.type().dtype, double(n))});
              break;
            }
            case Red::Argmax:
            case Red::Argmin: {
              if (!a[1].value) {
                // NumPy: over the flattened array.
                x = L.emit1(Op::Reshape, {x}, {{"new_sizes", Param::ints({t.numel()})}, {"dimensions", Param::none()}});
                axes = {0};
                t = x.type();
              }
              if (axes.size() != 1) userError(a[1].loc, std::string(name) + "() takes a single axis");
              r = L.emit1(kind == Red::Argmax ? Op::Argmax : Op::Argmin, {x},
                          {{"axes", Param::ints(axes)}, {"index_dtype", Param::ofDType(DType::I32)}});
              break;
            }
            case Red::LogSumExp: {
              if (!ir::isFloat(d)) x = L.castTo(x, DType::F32);
              // max-shifted for stability: m + log(sum(exp(x - m))), with m treated as a constant.
              // As jax.nn.logsumexp, an infinite or NaN max shifts by 0 instead, so +inf gives
              // inf and all -inf gives -inf (not inf - inf = NaN).
              Atom m0 = L.emit1(Op::ReduceMax, {x}, reduceParams(axes));
              Atom fin = L.emit1(Op::Eq, {L.emit1(Op::Sub, {m0, m0}), L.b().lit(x.type().dtype, 0)});
              Atom m = L.emit1(Op::Select, {fin, L.broadcast(L.b().lit(x.type().dtype, 0), m0.type().shape), m0});
              ir::Shape ks = t.shape;
              for (auto k : axes) ks[k] = 1;
              Atom mk = L.emit1(Op::Reshape, {m}, {{"new_sizes", Param::ints(ks)}, {"dimensions", Param::none()}});
              Atom mb = L.broadcast(mk, t.shape);
              Atom ex = L.emit1(Op::Exp, {L.emit1(Op::Sub, {x, mb})});
              Atom s = L.emit1(Op::ReduceSum, {ex}, reduceParams(axes));
              r = L.emit1(Op::Add, {L.emit1(Op::Log, {s}), m});
              break;
            }
            }
            if (keep) r = keepDims(L, r, t.shape, axes);
            return Value::array(r, v->weak && kind != Red::Argmax && kind != Red::Argmin);
          }};
}

/// The common part of zeros/ones/full.
ValueP filled(Lowering &L, const ArgV &shapeArg, double value, DType d) {
  ir::Shape s = L.staticShape(shapeArg, d);
  Atom c = L.constant({value}, d, s);
  if (c.isLit) c = L.broadcast(c, {}), c = L.emit1(Op::BroadcastInDim, {c}, {{"shape", Param::tuple({})}, {"broadcast_dimensions", Param::tuple({})}});
  return Value::array(c);
}

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
ValueP mapLeaves(Lowering &L, ValueP v, const std::function<ValueP(ValueP)> &f) {
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
  return {{"x", "axes"}, 2, [op, mean](Lowering &L, Bound &a, auto &, SrcRange loc) {
            std::vector<std::string> names;
            int64_t n = collectiveAxes(a[1], names);
            return mapLeaves(L, a[0].value, [&](ValueP v) {
              ValueP av = L.toArray(v, a[0].loc);
              L.rejectKeys(*av, a[0].loc, std::string(op == Op::Pmax ? "pmax" : op == Op::Pmin ? "pmin" : mean ? "pmean" : "psum") + "()");
              Atom x = av->atom;
              if (x.isLit) x = L.broadcast(x, {}), x = L.emit1(Op::Reshape, {x}, {{"new_sizes", Param::tuple({})}, {"dimensions", Param::none()}});
              // As jax.lax.psum: bools are counted, as int32.
              if (op == Op::Psum && x.type().dtype == DType::Bool) x = L.castTo(x, DType::I32);
              Atom r = L.emit1(op, {x}, {{"axes", axesParam(names)}, {"axis_index_groups", Param::none()}});
              // As jax.lax.pmean: psum(x) / n, so integers are summed as integers (wrapping
              // as JAX's do) and only the sum is converted to f32.
              if (mean && !ir::isFloat(r.type().dtype)) r = L.castTo(r, DType::F32);
              if (mean) r = L.emit1(Op::Div, {r, L.b().lit(r.type().dtype, double(n))});
              return Value::array(r, av->weak);
            });
          }};
}

// ---- random numbers (JAX's threefry2x32; see docs/prng.md) ---------------------------------

/// The key argument of a random function. As in jax.random, every one but key_data takes
/// a single key (a key array is mapped with vmap); `single` is false for key_data.
Atom keyArg(Lowering &L, const ArgV &a, const char *fn, bool single = true) {
  ValueP v = a.value;
  if (v->kind != Value::Array || v->type().dtype != DType::Key)
    userError(a.loc, std::string(fn) + "() needs a key (from key(seed) or split), not a " + describe(*v));
  if (single && v->type().rank() != 0)
    userError(a.loc, std::string(fn) + "() needs a single key, not " + v->type().str(),
              {{SrcRange{}, std::string("as in JAX, map it over a batch of keys: vmap (k in keys) { ") + fn + "(k, ...) }"}});
  return v->atom;
}

/// JAX's `_random_bits` then the float construction of `uniform` for f32:
/// bits >> 9 | 0x3F800000, bitcast to f32, minus 1 -> [0, 1), scaled to [lo, hi).
/// lo and hi are f32 literals, or f32 arrays of the result's shape (run-time bounds).
Atom uniformBits(Lowering &L, Atom key, const ir::Shape &shape, Atom lo, Atom hi) {
  Atom bits = L.emit1(Op::RandomBits, {key}, {{"bit_width", Param::of(32)}, {"shape", Param::ints(shape)}});
  Atom sh = L.emit1(Op::ShiftRightLogical, {bits, L.b().lit(DType::U32, 9)});
  Atom ored = L.emit1(Op::Or, {sh, L.b().lit(DType::U32, 0x3F800000)});
  Atom fl = L.emit1(Op::BitcastConvert, {ored}, {{"new_dtype", Param::ofDType(DType::F32)}});
  Atom f = L.emit1(Op::Sub, {fl, L.b().lit(DType::F32, 1.0)});
  // hi - lo in f32, as JAX computes maxval - minval.
  Atom span = lo.isLit && hi.isLit ? L.b().lit(DType::F32, float(hi.lit.f) - float(lo.lit.f))
                                   : Atom(L.emit1(Op::Sub, {L.broadcast(hi, shape), L.broadcast(lo, shape)}));
  // f * (hi - lo) + lo with one rounding: XLA fuses this multiply-add (docs/prng.md).
  Atom scaled = L.emit1(Op::Fma, {f, span, lo});
  // jnp.maximum(lo, ...) as JAX does (keeps values >= lo after rounding).
  return L.emit1(Op::Max, {L.broadcast(lo, shape), L.broadcast(scaled, shape)});
}
Atom uniformBits(Lowering &L, Atom key, const ir::Shape &shape, double lo, double hi) {
  return uniformBits(L, key, shape, L.b().lit(DType::F32, float(lo)), L.b().lit(DType::F32, float(hi)));
}

/// A bound of uniform() or randint() (JAX's minval/maxval): a static number becomes a
/// literal of dtype `d`; an array is converted to `d` and broadcast to the result's
/// shape `s`, as JAX's broadcast_to_rank and arithmetic do, or a type error here.
Atom randomBound(Lowering &L, const ArgV &a, DType d, const ir::Shape &s, const char *fn, const char *what) {
  if (a.value->isNumber()) {
    if (d == DType::F32) return L.b().lit(d, float(floatStatic(L, a, 0, what)));
    return L.b().lit(d, double(L.staticInt(a.value, a.loc, what)));
  }
  ValueP v = arr(L, a);
  L.rejectKeys(*v, a.loc, std::string("the bounds of ") + fn + "()");
  ir::Shape bs = v->type().shape;
  bool ok = bs.size() <= s.size();
  for (size_t k = 0; ok && k < bs.size(); ++k) ok = bs[k] == 1 || bs[k] == s[s.size() - bs.size() + k];
  if (!ok)
    userError(a.loc, std::string(fn) + "() needs its bounds to broadcast to the shape " +
                         ir::Type{d, s}.str().substr(3) + ", but " + what + " is " + v->type().str());
  if (d == DType::I32 && v->type().dtype == DType::U32)
    userError(a.loc, "randint() needs i32 bounds, not " + v->type().str(),
              {{SrcRange{}, "convert them with i32(...)"}});
  Atom x = L.castTo(v->atom, d);
  return x.isLit ? x : L.broadcast(x, s);
}

/// randint with run-time bounds (i32 literals or i32 arrays of shape s), as JAX's
/// _randint: span = hi <= lo ? 1 : u32(hi - lo), multiplier (2^16 % span)^2 % span,
/// lo + i32(((higher % span) * multiplier + lower % span) % span), in wrapping u32.
Atom randintArrays(Lowering &L, Atom key, const ir::Shape &s, Atom lo, Atom hi) {
  Atom ks = L.emit1(Op::RandomSplit, {key}, {{"shape", Param::ints({2})}});
  auto pick = [&](int i) {
    Atom x = L.emit1(Op::Slice, {ks}, {{"start_indices", Param::ints({i})}, {"limit_indices", Param::ints({i + 1})}, {"strides", Param::none()}});
    return Atom(L.emit1(Op::Reshape, {x}, {{"new_sizes", Param::tuple({})}, {"dimensions", Param::none()}}));
  };
  Atom hb = L.emit1(Op::RandomBits, {pick(0)}, {{"bit_width", Param::of(32)}, {"shape", Param::ints(s)}});
  Atom lb = L.emit1(Op::RandomBits, {pick(1)}, {{"bit_width", Param::of(32)}, {"shape", Param::ints(s)}});
  lo = L.broadcast(lo, s), hi = L.broadcast(hi, s);
  Atom diff = L.castTo(L.emit1(Op::Sub, {hi, lo}), DType::U32);
  Atom sp = L.emit1(Op::Select, {L.emit1(Op::Le, {hi, lo}), diff, L.broadcast(L.b().lit(DType::U32, 1), s)});
  Atom m16 = L.emit1(Op::Rem, {L.broadcast(L.b().lit(DType::U32, 65536), s), sp});
  Atom mult = L.emit1(Op::Rem, {L.emit1(Op::Mul, {m16, m16}), sp});
  Atom off = L.emit1(Op::Add, {L.emit1(Op::Mul, {L.emit1(Op::Rem, {hb, sp}), mult}), L.emit1(Op::Rem, {lb, sp})});
  off = L.emit1(Op::Rem, {off, sp});
  return L.emit1(Op::Add, {lo, L.castTo(off, DType::I32)});
}

ValueP gradFn(Lowering &L, Bound &a, bool withValue, SrcRange loc) {
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

std::string pyRepr(const Value &v);

std::string pyFloat(double f) {
  // Python's repr(float): the shortest digits that round-trip, written in positional
  // notation when the decimal exponent is in [-4, 16), else as d.ddde+XX (at least two
  // exponent digits); a positional value always shows a fractional part (100.0).
  if (std::isnan(f)) return "nan";
  if (std::isinf(f)) return f > 0 ? "inf" : "-inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, f, std::chars_format::scientific);
  std::string sci(buf, r.ptr);  // "-d.ddde+XX": the shortest round-tripping digits
  std::string sign = sci[0] == '-' ? "-" : "";
  if (!sign.empty()) sci.erase(0, 1);
  size_t e = sci.find('e');
  int exp10 = std::stoi(sci.substr(e + 1));
  std::string digits = sci.substr(0, e);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  if (exp10 < -4 || exp10 >= 16) {
    std::string m = digits.substr(0, 1) + (digits.size() > 1 ? "." + digits.substr(1) : "");
    std::string ex = std::to_string(std::abs(exp10));
    if (ex.size() < 2) ex = "0" + ex;
    return sign + m + "e" + (exp10 < 0 ? "-" : "+") + ex;
  }
  int point = exp10 + 1;  // digits before the decimal point
  std::string s;
  if (point <= 0) s = "0." + std::string(size_t(-point), '0') + digits;
  else if (size_t(point) >= digits.size()) s = digits + std::string(size_t(point) - digits.size(), '0') + ".0";
  else s = digits.substr(0, size_t(point)) + "." + digits.substr(size_t(point));
  return sign + s;
}

std::string pyRepr(const Value &v) {
  switch (v.kind) {
  case Value::Int: return std::to_string(v.i);
  case Value::Float: return pyFloat(v.f);
  case Value::Bool: return v.i ? "True" : "False";
  case Value::Str: return "'" + v.s + "'";
  case Value::DTypeV: return v.fname;
  case Value::Tuple: {
    std::string s = v.isList ? "[" : "(";
    for (size_t k = 0; k < v.elems.size(); ++k) s += (k ? ", " : "") + pyRepr(*v.elems[k]);
    if (!v.isList && v.elems.size() == 1) s += ",";
    return s + (v.isList ? "]" : ")");
  }
  default: return "<" + describe(v) + ">";
  }
}

/// Appends the print segments for one argument of print().
/// A static list of numbers, nested or not, holding a float or a bool: an array literal,
/// which prints as NumPy prints the array (`[1.e-05 1.e+00]`). Lists of integers are
/// static values (ranges, comprehensions, shapes) and print as Python prints them
/// (spec sections 2 and 8).
static bool arrayLiteral(const Value &v, bool &nonInt) {
  if (v.kind != Value::Tuple || !v.isList || v.elems.empty()) return false;
  for (auto &e : v.elems) {
    if (e->isNumber()) nonInt |= e->kind != Value::Int;
    else if (!arrayLiteral(*e, nonInt)) return false;
  }
  return true;
}
static bool arrayLiteral(const Value &v) {
  bool nonInt = false;
  return arrayLiteral(v, nonInt) && nonInt;
}

void printSegments(Lowering &L, ValueP v, std::vector<Param> &segs, std::vector<Atom> &ins, SrcRange loc, bool top) {
  if (arrayLiteral(*v)) v = L.toArray(v, loc);
  auto str = [&](std::string s) {
    if (!segs.empty() && segs.back().kind == Param::Str) segs.back().s += s;
    else segs.push_back(Param::ofStr(std::move(s)));
  };
  switch (v->kind) {
  case Value::Str: str(top ? v->s : "'" + v->s + "'"); return;
  case Value::Array:
    if (v->atom.isLit && !ir::isFloat(v->atom.lit.dtype)) {
      // An integer or bool scalar prints the same as NumPy and Python print it.
      str(v->atom.lit.dtype == DType::Bool ? pyRepr(*Value::boolean(v->atom.lit.i)) : pyRepr(*Value::integer(v->atom.lit.i)));
      return;
    }
    if (v->atom.isLit) {
      // A float scalar array (f32(2**40), f32(1.0 / 3.0)) prints as NumPy prints its
      // f32 value (1.0995116e+12, 0.33333334): the run-time formatter does that.
      Atom x = L.broadcast(v->atom, {});
      x = L.emit1(Op::Reshape, {x}, {{"new_sizes", Param::tuple({})}, {"dimensions", Param::none()}});
      segs.push_back(Param::of(int64_t(ins.size())));
      ins.push_back(x);
      return;
    }
    if (v->type().dtype == DType::Key) {
      // As JAX prints a key array: its shape, then the key words it overlays.
      std::string shape = "(";
      for (size_t k = 0; k < v->type().shape.size(); ++k) shape += (k ? ", " : "") + std::to_string(v->type().shape[k]);
      str("Array(" + shape + (v->type().shape.size() == 1 ? ",)" : ")") + ", dtype=key<fry>) overlaying:\n");
      segs.push_back(Param::of(int64_t(ins.size())));
      ins.push_back(L.emit1(Op::RandomUnwrap, {v->atom}));
      return;
    }
    segs.push_back(Param::of(int64_t(ins.size())));
    ins.push_back(v->atom);
    return;
  case Value::Rendered:
    segs.push_back(Param::tuple({Param::of(int64_t(ins.size())), Param::ofStr(v->s), Param::ofStr(v->s2)}));
    ins.push_back(v->atom);
    return;
  case Value::Tuple:
    if (v->isStatic()) { str(pyRepr(*v)); return; }
    str(v->isList ? "[" : "(");
    for (size_t k = 0; k < v->elems.size(); ++k) {
      if (k) str(", ");
      printSegments(L, v->elems[k], segs, ins, loc, false);
    }
    if (!v->isList && v->elems.size() == 1) str(",");
    str(v->isList ? "]" : ")");
    return;
  case Value::Func: str("<function>"); return;
  default: str(pyRepr(*v)); return;
  }
}

const std::map<std::string, BuiltinDef> &table() {
  static const std::map<std::string, BuiltinDef> t = [] {
    std::map<std::string, BuiltinDef> m;
    // -- creation --
    m["zeros"] = {{"shape", "dtype"}, 1, [](Lowering &L, Bound &a, auto &, SrcRange) {
                    return filled(L, a[0], 0, a.has(1) ? L.dtypeFrom(a[1].value, a[1].loc) : DType::F32); }};
    m["ones"] = {{"shape", "dtype"}, 1, [](Lowering &L, Bound &a, auto &, SrcRange) {
                   return filled(L, a[0], 1, a.has(1) ? L.dtypeFrom(a[1].value, a[1].loc) : DType::F32); }};
    m["full"] = {{"shape", "value", "dtype"}, 2, [](Lowering &L, Bound &a, auto &, SrcRange loc) {
                   bool weak;
                   // A static integer with a dtype converts directly (full(s, 3000000000, u32)).
                   if (a.has(2) && a[1].value->kind == Value::Int) {
                     Atom v = staticIntAs(L, a[1].value->i, L.dtypeFrom(a[2].value, a[2].loc), a[1].loc);
                     return Value::array(L.broadcast(v, L.staticShape(a[0], v.type().dtype)));
                   }
                   Atom v = L.toAtom(a[1].value, a[1].loc, &weak);
                   if (a.has(2)) {
                     DType d = L.dtypeFrom(a[2].value, a[2].loc);
                     if (v.type().dtype == DType::Key) L.rejectKeys(*Value::array(v), a[1].loc, "full() with dtype=");
                     v = L.castTo(v, d);
                   }
                   ir::Shape s = L.staticShape(a[0], v.type().dtype);
                   if (v.type().rank() != 0) userError(a[1].loc, "full() needs a scalar value");
                   return Value::array(L.broadcast(v, s)); }};
    m["arange"] = {{"start", "stop", "step", "dtype"}, 1, [](Lowering &L, Bound &a, auto &, SrcRange loc) {
                     const Value *vs[3] = {a[0].value.get(), a.has(1) ? a[1].value.get() : nullptr,
                                           a.has(2) ? a[2].value.get() : nullptr};
                     bool isFloat = false;
                     for (auto *v : vs) {
                       if (!v) continue;
                       if (v->kind == Value::Float) isFloat = true;
                       else if (v->kind != Value::Int)
                         userError(loc, "arange() bounds must be numbers known at compile time");
                     }
                     auto num = [](const Value *v) { return v->kind == Value::Float ? v->f : double(v->i); };
                     double start = 0, stop, step = 1;
                     // arange(stop), arange(start, stop), and the step (also as arange(stop, step=s)).
                     if (vs[1]) { start = num(vs[0]); stop = num(vs[1]); }
                     else stop = num(vs[0]);
                     if (vs[2]) step = num(vs[2]);
                     if (step == 0) userError(a[2].loc, "arange() step cannot be zero");
                     DType d = a.has(3) ? L.dtypeFrom(a[3].value, a[3].loc) : isFloat ? DType::F32 : DType::I32;
                     if (d == DType::Bool) userError(a[3].loc, "arange() cannot make bool values (as JAX's iota)");
                     // NumPy's length, ceil((stop - start) / step), computed in double: a NaN or
                     // a length beyond any array is an error here, not a cast that wraps.
                     double len = std::ceil((stop - start) / step);
                     if (std::isnan(len)) userError(loc, "arange() cannot compute its length from these bounds");
                     if (len > double(int64_t(1) << 62)) {
                       char buf[64];
                       snprintf(buf, sizeof buf, "%.3g", len);
                       userError(loc, std::string("arange() would make ") + buf + " elements: too many for an array (at most 2^48 bytes)");
                     }
                     int64_t n = len > 0 ? int64_t(len) : 0;
                     L.checkedShape({n}, d, loc);
                     Atom io = L.emit1(Op::Iota, {}, {{"dtype", Param::ofDType(d)}, {"shape", Param::ints({n})},
                                                     {"dimension", Param::of(0)}, {"sharding", Param::none()}});
                     if (step != 1) io = L.emit1(Op::Mul, {io, L.b().lit(d, step)});
                     if (start != 0) io = L.emit1(Op::Add, {io, L.b().lit(d, start)});
                     return Value::array(io); }};
    m["linspace"] = {{"start", "stop", "num", "endpoint", "dtype"}, 3, [](Lowering &L, Bound &a, auto &, SrcRange loc) {
                       double lo = floatStatic(L, a[0], 0, "linspace() start"), hi = floatStatic(L, a[1], 0, "linspace() stop");
                       int64_t n = L.staticInt(a[2].value, a[2].loc, "linspace() num");
                       if (n < 0) userError(a[2].loc, "linspace() needs a non-negative number of samples, not " + std::to_string(n));
                       L.checkedShape({n}, DType::F32, a[2].loc);
                       bool endpoint = boolArg(L, a[3], true);
                       // NumPy/JAX: start + i * step (step = (stop-start)/div), and the last is exactly stop.
                       double div = endpoint ? double(n - 1) : double(n);
                       double step = div > 0 ? (hi - lo) / div : 0;
                       if (n > 1000) {
                         // Large: computed on the device as start + i * step (one fused
                         // multiply-add in f32, as XLA does) with the last set to stop,
                         // instead of an n-element constant that the compiler must carry.
                         Atom io = L.emit1(Op::Iota, {}, {{"dtype", Param::ofDType(DType::F32)}, {"shape", Param::ints({n})},
                                                         {"dimension", Param::of(0)}, {"sharding", Param::none()}});
                         Atom v = L.emit1(Op::Fma, {io, L.b().lit(DType::F32, float(step)), L.b().lit(DType::F32, float(lo))});
                         if (endpoint) {
                           Atom last = L.emit1(Op::Eq, {io, L.b().lit(DType::F32, double(n - 1))});
                           v = L.emit1(Op::Select, {last, v, L.broadcast(L.b().lit(DType::F32, float(hi)), {n})});
                         }
                         return Value::array(v);
                       }
                       std::vector<double> data(n);
                       for (int64_t k = 0; k < n; ++k) data[k] = float(lo + double(k) * step);
                       if (endpoint && n > 1) data[n - 1] = float(hi);
                       // Computed at compile time in double precision, rounded to f32 once.
                       return Value::array(L.constant(data, DType::F32, {n})); }};
    m["eye"] = {{"n", "m", "dtype"}, 1, [](Lowering &L, Bound &a, auto &, SrcRange loc) {
                  int64_t n = L.staticInt(a[0].value, a[0].loc, "eye() size");
                  if (n < 0) userError(a[0].loc, "eye() needs a non-negative size, not " + std::to_string(n));
                  int64_t mm = a.has(1) ? L.staticInt(a[1].value, a[1].loc, "eye() size") : n;
                  if (mm < 0) userError(a[1].loc, "eye() needs a non-negative size, not " + std::to_string(mm));
                  DType d = a.has(2) ? L.dtypeFrom(a[2].value, a[2].loc) : DType::F32;
                  L.checkedShape({n, mm}, d, loc);
                  auto io = [&](int dim) {
                    return Atom(L.emit1(Op::Iota, {}, {{"dtype", Param::ofDType(DType::I32)}, {"shape", Param::ints({n, mm})},
                                                       {"dimension", Param::of(dim)}, {"sharding", Param::none()}}));
                  };
                  return Value::array(L.castTo(L.emit1(Op::Eq, {io(0), io(1)}), d)); }};
    // -- shapes --
    m["reshape"] = {{"x", "shape"}, 2, [](Lowering &L, Bound &a, auto &, SrcRange loc) {
                      ValueP v = arr(L, a[0]);
                      auto s = L.staticInts(a[1], "a shape");
                      int64_t known = 1, unknown = -1;
                      bool overflow = false;
                      for (size_t k = 0; k < s.size(); ++k) {
                        if (s[k] == -1) {
                          if (unknown >= 0) userError(a[1].loc, "reshape() allows only one -1");
                          unknown = int64_t(k);
                        } else if (s[k] < 0) userError(a[1].loc, "a shape cannot have a negative size");
                        else if (__builtin_mul_overflow(known, s[k], &known)) overflow = true;
                      }
                      int64_t n = v->type().numel();
                      if (unknown >= 0) {
                        if (overflow || known == 0 || n % known) userError(a[1].loc, "cannot reshape " + v->type().str() + " into " + Param::ints(s).str());
                        s[unknown] = n / known;
                      }
                      // Sizes whose product overflows (or an empty array into huge sizes) are
                      // an error here, before the element counts are compared.
                      L.checkedShape(s, v->type().dtype, a[1].loc);
                      ir::Type nt{v->type().dtype, s};
                      if (nt.numel() != n)
                        userError(a[1].loc, "cannot reshape " + v->type().str() + " (" + std::to_string(n) + " elements) into shape " +
                                                Param::ints(s).str());
                      Atom x = v->atom.isLit ? L.broadcast(v->atom, {}) : v->atom;
                      return Value::array(L.emit1(Op::Reshape, {x}, {{"new_sizes", Param::ints(s)}, {"dimensions", Param::none()}}), v->weak); }};
    m["ravel"] = {{"x"}, 1, [](Lowering &L, Bound &a, auto &, SrcRange) {
                    ValueP v = arr(L, a[0]);
                    Atom x = v->atom.isLit ? L.broadcast(v->atom, {}) : v->atom;
                    return Value::array(L.emit1(Op::Reshape, {x}, {{"new_sizes", Param::ints({v->type().numel()})}, {"dimensions", Param::none()}}), v->weak); }};
    m["transpose"] = {{"x", "axes"}, 1, [](Lowering &L, Bound &a, auto &, SrcRange) {
                        ValueP v = arr(L, a[0]);
                        int r = v->type().rank();
                        std::vector<int64_t> perm;
                        if (a.has(1)) {
                          perm = L.staticInts(a[1], "a permutation");
                          std::vector<int64_t> sorted = perm;
                          for (auto &p : sorted) if (p < 0) p += r;
                          std::sort(sorted.begin(), sorted.end());
                          for (int k = 0; k < r; ++k)
                            if (int(sorted.size()) != r || sorted[k] != k)
                              userError(a[1].loc, "transpose() needs a permutation of 0.." + std::to_string(r - 1));
                          for (auto &p : perm) if (p < 0) p += r;
                        } else {
                          for (int k = r - 1; k >= 0; --k) perm.push_back(k);
                        }
                        if (r == 0) return v;
                        return Value::array(L.emit1(Op::Transpose, {v->atom}, {{"permutation", Param::ints(perm)}}), v->weak); }};
    auto concatLike = [](bool stack) {
      return BuiltinDef{{"arrays", "axis"}, 1, [stack](Lowering &L, Bound &a, auto &, SrcRange loc) {
                          ValueP lst = a[0].value;
                          if (lst->kind != Value::Tuple || lst->elems.empty())
                            userError(a[0].loc, std::string(stack ? "stack" : "concat") + "() needs a non-empty list of arrays");
                          DType d;
                          bool weak;
                          // Promote dtypes without broadcasting shapes.
                          std::vector<ValueP> arrs;
                          for (auto &e : lst->elems) arrs.push_back(L.toArray(e, a[0].loc));
                          std::vector<ValueP> scalars;
                          for (auto &x : arrs) scalars.push_back(Value::array(L.b().lit(x->type().dtype, 0), x->weak));
                          // Keys join with keys (as jnp.concatenate and jnp.stack of key arrays).
                          size_t nkeys = std::count_if(arrs.begin(), arrs.end(), [](const ValueP &x) { return x->type().dtype == DType::Key; });
                          if (nkeys == arrs.size()) d = DType::Key, weak = false;
                          else L.unify(scalars, loc, &d, &weak, stack ? "stack()" : "concat()");
                          int r = arrs[0]->type().rank() + (stack ? 1 : 0);
                          int64_t ax = a.has(1) ? L.staticInt(a[1].value, a[1].loc, "an axis") : 0;
                          if (ax < 0) ax += r;
                          if (ax < 0 || ax >= r || (!stack && r == 0))
                            userError(a.has(1) ? a[1].loc : loc, "axis out of range");
                          std::vector<Atom> parts;
                          for (auto &x : arrs) {
                            Atom p = L.castTo(x->atom, d);
                            if (p.isLit) p = L.broadcast(p, {}), p = L.emit1(Op::Reshape, {p}, {{"new_sizes", Param::tuple({})}, {"dimensions", Param::none()}});
                            ir::Shape s = p.type().shape;
                            if (stack) {
                              s.insert(s.begin() + ax, 1);
                              p = L.emit1(Op::Reshape, {p}, {{"new_sizes", Param::ints(s)}, {"dimensions", Param::none()}});
                            }
                            ir::Shape s0 = parts.empty() ? s : parts[0].type().shape;
                            if (int(s.size()) != int(s0.size())) userError(a[0].loc, "arrays of different ranks cannot be joined: " + parts[0].type().str() + " and " + p.type().str());
                            for (size_t k = 0; k < s.size(); ++k)
                              if (int64_t(k) != ax && s[k] != s0[k])
                                userError(a[0].loc, "arrays to join must agree except along the axis: " + parts[0].type().str() + " and " + p.type().str());
                            parts.push_back(p);
                          }
                          if (parts.size() == 1) return Value::array(parts[0], weak);
                          return Value::array(L.emit1(Op::Concatenate, parts, {{"dimension", Param::of(ax)}}), weak); }};
    };
    m["concat"] = concatLike(false);
    m["stack"] = concatLike(true);
    m["broadcast_to"] = {{"x", "shape"}, 2, [](Lowering &L, Bound &a, auto &, SrcRange loc) {
                           ValueP v = arr(L, a[0]);
                           ir::Shape s = L.staticShape(a[1], v->type().dtype);
                           ir::Shape vs = v->type().shape;
                           bool ok = vs.size() <= s.size();
                           for (size_t k = 0; ok && k < vs.size(); ++k) {
                             int64_t t = s[s.size() - vs.size() + k];
                             ok = vs[k] == t || vs[k] == 1;
                           }
                           if (!ok) userError(loc, "cannot broadcast " + v->type().str() + " to shape " + Param::ints(s).str());
                           return Value::array(L.broadcast(v->atom, s), v->weak); }};
    m["expand_dims"] = {{"x", "axis"}, 2, [](Lowering &L, Bound &a, auto &, SrcRange) {
                          ValueP v = arr(L, a[0]);
                          ir::Shape s = v->type().shape;
                          int64_t ax = L.staticInt(a[1].value, a[1].loc, "an axis");
                          int r = int(s.size()) + 1;
                          if (ax < 0) ax += r;
                          if (ax < 0 || ax >= r) userError(a[1].loc, "axis out of range");
                          s.insert(s.begin() + ax, 1);
                          Atom x = v->atom.isLit ? L.broadcast(v->atom, {}) : v->atom;
                          return Value::array(L.emit1(Op::Reshape, {x}, {{"new_sizes", Param::ints(s)}, {"dimensions", Param::none()}}), v->weak); }};
    m["squeeze"] = {{"x", "axis"}, 1, [](Lowering &L, Bound &a, auto &, SrcRange) {
                      ValueP v = arr(L, a[0]);
                      ir::Shape s = v->type().shape, out;
                      std::vector<int64_t> axes;
                      if (a.has(1)) axes = axesArg(L, a[1], int(s.size()));
                      for (size_t k = 0; k < s.size(); ++k) {
                        bool named = std::find(axes.begin(), axes.end(), int64_t(k)) != axes.end();
                        if (named && s[k] != 1) userError(a[1].loc, "cannot squeeze axis " + std::to_string(k) + " of size " + std::to_string(s[k]));
                        if ((a.has(1) && named) || (!a.has(1) && s[k] == 1)) continue;
                        out.push_back(s[k]);
                      }
                      return Value::array(L.emit1(Op::Reshape, {v->atom}, {{"new_sizes", Param::ints(out)}, {"dimensions", Param::none()}}), v->weak); }};
    m["shape"] = {{"x"}, 1, [](Lowering &L, Bound &a, auto &, SrcRange) {
                    std::vector<ValueP> e;
                    for (auto d : arr(L, a[0])->type().shape) e.push_back(Value::integer(d));
                    return Value::tuple(e); }};
    m["size"] = {{"x"}, 1, [](Lowering &L, Bound &a, auto &, SrcRange) { return Value::integer(arr(L, a[0])->type().numel()); }};
    m["len"] = {{"x"}, 1, [](Lowering &L, Bound &a, auto &, SrcRange loc) {
                  if (a[0].value->kind == Value::Tuple) return Value::integer(int64_t(a[0].value->elems.size()));
                  if (a[0].value->kind == Value::Str) return Value::integer(int64_t(a[0].value->s.size()));
                  ValueP v = arr(L, a[0]);
                  if (v->type().rank() == 0) userError(a[0].loc, "len() of a scalar");
                  return Value::integer(v->type().shape[0]); }};
    m["set"] = {{"x", "index", "value"}, 3, [](Lowering &L, Bound &a, auto &, SrcRange loc) {
                  ValueP v = arr(L, a[0]);
                  ir::Type t = v->type();
                  std::vector<ValueP> idx;
                  if (a[1].value->kind == Value::Tuple) idx = a[1].value->elems;
                  else idx.push_back(a[1].value);
                  if (int(idx.size()) > t.rank()) userError(a[1].loc, "too many indices for an array of type " + t.str());
                  std::vector<Atom> starts;
                  ir::Shape us;
                  for (int d = 0; d < t.rank(); ++d) {
                    if (d < int(idx.size())) {
                      ValueP iv = idx[d];
                      int64_t n = t.shape[d];
                      if (iv->kind == Value::Int) {
                        int64_t k = iv->i < 0 ? iv->i + n : iv->i;
                        if (k < 0 || k >= n) userError(a[1].loc, "index " + std::to_string(iv->i) + " is out of range for axis " + std::to_string(d) + " of size " + std::to_string(n));
                        starts.push_back(L.b().lit(DType::I32, double(k)));
                      } else {
                        Atom i = L.castTo(L.toAtom(iv, a[1].loc), DType::I32);
                        if (i.type().rank() != 0) userError(a[1].loc, "an index must be an integer scalar");
                        Atom neg = L.emit1(Op::Lt, {i, L.b().lit(DType::I32, 0)});
                        starts.push_back(L.emit1(Op::Select, {neg, i, L.emit1(Op::Add, {i, L.b().lit(DType::I32, double(n))})}));
                      }
                      us.push_back(1);
                    } else {
                      starts.push_back(L.b().lit(DType::I32, 0));
                      us.push_back(t.shape[d]);
                    }
                  }
                  ir::Shape vs(us.begin() + idx.size(), us.end());
                  Atom val = L.toAtom(a[2].value, a[2].loc);
                  if ((val.type().dtype == DType::Key) != (t.dtype == DType::Key))
                    userError(a[2].loc, "set() cannot put a value of type " + val.type().str() + " into an array of type " + t.str());
                  val = L.castTo(val, t.dtype);
                  ir::Shape valShape = val.type().shape;
                  bool ok = valShape.size() <= vs.size();
                  for (size_t k = 0; ok && k < valShape.size(); ++k) ok = valShape[k] == 1 || valShape[k] == vs[vs.size() - valShape.size() + k];
                  if (!ok) userError(a[2].loc, "cannot set a value of type " + val.type().str() + " into a slot of shape " + Param::ints(vs).str());
                  val = L.broadcast(val, vs);
                  if (val.isLit) val = L.emit1(Op::BroadcastInDim, {val}, {{"shape", Param::tuple({})}, {"broadcast_dimensions", Param::tuple({})}});
                  Atom upd = L.emit1(Op::Reshape, {val}, {{"new_sizes", Param::ints(us)}, {"dimensions", Param::none()}});
                  std::vector<Atom> ins{v->atom, upd};
                  ins.insert(ins.end(), starts.begin(), starts.end());
                  return Value::array(L.emit1(Op::DynamicUpdateSlice, ins), v->weak); }};
    // -- elementwise math --
    m["exp"] = unaryMath(Op::Exp, "exp");
    m["log"] = unaryMath(Op::Log, "log");
    m["log1p"] = unaryMath(Op::Log1p, "log1p");
    m["sqrt"] = unaryMath(Op::Sqrt, "sqrt");
    m["rsqrt"] = unaryMath(Op::Rsqrt, "rsqrt");
    m["sin"] = unaryMath(Op::Sin, "sin");
    m["cos"] = unaryMath(Op::Cos, "cos");
    m["tan"] = unaryMath(Op::Tan, "tan");
    m["tanh"] = unaryMath(Op::Tanh, "tanh");
    m["sigmoid"] = unaryMath(Op::Logistic, "sigmoid");
    m["abs"] = unaryKeep(Op::Abs, false);
    m["sign"] = unaryKeep(Op::Sign, false);
    m["floor"] = unaryKeep(Op::Floor, true);
    m["ceil"] = unaryKeep(Op::Ceil, true);
    m["round"] = unaryKeep(Op::Round, true);
    m["relu"] = {{"x"}, 1, [](Lowering &L, Bound &a, auto &, SrcRange loc) {
                   DType d;
                   bool weak;
                   auto xs = L.unify({a[0].value, Value::integer(0)}, loc, &d, &weak, "relu");
                   // jax.nn.relu's custom JVP: the gradient is select(x > 0, g, 0), not max's
                   // tie split (the "relu" parameter picks that rule in VjpRules).
                   return Value::array(L.emit1(Op::Max, xs, {{"relu", ir::Param::of(1)}}), weak); }};
    m["maximum"] = binaryElementwise(Op::Max, "maximum");
    m["minimum"] = binaryElementwise(Op::Min, "minimum");
    m["where"] = {{"cond", "a", "b"}, 3, [](Lowering &L, Bound &a, auto &, SrcRange loc) {
                    DType d, cd;
                    bool weak, cw;
                    ValueP c = arr(L, a[0]);
                    L.rejectKeys(*c, a[0].loc, "the condition of where()");
                    Atom cb = L.castTo(c->atom, DType::Bool);
                    auto isKey = [](const Value &v) { return v.kind == Value::Array && v.type().dtype == DType::Key; };
                    if (isKey(*a[1].value) || isKey(*a[2].value)) {
                      // Keys select like numbers (jnp.where on key arrays): on their words.
                      if (!isKey(*a[1].value) || !isKey(*a[2].value))
                        userError(loc, "where() selects between two keys or two numbers, not between " + describe(*a[1].value) + " and " + describe(*a[2].value));
                      ir::Shape full;
                      for (const ir::Shape &xs : {cb.type().shape, a[1].value->type().shape, a[2].value->type().shape}) {
                        if (xs.size() > full.size()) full.insert(full.begin(), xs.size() - full.size(), 1);
                        for (size_t k = 0; k < xs.size(); ++k) {
                          int64_t &o = full[full.size() - xs.size() + k];
                          if (o == 1) o = xs[k];
                          else if (xs[k] != 1 && xs[k] != o)
                            userError(loc, "incompatible shapes for where: " + cb.type().str() + ", " + a[1].value->type().str() + " and " + a[2].value->type().str());
                        }
                      }
                      ir::Shape fw = full;
                      fw.push_back(2);
                      Atom cc = L.broadcast(cb, full);
                      if (cc.isLit) cc = L.emit1(Op::BroadcastInDim, {cc}, {{"shape", Param::ints(full)}, {"broadcast_dimensions", Param::tuple({})}});
                      std::vector<int64_t> dims;
                      for (size_t k = 0; k < full.size(); ++k) dims.push_back(int64_t(k));
                      cc = L.emit1(Op::BroadcastInDim, {cc}, {{"shape", Param::ints(fw)}, {"broadcast_dimensions", Param::ints(dims)}});
                      Atom t = L.broadcast(L.emit1(Op::RandomUnwrap, {a[1].value->atom}), fw);
                      Atom f = L.broadcast(L.emit1(Op::RandomUnwrap, {a[2].value->atom}), fw);
                      return Value::array(L.emit1(Op::RandomWrap, {L.emit1(Op::Select, {cc, f, t})}, {{"impl", Param::ofStr("fry")}}));
                    }
                    auto xs = L.unify({a[1].value, a[2].value}, loc, &d, &weak, "where");
                    // Broadcast all three together.
                    auto all = L.unify({Value::array(cb), Value::array(xs[0], weak), Value::array(xs[1], weak)}, loc, &cd, &cw, "where");
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
                    if (cc.isLit) cc = L.emit1(Op::BroadcastInDim, {cc}, {{"shape", Param::ints(full)}, {"broadcast_dimensions", Param::tuple({})}});
                    return Value::array(L.emit1(Op::Select, {cc, f, t}), weak); }};
    m["clip"] = {{"x", "lo", "hi"}, 3, [](Lowering &L, Bound &a, auto &, SrcRange loc) {
                   DType d;
                   bool weak;
                   auto xs = L.unify({a[0].value, a[1].value, a[2].value}, loc, &d, &weak, "clip");
                   return Value::array(L.emit1(Op::Min, {L.emit1(Op::Max, {xs[0], xs[1]}), xs[2]}), weak); }};
    for (auto [nm, d] : std::vector<std::pair<const char *, DType>>{{"f32", DType::F32}, {"i32", DType::I32}, {"u32", DType::U32},
                                                                   {"bool", DType::Bool}, {"f64", DType::F64}}) {
      m[nm] = {{"x"}, 1, [d = d](Lowering &L, Bound &a, auto &, SrcRange) {
                 ValueP v = a[0].value;
                 if (v->kind == Value::Tuple) v = L.toArray(v, a[0].loc);
                 if (v->kind == Value::Int) return Value::array(staticIntAs(L, v->i, d, a[0].loc));
                 if (v->kind == Value::Float || v->kind == Value::Bool) {
                   Atom x = L.castTo(L.toAtom(v, a[0].loc), d);
                   return Value::array(x);
                 }
                 ValueP av = arr(L, a[0]);
                 if (av->type().dtype == DType::Key) userError(a[0].loc, "keys cannot be cast; use key_data(k)");
                 return Value::array(L.castTo(av->atom, d)); }};
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
    m["dot"] = {{"a", "b"}, 2, [](Lowering &L, Bound &a, auto &, SrcRange loc) { return L.matmul(a[0].value, a[1].value, loc); }};
    // -- random numbers --
    m["key"] = {{"seed"}, 1, [](Lowering &L, Bound &a, auto &, SrcRange loc) {
                  ValueP s = a[0].value;
                  if (s->kind == Value::Int) {
                    // A static seed: the key words are computed here, exactly as jax.random.key(seed).
                    auto k = prng::seed(s->i);
                    Atom words = L.constant({double(k[0]), double(k[1])}, DType::U32, {2});
                    return Value::array(L.emit1(Op::RandomWrap, {words}, {{"impl", Param::ofStr("fry")}}));
                  }
                  ValueP v = arr(L, a[0]);
                  if (v->type().rank() != 0 || !ir::isInt(v->type().dtype))
                    userError(a[0].loc, "key() needs an integer scalar seed, not " + v->type().str());
                  return Value::array(L.emit1(Op::RandomSeed, {v->atom}, {{"impl", Param::ofStr("fry")}})); }};
    m["split"] = {{"key", "num"}, 1, [](Lowering &L, Bound &a, auto &, SrcRange loc) {
                    Atom k = keyArg(L, a[0], "split");
                    int64_t n = a.has(1) ? L.staticInt(a[1].value, a[1].loc, "the number of keys") : 2;
                    // As jax.random.split: num >= 0 (split(k, 0) is an empty key array).
                    if (n < 0) userError(a[1].loc, "split() needs a non-negative number of keys, not " + std::to_string(n));
                    ir::Shape s = L.checkedShape({n}, DType::Key, a.has(1) ? a[1].loc : loc);
                    return Value::array(L.emit1(Op::RandomSplit, {k}, {{"shape", Param::ints(s)}})); }};
    m["fold_in"] = {{"key", "data"}, 2, [](Lowering &L, Bound &a, auto &, SrcRange) {
                      Atom k = keyArg(L, a[0], "fold_in");
                      // As jax.random.fold_in: one key and one scalar, converted to u32.
                      // A static datum in 0..2^32-1 is a u32 (JAX converts it with jnp.uint32).
                      if (a[1].value->kind == Value::Int && a[1].value->i > INT32_MAX && a[1].value->i <= int64_t(UINT32_MAX)) {
                        Atom d = L.emit1(Op::Reshape, {L.broadcast(L.b().lit(DType::U32, double(a[1].value->i)), {})},
                                         {{"new_sizes", Param::tuple({})}, {"dimensions", Param::none()}});
                        return Value::array(L.emit1(Op::RandomFoldIn, {k, d}));
                      }
                      if (a[1].value->kind == Value::Int && (a[1].value->i < 0 || a[1].value->i > int64_t(UINT32_MAX)))
                        userError(a[1].loc, "fold_in() data must fit in u32 (0 to 4294967295), not " + std::to_string(a[1].value->i));
                      ValueP dv = arr(L, a[1]);
                      L.rejectKeys(*dv, a[1].loc, "the data of fold_in()");
                      if (dv->type().rank() != 0)
                        userError(a[1].loc, "fold_in() needs a scalar to fold in, not " + dv->type().str(),
                                  {{SrcRange{}, "as in JAX, map it over an array of data: vmap (d in data) { fold_in(k, d) }"}});
                      if (a[1].value->kind == Value::Int && (a[1].value->i < 0 || a[1].value->i > int64_t(UINT32_MAX)))
                        userError(a[1].loc, "fold_in() data must fit in u32 (0 to 4294967295), not " + std::to_string(a[1].value->i));
                      Atom d = L.castTo(dv->atom, DType::U32);
                      if (d.isLit) d = L.broadcast(d, {}), d = L.emit1(Op::Reshape, {d}, {{"new_sizes", Param::tuple({})}, {"dimensions", Param::none()}});
                      return Value::array(L.emit1(Op::RandomFoldIn, {k, d})); }};
    m["key_data"] = {{"keys"}, 1, [](Lowering &L, Bound &a, auto &, SrcRange) {
                       return Value::array(L.emit1(Op::RandomUnwrap, {keyArg(L, a[0], "key_data", false)})); }};
    m["uniform"] = {{"key", "shape", "lo", "hi", "minval", "maxval"}, 1, [](Lowering &L, Bound &a, auto &, SrcRange) {
                      Atom k = keyArg(L, a[0], "uniform");
                      ir::Shape s = a.has(1) ? L.staticShape(a[1], DType::F32) : ir::Shape{};
                      // minval/maxval: static numbers or arrays that broadcast to the shape.
                      auto bound = [&](int pos, int kw, double dflt, const char *what) {
                        if (!a.has(kw) && !a.has(pos)) return L.b().lit(DType::F32, dflt);
                        return randomBound(L, a.has(kw) ? a[kw] : a[pos], DType::F32, s, "uniform", what);
                      };
                      Atom lo = bound(2, 4, 0.0, "lo"), hi = bound(3, 5, 1.0, "hi");
                      return Value::array(uniformBits(L, k, s, lo, hi)); }};
    m["normal"] = {{"key", "shape"}, 1, [](Lowering &L, Bound &a, auto &, SrcRange) {
                     Atom k = keyArg(L, a[0], "normal");
                     ir::Shape s = a.has(1) ? L.staticShape(a[1], DType::F32) : ir::Shape{};
                     // JAX: u ~ uniform[nextafter(-1, 0), 1); sqrt(2) * erf_inv(u).
                     double lo = std::nextafter(-1.0f, 0.0f);
                     Atom u = uniformBits(L, k, s, lo, 1.0);
                     Atom e = L.emit1(Op::ErfInv, {u});
                     return Value::array(L.emit1(Op::Mul, {e, L.b().lit(DType::F32, float(std::sqrt(2.0)))})); }};
    m["bernoulli"] = {{"key", "p", "shape"}, 1, [](Lowering &L, Bound &a, auto &, SrcRange loc) {
                        Atom k = keyArg(L, a[0], "bernoulli");
                        // As jax.random.bernoulli: p is a float array; the shape defaults to p's,
                        // and a given shape must be what p broadcasts to with it.
                        Atom p = L.b().lit(DType::F32, 0.5);
                        if (a.has(1)) {
                          ValueP pv = arr(L, a[1]);
                          L.rejectKeys(*pv, a[1].loc, "the probability of bernoulli()");
                          if (!ir::isFloat(pv->type().dtype))
                            userError(a[1].loc, "bernoulli() needs a float probability p, not " + pv->type().str() +
                                                    (pv->weak ? " (write 1.0 for a literal)" : ""));
                          p = L.castTo(pv->atom, DType::F32);
                        }
                        ir::Shape ps = p.type().shape;
                        ir::Shape s = a.has(2) ? L.staticShape(a[2], DType::F32) : ps;
                        bool ok = ps.size() <= s.size();
                        for (size_t k = 0; ok && k < ps.size(); ++k) ok = ps[k] == 1 || ps[k] == s[s.size() - ps.size() + k];
                        if (!ok)
                          userError(a[1].loc, "bernoulli() needs p to broadcast to the shape argument " + ir::Type{DType::F32, s}.str().substr(3) +
                                                  ", but p is " + p.type().str());
                        Atom u = uniformBits(L, k, s, 0.0, 1.0);
                        if (!p.isLit) p = L.broadcast(p, s);
                        return Value::array(L.emit1(Op::Lt, {u, p})); }};
    m["randint"] = {{"key", "shape", "lo", "hi"}, 4, [](Lowering &L, Bound &a, auto &, SrcRange loc) {
                      Atom k = keyArg(L, a[0], "randint");
                      ir::Shape s = L.staticShape(a[1], DType::I32);
                      if (!a[2].value->isNumber() || !a[3].value->isNumber())
                        return Value::array(randintArrays(L, k, s, randomBound(L, a[2], DType::I32, s, "randint", "lo"),
                                                          randomBound(L, a[3], DType::I32, s, "randint", "hi")));
                      int64_t lo = L.staticInt(a[2].value, a[2].loc, "randint() lo");
                      int64_t hi = L.staticInt(a[3].value, a[3].loc, "randint() hi");
                      // The bounds are i32 (JAX with x64 off rejects larger Python ints); hi <= lo
                      // gives lo everywhere, as JAX does (span 1).
                      for (auto [v, at] : {std::pair{lo, &a[2]}, std::pair{hi, &a[3]}})
                        if (v < INT32_MIN || v > INT32_MAX)
                          userError(at->loc, "randint() bounds must fit in i32, not " + std::to_string(v));
                      if (hi <= lo) hi = lo + 1;
                      // JAX's randint: two 32-bit draws combined modulo the span.
                      Atom ks = L.emit1(Op::RandomSplit, {k}, {{"shape", Param::ints({2})}});
                      auto pick = [&](int i) {
                        Atom x = L.emit1(Op::Slice, {ks}, {{"start_indices", Param::ints({i})}, {"limit_indices", Param::ints({i + 1})}, {"strides", Param::none()}});
                        return Atom(L.emit1(Op::Reshape, {x}, {{"new_sizes", Param::tuple({})}, {"dimensions", Param::none()}}));
                      };
                      Atom hb = L.emit1(Op::RandomBits, {pick(0)}, {{"bit_width", Param::of(32)}, {"shape", Param::ints(s)}});
                      Atom lb = L.emit1(Op::RandomBits, {pick(1)}, {{"bit_width", Param::of(32)}, {"shape", Param::ints(s)}});
                      uint32_t span = uint32_t(hi - lo);
                      // JAX's multiplier, in wrapping u32 (it is 0 for spans above 2^16).
                      uint32_t m16 = (uint32_t(1) << 16) % span;
                      uint32_t mult = uint32_t(m16 * m16) % span;
                      Atom sp = L.b().lit(DType::U32, span);
                      Atom off = L.emit1(Op::Add, {L.emit1(Op::Mul, {L.emit1(Op::Rem, {hb, sp}), L.b().lit(DType::U32, mult)}),
                                                   L.emit1(Op::Rem, {lb, sp})});
                      off = L.emit1(Op::Rem, {off, sp});
                      Atom r = L.emit1(Op::Add, {L.castTo(off, DType::I32), L.b().lit(DType::I32, double(lo))});
                      return Value::array(r); }};
    m["one_hot"] = {{"labels", "n"}, 2, [](Lowering &L, Bound &a, auto &, SrcRange loc) {
                      ValueP v = arr(L, a[0]);
                      L.rejectKeys(*v, a[0].loc, "one_hot()");
                      int64_t n = L.staticInt(a[1].value, a[1].loc, "the number of classes");
                      if (n < 0) userError(a[1].loc, "one_hot() needs a non-negative number of classes, not " + std::to_string(n));
                      ir::Shape s = v->type().shape;
                      s.push_back(n);
                      L.checkedShape(s, DType::F32, loc);
                      // As jax.nn.one_hot: labels == iota in the labels' dtype (1.5 matches no
                      // class), bools as i32.
                      DType ld = ir::isFloat(v->type().dtype) ? v->type().dtype : DType::I32;
                      Atom lab = L.castTo(v->atom, ld);
                      std::vector<int64_t> dims;
                      for (int k = 0; k < v->type().rank(); ++k) dims.push_back(k);
                      Atom lb = L.emit1(Op::BroadcastInDim, {lab}, {{"shape", Param::ints(s)}, {"broadcast_dimensions", Param::ints(dims)}});
                      Atom io = L.emit1(Op::Iota, {}, {{"dtype", Param::ofDType(ld)}, {"shape", Param::ints(s)},
                                                       {"dimension", Param::of(int64_t(s.size()) - 1)}, {"sharding", Param::none()}});
                      return Value::array(L.castTo(L.emit1(Op::Eq, {lb, io}), DType::F32)); }};
    // -- differentiation and trees --
    m["grad"] = {{"f", "argnums"}, 1, [](Lowering &L, Bound &a, auto &, SrcRange loc) { return gradFn(L, a, false, loc); }};
    m["value_and_grad"] = {{"f", "argnums"}, 1, [](Lowering &L, Bound &a, auto &, SrcRange loc) { return gradFn(L, a, true, loc); }};
    m["tree_map"] = {{"f", "*"}, 1, [](Lowering &L, Bound &a, auto &, SrcRange loc) {
                       ValueP f = a[0].value;
                       if (a.rest.empty()) userError(loc, "tree_map() needs at least one tree");
                       std::function<ValueP(std::vector<ValueP>)> go = [&](std::vector<ValueP> ts) -> ValueP {
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
                         for (auto &t : ts) { ArgV av; av.value = t; av.loc = loc; args.push_back(av); }
                         return L.callValue(f, args, {}, loc);
                       };
                       std::vector<ValueP> ts;
                       for (auto &r : a.rest) ts.push_back(r.value);
                       return go(ts); }};
    // -- collectives --
    m["psum"] = reduceCollective(Op::Psum, false);
    m["pmean"] = reduceCollective(Op::Psum, true);
    m["pmax"] = reduceCollective(Op::Pmax, false);
    m["pmin"] = reduceCollective(Op::Pmin, false);
    m["all_gather"] = {{"x", "axis_name", "tiled", "axis"}, 2, [](Lowering &L, Bound &a, auto &, SrcRange loc) {
                         std::vector<std::string> names;
                         int64_t n = collectiveAxes(a[1], names);
                         bool tiled = boolArg(L, a[2], false);
                         int64_t dim = a.has(3) ? L.staticInt(a[3].value, a[3].loc, "an axis") : 0;
                         return mapLeaves(L, a[0].value, [&](ValueP v) {
                           ValueP av = L.toArray(v, a[0].loc);
                           Atom x = av->atom.isLit ? L.broadcast(av->atom, {}) : av->atom;
                           if (x.isLit) x = L.emit1(Op::Reshape, {x}, {{"new_sizes", Param::tuple({})}, {"dimensions", Param::none()}});
                           if (tiled && x.type().rank() == 0) userError(a[0].loc, "a tiled all_gather needs an array of rank 1 or more");
                           // As JAX: a new axis in 0..rank, or (tiled) an existing one; negative counts from the end.
                           int64_t r = x.type().rank() + (tiled ? 0 : 1);
                           if (dim < -r || dim >= r)
                             userError(a[3].loc, "all_gather axis " + std::to_string(dim) + " is out of range for " + (tiled ? "a tiled gather of " : "stacking ") + x.type().str());
                           int64_t at = dim < 0 ? dim + r : dim;
                           return Value::array(L.emit1(Op::AllGather, {x}, {{"all_gather_dimension", Param::of(at)}, {"axis_name", axisNameParam(names)},
                                                                            {"axis_size", Param::of(n)}, {"tiled", Param::ofBool(tiled)},
                                                                            {"axis_index_groups", Param::none()}}), av->weak);
                         }); }};
    m["ppermute"] = {{"x", "axis_name", "perm"}, 3, [](Lowering &L, Bound &a, auto &, SrcRange loc) {
                       std::vector<std::string> names;
                       int64_t n = collectiveAxes(a[1], names);
                       ValueP pv = a[2].value;
                       if (pv->kind != Value::Tuple || !pv->isStatic())
                         userError(a[2].loc, "the permutation must be a static list of (source, destination) pairs");
                       std::vector<Param> pairs;
                       std::vector<bool> src(n, false), dst(n, false);
                       for (auto &p : pv->elems) {
                         if (p->kind != Value::Tuple || p->elems.size() != 2)
                           userError(a[2].loc, "each entry of the permutation must be a (source, destination) pair");
                         int64_t s = L.staticInt(p->elems[0], a[2].loc, "a permutation index");
                         int64_t d = L.staticInt(p->elems[1], a[2].loc, "a permutation index");
                         for (int64_t x : {s, d})
                           if (x < 0 || x >= n)
                             userError(a[2].loc, "invalid permutation: index " + std::to_string(x) + " is out of range for axis size " + std::to_string(n));
                         if (src[s]) userError(a[2].loc, "invalid permutation: source " + std::to_string(s) + " appears twice");
                         if (dst[d]) userError(a[2].loc, "invalid permutation: destination " + std::to_string(d) + " appears twice");
                         src[s] = dst[d] = true;
                         pairs.push_back(Param::tuple({Param::of(s), Param::of(d)}));
                       }
                       return mapLeaves(L, a[0].value, [&](ValueP v) {
                         ValueP av = L.toArray(v, a[0].loc);
                         Atom x = av->atom;
                         if (x.isLit) x = L.broadcast(x, {}), x = L.emit1(Op::Reshape, {x}, {{"new_sizes", Param::tuple({})}, {"dimensions", Param::none()}});
                         return Value::array(L.emit1(Op::Ppermute, {x}, {{"axis_name", axisNameParam(names)}, {"perm", Param::tuple(pairs)}}), av->weak);
                       }); }};
    // all_to_all as JAX: untiled (the default), x.shape[split_axis] must be the axis
    // size and the received chunks stack along a new axis at concat_axis; it is the
    // tiled primitive between an expand_dims and a squeeze, as in jax.lax.all_to_all.
    m["all_to_all"] = {{"x", "axis_name", "split_axis", "concat_axis", "tiled"}, 4, [](Lowering &L, Bound &a, auto &, SrcRange loc) {
                         std::vector<std::string> names;
                         int64_t n = collectiveAxes(a[1], names);
                         ValueP av = arr(L, a[0]);
                         int r = av->type().rank();
                         bool tiled = boolArg(L, a[4], false);
                         int64_t sa = L.staticInt(a[2].value, a[2].loc, "split_axis"), ca = L.staticInt(a[3].value, a[3].loc, "concat_axis");
                         if (sa < 0) sa += r;
                         if (ca < 0) ca += r;
                         if (sa < 0 || sa >= r) userError(a[2].loc, "split_axis out of range for " + av->type().str());
                         if (ca < 0 || ca >= r) userError(a[3].loc, "concat_axis out of range for " + av->type().str());
                         int64_t size = av->type().shape[sa];
                         if (tiled && size % n)
                           userError(a[2].loc, "all_to_all splits axis " + std::to_string(sa) + " of size " + std::to_string(size) +
                                                   " into " + std::to_string(n) + " equal parts");
                         if (!tiled && size != n)
                           userError(a[2].loc, "an untiled all_to_all needs split_axis " + std::to_string(sa) + " of size " +
                                                   std::to_string(n) + " (the axis size), not " + std::to_string(size) +
                                                   "; tiled=true splits it into blocks");
                         Atom x = av->atom;
                         bool reshaped = !tiled && sa != ca;
                         if (reshaped) {  // a new axis at concat_axis (counted without split_axis)
                           ir::Shape s = av->type().shape;
                           int64_t at = sa < ca ? ca + 1 : ca;
                           s.insert(s.begin() + at, 1);
                           x = L.emit1(Op::Reshape, {x}, {{"new_sizes", Param::ints(s)}, {"dimensions", Param::none()}});
                           if (sa < ca) ca = at;
                           else ++sa;
                         }
                         Atom y = L.emit1(Op::AllToAll, {x}, {{"axis_name", axisNameParam(names)}, {"split_axis", Param::of(sa)},
                                                              {"concat_axis", Param::of(ca)}, {"axis_size", Param::of(n)},
                                                              {"axis_index_groups", Param::none()}});
                         if (reshaped) {  // squeeze the split axis, now of size 1
                           ir::Shape s = y.type().shape;
                           s.erase(s.begin() + sa);
                           y = L.emit1(Op::Reshape, {y}, {{"new_sizes", Param::ints(s)}, {"dimensions", Param::none()}});
                         }
                         return Value::array(y, av->weak); }};
    m["psum_scatter"] = {{"x", "axis_name", "scatter_dimension", "tiled"}, 2, [](Lowering &L, Bound &a, auto &, SrcRange loc) {
                           std::vector<std::string> names;
                           int64_t n = collectiveAxes(a[1], names);
                           ValueP av = arr(L, a[0]);
                           L.rejectKeys(*av, a[0].loc, "psum_scatter()");
                           int r = av->type().rank();
                           int64_t d = a.has(2) ? L.staticInt(a[2].value, a[2].loc, "scatter_dimension") : 0;
                           if (d < 0) d += r;
                           bool tiled = boolArg(L, a[3], false);
                           if (d < 0 || d >= r) userError(a[0].loc, "psum_scatter needs an array with a dimension " + std::to_string(d));
                           int64_t sz = av->type().shape[d];
                           if (tiled ? sz % n : sz != n)
                             userError(a[0].loc, "psum_scatter over an axis of size " + std::to_string(n) + " needs dimension " + std::to_string(d) +
                                                     (tiled ? " divisible by " : " of size ") + std::to_string(n) + ", not " + av->type().str());
                           return Value::array(L.emit1(Op::ReduceScatter, {av->atom}, {{"axis_name", axisNameParam(names)}, {"scatter_dimension", Param::of(d)},
                                                                                       {"axis_size", Param::of(n)}, {"tiled", Param::ofBool(tiled)},
                                                                                       {"axis_index_groups", Param::none()}}), av->weak); }};
    m["axis_index"] = {{"axis_name"}, 1, [](Lowering &L, Bound &a, auto &, SrcRange loc) {
                         std::vector<std::string> names;
                         collectiveAxes(a[0], names);
                         return Value::array(L.emit1(Op::AxisIndex, {}, {{"axis_name", axisNameParam(names)}})); }};
    m["axis_size"] = {{"axis_name"}, 1, [](Lowering &L, Bound &a, auto &, SrcRange loc) {
                        std::vector<std::string> names;
                        return Value::integer(collectiveAxes(a[0], names)); }};
    // -- host --
    m["device_count"] = {{}, 0, [](Lowering &L, Bound &, auto &, SrcRange) { return Value::integer(L.opts.deviceCount); }};
    m["arg"] = {{"name", "default"}, 2, [](Lowering &L, Bound &a, auto &, SrcRange loc) -> ValueP {
                  if (a[0].value->kind != Value::Str) userError(a[0].loc, "arg() needs the argument's name as a string");
                  auto it = L.opts.args.find(a[0].value->s);
                  ValueP d = a[1].value;
                  if (it == L.opts.args.end()) return d;
                  const std::string &s = it->second;
                  try {
                    size_t used = 0;
                    switch (d->kind) {
                    case Value::Int: { int64_t v = std::stoll(s, &used); if (used == s.size()) return Value::integer(v); break; }
                    case Value::Float: { double v = std::stod(s, &used); if (used == s.size()) return Value::floating(v); break; }
                    case Value::Bool:
                      if (s == "true" || s == "1") return Value::boolean(true);
                      if (s == "false" || s == "0") return Value::boolean(false);
                      break;
                    case Value::Str: return Value::string(s);
                    default: userError(a[1].loc, "arg() defaults must be a number, a bool or a string");
                    }
                  } catch (const std::logic_error &) {
                  }
                  userError(loc, "--arg " + a[0].value->s + "=" + s + " is not a valid " + describe(*d) + " (the type of the default)"); }};
    m["print"] = {{"*"}, 0, [](Lowering &L, Bound &a, auto &, SrcRange loc) {
                    if (L.inMapBody()) userError(loc, "print() is a host effect and cannot run inside pmap or vmap");
                    std::vector<Param> segs;
                    std::vector<Atom> ins;
                    for (size_t k = 0; k < a.rest.size(); ++k) {
                      if (k) {
                        if (!segs.empty() && segs.back().kind == Param::Str) segs.back().s += " ";
                        else segs.push_back(Param::ofStr(" "));
                      }
                      printSegments(L, a.rest[k].value, segs, ins, a.rest[k].loc, true);
                    }
                    L.emit(Op::Print, ins, {{"segments", Param::list(segs)}});
                    return Value::tuple({}); }};
    m["render"] = {{"b", "on", "off"}, 3, [](Lowering &L, Bound &a, auto &, SrcRange loc) {
                     ValueP v = arr(L, a[0]);
                     if (v->type().dtype != DType::Bool) userError(a[0].loc, "render() needs a bool array, not " + v->type().str());
                     if (a[1].value->kind != Value::Str || a[2].value->kind != Value::Str)
                       userError(loc, "render() needs two strings: the characters for true and for false");
                     auto r = std::make_shared<Value>();
                     r->kind = Value::Rendered;
                     r->atom = v->atom.isLit ? L.broadcast(v->atom, {1}) : v->atom;
                     r->s = a[1].value->s;
                     r->s2 = a[2].value->s;
                     return ValueP(r); }};
    m["assert_close"] = {{"a", "b", "rtol", "atol"}, 2, [](Lowering &L, Bound &a, auto &, SrcRange loc) {
                           if (L.inMapBody()) userError(loc, "assert_close() is a host effect and cannot run inside pmap or vmap");
                           DType d;
                           bool weak;
                           auto xs = L.unify({a[0].value, a[1].value}, loc, &d, &weak, "assert_close");
                           for (auto &x : xs) {
                             x = L.castTo(x, DType::F32);
                             if (x.isLit) x = L.emit1(Op::BroadcastInDim, {x}, {{"shape", Param::tuple({})}, {"broadcast_dimensions", Param::tuple({})}});
                           }
                           if (xs[0].type().shape != xs[1].type().shape) xs[0] = L.broadcast(xs[0], xs[1].type().shape), xs[1] = L.broadcast(xs[1], xs[0].type().shape);
                           L.emit(Op::AssertClose, xs, {{"rtol", Param::ofFloat(floatStatic(L, a[2], 1e-5, "rtol"))},
                                                        {"atol", Param::ofFloat(floatStatic(L, a[3], 1e-6, "atol"))},
                                                        {"where", Param::ofStr(L.where(loc))}});
                           return Value::tuple({}); }};
    return m;
  }();
  return t;
}

} // namespace

} // namespace spmd::sema
