// ===- LowerArith.cpp - arithmetic and matrix products -----------------------------===//
//
// Binary and unary operators with JAX's dtype promotion (weak literals: `x * 2` keeps x's
// dtype), static arithmetic folded at compile time as Python computes it, and `@`.
#include "sema/AstLowering.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace spmd::sema {
using namespace ast;
using ir::Atom;
using ir::DType;
using ir::Op;
using ir::Param;

// ---- arithmetic -----------------------------------------------------------------------------

static bool staticNum(const Value &v) {
  return v.kind == Value::Int || v.kind == Value::Float || v.kind == Value::Bool;
}
static double num(const Value &v) { return v.kind == Value::Float ? v.f : double(v.i); }

// Python's divmod of floats (CPython's float_divmod): exact where floor(x / y) is not.
static std::pair<double, double> pyFloatDivmod(double x, double y) {
  double mod = std::fmod(x, y), div = (x - mod) / y;
  if (mod != 0) {
    if ((y < 0) != (mod < 0)) {
      mod += y;
      div -= 1;
    }
  } else {
    mod = std::copysign(0.0, y);
  }
  double fd = div != 0 ? std::floor(div) : std::copysign(0.0, x / y);
  if (div != 0 && div - fd > 0.5) fd += 1;
  return {fd, mod};
}

/// Python's float ** float (CPython's float_pow), special cases in its order: x ** 0 is 1
/// (even for NaN), 1 ** y is 1, +-inf exponents and bases by their rules, and errors
/// where Python raises: 0 to a negative power (ZeroDivisionError), a negative base to a
/// fractional power (a complex number in Python) and a finite result too large for a
/// double (OverflowError; an underflow to 0 is no error).
static double pyFloatPow(double x, double y, SrcRange loc) {
  auto odd = [](double v) { return std::fmod(v, 2.0) == 1.0 || std::fmod(v, 2.0) == -1.0; };
  if (y == 0) return 1.0;
  if (std::isnan(x)) return x;
  if (std::isnan(y)) return x == 1.0 ? 1.0 : y;
  if (std::isinf(y)) {
    double ax = std::fabs(x);
    if (ax == 1.0) return 1.0;
    return (y > 0) == (ax > 1.0) ? std::fabs(y) : 0.0;
  }
  if (std::isinf(x)) {
    if (y > 0) return odd(y) ? x : std::fabs(x);
    return odd(y) ? std::copysign(0.0, x) : 0.0;
  }
  if (x == 0) {
    if (y < 0)
      userError(loc, "zero to a negative power in a static expression",
                {{SrcRange{}, "as in Python, where it raises ZeroDivisionError"}});
    return odd(y) ? x : 0.0;
  }
  bool negate = false;
  if (x < 0) {
    if (y != std::floor(y))
      userError(loc, "a negative number to a fractional power is complex, in a static expression");
    x = -x;
    negate = odd(y);
  }
  double r = x == 1.0 ? 1.0 : std::pow(x, y);
  if (std::isinf(r))
    userError(loc, "overflow in a static expression: the result is too large for a float",
              {{SrcRange{}, "as in Python, where it raises OverflowError"}});
  return negate ? -r : r;
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
    userError(loc, std::string("integer overflow in a static expression: ") + std::to_string(i) +
                       " " + spelling(op) + " " + std::to_string(j) + " does not fit in 64 bits");
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
    return Value::floating(pyFloatPow(x, y, loc));
  case BinOp::Eq: return Value::boolean(ints ? i == j : x == y);
  case BinOp::Ne: return Value::boolean(ints ? i != j : x != y);
  case BinOp::Lt: return Value::boolean(ints ? i < j : x < y);
  case BinOp::Le: return Value::boolean(ints ? i <= j : x <= y);
  case BinOp::Gt: return Value::boolean(ints ? i > j : x > y);
  case BinOp::Ge: return Value::boolean(ints ? i >= j : x >= y);
  case BinOp::BitAnd:
  case BinOp::BitOr:
  case BinOp::BitXor: {
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
ValueP AstLowering::compareKeys(bool eq, ValueP a, ValueP bv, SrcRange loc) {
  ir::Shape sa = a->type().shape, sb = bv->type().shape, s;
  size_t r = std::max(sa.size(), sb.size());
  for (size_t k = 0; k < r; ++k) {
    int64_t x = k + sa.size() >= r ? sa[k + sa.size() - r] : 1,
            y = k + sb.size() >= r ? sb[k + sb.size() - r] : 1;
    if (x != y && x != 1 && y != 1)
      userError(loc, std::string("incompatible shapes for '") + (eq ? "==" : "!=") +
                         "': " + a->type().str() + " and " + bv->type().str());
    s.push_back(x == 1 ? y : x);
  }
  ir::Shape sw = s;
  sw.push_back(2);
  Atom wa = broadcast(emit1(Op::RandomUnwrap, {a->atom}), sw),
       wb = broadcast(emit1(Op::RandomUnwrap, {bv->atom}), sw);
  Atom c = emit1(eq ? Op::Eq : Op::Ne, {wa, wb});
  return Value::array(
      emit1(eq ? Op::ReduceAnd : Op::ReduceOr, {c}, {{"axes", Param::ints({int64_t(s.size())})}}));
}

// Note [Eager integer_pow]
// jnp.power(x, y) with a *concrete* integer scalar y (eager JAX, where y is a value) is
// lax.integer_pow(x, int(y)): x's dtype and weak type (a bool base as i32; y's dtype
// plays no part), binary exponentiation over every bit of y with products wrapping; a
// negative y raises TypeError for an integer x and is 1 / x ** -y for a float x. With y
// traced (a jitted function: a pmap body, or the mapped value in a vmap) it is
// _pow_int_int instead: operands promoted, then only y's low 6 bits (codegen's Op::Pow;
// a float x takes powf). So `i32(-15) ** i32(2147483647)` is 286331153 at host level and
// 1194765585 in a pmap body, as JAX gives for each (JAX 0.10.2, measured), and
// `f32(1.1) ** e` with e = 6 is 1.7715611 (products), not powf's 1.7715613.
// Host code is eager JAX (Note [Eager division]), so there a scalar i32 or u32 exponent
// is integer_pow: with its value when it is a literal (`i32(7)`, `u32(100)`: an error for
// a negative one and an integer x, as JAX raises), else unrolled over the 32 bits of y at
// run time (eagerIntegerPow), where a negative i32 y with an integer x is the run-time
// error of JAX's TypeError ("Integers cannot be raised to negative powers, got
// integer_pow(uint32[], -1)": a check, Note [Run-time checks] in codegen/EmitArrays.cpp);
// y's value decides it, as in JAX (`u32(2) ** i32(3)` is 8). Traced (a pmap body, a vmap,
// lax.fori_loop in JAX) x ** y with y < 0 raises nothing and is _pow_int_int's value: 0
// for |x| > 1, 1 or -1 for x = 1 or -1 (measured, JAX 0.10.2). Difference left: in a
// vmap at host level a run-time exponent keeps _pow_int_int, right when it is the mapped
// value, not when it is captured (concrete in JAX), which lowering does not tell apart.
ValueP AstLowering::eagerIntegerPow(ValueP a, ValueP bv, SrcRange loc) {
  bool weak;
  Atom x = toAtom(a, loc, &weak);
  bool wasBool = x.type().dtype == DType::Bool;
  if (wasBool) x = castTo(x, DType::I32);
  if (x.isLit) x = broadcast(x, {});
  DType d = x.type().dtype, yd = bv->type().dtype;
  const ir::Shape sh = x.type().shape;
  Atom y = bv->atom, zero = b().lit(yd, 0);
  if (!ir::isFloat(d) && yd == DType::I32 && !y.isLit) {
    // JAX's TypeError, with lax.integer_pow's own text: x's type as JAX prints it ("~"
    // for a weak type; a bool base is a strong i32 there) and the exponent (Note
    // [Run-time checks] in codegen/EmitArrays.cpp).
    std::string t = std::string(weak && !wasBool ? "~" : "") +
                    (d == DType::U32 ? "uint32[" : "int32[");
    for (size_t k = 0; k < sh.size(); ++k) t += (k ? "," : "") + std::to_string(sh[k]);
    // In a map body y is a host value (hostLevel): the check runs where y is defined,
    // before the pmap or vmap, as JAX raises while tracing the body.
    int lvl = varLevel.at(y.var.id);
    ir::Builder &hb = *frames[lvl]->b;
    ir::Var bad = hb.emit1(Op::Lt, {y, zero});
    varLevel[bad.id] = lvl;
    hb.emit(Op::Check, {bad, y},
            {{"message", Param::ofStr("Integers cannot be raised to negative powers, got "
                                      "integer_pow(" + t + "], {0})")},
             {"where", Param::ofStr(where(loc))}});
  }
  y = toAtom(bv, loc);
  // A float x raises to |y| (as u32 bits, so -2^31 is 2^31), then takes the reciprocal.
  bool recip = ir::isFloat(d) && yd == DType::I32;
  Atom neg;
  if (recip) {
    neg = emit1(Op::Lt, {y, zero});
    y = emit1(Op::Select, {neg, y, emit1(Op::Neg, {y})});
  }
  Atom acc = broadcast(b().lit(d, 1), sh), p = x;
  for (int bit = 0; bit < 32; ++bit) {
    Atom odd = emit1(Op::Ne, {emit1(Op::And, {y, b().lit(yd, 1)}), zero});
    acc = emit1(Op::Select, {broadcast(odd, sh), acc, emit1(Op::Mul, {acc, p})});
    if (bit < 31) {
      // Squares only while bits remain: no inf past y's top bit, whose product is not
      // taken but whose gradient (0 * inf) would be nan.
      y = emit1(Op::ShiftRightLogical, {y, b().lit(yd, 1)});
      Atom more = emit1(Op::Ne, {y, zero});
      p = emit1(Op::Select, {broadcast(more, sh), p, emit1(Op::Mul, {p, p})});
    }
  }
  if (recip)
    acc = emit1(Op::Select,
                {broadcast(neg, sh), acc, emit1(Op::Div, {broadcast(b().lit(d, 1), sh), acc})});
  return Value::array(acc, weak);
}

// Note [Eager division]
// XLA rewrites a division by a constant, A / c, as A * (1 / c) with the reciprocal rounded
// to f32 (Note [Division by a constant] in codegen/EmitElementwise.cpp), and a division
// by a broadcast value, A / broadcast(B), as A * broadcast(1 / B). Which of the two a
// JAX program meets depends on how JAX runs the division, measured with JAX 0.10.2 on
// the CPU (0.1548 / 3 is 0.051599998 exactly, 0.0516 through the reciprocal):
//  - jitted code (jax.jit, a pmap body, jnp.mean and the other jnp functions that are
//    jitted with their constants inside, lax.fori_loop): the literal is a constant, so
//    every division by it goes through the reciprocal, whatever the shape;
//  - eager code (a Python statement, a Python loop or function, tree_map, vmap and grad
//    called from Python): `x / 3.0` calls the jitted jnp.true_divide with 3.0 as a
//    run-time *argument*, so XLA sees x / broadcast(c): through the reciprocal when the
//    broadcast adds elements, but a quotient of one element (x of shape [], [1], [1, 1];
//    a vmap over one example) has no broadcast left (XLA makes a broadcast to a shape of
//    ones a reshape) and divides exactly. The backward pass of an eager grad is eager too.
// spmdrun's model maps onto these modes by place: a pmap body (and shard_map, and all
// that a function called in one does) is one XLA computation, as jax.pmap compiles it;
// everything outside every pmap is the program's host code, which the spec's examples
// and their JAX twins write as plain Python (statements, Python loops for `for`, Python
// functions, vmap and grad called eagerly; conf6_loops and tests/golden/div_eager check
// that), so it is eager JAX. Lowering therefore marks a division by a literal outside
// every pmap with `_eager` (an annotation the IR dump does not show; vmap and grad keep
// it, divVjp passes it to the transpose), and code generation divides an `_eager`
// division exactly when its result (after vmap's batching) has one element. The
// divisions that builtins make (mean's count, linspace) are JAX's jitted ones and keep
// the reciprocal.
ValueP AstLowering::binary(BinOp op, ValueP a, ValueP bv, SrcRange loc) {
  if (staticNum(*a) && staticNum(*bv)) return foldStatic(op, *a, *bv, loc);
  if (op == BinOp::MatMul) return matmul(a, bv, loc);
  std::string what = std::string("'") + spelling(op) + "'";
  // Tuples concatenate / compare statically only for static values.
  if (a->kind == Value::Tuple && bv->kind == Value::Tuple && op == BinOp::Add && a->isStatic() &&
      bv->isStatic() && !a->isList) {
    auto e = a->elems;
    e.insert(e.end(), bv->elems.begin(), bv->elems.end());
    return Value::tuple(e);
  }
  // Two static tuples (not lists, which are arrays: shape(x), (2, 3)) compare as Python
  // compares tuples, to one bool: shape(x) == (2, 3) is True, not [True, True].
  if (a->kind == Value::Tuple && bv->kind == Value::Tuple && !a->isList && !bv->isList &&
      (op == BinOp::Eq || op == BinOp::Ne) && a->isStatic() && bv->isStatic()) {
    std::function<bool(const Value &, const Value &)> same = [&](const Value &p,
                                                                const Value &q) {
      if (p.isNumber() && q.isNumber()) return foldStatic(BinOp::Eq, p, q, loc)->i != 0;
      if (p.kind == Value::Str && q.kind == Value::Str) return p.s == q.s;
      if (p.kind != Value::Tuple || q.kind != Value::Tuple || p.isList != q.isList ||
          p.elems.size() != q.elems.size())
        return false;
      for (size_t k = 0; k < p.elems.size(); ++k)
        if (!same(*p.elems[k], *q.elems[k])) return false;
      return true;
    };
    return Value::boolean(same(*a, *bv) == (op == BinOp::Eq));
  }
  // Keys (JAX's typed keys): '==' and '!=' compare their words; no other operator takes them.
  auto isKey = [](const Value &v) {
    return v.kind == Value::Array && v.type().dtype == DType::Key;
  };
  if (isKey(*a) || isKey(*bv)) {
    if ((op == BinOp::Eq || op == BinOp::Ne) && isKey(*a) && isKey(*bv))
      return compareKeys(op == BinOp::Eq, a, bv, loc);
    if (op == BinOp::Eq || op == BinOp::Ne)
      userError(loc, "a key can only be compared with a key, not with a " +
                         describe(isKey(*a) ? *bv : *a));
    rejectKeys(isKey(*a) ? *a : *bv, loc, what);
  }
  // x ** k with a static integer k: integer_pow, as JAX does; at host level also with a
  // scalar integer array k, which eager JAX holds as a concrete value (Note [Eager
  // integer_pow]).
  bool eagerExponent = op == BinOp::Pow && bv->kind == Value::Array &&
                       bv->type().rank() == 0 &&
                       (bv->type().dtype == DType::I32 || bv->type().dtype == DType::U32);
  bool literalExponent = eagerExponent && pmapStack.empty() && bv->atom.isLit;
  // In a pmap or vmap body a host value used as it is stays concrete (JAX closes over the
  // array); anything computed in the body is traced.
  eagerExponent &= !bv->atom.isLit && hostLevel(bv->atom);
  if (op == BinOp::Pow && (bv->kind == Value::Int || literalExponent)) {
    int64_t k = bv->kind == Value::Int ? bv->i : bv->atom.lit.i;
    bool weak;
    Atom x = toAtom(a, loc, &weak);
    if (x.type().dtype == DType::Bool) x = castTo(x, DType::I32);
    if (k < 0 && !ir::isFloat(x.type().dtype))
      userError(loc, "integers cannot be raised to a negative power");
    if (x.isLit) x = broadcast(x, {});
    return Value::array(emit1(Op::IntegerPow, {x}, {{"y", Param::of(k)}}), weak);
  }
  if (eagerExponent) return eagerIntegerPow(a, bv, loc);
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
  case BinOp::Sub:
    if (d == DType::Bool)  // jnp.subtract raises TypeError for two bools
      userError(loc, "'-' does not take two bools; use '^' (or '!=') for their difference");
    return Value::array(bin(Op::Sub, x, y), weak);
  case BinOp::Mul: {
    // A float times a bool array of the result's shape is a select, as XLA simplifies
    // mul(x, convert(pred)) and so JAX gives: 0 where the bool is false, even for -x, inf
    // or nan. A bool that is broadcast first (convert, then broadcast) is multiplied.
    auto boolArray = [](const Value &v) {
      return v.kind == Value::Array && v.type().dtype == DType::Bool;
    };
    ir::Shape sh =
        (x.type().rank() >= y.type().rank() ? x : y).type().shape;  // unify broadcast them
    if (ir::isFloat(d) && boolArray(*a) != boolArray(*bv) &&
        (boolArray(*a) ? a : bv)->type().shape == sh) {
      bool left = boolArray(*a);
      Atom p = toAtom(left ? a : bv, loc), other = left ? y : x;
      return Value::array(
          emit1(Op::Select, {p, broadcast(b().lit(d, 0), sh), broadcast(other, sh)}), weak);
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
    // Outside every pmap, a division is JAX's eager jnp.true_divide (Note [Eager
    // division]): marked, so that a one-element quotient divides exactly. An array
    // sharded over devices in blocks of one element (Note [Sharded host values]) is
    // divided per device, each quotient of one element: exactly, whatever the divisor;
    // so is one whose divisor no broadcast enlarges on a device (Note [Sharded division]).
    if (pmapStack.empty() && !inMapBody()) {
      const Shard *sh = shardOf(x) ? shardOf(x) : shardOf(y);
      if (sh && ir::isFloat(d) && (x.type().numel() == sh->devices() || shardedExactDiv(x, y)))
        return Value::array(emit1(Op::Div, {x, y}, {{"_exact", Param::of(int64_t(1))}}), weak);
    }
    if (pmapStack.empty() && y.isLit)
      return Value::array(emit1(Op::Div, {x, y}, {{"_eager", Param::of(int64_t(1))}}), weak);
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
      Atom ind = bin(Op::And, bin(Op::Ne, mod, zero),
                     bin(Op::Ne, bin(Op::Lt, mod, zero), bin(Op::Lt, y, zero)));
      div = emit1(Op::Select, {broadcast(ind, sh), div, bin(Op::Sub, div, b().lit(d, 1))});
      return Value::array(emit1(Op::Round, {div}, {{"rounding_method", Param::of(1)}}), weak);
    }
    // Python semantics: round toward negative infinity. As jnp.floor_divide: bools divide
    // as i32, and the quotient is lowered by one where sign(x) != sign(y) and the
    // remainder is not 0 (so x // 0 is -1 - (x != 0) for i32, as XLA's x / 0 is -1).
    if (d == DType::Bool) {
      x = castTo(x, DType::I32);
      y = castTo(y, DType::I32);
      d = DType::I32;
    }
    Atom q = bin(Op::Div, x, y), r = bin(Op::Rem, x, y);
    Atom zero = b().lit(d, 0);
    Atom differ = bin(Op::Ne, bin(Op::Lt, r, zero), bin(Op::Lt, y, zero));
    if (d == DType::I32) differ = bin(Op::Or, differ, bin(Op::Eq, y, zero));
    Atom adjust = bin(Op::And, bin(Op::Ne, r, zero), differ);
    return Value::array(
        emit1(Op::Select, {broadcast(adjust, q.type().shape), q, bin(Op::Sub, q, b().lit(d, 1))}),
        weak);
  }
  case BinOp::Mod: {
    // As jnp.remainder: bools as i32; an integer x % 0 is x % 1, that is 0.
    if (d == DType::Bool) {
      x = castTo(x, DType::I32);
      y = castTo(y, DType::I32);
      d = DType::I32;
    }
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
    Atom adjust =
        bin(Op::And, bin(Op::Ne, r, zero), bin(Op::Ne, bin(Op::Lt, r, zero), bin(Op::Lt, y, zero)));
    return Value::array(
        emit1(Op::Select, {broadcast(adjust, r.type().shape), r, bin(Op::Add, r, y)}), weak);
  }
  case BinOp::Pow:
    // As in JAX, integers stay integers (2 ** arange(5) is i32); bools count as i32.
    if (d == DType::Bool) {
      x = castTo(x, DType::I32);
      y = castTo(y, DType::I32);
    }
    return Value::array(bin(Op::Pow, x, y), weak);
  case BinOp::Eq: return Value::array(bin(Op::Eq, x, y));
  case BinOp::Ne: return Value::array(bin(Op::Ne, x, y));
  case BinOp::Lt: return Value::array(bin(Op::Lt, x, y));
  case BinOp::Le: return Value::array(bin(Op::Le, x, y));
  case BinOp::Gt: return Value::array(bin(Op::Gt, x, y));
  case BinOp::Ge: return Value::array(bin(Op::Ge, x, y));
  case BinOp::BitAnd:
    needInt("needs integers or bools");
    return Value::array(bin(Op::And, x, y), weak);
  case BinOp::BitOr:
    needInt("needs integers or bools");
    return Value::array(bin(Op::Or, x, y), weak);
  case BinOp::BitXor:
    needInt("needs integers or bools");
    return Value::array(bin(Op::Xor, x, y), weak);
  case BinOp::And:
  case BinOp::Or:
    if (d != DType::Bool)
      userError(loc, what + " needs bools; use '&' and '|' for bitwise operations on integers");
    return Value::array(bin(op == BinOp::And ? Op::And : Op::Or, x, y));
  case BinOp::MatMul: break;
  }
  internalError(__FILE__, __LINE__, "unhandled binary operator");
}

ValueP AstLowering::unary(UnOp op, ValueP a, SrcRange loc) {
  if (staticNum(*a)) {
    switch (op) {
    case UnOp::Neg:
      if (a->kind == Value::Float) return Value::floating(-a->f);
      if (a->i == INT64_MIN)
        userError(loc, "integer overflow in a static expression: -(" + std::to_string(a->i) +
                           ") does not fit in 64 bits");
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
  if (x.isLit)
    x = broadcast(x, {}),
    x = emit1(Op::Reshape, {x}, {{"new_sizes", Param::tuple({})}, {"dimensions", Param::none()}});
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

ValueP AstLowering::matmul(ValueP av, ValueP bv, SrcRange loc) {
  DType d;
  bool weak;
  Atom a = toAtom(av, loc), bb = toAtom(bv, loc);
  // Promote dtypes only (a product does not broadcast its operands against each other).
  unify({Value::array(b().lit(a.type().dtype, 0), av->weak),
         Value::array(b().lit(bb.type().dtype, 0), bv->weak)},
        loc, &d, &weak, "'@'");
  a = castTo(a, d);
  bb = castTo(bb, d);
  ir::Type ta = a.type(), tb = bb.type();
  if (ta.rank() == 0 || tb.rank() == 0)
    userError(loc, "'@' needs arrays of rank 1 or more, not " + ta.str() + " and " + tb.str());
  int ra = ta.rank(), rb = tb.rank();
  int64_t ka = ta.shape[ra - 1], kb = rb == 1 ? tb.shape[0] : tb.shape[rb - 2];
  if (ka != kb)
    userError(loc, "'@' contracts dimensions of different sizes: " + ta.str() + " and " + tb.str() +
                       " (" + std::to_string(ka) + " != " + std::to_string(kb) + ")");
  auto dn = [](std::vector<int64_t> lc, std::vector<int64_t> rc, std::vector<int64_t> lb,
               std::vector<int64_t> rbb) {
    return Param::tuple({Param::tuple({Param::ints(lc, true), Param::ints(rc, true)}),
                         Param::tuple({Param::ints(lb, true), Param::ints(rbb, true)})});
  };
  if (ra <= 2 && rb <= 2) {
    ir::Params p{{"dimension_numbers", dn({ra - 1}, {rb == 1 ? 0 : rb - 2}, {}, {})},
                 {"precision", Param::none()},
                 {"preferred_element_type", Param::ofDType(d)}};
    return Value::array(emit1(Op::DotGeneral, {a, bb}, p), weak);
  }
  // Batched: broadcast leading (batch) dimensions, as NumPy's matmul does.
  if (rb == 1) {
    ir::Params p{{"dimension_numbers", dn({ra - 1}, {0}, {}, {})},
                 {"precision", Param::none()},
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
    ir::Params p{{"dimension_numbers", dn({0}, {int64_t(nb)}, {}, {})},
                 {"precision", Param::none()},
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
  ir::Params p{{"dimension_numbers", dn({int64_t(nb) + 1}, {int64_t(nb)}, bdims, bdims)},
               {"precision", Param::none()},
               {"preferred_element_type", Param::ofDType(d)}};
  return Value::array(emit1(Op::DotGeneral, {a, bb}, p), weak);
}

}  // namespace spmd::sema
