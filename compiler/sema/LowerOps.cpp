// ===- LowerOps.cpp - expressions: literals, arithmetic, promotion, indexing ---===//
//
// JAX's dtype promotion with weak literals (`x * 2` keeps x's dtype), NumPy
// broadcasting made explicit with broadcast_in_dim, static arithmetic folded at compile
// time, and indexing lowered to slice / dynamic_slice / reshape.
#include "sema/Lowering.h"

#include <algorithm>
#include <cmath>

namespace spmd::sema {
using namespace ast;
using ir::Atom;
using ir::DType;
using ir::Op;
using ir::Param;

// ---- trees ---------------------------------------------------------------------------------

void Lowering::leaves(ValueP v, std::vector<ValueP> &out) {
  if (v->kind == Value::Tuple) {
    for (auto &e : v->elems) leaves(e, out);
    return;
  }
  out.push_back(v);
}

ValueP Lowering::fromLeaves(const Value &like, const std::vector<ValueP> &ls, size_t &pos) {
  if (like.kind == Value::Tuple) {
    std::vector<ValueP> e;
    for (auto &x : like.elems) e.push_back(fromLeaves(*x, ls, pos));
    return Value::tuple(e, like.isList);
  }
  return ls.at(pos++);
}

// ---- static values -------------------------------------------------------------------------

int64_t Lowering::staticInt(ValueP v, SrcRange loc, const char *what) {
  if (v->kind == Value::Int || v->kind == Value::Bool) return v->i;
  if (v->kind == Value::Array)
    userError(loc, std::string(what) + " must be known at compile time, but this value (" + v->type().str() +
                       ") is computed at run time");
  userError(loc, std::string(what) + " must be a static integer, not a " + describe(*v));
}

std::vector<int64_t> Lowering::staticInts(const ArgV &a, const char *what) {
  // Check list elements one by one so an error points at the element.
  if (a.expr)
    if (auto *lit = a.expr->as<ArrayLitExpr>()) {
      std::vector<int64_t> r;
      for (size_t k = 0; k < lit->elems.size(); ++k) {
        ValueP e = a.value->kind == Value::Tuple && k < a.value->elems.size() ? a.value->elems[k] : nullptr;
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

ir::Shape Lowering::staticShape(const ArgV &a, DType d) {
  // A negative size is reported at its element when the shape is a list literal.
  auto s = staticInts(a, "a shape");
  if (a.expr)
    if (auto *lit = a.expr->as<ArrayLitExpr>(); lit && lit->elems.size() == s.size())
      for (size_t k = 0; k < s.size(); ++k)
        if (s[k] < 0) userError(lit->elems[k]->loc, "a shape cannot have a negative size (" + std::to_string(s[k]) + ")");
  return checkedShape(std::move(s), d, a.loc);
}

ir::Shape Lowering::checkedShape(ir::Shape s, DType d, SrcRange loc) {
  for (auto x : s)
    if (x < 0) userError(loc, "a shape cannot have a negative size (" + std::to_string(x) + ")");
  if (std::string why = ir::arraySizeError(d, s); !why.empty()) userError(loc, why);  // Note [Array size limits]
  return s;
}

void Lowering::rejectKeys(const Value &v, SrcRange loc, const std::string &what) {
  if (v.kind == Value::Array && v.type().dtype == DType::Key)
    userError(loc, "keys cannot be used in " + what,
              {{SrcRange{}, "this is " + v.type().str() + "; a key may be split, folded in, indexed, reshaped, compared "
                            "with '==' or passed to the random functions, and key_data(k) reads its u32 words"}});
}

DType Lowering::dtypeFrom(ValueP v, SrcRange loc) {
  if (v->kind == Value::DTypeV) return v->dtype;
  userError(loc, "expected a dtype (bool, i32, u32, f32, f64), not a " + describe(*v));
}

// ---- arrays ------------------------------------------------------------------------------------

Atom Lowering::constant(const std::vector<double> &data, DType d, const ir::Shape &s) {
  if (s.empty()) return b().lit(d, data.at(0));
  bool allSame = std::all_of(data.begin(), data.end(), [&](double x) { return x == data[0]; });
  if (allSame && !data.empty()) return emit1(Op::BroadcastInDim, {b().lit(d, data[0])},
                                             {{"shape", Param::ints(s)}, {"broadcast_dimensions", Param::tuple({})}});
  std::vector<Param> vals;
  for (double x : data) vals.push_back(ir::isFloat(d) ? Param::ofFloat(x) : Param::of(int64_t(x)));
  return emit1(Op::Constant, {}, {{"value", Param::list(vals)}, {"dtype", Param::ofDType(d)}, {"shape", Param::ints(s)}});
}

/// Flattens a static nested list of numbers; returns false when it is not rectangular.
static bool flattenStatic(const Value &v, std::vector<double> &data, ir::Shape &shape, size_t depth, bool &anyFloat,
                          bool &allBool) {
  if (v.kind == Value::Tuple) {
    if (shape.size() == depth) shape.push_back(int64_t(v.elems.size()));
    else if (shape[depth] != int64_t(v.elems.size())) return false;
    for (auto &e : v.elems)
      if (!flattenStatic(*e, data, shape, depth + 1, anyFloat, allBool)) return false;
    return true;
  }
  if (shape.size() != depth) return false;
  if (v.kind == Value::Float) { anyFloat = true; allBool = false; data.push_back(v.f); }
  else if (v.kind == Value::Int) { allBool = false; data.push_back(double(v.i)); }
  else if (v.kind == Value::Bool) data.push_back(double(v.i));
  else return false;
  return true;
}

/// A static integer becoming an i32 array (a weakly typed literal, or an element of an
/// integer array literal) must fit in i32: JAX with x64 off raises OverflowError for a
/// Python int outside int32, where a silent wrap would give wrong numbers.
static void checkFitsI32(int64_t i, SrcRange loc) {
  if (i >= INT32_MIN && i <= INT32_MAX) return;
  userError(loc, "the integer " + std::to_string(i) + " does not fit in i32",
            {{SrcRange{}, "as in JAX (an OverflowError there), an integer used as an array must be in "
                          "-2147483648..2147483647; use a float (" + std::to_string(i) + ".0) or a cast such as u32(...)"}});
}

ValueP Lowering::toArray(ValueP v, SrcRange loc) {
  if (v->kind == Value::Array) return v;
  if (v->kind == Value::Int) {
    checkFitsI32(v->i, loc);
    return Value::array(b().lit(DType::I32, double(v->i)), true);
  }
  if (v->kind == Value::Float) return Value::array(b().lit(DType::F32, v->f), true);
  if (v->kind == Value::Bool) return Value::array(b().lit(DType::Bool, double(v->i)), true);
  if (v->kind == Value::Tuple && !v->elems.empty()) {
    if (v->isStatic()) {
      std::vector<double> data;
      ir::Shape shape;
      bool anyFloat = false, allBool = true;
      if (flattenStatic(*v, data, shape, 0, anyFloat, allBool)) {
        DType d = anyFloat ? DType::F32 : allBool ? DType::Bool : DType::I32;
        if (d == DType::I32)
          for (double x : data) checkFitsI32(int64_t(x), loc);
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
        userError(loc, "this list is not a rectangular array: it holds a " + elems[0]->type().str() + " and a " +
                           e->type().str());
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

Atom Lowering::toAtom(ValueP v, SrcRange loc, bool *weak) {
  ValueP a = toArray(v, loc);
  if (weak) *weak = a->weak;
  return a->atom;
}

Atom Lowering::castTo(Atom a, DType d) {
  // (An f32 literal may hold a double, such as 16777217.0: casting it to f32 rounds it.)
  if (a.type().dtype == d && !(a.isLit && d == DType::F32)) return a;
  // A conversion between keys and numbers is a user error wherever it is asked for (the
  // builtins that convert their arguments report it at the call).
  if (a.type().dtype == DType::Key || d == DType::Key)
    userError(b().loc(), a.type().dtype == DType::Key ? "keys cannot be converted to " + std::string(ir::name(d)) + "; use key_data(k) for their u32 words"
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
  return emit1(Op::Convert, {a}, {{"new_dtype", Param::ofDType(d)}, {"weak_type", Param::ofBool(false)}});
}

Atom Lowering::broadcast(Atom a, const ir::Shape &s) {
  if (a.type().shape == s) return a;
  if (a.isLit) return a.type().rank() == 0 && s.empty() ? a : Atom(emit1(Op::BroadcastInDim, {a},
      {{"shape", Param::ints(s)}, {"broadcast_dimensions", Param::tuple({})}}));
  ir::Type t = a.type();
  int off = int(s.size()) - t.rank();
  ir::Shape keep;
  std::vector<int64_t> dims;
  bool squeeze = false;
  for (int k = 0; k < t.rank(); ++k) {
    if (t.shape[k] == s[off + k]) { keep.push_back(t.shape[k]); dims.push_back(off + k); }
    else squeeze = true;
  }
  Atom src = a;
  if (squeeze) src = emit1(Op::Reshape, {a}, {{"new_sizes", Param::ints(keep)}, {"dimensions", Param::none()}});
  return emit1(Op::BroadcastInDim, {src}, {{"shape", Param::ints(s)}, {"broadcast_dimensions", Param::ints(dims)}});
}

static int category(DType d) { return d == DType::Bool ? 0 : ir::isInt(d) ? 1 : d == DType::Key ? 3 : 2; }

std::vector<Atom> Lowering::unify(const std::vector<ValueP> &vs, SrcRange loc, DType *dtOut, bool *weakOut,
                                  const char *what) {
  std::vector<ValueP> arrs;
  for (auto &v : vs) arrs.push_back(toArray(v, loc));
  // dtype: strong types decide; weak ones only raise the category.
  bool haveStrong = false;
  DType strong = DType::Bool;
  int weakCat = -1;
  for (auto &a : arrs) {
    DType d = a->type().dtype;
    if (d == DType::Key) userError(loc, std::string("keys cannot be used in ") + what);
    if (a->weak) weakCat = std::max(weakCat, category(d));
    else if (!haveStrong) { strong = d; haveStrong = true; }
    else if (d != strong) {
      if (category(d) > category(strong)) strong = d;
      else if (category(d) == category(strong) && d != strong) {
        if (d == DType::F64 || strong == DType::F64) strong = DType::F64;
        else strong = DType::I32;  // i32 with u32 (JAX: int64, canonicalised to int32)
      }
    }
  }
  DType d;
  bool weak = false;
  if (!haveStrong) { d = weakCat == 2 ? DType::F32 : weakCat == 1 ? DType::I32 : DType::Bool; weak = true; }
  else if (weakCat > category(strong)) d = weakCat == 2 ? DType::F32 : DType::I32;
  else d = strong;
  // shape: NumPy broadcasting.
  ir::Shape shape;
  for (auto &a : arrs) {
    const ir::Shape &s = a->type().shape;
    if (s.size() > shape.size()) shape.insert(shape.begin(), s.size() - shape.size(), 1);
    for (size_t k = 0; k < s.size(); ++k) {
      int64_t &o = shape[shape.size() - s.size() + k];
      int64_t n = s[k];
      if (o == n || n == 1) continue;
      if (o == 1) { o = n; continue; }
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

// ---- arithmetic -----------------------------------------------------------------------------

static bool staticNum(const Value &v) { return v.kind == Value::Int || v.kind == Value::Float || v.kind == Value::Bool; }
static double num(const Value &v) { return v.kind == Value::Float ? v.f : double(v.i); }

// Python's divmod of floats (CPython's float_divmod): exact where floor(x / y) is not.
static std::pair<double, double> pyFloatDivmod(double x, double y) {
  double mod = std::fmod(x, y), div = (x - mod) / y;
  if (mod != 0) {
    if ((y < 0) != (mod < 0)) { mod += y; div -= 1; }
  } else {
    mod = std::copysign(0.0, y);
  }
  double fd = div != 0 ? std::floor(div) : std::copysign(0.0, x / y);
  if (div != 0 && div - fd > 0.5) fd += 1;
  return {fd, mod};
}

static int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

/// Folds an operation on static numbers, as Python would.
static ValueP foldStatic(BinOp op, const Value &a, const Value &b, SrcRange loc) {
  bool ints = a.kind != Value::Float && b.kind != Value::Float;
  double x = num(a), y = num(b);
  int64_t i = ints ? a.i : 0, j = ints ? b.i : 0;  // exact: not through a double
  // Static integers are 64-bit (Python's are unbounded): overflow is an error, not a wrap.
  auto overflow = [&]() -> ValueP {
    userError(loc, std::string("integer overflow in a static expression: ") + std::to_string(i) + " " + spelling(op) + " " +
                       std::to_string(j) + " does not fit in 64 bits");
  };
  int64_t r = 0;
  switch (op) {
  case BinOp::Add:
    if (!ints) return Value::floating(x + y);
    return __builtin_add_overflow(i, j, &r) ? overflow() : Value::integer(r);
  case BinOp::Sub:
    if (!ints) return Value::floating(x - y);
    return __builtin_sub_overflow(i, j, &r) ? overflow() : Value::integer(r);
  case BinOp::Mul:
    if (!ints) return Value::floating(x * y);
    return __builtin_mul_overflow(i, j, &r) ? overflow() : Value::integer(r);
  case BinOp::Div:
    if (y == 0) userError(loc, "division by zero in a static expression");
    return Value::floating(x / y);
  case BinOp::FloorDiv:
    if (y == 0) userError(loc, "division by zero in a static expression");
    if (ints && i == INT64_MIN && j == -1) return overflow();
    if (ints) return Value::integer(floorDiv(i, j));
    return Value::floating(pyFloatDivmod(x, y).first);
  case BinOp::Mod:
    if (y == 0) userError(loc, "modulo by zero in a static expression");
    if (ints) return Value::integer(j == -1 ? 0 : i - floorDiv(i, j) * j);
    return Value::floating(pyFloatDivmod(x, y).second);
  case BinOp::Pow:
    if (ints && j >= 0) {
      // Square and multiply: 2 ** 62 in a few steps, 1 ** 10**18 without a loop of 10**18.
      int64_t base = i, e = j;
      r = 1;
      while (e > 0) {
        if ((e & 1) && __builtin_mul_overflow(r, base, &r)) return overflow();
        e >>= 1;
        if (e > 0 && __builtin_mul_overflow(base, base, &base)) return overflow();
      }
      return Value::integer(r);
    }
    // As Python: 0 ** -1 raises ZeroDivisionError; (-8) ** 0.5 is a complex number.
    if (x == 0 && y < 0) userError(loc, "zero to a negative power in a static expression");
    if (x < 0 && std::isfinite(y) && y != std::trunc(y))
      userError(loc, "a negative number to a fractional power is complex, in a static expression");
    return Value::floating(std::pow(x, y));
  case BinOp::Eq: return Value::boolean(ints ? i == j : x == y);
  case BinOp::Ne: return Value::boolean(ints ? i != j : x != y);
  case BinOp::Lt: return Value::boolean(ints ? i < j : x < y);
  case BinOp::Le: return Value::boolean(ints ? i <= j : x <= y);
  case BinOp::Gt: return Value::boolean(ints ? i > j : x > y);
  case BinOp::Ge: return Value::boolean(ints ? i >= j : x >= y);
  case BinOp::BitAnd: case BinOp::BitOr: case BinOp::BitXor: {
    if (!ints) userError(loc, std::string("'") + spelling(op) + "' needs integers or bools");
    r = op == BinOp::BitAnd ? (i & j) : op == BinOp::BitOr ? (i | j) : (i ^ j);
    return a.kind == Value::Bool && b.kind == Value::Bool ? Value::boolean(r) : Value::integer(r);
  }
  case BinOp::And: return Value::boolean(x != 0 && y != 0);
  case BinOp::Or: return Value::boolean(x != 0 || y != 0);
  case BinOp::MatMul: userError(loc, "'@' needs arrays, not numbers");
  }
  return nullptr;
}

/// k1 == k2 (or !=) on keys, elementwise with broadcasting: the key words compared, as
/// JAX's eq on key arrays.
ValueP Lowering::compareKeys(bool eq, ValueP a, ValueP bv, SrcRange loc) {
  ir::Shape sa = a->type().shape, sb = bv->type().shape, s;
  size_t r = std::max(sa.size(), sb.size());
  for (size_t k = 0; k < r; ++k) {
    int64_t x = k + sa.size() >= r ? sa[k + sa.size() - r] : 1, y = k + sb.size() >= r ? sb[k + sb.size() - r] : 1;
    if (x != y && x != 1 && y != 1)
      userError(loc, std::string("incompatible shapes for '") + (eq ? "==" : "!=") + "': " + a->type().str() + " and " + bv->type().str());
    s.push_back(x == 1 ? y : x);
  }
  ir::Shape sw = s;
  sw.push_back(2);
  Atom wa = broadcast(emit1(Op::RandomUnwrap, {a->atom}), sw), wb = broadcast(emit1(Op::RandomUnwrap, {bv->atom}), sw);
  Atom c = emit1(eq ? Op::Eq : Op::Ne, {wa, wb});
  return Value::array(emit1(eq ? Op::ReduceAnd : Op::ReduceOr, {c}, {{"axes", Param::ints({int64_t(s.size())})}}));
}

ValueP Lowering::binary(BinOp op, ValueP a, ValueP bv, SrcRange loc) {
  if (staticNum(*a) && staticNum(*bv)) return foldStatic(op, *a, *bv, loc);
  if (op == BinOp::MatMul) return matmul(a, bv, loc);
  std::string what = std::string("'") + spelling(op) + "'";
  // Tuples concatenate / compare statically only for static values.
  if (a->kind == Value::Tuple && bv->kind == Value::Tuple && op == BinOp::Add && a->isStatic() && bv->isStatic() &&
      !a->isList) {
    auto e = a->elems;
    e.insert(e.end(), bv->elems.begin(), bv->elems.end());
    return Value::tuple(e);
  }
  // Keys (JAX's typed keys): '==' and '!=' compare their words; no other operator takes them.
  auto isKey = [](const Value &v) { return v.kind == Value::Array && v.type().dtype == DType::Key; };
  if (isKey(*a) || isKey(*bv)) {
    if ((op == BinOp::Eq || op == BinOp::Ne) && isKey(*a) && isKey(*bv)) return compareKeys(op == BinOp::Eq, a, bv, loc);
    if (op == BinOp::Eq || op == BinOp::Ne) userError(loc, "a key can only be compared with a key, not with a " + describe(isKey(*a) ? *bv : *a));
    rejectKeys(isKey(*a) ? *a : *bv, loc, what);
  }
  // x ** k with a static integer k: integer_pow, as JAX does.
  if (op == BinOp::Pow && bv->kind == Value::Int) {
    bool weak;
    Atom x = toAtom(a, loc, &weak);
    if (x.type().dtype == DType::Bool) x = castTo(x, DType::I32);
    if (bv->i < 0 && !ir::isFloat(x.type().dtype))
      userError(loc, "integers cannot be raised to a negative power");
    if (x.isLit) x = broadcast(x, {});
    return Value::array(emit1(Op::IntegerPow, {x}, {{"y", Param::of(bv->i)}}), weak);
  }
  DType d;
  bool weak;
  auto ops = unify({a, bv}, loc, &d, &weak, what.c_str());
  Atom x = ops[0], y = ops[1];
  auto bin = [&](Op o, Atom p, Atom q) { return Atom(emit1(o, {p, q})); };
  auto needInt = [&](const char *why) {
    if (ir::isFloat(d)) userError(loc, what + " " + why + ", not " + a->type().str());
  };
  switch (op) {
  case BinOp::Add: return Value::array(bin(Op::Add, x, y), weak);
  case BinOp::Sub: return Value::array(bin(Op::Sub, x, y), weak);
  case BinOp::Mul: {
    // A float times a bool array of the result's shape is a select, as XLA simplifies
    // mul(x, convert(pred)) and so JAX gives: 0 where the bool is false, even for -x, inf
    // or nan. A bool that is broadcast first (convert, then broadcast) is multiplied.
    auto boolArray = [](const Value &v) { return v.kind == Value::Array && v.type().dtype == DType::Bool; };
    ir::Shape sh = (x.type().rank() >= y.type().rank() ? x : y).type().shape;  // unify broadcast them
    if (ir::isFloat(d) && boolArray(*a) != boolArray(*bv) && (boolArray(*a) ? a : bv)->type().shape == sh) {
      bool left = boolArray(*a);
      Atom p = toAtom(left ? a : bv, loc), other = left ? y : x;
      return Value::array(emit1(Op::Select, {p, broadcast(b().lit(d, 0), sh), broadcast(other, sh)}), weak);
    }
    return Value::array(bin(Op::Mul, x, y), weak);
  }
  case BinOp::Div:
    if (!ir::isFloat(d)) {
      // As jnp.true_divide: each operand goes straight to f32 (a weak -1 beside a u32
      // array is -1.0, not 4294967295.0), then the two are broadcast.
      bool w2;
      auto fs = unify({Value::array(castTo(toAtom(a, loc), DType::F32), true),
                       Value::array(castTo(toAtom(bv, loc), DType::F32), true)},
                      loc, &d, &w2, what.c_str());
      x = fs[0];
      y = fs[1];
    }
    return Value::array(bin(Op::Div, x, y), weak);
  case BinOp::FloorDiv: {
    if (ir::isFloat(d)) {
      // As jnp.floor_divide (CPython's float_divmod): the quotient of x - fmod(x, y), one
      // less where the remainder and y differ in sign, rounded. floor(x / y) differs
      // where x / y rounds to an integer or underflows (-1e-27 // 1e23 is -1, not -0).
      Atom mod = bin(Op::Rem, x, y), zero = b().lit(d, 0);
      Atom sub = bin(Op::Sub, x, mod);
      ir::Shape sh = sub.type().shape;
      Atom x1 = emit1(Op::Select, {broadcast(bin(Op::Eq, y, zero), sh), sub, broadcast(x, sh)});
      Atom div = bin(Op::Div, x1, y);
      Atom ind = bin(Op::And, bin(Op::Ne, mod, zero), bin(Op::Ne, bin(Op::Lt, mod, zero), bin(Op::Lt, y, zero)));
      div = emit1(Op::Select, {broadcast(ind, sh), div, bin(Op::Sub, div, b().lit(d, 1))});
      return Value::array(emit1(Op::Round, {div}, {{"rounding_method", Param::of(1)}}), weak);
    }
    // Python semantics: round toward negative infinity. As jnp.floor_divide: bools divide
    // as i32, and the quotient is lowered by one where sign(x) != sign(y) and the
    // remainder is not 0 (so x // 0 is -1 - (x != 0) for i32, as XLA's x / 0 is -1).
    if (d == DType::Bool) { x = castTo(x, DType::I32); y = castTo(y, DType::I32); d = DType::I32; }
    Atom q = bin(Op::Div, x, y), r = bin(Op::Rem, x, y);
    Atom zero = b().lit(d, 0);
    Atom differ = bin(Op::Ne, bin(Op::Lt, r, zero), bin(Op::Lt, y, zero));
    if (d == DType::I32) differ = bin(Op::Or, differ, bin(Op::Eq, y, zero));
    Atom adjust = bin(Op::And, bin(Op::Ne, r, zero), differ);
    return Value::array(emit1(Op::Select, {broadcast(adjust, q.type().shape), q, bin(Op::Sub, q, b().lit(d, 1))}), weak);
  }
  case BinOp::Mod: {
    // As jnp.remainder: bools as i32; an integer x % 0 is x % 1, that is 0.
    if (d == DType::Bool) { x = castTo(x, DType::I32); y = castTo(y, DType::I32); d = DType::I32; }
    Atom zero = b().lit(d, 0);
    if (!ir::isFloat(d)) {
      if (y.isLit) {
        if (y.lit.i == 0) y = b().lit(d, 1);
      } else {
        Atom one = broadcast(b().lit(d, 1), y.type().shape);
        y = emit1(Op::Select, {bin(Op::Eq, y, zero), y, one});
      }
    }
    Atom r = bin(Op::Rem, x, y);
    Atom adjust = bin(Op::And, bin(Op::Ne, r, zero), bin(Op::Ne, bin(Op::Lt, r, zero), bin(Op::Lt, y, zero)));
    return Value::array(emit1(Op::Select, {broadcast(adjust, r.type().shape), r, bin(Op::Add, r, y)}), weak);
  }
  case BinOp::Pow:
    // As in JAX, integers stay integers (2 ** arange(5) is i32); bools count as i32.
    if (d == DType::Bool) { x = castTo(x, DType::I32); y = castTo(y, DType::I32); }
    return Value::array(bin(Op::Pow, x, y), weak);
  case BinOp::Eq: return Value::array(bin(Op::Eq, x, y));
  case BinOp::Ne: return Value::array(bin(Op::Ne, x, y));
  case BinOp::Lt: return Value::array(bin(Op::Lt, x, y));
  case BinOp::Le: return Value::array(bin(Op::Le, x, y));
  case BinOp::Gt: return Value::array(bin(Op::Gt, x, y));
  case BinOp::Ge: return Value::array(bin(Op::Ge, x, y));
  case BinOp::BitAnd: needInt("needs integers or bools"); return Value::array(bin(Op::And, x, y), weak);
  case BinOp::BitOr: needInt("needs integers or bools"); return Value::array(bin(Op::Or, x, y), weak);
  case BinOp::BitXor: needInt("needs integers or bools"); return Value::array(bin(Op::Xor, x, y), weak);
  case BinOp::And:
  case BinOp::Or:
    if (d != DType::Bool) userError(loc, what + " needs bools; use '&' and '|' for bitwise operations on integers");
    return Value::array(bin(op == BinOp::And ? Op::And : Op::Or, x, y));
  case BinOp::MatMul: break;
  }
  internalError(__FILE__, __LINE__, "unhandled binary operator");
}

ValueP Lowering::unary(UnOp op, ValueP a, SrcRange loc) {
  if (staticNum(*a)) {
    switch (op) {
    case UnOp::Neg:
      if (a->kind == Value::Float) return Value::floating(-a->f);
      if (a->i == INT64_MIN) userError(loc, "integer overflow in a static expression: -(" + std::to_string(a->i) + ") does not fit in 64 bits");
      return Value::integer(-a->i);
    case UnOp::Plus: return a;
    case UnOp::Not: return Value::boolean(!a->i);
    case UnOp::BitNot:
      if (a->kind == Value::Bool) return Value::boolean(!a->i);
      if (a->kind == Value::Int) return Value::integer(~a->i);
      userError(loc, "'~' needs an integer or a bool");
    }
  }
  bool weak;
  Atom x = toAtom(a, loc, &weak);
  if (x.isLit) x = broadcast(x, {}), x = emit1(Op::Reshape, {x}, {{"new_sizes", Param::tuple({})}, {"dimensions", Param::none()}});
  DType d = x.type().dtype;
  switch (op) {
  case UnOp::Plus: return a;  // +k is k, as in JAX
  case UnOp::Neg:
    rejectKeys(*Value::array(x), loc, "'-'");
    if (d == DType::Bool) userError(loc, "cannot negate a bool array; use 'not'");
    return Value::array(emit1(Op::Neg, {x}), weak);
  case UnOp::Not:
    if (d != DType::Bool) userError(loc, "'not' needs a bool, not " + x.type().str());
    return Value::array(emit1(Op::Not, {x}));
  case UnOp::BitNot:
    rejectKeys(*Value::array(x), loc, "'~'");
    if (ir::isFloat(d)) userError(loc, "'~' needs integers or bools, not " + x.type().str());
    return Value::array(emit1(Op::Not, {x}), weak);
  }
  return nullptr;
}

// ---- matrix products ------------------------------------------------------------------------

ValueP Lowering::matmul(ValueP av, ValueP bv, SrcRange loc) {
  DType d;
  bool weak;
  Atom a = toAtom(av, loc), bb = toAtom(bv, loc);
  // Promote dtypes only (a product does not broadcast its operands against each other).
  unify({Value::array(b().lit(a.type().dtype, 0), av->weak), Value::array(b().lit(bb.type().dtype, 0), bv->weak)}, loc,
        &d, &weak, "'@'");
  a = castTo(a, d);
  bb = castTo(bb, d);
  ir::Type ta = a.type(), tb = bb.type();
  if (ta.rank() == 0 || tb.rank() == 0)
    userError(loc, "'@' needs arrays of rank 1 or more, not " + ta.str() + " and " + tb.str());
  int ra = ta.rank(), rb = tb.rank();
  int64_t ka = ta.shape[ra - 1], kb = rb == 1 ? tb.shape[0] : tb.shape[rb - 2];
  if (ka != kb)
    userError(loc, "'@' contracts dimensions of different sizes: " + ta.str() + " and " + tb.str() + " (" +
                       std::to_string(ka) + " != " + std::to_string(kb) + ")");
  auto dn = [](std::vector<int64_t> lc, std::vector<int64_t> rc, std::vector<int64_t> lb, std::vector<int64_t> rbb) {
    return Param::tuple({Param::tuple({Param::ints(lc, true), Param::ints(rc, true)}),
                         Param::tuple({Param::ints(lb, true), Param::ints(rbb, true)})});
  };
  if (ra <= 2 && rb <= 2) {
    ir::Params p{{"dimension_numbers", dn({ra - 1}, {rb == 1 ? 0 : rb - 2}, {}, {})},
                 {"precision", Param::none()}, {"preferred_element_type", Param::ofDType(d)}};
    return Value::array(emit1(Op::DotGeneral, {a, bb}, p), weak);
  }
  // Batched: broadcast leading (batch) dimensions, as NumPy's matmul does.
  if (rb == 1) {
    ir::Params p{{"dimension_numbers", dn({ra - 1}, {0}, {}, {})}, {"precision", Param::none()},
                 {"preferred_element_type", Param::ofDType(d)}};
    return Value::array(emit1(Op::DotGeneral, {a, bb}, p), weak);
  }
  ir::Shape ba(ta.shape.begin(), ta.shape.end() - (ra >= 2 ? 2 : 1));
  ir::Shape bbs(tb.shape.begin(), tb.shape.end() - 2);
  size_t nb = std::max(ba.size(), bbs.size());
  ir::Shape batch(nb, 1);
  for (size_t k = 0; k < nb; ++k) {
    int64_t x = k + ba.size() >= nb ? ba[k + ba.size() - nb] : 1;
    int64_t y = k + bbs.size() >= nb ? bbs[k + bbs.size() - nb] : 1;
    if (x != y && x != 1 && y != 1)
      userError(loc, "'@' batch dimensions do not broadcast: " + ta.str() + " and " + tb.str());
    batch[k] = std::max(x, y);
  }
  if (ra == 1) {
    // vector @ batched matrices: (k) x (..., k, n) -> (..., n)
    ir::Shape sb = batch;
    sb.push_back(tb.shape[rb - 2]);
    sb.push_back(tb.shape[rb - 1]);
    bb = broadcast(bb, sb);
    std::vector<int64_t> bd;
    ir::Params p{{"dimension_numbers", dn({0}, {int64_t(nb)}, {}, {})}, {"precision", Param::none()},
                 {"preferred_element_type", Param::ofDType(d)}};
    return Value::array(emit1(Op::DotGeneral, {a, bb}, p), weak);
  }
  ir::Shape sa = batch, sb = batch;
  sa.push_back(ta.shape[ra - 2]);
  sa.push_back(ta.shape[ra - 1]);
  sb.push_back(tb.shape[rb - 2]);
  sb.push_back(tb.shape[rb - 1]);
  a = broadcast(a, sa);
  bb = broadcast(bb, sb);
  std::vector<int64_t> bdims;
  for (size_t k = 0; k < nb; ++k) bdims.push_back(int64_t(k));
  ir::Params p{{"dimension_numbers", dn({int64_t(nb) + 1}, {int64_t(nb)}, bdims, bdims)}, {"precision", Param::none()},
               {"preferred_element_type", Param::ofDType(d)}};
  return Value::array(emit1(Op::DotGeneral, {a, bb}, p), weak);
}

// ---- indexing --------------------------------------------------------------------------------

ValueP Lowering::index(ValueP base, const IndexExpr &e) {
  // Tuples and static lists: static indexing and slicing.
  if (base->kind == Value::Tuple) {
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
        userError(it.index->loc, "index " + std::to_string(k) + " is out of range for a " + describe(*base));
      return base->elems[kk];
    }
    int64_t lo = it.lo ? staticInt(expr(*it.lo), it.lo->loc, "a slice bound") : 0;
    int64_t hi = it.hi ? staticInt(expr(*it.hi), it.hi->loc, "a slice bound") : n;
    int64_t st = it.step ? staticInt(expr(*it.step), it.step->loc, "a slice step") : 1;
    if (st <= 0) userError(it.loc, "slices of tuples need a positive step");
    if (lo < 0) lo += n;
    if (hi < 0) hi += n;
    lo = std::clamp<int64_t>(lo, 0, n);
    hi = std::clamp<int64_t>(hi, 0, n);
    std::vector<ValueP> r;
    for (int64_t k = lo; k < hi; k += st) r.push_back(base->elems[k]);
    return Value::tuple(r, base->isList);
  }
  if (base->kind != Value::Array) userError(e.base->loc, "a " + describe(*base) + " cannot be indexed");
  Atom x = base->atom;
  ir::Type t = x.type();
  if (int(e.items.size()) > t.rank())
    userError(e.items[t.rank()].loc, "too many indices for an array of type " + t.str());
  std::vector<int64_t> start(t.rank(), 0), limit = t.shape, stride(t.rank(), 1), revDims;
  std::vector<bool> dropped(t.rank(), false);
  std::vector<std::pair<int, Atom>> dynamic;
  for (size_t d = 0; d < e.items.size(); ++d) {
    const IndexItem &it = e.items[d];
    int64_t n = t.shape[d];
    if (!it.isSlice) {
      ValueP iv = expr(*it.index);
      if (iv->kind == Value::Array) {
        if (iv->type().rank() != 0 || !ir::isInt(iv->type().dtype))
          userError(it.index->loc, "an index must be an integer scalar, not " + iv->type().str());
        dynamic.push_back({int(d), iv->atom});
        dropped[d] = true;
        continue;
      }
      int64_t k = staticInt(iv, it.index->loc, "an index");
      int64_t kk = k < 0 ? k + n : k;
      if (kk < 0 || kk >= n)
        userError(it.index->loc, "index " + std::to_string(k) + " is out of range for axis " + std::to_string(d) +
                                     " of size " + std::to_string(n));
      start[d] = kk;
      limit[d] = kk + 1;
      dropped[d] = true;
      continue;
    }
    int64_t st = it.step ? staticInt(expr(*it.step), it.step->loc, "a slice step") : 1;
    if (st == 0) userError(it.step->loc, "a slice step cannot be zero");
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
    x = emit1(Op::Slice, {x}, {{"start_indices", Param::ints(start)}, {"limit_indices", Param::ints(limit)},
                               {"strides", std::all_of(stride.begin(), stride.end(), [](int64_t s) { return s == 1; })
                                               ? Param::none() : Param::ints(stride)}});
  if (!dynamic.empty()) {
    ir::Type xt = x.type();
    std::vector<Atom> ins{x};
    std::vector<int64_t> sizes = xt.shape;
    std::vector<Atom> idx(xt.rank(), b().lit(DType::I32, 0));
    for (auto &[d, a] : dynamic) {
      // Negative indices count from the end, as in NumPy; out of range is a run-time error.
      Atom i = castTo(a, DType::I32);
      Atom n = b().lit(DType::I32, double(xt.shape[d]));
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
  if (out != cur) x = emit1(Op::Reshape, {x}, {{"new_sizes", Param::ints(out)}, {"dimensions", Param::none()}});
  return Value::array(x, base->weak);
}

// ---- the expression dispatcher ------------------------------------------------------------------

ValueP Lowering::expr(const Expr &e) {
  switch (e.kind) {
  case ExprKind::IntLit: return Value::integer(e.as<IntLitExpr>()->value);
  case ExprKind::FloatLit: return Value::floating(e.as<FloatLitExpr>()->value);
  case ExprKind::BoolLit: return Value::boolean(e.as<BoolLitExpr>()->value);
  case ExprKind::StringLit: return Value::string(e.as<StringLitExpr>()->value);
  case ExprKind::Name: {
    auto *n = e.as<NameExpr>();
    if (Scope::Binding *bd = scope->lookup(n->name)) return bd->value;
    static const std::pair<const char *, DType> dtypes[] = {
        {"f32", DType::F32}, {"i32", DType::I32}, {"u32", DType::U32}, {"bool", DType::Bool}, {"f64", DType::F64}};
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
      userError(n->loc, "'" + n->name + "' is an axis name, not a value; use axis_index(" + n->name + ") for this replica's index");
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
    if (it->kind != Value::Tuple) userError(c->iter->loc, "a comprehension iterates over a range or a static list");
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
      userError(e.loc, "a range of " + std::to_string(uint64_t(hi) - uint64_t(lo)) + " elements is too long for a static list (at most " +
                           std::to_string(kMaxList) + "); a for loop over a range has no such limit");
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

} // namespace spmd::sema
