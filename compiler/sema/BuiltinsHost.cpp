// ===- BuiltinsHost.cpp - printing and the host builtins ---------------------------===//
//
// print (NumPy's array printing, Python's repr of static values), render, assert_close,
// arg and device_count.
#include "sema/BuiltinTable.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

namespace spmd::sema::builtins {

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
  if (point <= 0)
    s = "0." + std::string(size_t(-point), '0') + digits;
  else if (size_t(point) >= digits.size())
    s = digits + std::string(size_t(point) - digits.size(), '0') + ".0";
  else
    s = digits.substr(0, size_t(point)) + "." + digits.substr(size_t(point));
  return sign + s;
}

std::string pyRepr(const Value &v) {
  switch (v.kind) {
  case Value::Int: return std::to_string(v.i);
  case Value::Float: return pyFloat(v.f);
  case Value::Bool: return v.i ? "True" : "False";
  case Value::Str: return "'" + v.s + "'";
  case Value::DTypeV: return v.fname;
  case Value::Mesh: {  // as JAX prints a Mesh, less its axis types
    std::string s = "Mesh(";
    for (size_t k = 0; k < v.meshAxes.size(); ++k)
      s += (k ? ", '" : "'") + v.meshAxes[k].name + "': " + std::to_string(v.meshSizes[k]);
    return s + ")";
  }
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
/// A list of numbers and arrays, nested or not, holding a float, a bool or an array: an
/// array literal, which prints as NumPy prints the array (`[1.e-05 1.e+00]`, and
/// `[nan nan]` for `[nan, nan]` with nan an array), when its elements stack (the same
/// shape at every level). Lists of integers are static values (ranges, comprehensions,
/// shapes) and print as Python prints them (spec sections 2 and 8).
static bool arrayLiteral(const Value &v, bool &nonInt, ir::Shape &shape) {
  if (v.kind != Value::Tuple || !v.isList || v.elems.empty()) return false;
  for (size_t k = 0; k < v.elems.size(); ++k) {
    const Value &e = *v.elems[k];
    ir::Shape s;
    if (e.isNumber()) {
      nonInt |= e.kind != Value::Int;
    } else if (e.kind == Value::Array) {
      if (e.type().dtype == DType::Key) return false;
      nonInt = true;
      s = e.type().shape;
    } else if (!arrayLiteral(e, nonInt, s)) {
      return false;
    }
    if (k == 0) shape = s;
    else if (s != shape) return false;
  }
  shape.insert(shape.begin(), int64_t(v.elems.size()));
  return true;
}
static bool arrayLiteral(const Value &v) {
  bool nonInt = false;
  ir::Shape shape;
  return arrayLiteral(v, nonInt, shape) && nonInt;
}

/// Whether a static tuple or list holds an array literal (`(b, 2)` with b = [0.1, -0.2]):
/// then it prints element by element, the literal as NumPy prints its array.
static bool holdsArrayLiteral(const Value &v) {
  if (arrayLiteral(v)) return true;
  if (v.kind != Value::Tuple) return false;
  for (auto &e : v.elems)
    if (holdsArrayLiteral(*e)) return true;
  return false;
}

void printSegments(AstLowering &L, ValueP v, std::vector<Param> &segs, std::vector<Atom> &ins,
                   SrcRange loc, bool top) {
  if (arrayLiteral(*v)) v = L.toArray(v, loc);
  auto str = [&](std::string s) {
    if (!segs.empty() && segs.back().kind == Param::Str)
      segs.back().s += s;
    else
      segs.push_back(Param::ofStr(std::move(s)));
  };
  switch (v->kind) {
  case Value::Str: str(top ? v->s : "'" + v->s + "'"); return;
  case Value::Array:
    if (v->atom.isLit && !ir::isFloat(v->atom.lit.dtype)) {
      // An integer or bool scalar prints the same as NumPy and Python print it.
      str(v->atom.lit.dtype == DType::Bool ? pyRepr(*Value::boolean(v->atom.lit.i))
                                           : pyRepr(*Value::integer(v->atom.lit.i)));
      return;
    }
    if (v->atom.isLit) {
      // A float scalar array (f32(2**40), f32(1.0 / 3.0)) prints as NumPy prints its
      // f32 value (1.0995116e+12, 0.33333334): the run-time formatter does that.
      Atom x = L.broadcast(v->atom, {});
      x = L.emit1(Op::Reshape, {x},
                  {{"new_sizes", Param::tuple({})}, {"dimensions", Param::none()}});
      segs.push_back(Param::of(int64_t(ins.size())));
      ins.push_back(x);
      return;
    }
    if (v->type().dtype == DType::Key) {
      // As JAX prints a key array: its shape, then the key words it overlays.
      std::string shape = "(";
      for (size_t k = 0; k < v->type().shape.size(); ++k)
        shape += (k ? ", " : "") + std::to_string(v->type().shape[k]);
      str("Array(" + shape + (v->type().shape.size() == 1 ? ",)" : ")") +
          ", dtype=key<fry>) overlaying:\n");
      segs.push_back(Param::of(int64_t(ins.size())));
      ins.push_back(L.emit1(Op::RandomUnwrap, {v->atom}));
      return;
    }
    segs.push_back(Param::of(int64_t(ins.size())));
    ins.push_back(v->atom);
    return;
  case Value::Rendered:
    segs.push_back(
        Param::tuple({Param::of(int64_t(ins.size())), Param::ofStr(v->s), Param::ofStr(v->s2)}));
    ins.push_back(v->atom);
    return;
  case Value::Tuple:
    if (v->isStatic() && !holdsArrayLiteral(*v)) {
      str(pyRepr(*v));
      return;
    }
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

/// print, render, assert_close, arg, device_count
void addHostBuiltins(Table &m) {
  // -- host --
  m["device_count"] = {{}, 0, [](AstLowering &L, Bound &, auto &, SrcRange) {
                         return Value::integer(L.opts.deviceCount);
                       }};
  m["arg"] = {{"name", "default"}, 2, [](AstLowering &L, Bound &a, auto &, SrcRange loc) -> ValueP {
                if (a[0].value->kind != Value::Str)
                  userError(a[0].loc, "arg() needs the argument's name as a string");
                if (L.opts.argsRead) L.opts.argsRead->insert(a[0].value->s);
                auto it = L.opts.args.find(a[0].value->s);
                ValueP d = a[1].value;
                if (it == L.opts.args.end()) return d;
                const std::string &s = it->second;
                try {
                  size_t used = 0;
                  switch (d->kind) {
                  case Value::Int: {
                    int64_t v = std::stoll(s, &used);
                    if (used == s.size()) return Value::integer(v);
                    break;
                  }
                  case Value::Float: {
                    double v = std::stod(s, &used);
                    if (used == s.size()) return Value::floating(v);
                    break;
                  }
                  case Value::Bool:
                    if (s == "true" || s == "1") return Value::boolean(true);
                    if (s == "false" || s == "0") return Value::boolean(false);
                    break;
                  case Value::Str: return Value::string(s);
                  default:
                    userError(a[1].loc, "arg() defaults must be a number, a bool or a string");
                  }
                } catch (const std::logic_error &) {}
                userError(loc, "--arg " + a[0].value->s + "=" + s + " is not a valid " +
                                   describe(*d) + " (the type of the default)");
              }};
  m["print"] = {{"*"}, 0, [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
                  if (L.inMapBody())
                    userError(loc, "print() is a host effect and cannot run inside pmap or vmap");
                  std::vector<Param> segs;
                  std::vector<Atom> ins;
                  for (size_t k = 0; k < a.rest.size(); ++k) {
                    if (k) {
                      if (!segs.empty() && segs.back().kind == Param::Str)
                        segs.back().s += " ";
                      else
                        segs.push_back(Param::ofStr(" "));
                    }
                    printSegments(L, a.rest[k].value, segs, ins, a.rest[k].loc, true);
                  }
                  L.emit(Op::Print, ins, {{"segments", Param::list(segs)}});
                  return Value::tuple({});
                }};
  m["render"] = {{"b", "on", "off"}, 3, [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
                   ValueP v = arr(L, a[0]);
                   if (v->type().dtype != DType::Bool)
                     userError(a[0].loc, "render() needs a bool array, not " + v->type().str());
                   if (a[1].value->kind != Value::Str || a[2].value->kind != Value::Str)
                     userError(loc,
                               "render() needs two strings: the characters for true and for false");
                   auto r = std::make_shared<Value>();
                   r->kind = Value::Rendered;
                   r->atom = v->atom.isLit ? L.broadcast(v->atom, {1}) : v->atom;
                   r->s = a[1].value->s;
                   r->s2 = a[2].value->s;
                   return ValueP(r);
                 }};
  m["assert_close"] = {
      {"a", "b", "rtol", "atol"}, 2, [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
        if (L.inMapBody())
          userError(loc, "assert_close() is a host effect and cannot run inside pmap or vmap");
        DType d;
        bool weak;
        // As numpy.testing.assert_allclose: the shapes must be the same, or one a scalar.
        ValueP v0 = L.toArray(a[0].value, a[0].loc), v1 = L.toArray(a[1].value, a[1].loc);
        const ir::Shape s0 = v0->type().shape, s1 = v1->type().shape;
        if (s0 != s1 && !s0.empty() && !s1.empty())
          userError(loc, "assert_close() needs arrays of the same shape (or a scalar), not " +
                             v0->type().str() + " and " + v1->type().str());
        auto xs = L.unify({v0, v1}, loc, &d, &weak, "assert_close");
        // Compared in the common dtype (ints exactly: the runtime reads every dtype as a
        // double), bools as numbers.
        DType cmp = d == DType::Bool ? DType::F32 : d;
        for (auto &x : xs) {
          x = L.castTo(x, cmp);
          if (x.isLit)
            x = L.emit1(Op::BroadcastInDim, {x},
                        {{"shape", Param::tuple({})}, {"broadcast_dimensions", Param::tuple({})}});
        }
        // A scalar is compared with every element (broadcasting the larger one to the
        // scalar's shape crashed: assert_close(zeros([3]), 0.0)).
        for (int k = 0; k < 2; ++k)
          if (xs[k].type().rank() == 0 && xs[1 - k].type().rank() != 0)
            xs[k] = L.broadcast(xs[k], xs[1 - k].type().shape);
        L.emit(Op::AssertClose, xs,
               {{"rtol", Param::ofFloat(floatStatic(L, a[2], 1e-5, "rtol"))},
                {"atol", Param::ofFloat(floatStatic(L, a[3], 1e-6, "atol"))},
                {"where", Param::ofStr(L.where(loc))}});
        return Value::tuple({});
      }};
}

}  // namespace spmd::sema::builtins
