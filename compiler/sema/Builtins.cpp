// ===- Builtins.cpp - the built-in functions of spec section 7 -----------------===//
//
// One table: each builtin's parameter names (with defaults) and its lowering, built from
// one registrar per section (BuiltinTable.h). Arguments are bound by position or keyword
// against the table here, so arity and unknown-keyword errors come from one place.
#include "sema/AxisCheck.h"
#include "sema/BuiltinTable.h"

#include <algorithm>

namespace spmd::sema {
using namespace builtins;

namespace {
const Table &table() {
  static const Table t = [] {
    Table m;
    // mesh(rows=4, cols=2): AstLowering::builtin hands it to meshBuiltin before the table
    // binds arguments, since its keywords are the axis names; listed for isBuiltin.
    m["mesh"] = {{"*"}, 0, nullptr};
    addArrayBuiltins(m);
    addMathBuiltins(m);
    addRandomBuiltins(m);
    addSpmdBuiltins(m);
    addHostBuiltins(m);
    return m;
  }();
  return t;
}
}  // namespace

bool AstLowering::isBuiltin(const std::string &name) { return table().count(name) != 0; }

namespace {
// Note [Keyword aliases]
// ~~~~~~~~~~~~~~~~~~~~~~
// Where the spec (section 7) and JAX name a parameter differently, a keyword argument may
// use either name: the spec writes split(k, n=2), psum(x, axes), transpose(x, perm) and
// randint(k, shape, lo, hi); a user porting JAX code writes split(k, num=2), psum(x,
// axis_name=i), transpose(x, axes=...) and randint(k, shape, minval=0, maxval=10) (and
// full(shape, fill_value=), eye(N=, M=), one_hot(x, num_classes=)). The table lists each
// parameter once, under one name; the other is an alias here, resolved before binding
// (and by builtinArgKind, so the axis check sees psum(x, axis_name=j) as the axis
// argument it is). all_gather keeps JAX's meaning of axis= (where the new axis goes), so
// it has no alias.
const std::map<std::pair<std::string, std::string>, std::string> &keywordAliases() {
  static const std::map<std::pair<std::string, std::string>, std::string> m = [] {
    std::map<std::pair<std::string, std::string>, std::string> a;
    for (const char *f : {"psum", "pmean", "pmax", "pmin"}) a[{f, "axis_name"}] = "axes";
    for (const char *f : {"ppermute", "all_to_all", "psum_scatter", "axis_index", "axis_size"})
      a[{f, "axis"}] = "axis_name";
    a[{"split", "n"}] = "num";
    for (const char *f : {"uniform", "randint"}) a[{f, "minval"}] = "lo", a[{f, "maxval"}] = "hi";
    a[{"transpose", "perm"}] = "axes";  // the spec's transpose(x, perm), jnp's axes=
    a[{"clip", "min"}] = "lo", a[{"clip", "max"}] = "hi";  // jnp.clip(x, min=, max=)
    a[{"full", "fill_value"}] = "value";                    // jnp.full(shape, fill_value)
    a[{"eye", "N"}] = "n", a[{"eye", "M"}] = "m";           // jnp.eye(N, M=None, k=0)
    a[{"one_hot", "num_classes"}] = "n";                    // jax.nn.one_hot(x, num_classes)
    return a;
  }();
  return m;
}

/// The table's name of `callee`'s parameter written `keyword` (itself unless an alias).
const std::string &canonicalKeyword(const std::string &callee, const std::string &keyword) {
  auto it = keywordAliases().find({callee, keyword});
  return it == keywordAliases().end() ? keyword : it->second;
}

/// The parameter's name for error notes, with its alias: "num (or n)".
std::string paramWithAlias(const std::string &callee, const std::string &param) {
  for (auto &[k, v] : keywordAliases())
    if (k.first == callee && v == param) return param + " (or " + k.second + ")";
  return param;
}
}  // namespace

BuiltinArg builtinArgKind(const std::string &callee, int pos, const std::string &keyword) {
  auto it = table().find(callee);
  if (it == table().end() || !it->second.fn) return BuiltinArg::Value;  // mesh: its own binding
  const BuiltinDef &def = it->second;
  int k = def.axisParam;
  if (keyword.empty()) return pos == k ? BuiltinArg::Axes : BuiltinArg::Value;
  auto p = std::find(def.params.begin(), def.params.end(), canonicalKeyword(callee, keyword));
  if (p == def.params.end() || *p == "*") return BuiltinArg::Unknown;
  return p - def.params.begin() == k ? BuiltinArg::Axes : BuiltinArg::Value;
}

ValueP AstLowering::builtin(const std::string &name, std::vector<ArgV> &args,
                            const std::vector<AxisP> &axes, SrcRange loc) {
  if (name == "mesh")
    return meshBuiltin(args, axes, loc);  // its keywords are the axis names (ShardMap.cpp)
  const BuiltinDef &def = table().at(name);
  bool variadic = !def.params.empty() && def.params.back() == "*";
  size_t np = def.params.size() - (variadic ? 1 : 0);
  Bound bound;
  bound.args.resize(np);
  size_t pos = 0;
  for (size_t k = 1; k < args.size(); ++k)
    // As Python's SyntaxError: `sum(x, axis=0, 1)` bound the 1 to axis, over the 0.
    // (User functions take no keywords; mesh() above says how it is called.)
    if (args[k].keyword.empty() && !args[k - 1].keyword.empty())
      userError(args[k].loc, "positional argument follows keyword argument",
                {{args[k - 1].keywordLoc, "the keyword argument"}});
  for (auto &a : args) {
    if (a.keyword.empty()) {
      if (pos < np)
        bound.args[pos++] = a;
      else if (variadic)
        bound.rest.push_back(a);
      else if (np == 0)
        userError(a.loc, name + "() takes no arguments");
      else
        userError(a.loc, name + "() takes at most " + std::to_string(np) + " argument" +
                             (np == 1 ? "" : "s"));
      continue;
    }
    auto it = std::find(def.params.begin(), def.params.begin() + np,
                        canonicalKeyword(name, a.keyword));
    if (it == def.params.begin() + np && np == 0)
      userError(
          a.keywordLoc, name + "() takes no keyword arguments",
          name == "print"
              ? std::vector<std::pair<
                    SrcRange,
                    std::string>>{{SrcRange{},
                                   "print(a, b, ...) writes its arguments separated by one space "
                                   "and ends the line; it has no options such as sep= or end="}}
              : std::vector<std::pair<SrcRange, std::string>>{});
    if (it == def.params.begin() + np) {
      std::string ps;
      for (size_t k = 0; k < np; ++k) ps += (k ? ", " : "") + paramWithAlias(name, def.params[k]);
      userError(a.keywordLoc, name + "() has no argument named '" + a.keyword + "'",
                {{SrcRange{}, np ? "its arguments are: " + ps : name + "() takes no arguments"}});
    }
    size_t k = size_t(it - def.params.begin());
    if (bound.args[k].value)
      userError(a.keywordLoc, name + "() got argument '" + def.params[k] + "' twice");
    bound.args[k] = a;
  }
  for (size_t k = 0; k < def.required; ++k)
    if (!bound.args[k].value)
      userError(loc, name + "() is missing its argument '" + def.params[k] + "'");
  if (!axes.empty()) userError(loc, name + "() takes no axis arguments in [ ]");
  return def.fn(*this, bound, axes, loc);
}

namespace builtins {

// ---- helpers shared by the sections ----------------------------------------------------

ValueP arr(AstLowering &L, const ArgV &a) { return L.toArray(a.value, a.loc); }

std::pair<Atom, bool> floatArg(AstLowering &L, const ArgV &a, const char *fn) {
  ValueP v = arr(L, a);
  Atom x = v->atom;
  DType d = x.type().dtype;
  if (d == DType::Key) userError(a.loc, std::string(fn) + "() cannot take keys");
  if (!ir::isFloat(d)) x = L.castTo(x, DType::F32);
  if (x.isLit)
    x = L.broadcast(x, {}),
    x = L.emit1(Op::Reshape, {x}, {{"new_sizes", Param::tuple({})}, {"dimensions", Param::none()}});
  return {x, v->weak};
}

BuiltinDef unaryMath(Op op, const char *name) {
  return {{"x"}, 1, [op, name](AstLowering &L, Bound &a, auto &, SrcRange) {
            auto [x, weak] = floatArg(L, a[0], name);
            return Value::array(L.emit1(op, {x}), weak);
          }};
}

/// Unary ops that keep integer dtypes (abs, sign) or are identities on ints (floor...).
BuiltinDef unaryKeep(Op op, bool identityOnInt) {
  return {{"x"}, 1, [op, identityOnInt](AstLowering &L, Bound &a, auto &, SrcRange) {
            ValueP v = arr(L, a[0]);
            L.rejectKeys(*v, a[0].loc, std::string(ir::name(op)) + "()");
            // jnp.sign and jnp.round raise for bools (TypeError, ValueError).
            if ((op == Op::Sign || op == Op::Round) && v->type().dtype == DType::Bool)
              userError(a[0].loc, std::string(op == Op::Sign ? "sign" : "round") +
                                      "() does not take bools; cast with i32(...) first");
            Atom x = v->atom;
            if (x.isLit)
              x = L.broadcast(x, {}),
              x = L.emit1(Op::Reshape, {x},
                          {{"new_sizes", Param::tuple({})}, {"dimensions", Param::none()}});
            if (identityOnInt && !ir::isFloat(x.type().dtype)) return Value::array(x, v->weak);
            ir::Params p;
            if (op == Op::Round) p["rounding_method"] = Param::of(1);
            return Value::array(L.emit1(op, {x}, p), v->weak);
          }};
}

BuiltinDef binaryElementwise(Op op, const char *name) {
  return {{"a", "b"}, 2, [op, name](AstLowering &L, Bound &a, auto &, SrcRange loc) {
            DType d;
            bool weak;
            auto xs = L.unify({a[0].value, a[1].value}, loc, &d, &weak, name);
            return Value::array(L.emit1(op, xs), weak);
          }};
}

std::vector<int64_t> axesArg(AstLowering &L, const ArgV &a, int rank) {
  std::vector<int64_t> axes;
  if (!a.value) {
    for (int k = 0; k < rank; ++k) axes.push_back(k);
    return axes;
  }
  for (auto x : L.staticInts(a, "an axis")) {
    int64_t k = x < 0 ? x + rank : x;
    if (k < 0 || k >= rank)
      userError(a.loc, "axis " + std::to_string(x) + " is out of range for an array of rank " +
                           std::to_string(rank));
    if (std::find(axes.begin(), axes.end(), k) != axes.end())
      userError(a.loc, "repeated axis " + std::to_string(x));
    axes.push_back(k);
  }
  std::sort(axes.begin(), axes.end());
  return axes;
}

/// Restores reduced axes as size-1 dimensions (keepdims=true).
Atom keepDims(AstLowering &L, Atom r, const ir::Shape &in, const std::vector<int64_t> &axes) {
  ir::Shape s = in;
  for (auto k : axes) s[k] = 1;
  return L.emit1(Op::Reshape, {r}, {{"new_sizes", Param::ints(s)}, {"dimensions", Param::none()}});
}

/// A static integer as a literal of dtype d, as jnp.full converts its fill value
/// (lax.full's convert_element_type): wrapped to 32 bits for i32 and u32
/// (jnp.full([2], -1, jnp.uint32) is 4294967295), rounded for f32 (2^24 + 1 becomes
/// 2^24), != 0 for bool. The casts f32(x), u32(x), ... are stricter (AstLowering::staticAs).
Atom staticIntAs(AstLowering &L, int64_t i, DType d, SrcRange loc) {
  if (d == DType::Key) userError(loc, "a number cannot be converted to a key; use key(seed)");
  double v = d == DType::Bool  ? double(i != 0)
             : d == DType::F32 ? double(float(i))
             : d == DType::I32 ? double(int32_t(uint32_t(uint64_t(i))))
             : d == DType::U32 ? double(uint32_t(uint64_t(i)))
                               : double(i);
  return L.b().lit(d, v);
}

bool boolArg(AstLowering &L, const ArgV &a, bool dflt) {
  if (!a.value) return dflt;
  if (a.value->kind == Value::Bool || a.value->kind == Value::Int) return a.value->i != 0;
  userError(a.loc, "expected true or false here, not a " + describe(*a.value));
}

double floatStatic(AstLowering &L, const ArgV &a, double dflt, const char *what) {
  if (!a.value) return dflt;
  if (a.value->kind == Value::Float) return a.value->f;
  if (a.value->kind == Value::Int) return double(a.value->i);
  userError(a.loc, std::string(what) + " must be a number known at compile time");
}

ValueP filled(AstLowering &L, const ArgV &shapeArg, double value, DType d) {
  ir::Shape s = L.staticShape(shapeArg, d);
  Atom c = L.constant({value}, d, s);
  if (c.isLit)
    c = L.broadcast(c, {}),
    c = L.emit1(Op::BroadcastInDim, {c},
                {{"shape", Param::tuple({})}, {"broadcast_dimensions", Param::tuple({})}});
  return Value::array(c);
}

}  // namespace builtins
}  // namespace spmd::sema
