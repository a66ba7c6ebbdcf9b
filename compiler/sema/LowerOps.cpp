// ===- LowerOps.cpp - expressions: values to arrays, promotion, the dispatcher ---===//
//
// Static values turned into arrays, JAX's dtype promotion and NumPy broadcasting made
// explicit (unify, broadcast_in_dim), and the expression dispatcher. Operators live in
// LowerArith.cpp, indexing in LowerIndex.cpp.
#include "diag/StackGuard.h"
#include "sema/AstLowering.h"
#include "sema/BuiltinTable.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <set>

namespace spmd::sema {
using namespace ast;
using ir::Atom;
using ir::DType;
using ir::Op;
using ir::Param;

// ---- trees ---------------------------------------------------------------------------------

void AstLowering::leaves(ValueP v, std::vector<ValueP> &out) {
  if (v->kind == Value::Tuple) {
    for (auto &e : v->elems) leaves(e, out);
    return;
  }
  out.push_back(v);
}

ValueP AstLowering::fromLeaves(const Value &like, const std::vector<ValueP> &ls, size_t &pos) {
  if (like.kind == Value::Tuple) {
    std::vector<ValueP> e;
    for (auto &x : like.elems) e.push_back(fromLeaves(*x, ls, pos));
    return Value::tuple(e, like.isList);
  }
  return ls.at(pos++);
}

// ---- static values -------------------------------------------------------------------------

// Note [Loop variables are not static]
// A loop over a range is a for_loop, not unrolled (docs/language.md), so its variable is
// a run-time i32: a JAX user's `for r in range(3): ppermute(x, i, [(j, j + 2 ** r) ...])`
// unrolls in Python, but here the perm is not static. The error alone ("computed at run
// time") does not say why; when the value is computed from a loop's index, a note names
// the loop variable and the ways out. The value's equations are followed back through
// the frames being built (closure captures lead to the outer frame) to an index invar.
std::vector<std::pair<SrcRange, std::string>> AstLowering::loopVariableNote(const Atom &a) {
  if (a.isLit || loopIndices.empty()) return {};
  std::vector<int> work{a.var.id};
  std::set<int> seen;
  while (!work.empty()) {
    int id = work.back();
    work.pop_back();
    if (!seen.insert(id).second) continue;
    for (auto &[v, name] : loopIndices)
      if (v == id)
        return {{name->loc, "'" + name->name +
                                "' is the variable of a loop over a range: loops are not "
                                "unrolled, so it is computed at run time"},
                {SrcRange{}, "loop over a static list to unroll it (for " + name->name +
                                 " in [0, 1, 2] { ... }), or write the rounds out"}};
    for (auto &f : frames) {
      for (size_t k = 0; k < f->captureVars.size(); ++k)
        if (f->captureVars[k].id == id && !f->captured[k].isLit)
          work.push_back(f->captured[k].var.id);
      for (auto &e : f->jaxpr.eqns)
        for (auto &o : e.out)
          if (o.id == id)
            for (auto &in : e.in)
              if (!in.isLit) work.push_back(in.var.id);
    }
  }
  return {};
}

int64_t AstLowering::staticInt(ValueP v, SrcRange loc, const char *what) {
  if (v->kind == Value::Int || v->kind == Value::Bool) return v->i;
  if (v->kind == Value::Array)
    userError(loc,
              std::string(what) + " must be known at compile time, but this value (" +
                  v->type().str() + ") is computed at run time",
              loopVariableNote(v->atom));
  userError(loc, std::string(what) + " must be a static integer, not a " + describe(*v));
}

std::vector<int64_t> AstLowering::staticInts(const ArgV &a, const char *what) {
  // Check list elements one by one so an error points at the element.
  if (a.expr)
    if (auto *lit = a.expr->as<ArrayLitExpr>()) {
      std::vector<int64_t> r;
      for (size_t k = 0; k < lit->elems.size(); ++k) {
        ValueP e = a.value->kind == Value::Tuple && k < a.value->elems.size() ? a.value->elems[k]
                                                                              : nullptr;
        if (!e) break;
        r.push_back(staticInt(e, lit->elems[k]->loc, what));
      }
      if (r.size() == lit->elems.size()) return r;
    }
  if (a.value->kind == Value::Tuple) {
    std::vector<int64_t> r;
    for (auto &e : a.value->elems) r.push_back(staticInt(e, a.loc, what));
    return r;
  }
  return {staticInt(a.value, a.loc, what)};
}

ir::Shape AstLowering::staticShape(const ArgV &a, DType d) {
  // A negative size is reported at its element when the shape is a list literal.
  auto s = staticInts(a, "a shape");
  if (a.expr)
    if (auto *lit = a.expr->as<ArrayLitExpr>(); lit && lit->elems.size() == s.size())
      for (size_t k = 0; k < s.size(); ++k)
        if (s[k] < 0)
          userError(lit->elems[k]->loc,
                    "a shape cannot have a negative size (" + std::to_string(s[k]) + ")");
  return checkedShape(std::move(s), d, a.loc);
}

ir::Shape AstLowering::checkedShape(ir::Shape s, DType d, SrcRange loc) {
  for (auto x : s)
    if (x < 0) userError(loc, "a shape cannot have a negative size (" + std::to_string(x) + ")");
  if (std::string why = ir::arraySizeError(d, s); !why.empty())
    userError(loc, why);  // Note [Array size limits]
  return s;
}

void AstLowering::rejectKeys(const Value &v, SrcRange loc, const std::string &what) {
  if (v.kind == Value::Array && v.type().dtype == DType::Key)
    userError(
        loc, "keys cannot be used in " + what,
        {{SrcRange{},
          "this is " + v.type().str() +
              "; a key may be split, folded in, indexed, reshaped, compared "
              "with '==' or passed to the random functions, and key_data(k) reads its u32 words"}});
}

DType AstLowering::dtypeFrom(ValueP v, SrcRange loc) {
  if (v->kind == Value::DTypeV) return v->dtype;
  userError(loc, "expected a dtype (bool, i32, u32, f32, f64), not a " + describe(*v));
}

// ---- arrays ------------------------------------------------------------------------------------

Atom AstLowering::constant(const std::vector<double> &data, DType d, const ir::Shape &s) {
  if (s.empty()) return b().lit(d, data.at(0));
  // The same bits, not ==: [-0.0, 0.0] is two values, [nan, nan] one.
  bool allSame = std::all_of(data.begin(), data.end(), [&](double x) {
    return std::bit_cast<uint64_t>(x) == std::bit_cast<uint64_t>(data[0]);
  });
  if (allSame && !data.empty())
    return emit1(Op::BroadcastInDim, {b().lit(d, data[0])},
                 {{"shape", Param::ints(s)}, {"broadcast_dimensions", Param::tuple({})}});
  std::vector<Param> vals;
  for (double x : data) vals.push_back(ir::isFloat(d) ? Param::ofFloat(x) : Param::of(int64_t(x)));
  return emit1(
      Op::Constant, {},
      {{"value", Param::list(vals)}, {"dtype", Param::ofDType(d)}, {"shape", Param::ints(s)}});
}

/// The numbers of a static nested list, in order, and its shape; false when it is not a
/// rectangular list of numbers (NumPy's "inhomogeneous shape": `[1, [2]]`, `[[1], [2, 3]]`)
/// or holds something else.
static bool staticLeaves(const Value &v, std::vector<const Value *> &out, ir::Shape &shape,
                         size_t depth) {
  if (v.kind == Value::Tuple) {
    if (shape.size() == depth) {
      if (!out.empty()) return false;  // a list where the first elements were numbers
      shape.push_back(int64_t(v.elems.size()));
    } else if (shape[depth] != int64_t(v.elems.size())) {
      return false;
    }
    for (auto &e : v.elems)
      if (!staticLeaves(*e, out, shape, depth + 1)) return false;
    return true;
  }
  if (shape.size() != depth || !v.isNumber()) return false;
  out.push_back(&v);
  return true;
}

/// A static integer becoming an i32 array (a weakly typed literal, or an element of an
/// integer array literal) must fit in i32: JAX with x64 off raises OverflowError for a
/// Python int outside int32, where a silent wrap would give wrong numbers.
static void checkFitsI32(int64_t i, SrcRange loc) {
  if (i >= INT32_MIN && i <= INT32_MAX) return;
  userError(
      loc, "the integer " + std::to_string(i) + " does not fit in i32",
      {{SrcRange{}, "as in JAX (an OverflowError there), an integer used as an array must be in "
                    "-2147483648..2147483647; use a float (" +
                        std::to_string(i) + ".0) or a cast such as u32(...)"}});
}

// Note [Indices past i32]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// Start indices (dynamic_slice, dynamic_update_slice) are i32, as in JAX with x64 off. An
// axis may still be longer than 2^31 - 1 (ones([2147483656], bool) is 2 GiB); static
// slices and reads of it use int64 parameters and work. But set() at a static position
// past i32, or a dynamic index into such an axis (whose negative-index fix-up adds the
// size), would need a 64-bit index: JAX raises OverflowError for x.at[2147483655].set(..)
// there, and spmdrun wrapped it into a nonsense run-time error ("index -4294967297 is out
// of range"). So such an index is a compile error at the index. Likewise argmax and
// argmin over an axis of more than 2^31 elements: their i32 result cannot hold the last
// positions, and JAX (x64 off) silently returns a wrapped, negative index there
// (jnp.argmax of 2147483650 falses then 6 trues is -2147483646); spmdrun gave the same
// wrapped value. An error at the argument instead (BuiltinsMath.cpp), never a wrap.
ir::Atom AstLowering::indexLit(int64_t v, SrcRange loc) {
  if (v < INT32_MIN || v > INT32_MAX)
    userError(loc, "index arithmetic past i32: position or size " + std::to_string(v) +
                       " does not fit in i32",
              {{SrcRange{}, "indices are i32, as in JAX without x64 (an OverflowError there)"}});
  return b().lit(ir::DType::I32, double(v));
}

ValueP AstLowering::toArray(ValueP v, SrcRange loc) {
  if (v->kind == Value::Array) return v;
  if (v->kind == Value::Int) {
    checkFitsI32(v->i, loc);
    return Value::array(b().lit(DType::I32, double(v->i)), true);
  }
  if (v->kind == Value::Float) return Value::array(b().lit(DType::F32, v->f), true);
  if (v->kind == Value::Bool) return Value::array(b().lit(DType::Bool, double(v->i)), true);
  // A tuple is not: JAX's operators and functions raise TypeError for one (`1.0 + (2.0,
  // 3.0)`, jnp.exp((2.0, 3.0)), a tuple that tree_map passes for a prefix tree's leaf).
  // Tuples inside a list are rows, as in jnp.array([(1, 2), (3, 4)]).
  if (v->kind == Value::Tuple && !v->isList && !v->elems.empty())
    userError(loc, "expected an array, but this is a " + describe(*v) +
                       " (JAX does not read a tuple as an array; a list [...] is one)");
  // An empty list is an array too: jnp.array([]) is f32[0] (and [[], []] f32[2,0]).
  if (v->kind == Value::Tuple && (!v->elems.empty() || v->isList)) {
    if (v->isStatic()) {
      std::vector<const Value *> leaves;
      ir::Shape shape;
      if (staticLeaves(*v, leaves, shape, 0)) {
        if (leaves.empty())
          return Value::array(emit1(Op::BroadcastInDim, {b().lit(DType::F32, 0)},
                                    {{"shape", Param::ints(shape)},
                                     {"broadcast_dimensions", Param::tuple({})}}),
                              false);
        bool anyFloat = false, allBool = true;
        for (const Value *x : leaves)
          anyFloat |= x->kind == Value::Float, allBool &= x->kind == Value::Bool;
        DType d = anyFloat ? DType::F32 : allBool ? DType::Bool : DType::I32;
        std::vector<double> data;
        for (const Value *x : leaves) {
          if (x->kind == Value::Int && d == DType::I32) checkFitsI32(x->i, loc);
          data.push_back(x->kind == Value::Float ? x->f : double(x->i));
        }
        return Value::array(constant(data, d, shape), false);
      }
      userError(loc, "this list is not a rectangular array of numbers");
    }
    // A list with run-time elements: stack them (jnp.array([...])).
    std::vector<ValueP> elems;
    for (auto &e : v->elems) elems.push_back(toArray(e, loc));
    // jnp.array rejects ragged lists; unify() would broadcast (and keep scalar literals
    // scalar, which Concatenate cannot take).
    for (auto &e : elems)
      if (e->type().shape != elems[0]->type().shape)
        userError(loc, "this list is not a rectangular array: it holds a " +
                           elems[0]->type().str() + " and a " + e->type().str());
    DType d;
    bool weak;
    auto atoms = unify(elems, loc, &d, &weak, "array literal");
    std::vector<Atom> parts;
    for (auto &a : atoms) {
      ir::Shape s = a.type().shape;
      s.insert(s.begin(), 1);
      parts.push_back(b().reshape(local(a), s));
    }
    for (auto &p : parts) varLevel[p.var.id] = top().level;
    return Value::array(emit1(Op::Concatenate, parts, {{"dimension", Param::of(0)}}), false);
  }
  userError(loc, "expected an array, but this is a " + describe(*v));
}

/// One static number converted to dtype d as NumPy's scalar types convert a Python
/// number (jnp.uint32(x) is jnp.array(x, dtype=uint32)): a float is truncated to an
/// integer first; an integer that d cannot hold is an error (OverflowError in JAX, where
/// a cast of an array would wrap), and so are NaN and infinities (ValueError,
/// OverflowError); bool is x != 0.
static double staticElementAs(const Value &v, DType d, SrcRange loc) {
  if (d == DType::Key) userError(loc, "a number cannot be converted to a key; use key(seed)");
  if (d == DType::Bool) return double(v.kind == Value::Float ? v.f != 0 : v.i != 0);
  if (d == DType::F32) return v.kind == Value::Float ? double(float(v.f)) : double(float(v.i));
  if (ir::isFloat(d)) return v.kind == Value::Float ? v.f : double(v.i);
  int64_t i = v.i;
  std::string what;
  if (v.kind == Value::Float) {
    if (std::isnan(v.f))
      userError(loc, std::string("cannot convert NaN to an integer (") + ir::name(d) + ")",
                {{SrcRange{}, "as in JAX, where converting it raises ValueError"}});
    double t = std::trunc(v.f);
    if (!(t >= -0x1p63 && t < 0x1p63))
      userError(loc, "the number " + builtins::pyRepr(v) + " does not fit in " + ir::name(d),
                {{SrcRange{}, "as in JAX, where converting it raises OverflowError"}});
    i = int64_t(t);
    what = " (from " + builtins::pyRepr(v) + ")";
  }
  bool fits = d == DType::I32 ? i >= INT32_MIN && i <= INT32_MAX : i >= 0 && i <= UINT32_MAX;
  if (!fits)
    userError(loc, "the integer " + std::to_string(i) + what + " does not fit in " + ir::name(d),
              {{SrcRange{}, "as in JAX, where converting it raises OverflowError"}});
  return double(i);
}

ValueP AstLowering::staticAs(ValueP v, DType d, SrcRange loc) {
  std::vector<const Value *> leaves;
  ir::Shape shape;
  if (v->kind == Value::Tuple && !v->isStatic()) return nullptr;
  if (!staticLeaves(*v, leaves, shape, 0)) {
    if (v->kind == Value::Tuple && v->isStatic())
      userError(loc, "this list is not a rectangular array of numbers");
    return nullptr;
  }
  std::vector<double> data;
  for (const Value *x : leaves) data.push_back(staticElementAs(*x, d, loc));
  if (d == DType::Key) userError(loc, "a number cannot be converted to a key; use key(seed)");
  if (data.empty()) return Value::array(emit1(Op::BroadcastInDim, {b().lit(d, 0)},
                                              {{"shape", Param::ints(shape)},
                                               {"broadcast_dimensions", Param::tuple({})}}));
  return Value::array(constant(data, d, shape));
}

// Note [Vars of lists]
// `var w = [1.0, 2.0]` keeps the static list (so `var s = [2, 3]; zeros(s)` works), but a
// JAX user writing it means jnp.array([1.0, 2.0]): once the var meets an array (`w = w *
// 2.0`, or a loop or run-time `if` that carries it), the list is converted to the array it
// spells, and a list assigned to a var holding an array is converted too. Lists of keys,
// tuples and strings stay as they are. A tuple is converted leaf by leaf: in `var st =
// ([1.0, 0.0], 2.0)`, st[0] is the f32[2] once st meets arrays.
ValueP AstLowering::listAsArray(ValueP v, SrcRange loc) {
  if (v->kind != Value::Tuple || v->elems.empty()) return v;
  auto numeric = [](auto &&self, const Value &x) -> bool {
    if (x.kind == Value::Array) return x.type().dtype != DType::Key;
    if (x.isNumber()) return true;
    if (x.kind != Value::Tuple || !x.isList || x.elems.empty()) return false;
    for (auto &e : x.elems)
      if (!self(self, *e)) return false;
    return true;
  };
  if (v->isList && numeric(numeric, *v)) return toArray(v, loc);
  std::vector<ValueP> elems;
  bool changed = false;
  for (auto &e : v->elems) {
    elems.push_back(listAsArray(e, loc));
    changed |= elems.back() != e;
  }
  return changed ? Value::tuple(std::move(elems), v->isList) : v;
}

Atom AstLowering::toAtom(ValueP v, SrcRange loc, bool *weak) {
  ValueP a = toArray(v, loc);
  if (weak) *weak = a->weak;
  return a->atom;
}

Atom AstLowering::castTo(Atom a, DType d) {
  // (An f32 literal may hold a double, such as 16777217.0: casting it to f32 rounds it.)
  if (a.type().dtype == d && !(a.isLit && d == DType::F32)) return a;
  // A conversion between keys and numbers is a user error wherever it is asked for (the
  // builtins that convert their arguments report it at the call).
  if (a.type().dtype == DType::Key || d == DType::Key)
    userError(b().loc(), a.type().dtype == DType::Key
                             ? "keys cannot be converted to " + std::string(ir::name(d)) +
                                   "; use key_data(k) for their u32 words"
                             : "a number cannot be converted to a key; use key(seed)");
  if (a.isLit) {
    // A static value converts as XLA's convert_element_type would at run time (and as the
    // Convert kernels do): to f32 it rounds to the nearest f32; a float to an integer
    // truncates and saturates (nan gives 0, a negative float to u32 gives 0); an integer
    // to i32 or u32 wraps modulo 2^32.
    ir::Literal l = a.lit;
    double x = l.asDouble();
    if (d == DType::Bool) return b().lit(d, x != 0);
    if (d == DType::F32) return b().lit(d, double(float(x)));
    if (ir::isFloat(d)) return b().lit(d, x);
    bool u = d == DType::U32;
    if (ir::isFloat(l.dtype)) {
      if (std::isnan(x)) return b().lit(d, 0);
      double lo = u ? 0.0 : -2147483648.0, hi = u ? 4294967295.0 : 2147483647.0;
      return b().lit(d, std::clamp(std::trunc(x), lo, hi));
    }
    if (d != DType::I32 && d != DType::U32) return b().lit(d, std::trunc(x));
    uint32_t w = uint32_t(uint64_t(l.i));
    return b().lit(d, u ? double(w) : double(int32_t(w)));
  }
  return emit1(Op::Convert, {a},
               {{"new_dtype", Param::ofDType(d)}, {"weak_type", Param::ofBool(false)}});
}

Atom AstLowering::broadcast(Atom a, const ir::Shape &s) {
  if (a.type().shape == s) return a;
  if (a.isLit)
    return a.type().rank() == 0 && s.empty()
               ? a
               : Atom(emit1(
                     Op::BroadcastInDim, {a},
                     {{"shape", Param::ints(s)}, {"broadcast_dimensions", Param::tuple({})}}));
  ir::Type t = a.type();
  int off = int(s.size()) - t.rank();
  ir::Shape keep;
  std::vector<int64_t> dims;
  bool squeeze = false;
  for (int k = 0; k < t.rank(); ++k) {
    if (t.shape[k] == s[off + k]) {
      keep.push_back(t.shape[k]);
      dims.push_back(off + k);
    } else
      squeeze = true;
  }
  Atom src = a;
  if (squeeze)
    src =
        emit1(Op::Reshape, {a}, {{"new_sizes", Param::ints(keep)}, {"dimensions", Param::none()}});
  return emit1(Op::BroadcastInDim, {src},
               {{"shape", Param::ints(s)}, {"broadcast_dimensions", Param::ints(dims)}});
}

static int category(DType d) {
  return d == DType::Bool ? 0 : ir::isInt(d) ? 1 : d == DType::Key ? 3 : 2;
}

std::vector<Atom> AstLowering::unify(const std::vector<ValueP> &vs, SrcRange loc, DType *dtOut,
                                     bool *weakOut, const char *what) {
  std::vector<ValueP> arrs;
  for (auto &v : vs) arrs.push_back(toArray(v, loc));
  // dtype: strong types decide; weak ones only raise the category.
  bool haveStrong = false;
  DType strong = DType::Bool;
  int weakCat = -1;
  for (auto &a : arrs) {
    DType d = a->type().dtype;
    if (d == DType::Key) userError(loc, std::string("keys cannot be used in ") + what);
    if (a->weak)
      weakCat = std::max(weakCat, category(d));
    else if (!haveStrong) {
      strong = d;
      haveStrong = true;
    } else if (d != strong) {
      if (category(d) > category(strong))
        strong = d;
      else if (category(d) == category(strong) && d != strong) {
        if (d == DType::F64 || strong == DType::F64)
          strong = DType::F64;
        else
          strong = DType::I32;  // i32 with u32 (JAX: int64, canonicalised to int32)
      }
    }
  }
  DType d;
  bool weak = false;
  if (!haveStrong) {
    d = weakCat == 2 ? DType::F32 : weakCat == 1 ? DType::I32 : DType::Bool;
    weak = true;
  } else if (weakCat > category(strong))
    d = weakCat == 2 ? DType::F32 : DType::I32;
  else
    d = strong;
  // shape: NumPy broadcasting.
  ir::Shape shape;
  for (auto &a : arrs) {
    const ir::Shape &s = a->type().shape;
    if (s.size() > shape.size()) shape.insert(shape.begin(), s.size() - shape.size(), 1);
    for (size_t k = 0; k < s.size(); ++k) {
      int64_t &o = shape[shape.size() - s.size() + k];
      int64_t n = s[k];
      if (o == n || n == 1) continue;
      if (o == 1) {
        o = n;
        continue;
      }
      std::string types;
      for (size_t j = 0; j < arrs.size(); ++j) types += (j ? " and " : "") + arrs[j]->type().str();
      userError(loc, std::string("incompatible shapes for ") + what + ": " + types);
    }
  }
  std::vector<Atom> out;
  for (auto &a : arrs) {
    Atom x = castTo(a->atom, d);
    // Scalar literals stay scalars (codegen broadcasts them); everything else is made explicit.
    if (!(x.isLit && x.type().rank() == 0)) x = broadcast(x, shape);
    out.push_back(x);
  }
  // If every operand is a literal scalar but the shape is not scalar (cannot happen) or all
  // are scalars, fine. If all operands are literals and shape non-empty, broadcast one.
  if (!shape.empty() && std::all_of(out.begin(), out.end(), [](const Atom &a) { return a.isLit; }))
    out[0] = broadcast(out[0], shape);
  if (dtOut) *dtOut = d;
  if (weakOut) *weakOut = weak;
  return out;
}

// ---- the expression dispatcher ------------------------------------------------------------------

ValueP AstLowering::expr(const Expr &e) {
  checkStack(e.loc, "expressions and calls");  // Note [Stack guard]
  switch (e.kind) {
  case ExprKind::IntLit: return Value::integer(e.as<IntLitExpr>()->value);
  case ExprKind::FloatLit: return Value::floating(e.as<FloatLitExpr>()->value);
  case ExprKind::BoolLit: return Value::boolean(e.as<BoolLitExpr>()->value);
  case ExprKind::StringLit: return Value::string(e.as<StringLitExpr>()->value);
  case ExprKind::Name: {
    auto *n = e.as<NameExpr>();
    if (Scope::Binding *bd = scope->lookup(n->name)) return bd->value;
    static const std::pair<const char *, DType> dtypes[] = {{"f32", DType::F32},
                                                            {"i32", DType::I32},
                                                            {"u32", DType::U32},
                                                            {"bool", DType::Bool},
                                                            {"f64", DType::F64}};
    for (auto &[nm, d] : dtypes)
      if (n->name == nm) {
        auto v = std::make_shared<Value>();
        v->kind = Value::DTypeV;
        v->dtype = d;
        v->fname = nm;
        return v;
      }
    if (isBuiltin(n->name)) {
      auto v = std::make_shared<Value>();
      v->kind = Value::Func;
      v->fkind = Value::Builtin;
      v->fname = n->name;
      return v;
    }
    if (scope->lookupAxis(n->name))
      userError(n->loc, "'" + n->name + "' is an axis name, not a value; use axis_index(" +
                            n->name + ") for this replica's index");
    userError(n->loc, "unknown name '" + n->name + "'");
  }
  case ExprKind::Unary: {
    auto *u = e.as<UnaryExpr>();
    ValueP v = expr(*u->operand);
    b().setLoc(u->loc);
    return unary(u->op, v, u->loc);
  }
  case ExprKind::Binary: {
    auto *bi = e.as<BinaryExpr>();
    // `and`/`or` on static bools short-circuit.
    ValueP l = expr(*bi->lhs);
    if ((bi->op == BinOp::And || bi->op == BinOp::Or) && l->kind == Value::Bool) {
      if (bi->op == BinOp::And && !l->i) return l;
      if (bi->op == BinOp::Or && l->i) return l;
    }
    ValueP r = expr(*bi->rhs);
    b().setLoc(bi->loc);
    return binary(bi->op, l, r, bi->loc);
  }
  case ExprKind::Call: return call(*e.as<CallExpr>());
  case ExprKind::Index: {
    auto *ix = e.as<IndexExpr>();
    ValueP base = expr(*ix->base);
    b().setLoc(ix->loc);
    return index(base, *ix);
  }
  case ExprKind::ArrayLit: {
    std::vector<ValueP> el;
    for (auto &x : e.as<ArrayLitExpr>()->elems) el.push_back(expr(*x));
    return Value::tuple(el, true);
  }
  case ExprKind::Comprehension: {
    auto *c = e.as<ComprehensionExpr>();
    ValueP it = expr(*c->iter);
    if (it->kind != Value::Tuple)
      userError(c->iter->loc, "a comprehension iterates over a range or a static list");
    std::vector<ValueP> el;
    for (auto &v : it->elems) {
      ScopeP saved = scope;
      scope = makeScope();
      scope->parent = saved;
      bindPattern(c->var, v, false, c->var.loc);
      el.push_back(expr(*c->elem));
      scope = saved;
    }
    return Value::tuple(el, true);
  }
  case ExprKind::Range: {
    auto *r = e.as<RangeExpr>();
    int64_t lo = staticInt(expr(*r->lo), r->lo->loc, "a range bound");
    int64_t hi = staticInt(expr(*r->hi), r->hi->loc, "a range bound");
    // A range is a static list here (a for loop over a range does not build it): bounded,
    // as a list of 10^12 compile-time values would exhaust memory.
    constexpr int64_t kMaxList = int64_t(1) << 20;
    int64_t len = 0;
    if (hi > lo && (__builtin_sub_overflow(hi, lo, &len) || len > kMaxList))
      userError(e.loc, "a range of " + std::to_string(uint64_t(hi) - uint64_t(lo)) +
                           " elements is too long for a static list (at most " +
                           std::to_string(kMaxList) +
                           "); a for loop over a range has no such limit");
    std::vector<ValueP> el;
    for (int64_t k = lo; k < hi; ++k) el.push_back(Value::integer(k));
    return Value::tuple(el, true);
  }
  case ExprKind::TupleLit: {
    std::vector<ValueP> el;
    for (auto &x : e.as<TupleLitExpr>()->elems) el.push_back(expr(*x));
    return Value::tuple(el);
  }
  case ExprKind::Lambda: {
    auto v = std::make_shared<Value>();
    v->kind = Value::Func;
    v->fkind = Value::Closure;
    v->lambda = e.as<LambdaExpr>();
    v->env = scope;
    return v;
  }
  case ExprKind::Block: return block(*e.as<BlockExpr>());
  case ExprKind::If: return ifExpr(*e.as<IfExpr>());
  case ExprKind::Map: return mapExpr(*e.as<MapExpr>());
  case ExprKind::ShardMap: return shardMapExpr(*e.as<ShardMapExpr>());
  }
  return nullptr;
}

}  // namespace spmd::sema
