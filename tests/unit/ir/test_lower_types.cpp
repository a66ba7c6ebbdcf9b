// ===- test_lower_types.cpp - the type checker: dtypes, shapes, static values -----===//
//
// JAX's dtype promotion with weak literals, NumPy broadcasting, static integers (folded
// at compile time, printed as Python prints them), functions generic over shapes, typed
// parameters, tuples and patterns, and var/let rules. Each test compiles a small source
// through parse -> checkAxes -> lowerProgram -> verify (LowerTestUtil.h).
#include "LowerTestUtil.h"

#include <catch2/catch.hpp>

using namespace spmd;
using namespace spmd::lowertest;

namespace {

/// The type of the last equation's first result in `main` ("ERROR ..." when it fails).
std::string lastType(const std::string &src, const Opts &o = {}) {
  Compiled c = compile(src, o);
  if (!c.ok()) return "ERROR " + c.error();
  if (c.module.main.eqns.empty() || c.module.main.eqns.back().out.empty()) return "no result";
  return c.module.main.eqns.back().out[0].type.str();
}

/// The static text that `print(EXPR)` bakes into the IR (static values print at compile
/// time as Python would): the `segments` param of the last print.
std::string printed(const std::string &src, const Opts &o = {}) {
  Compiled c = compile(src, o);
  if (!c.ok()) return "ERROR " + c.error();
  for (auto it = c.module.main.eqns.rbegin(); it != c.module.main.eqns.rend(); ++it)
    if (it->op == ir::Op::Print) {
      std::string s;
      for (auto &p : it->param("segments").elems)
        s += p.kind == ir::Param::Str ? p.s : "<" + p.str() + ">";
      return s;
    }
  return "no print";
}

}  // namespace

TEST_CASE("weak literals keep the dtype of the array", "[lower][dtype]") {
  CHECK(lastType("let x = zeros([3])\nlet y = x * 2") == "f32[3]");
  CHECK(lastType("let x = zeros([3])\nlet y = 2.5 - x") == "f32[3]");
  CHECK(lastType("let x = arange(3)\nlet y = x * 2") == "i32[3]");
  CHECK(lastType("let x = u32(arange(3))\nlet y = x + 1") == "u32[3]");
  // The literal is not converted into an array: it stays a scalar operand.
  CHECK(has(irOf("let x = zeros([3])\nlet y = x * 2"), "mul a 2.0:f32[]"));
}

TEST_CASE("dtype promotion follows JAX", "[lower][dtype]") {
  CHECK(lastType("let y = arange(4) / arange(4)") == "f32[4]");  // true division of ints
  CHECK(lastType("let y = arange(4) + 1.0") == "f32[4]");        // weak float lifts ints
  CHECK(lastType("let y = arange(4) // 2") == "i32[4]");
  CHECK(lastType("let y = u32(arange(4)) + arange(4)") == "i32[4]");  // u32 with i32
  CHECK(lastType("let y = ones([2], bool) + 1") == "i32[2]");         // bool + int
  CHECK(lastType("let y = ones([2], bool) & ones([2], bool)") == "bool[2]");
  CHECK(lastType("let y = arange(3) < 2") == "bool[3]");
  CHECK(lastType("let y = f32(arange(3)) * arange(3)") == "f32[3]");
  // A strong f32 scalar array with an i32 array gives f32.
  CHECK(lastType("let s = sum(ones([2]))\nlet y = arange(3) * s") == "f32[3]");
}

TEST_CASE("operator type errors", "[lower][dtype]") {
  CHECK(err("let y = zeros([2]) & zeros([2])") == "1:20: '&' needs integers or bools, not f32[2]");
  CHECK(err("let y = arange(2) and arange(2)") ==
        "1:19: 'and' needs bools; use '&' and '|' for bitwise operations on integers");
  CHECK(err("let y = -ones([2], bool)") == "1:9: cannot negate a bool array; use 'not'");
  CHECK(err("let y = key(0) + 1") == "1:16: keys cannot be used in '+'");
}

TEST_CASE("NumPy broadcasting", "[lower][shape]") {
  CHECK(lastType("let y = zeros([4, 1]) + zeros([3])") == "f32[4,3]");
  CHECK(lastType("let y = zeros([2, 1, 3]) * zeros([5, 1])") == "f32[2,5,3]");
  CHECK(lastType("let y = zeros([3]) + sum(zeros([2]))") == "f32[3]");
  CHECK(err("let a = zeros([3]) + zeros([4])") ==
        "1:20: incompatible shapes for '+': f32[3] and f32[4]");
  CHECK(err("let a = zeros([2, 3])\nlet b = a * zeros([2])") ==
        "2:11: incompatible shapes for '*': f32[2,3] and f32[2]");
  CHECK(err("let a = where(arange(3) > 0, zeros([3]), zeros([4]))").find("f32[3] and f32[4]") !=
        std::string::npos);
}

TEST_CASE("static integers are folded and print as Python", "[lower][static]") {
  CHECK(printed("print(2 + 3 * 4, 7 // 2, -7 // 2, -7 % 3, 2 ** 10, 7 / 2)") ==
        "14 3 -4 2 1024 3.5");
  CHECK(printed("print(1 + true, 3 == 3.0, not true, 1 < 2 and 2 < 3)") == "2 True False True");
  CHECK(printed("print(device_count())", {4}) == "4");
  CHECK(printed("print(device_count() * 2)", {3}) == "6");
  CHECK(printed("let x = zeros([8, 2, 4])\nprint(shape(x), shape(x)[1], len(x), size(x))") ==
        "(8, 2, 4) 2 8 64");
  CHECK(printed("print((10000,), (1, (2.5, true)), [1, 2])") == "(10000,) (1, (2.5, True)) [1, 2]");
  CHECK(printed("print(0..4, len(2..7))") == "[0, 1, 2, 3] 5");
  CHECK(printed("let n = 3\nprint([(j, (j + 1) % n) for j in 0..n])") ==
        "[(0, 1), (1, 2), (2, 0)]");
  CHECK(printed("print([j * j for j in [1, 2, 3]])") == "[1, 4, 9]");
  // axis_size is static inside the block: it can size an array.
  CHECK(lastType("let y = pmap i (v in zeros([4])) { zeros([axis_size(i), 2]) + v }", {4}) ==
        "f32[4,4,2]");
  // Static shapes feed creation functions.
  CHECK(lastType("let x = zeros([3, 5])\nlet y = zeros([shape(x)[1] * 2, len(x)])") == "f32[10,3]");
  CHECK(err("let a = 1 // 0") == "1:11: division by zero in a static expression");
}

TEST_CASE("arg() reads --arg values of the default's type", "[lower][static]") {
  const char *src = "print(arg(\"n\", 3), arg(\"f\", 1.5), arg(\"b\", true), arg(\"s\", \"hi\"))";
  CHECK(printed(src) == "3 1.5 True hi");
  CHECK(printed(src, {8, {{"n", "7"}, {"f", "2.5"}, {"b", "false"}, {"s", "yo"}}}) ==
        "7 2.5 False yo");
  CHECK(printed(src, {8, {{"n", "-2"}, {"f", "3"}, {"b", "1"}}}) == "-2 3.0 True hi");
  // An arg is a static int: it can size arrays.
  CHECK(lastType("let y = zeros([arg(\"n\", 2)])", {8, {{"n", "5"}}}) == "f32[5]");
  CHECK(err("let n = arg(\"n\", 3)", {8, {{"n", "abc"}}}) ==
        "1:9: --arg n=abc is not a valid static int (the type of the default)");
  CHECK(err("let n = arg(\"n\", 3)", {8, {{"n", "2.5"}}}) ==
        "1:9: --arg n=2.5 is not a valid static int (the type of the default)");
  CHECK(err("let b = arg(\"b\", false)", {8, {{"b", "yes"}}}) ==
        "1:9: --arg b=yes is not a valid static bool (the type of the default)");
  CHECK(err("let n = arg(3, 3)") == "1:13: arg() needs the argument's name as a string");
}

TEST_CASE("functions are generic over shapes and dtypes", "[lower][fn]") {
  std::string ir = irOf("fn f(x) = x + x\nlet a = f(zeros([3]))\nlet b = f(ones([2, 2], i32))");
  CHECK(has(ir, ":f32[3] = add"));
  CHECK(has(ir, ":i32[2,2] = add"));
  // A function returning a tuple; a lambda passed to tree_map.
  CHECK(lastType("fn two(x) = (x, x * 2)\nlet (p, q) = two(arange(3))\nlet r = p + q") == "i32[3]");
}

TEST_CASE("typed parameters bind sizes and check them", "[lower][fn]") {
  const char *affine = "fn affine(w: f32[n, m], x: f32[m]) -> f32[n] { w @ x }\n";
  CHECK(lastType(std::string(affine) + "let r = affine(zeros([2, 3]), zeros([3]))") == "f32[2]");
  // The size names are static ints in the body.
  CHECK(lastType("fn f(w: f32[n, m]) = zeros([m, n])\nlet r = f(zeros([2, 3]))") == "f32[3,2]");
  Compiled c = compile(std::string(affine) + "let r = affine(zeros([2, 3]), zeros([4]))");
  CHECK(c.error() == "2:31: size 'm' is 3 from an earlier argument but 4 here");
  CHECK(c.notes() == "declared here");
  REQUIRE(!c.errors.empty());
  CHECK(c.errors[0].notes.at(0).first.line == 1);
  CHECK(c.errors[0].notes.at(0).first.col == 28);
  CHECK(err(std::string(affine) + "let r = affine(zeros([2, 3]), arange(3))") ==
        "2:31: argument 'x' of 'affine' must be f32 but is i32[3]");
  CHECK(err(std::string(affine) + "let r = affine(zeros([3]), zeros([3]))") ==
        "2:16: argument 'w' of 'affine' must have rank 2 but is f32[3]");
  CHECK(err("fn g(x: f32[3]) = x\nlet r = g(zeros([4]))") ==
        "2:11: argument 'x' of 'g' has size 4 in dimension 0 but 3 is declared");
  CHECK(err("fn g(x) -> i32 { x }\nlet r = g(zeros([4]))") == "1:12: 'g' returns f32[4], not i32");
}

TEST_CASE("tuples and patterns", "[lower][tuple]") {
  CHECK(printed("let (a, (b, _)) = (1, (2.5, 3))\nlet t = (a, b)\nprint(t, t[1], t[-1], len(t))") ==
        "(1, 2.5) 2.5 2.5 2");
  CHECK(printed("let t = (1, 2, 3, 4)\nprint(t[1:3], t[::2])") == "(2, 3) (1, 3)");
  CHECK(err("let (p, q) = (1, 2, 3)") == "1:5: this pattern has 2 elements but the value has 3");
  CHECK(err("let (p, q) = zeros([2])") == "1:5: cannot destructure a f32[2] into a tuple of 2");
  CHECK(err("let t = (1, 2)\nlet x = t[2]") == "2:11: index 2 is out of range for a tuple of 2");
  // A pmap over a tuple maps every leaf; the pattern destructures the slices.
  CHECK(lastType("let y = pmap i ((a, b) in (arange(4.0), arange(4))) { a + f32(b) }", {4}) ==
        "f32[4]");
}

TEST_CASE("var reassignment and let", "[lower][var]") {
  CHECK(lastType("var s = zeros([3])\ns = s + 1.0\ns = s * s") == "f32[3]");
  CHECK(err("var s = zeros([3])\ns = zeros([4])") ==
        "2:5: cannot assign a value of type f32[4] to 's', a var of type f32[3]");
  CHECK(err("var s = zeros([3])\ns = arange(3)") ==
        "2:5: cannot assign a value of type i32[3] to 's', a var of type f32[3]");
  Compiled c = compile("let s = 1\ns = 2");
  CHECK(c.error() == "2:1: cannot assign to 's': it was bound with 'let'");
  CHECK(c.notes() == "declare it with 'var' to make it mutable");
  CHECK(err("t = 2") == "1:1: assignment to 't', which is not declared (use 'var t = ...')");
  // A later let shadows.
  CHECK(lastType("let x = zeros([2])\nlet x = arange(5)\nlet y = x + 1") == "i32[5]");
}
