// ===- test_lower.cpp - the lowering: calls, static-ness, control flow, host effects ===//
//
// Errors users hit when calling functions (arity, keywords, unknown names), values that
// must be static (slice bounds, shapes) and the IR that indexing, loops and conditionals
// lower to: a traced index becomes dynamic_slice, `for` a for_loop carrying its vars (not
// unrolled), a host-level `if` on a traced bool a cond.
#include "LowerTestUtil.h"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace spmd;
using namespace spmd::lowertest;

namespace {
/// How many equations with primitive `op` the whole module holds (regions included).
int count(const Compiled &c, ir::Op op) {
  int n = 0;
  ir::walk(c.module.main, [&](const ir::Eqn &e) { n += e.op == op; });
  return n;
}
}  // namespace

TEST_CASE("wrong number of arguments", "[lower][calls]") {
  CHECK(err("let a = exp(1.0, 2.0)") == "1:18: exp() takes at most 1 argument");
  CHECK(err("let a = where(true, 1.0)") == "1:9: where() is missing its argument 'b'");
  CHECK(err("let a = zeros()") == "1:9: zeros() is missing its argument 'shape'");
  CHECK(err("fn f(x, y) = x + y\nlet a = f(1.0)") == "2:9: 'f' takes 2 arguments but 1 was given");
  CHECK(err("fn f(x) = x\nlet a = f(1.0, 2.0)") == "2:9: 'f' takes 1 argument but 2 were given");
  CHECK(err("let a = (fn (x, y) = x)(1.0)") ==
        "1:10: the anonymous function takes 2 arguments but 1 was given");
}

TEST_CASE("keyword arguments", "[lower][calls]") {
  Compiled c = compile("let a = sum(zeros([3]), axes=0)");
  CHECK(c.error() == "1:25: sum() has no argument named 'axes'");
  CHECK(c.notes() == "its arguments are: x, axis, keepdims, dtype");
  CHECK(err("let a = sum(zeros([3]), axis=0, axis=0)") == "1:33: sum() got argument 'axis' twice");
  CHECK(err("fn f(x) = x\nlet a = f(x=1.0)") == "OK");
  CHECK(err("fn f(x) = x\nlet a = f(y=1.0)") == "2:11: 'f' has no parameter named 'y'");
  CHECK(err("fn f(x, y) = x\nlet a = f(1.0, x=1.0)") ==
        "2:16: 'f' got multiple values for argument 'x'");
  CHECK(err("fn f(x, y) = x\nlet a = f(y=1.0)") == "2:9: 'f' is missing its argument 'x'");
  CHECK(err("let a = sum(zeros([2, 3]), axis=0, true)") ==
        "1:36: positional argument follows keyword argument");
  CHECK(err("fn f(x, x) = x") == "1:9: duplicate argument 'x' in function definition");
  CHECK(err("let a = sum(zeros([2, 3]), keepdims=true, axis=1)") == "OK");
}

TEST_CASE("unknown names", "[lower][calls]") {
  CHECK(err("let a = frobnicate(3)") == "1:9: unknown name 'frobnicate'");
  CHECK(err("let y = 1.0 + foo") == "1:15: unknown name 'foo'");
  CHECK(err("let x = 1.0\nlet y = x(2)") ==
        "2:9: a static float is not a function and cannot be called");
}

TEST_CASE("slice bounds and shapes must be static", "[lower][static]") {
  CHECK(err("let i = sum(arange(3))\nlet x = arange(10)[0:i]") ==
        "2:22: a slice bound must be known at compile time, but this value (i32[]) is computed at "
        "run time");
  CHECK(err("let i = sum(arange(3))\nlet x = arange(10)[::i]") ==
        "2:22: a slice step must be known at compile time, but this value (i32[]) is computed at "
        "run time");
  // The error points at the list element that is not static.
  CHECK(err("let n = sum(arange(3))\nlet z = zeros([2, n])") ==
        "2:19: a shape must be known at compile time, but this value (i32[]) is computed at run "
        "time");
  CHECK(err("let n = sum(arange(3))\nlet z = reshape(arange(6), [n, 2])").rfind("2:29: ", 0) == 0);
  CHECK(err("let z = zeros([2, 1.5])") ==
        "1:19: a shape must be a static integer, not a static float");
  CHECK(err("let x = arange(10)[::0]") == "1:22: a slice step cannot be zero");
  CHECK(err("let x = arange(10)[10]") == "1:20: index 10 is out of range for axis 0 of size 10");
  CHECK(err("let x = arange(10)[0, 1]") == "1:23: too many indices for an array of type i32[10]");
}

TEST_CASE("static indexing lowers to slice, rev and reshape", "[lower][index]") {
  Compiled c =
      compile("let x = zeros([4, 5])\nlet y = x[:, 0]\nlet z = x[::-2]\nlet w = x[-1, 1:4:2]");
  REQUIRE(c.ok());
  std::string ir = c.ir();
  CHECK(has(ir, "slice[limit_indices=(4, 1) start_indices=(0, 0) strides=None]"));
  CHECK(has(ir, "rev[dimensions=(0,)]"));
  CHECK(has(ir, "slice[limit_indices=(4, 5) start_indices=(0, 0) strides=(2, 1)]"));
  CHECK(has(ir, "slice[limit_indices=(4, 4) start_indices=(3, 1) strides=(1, 2)]"));
  CHECK(c.module.main.eqns.back().out[0].type.str() == "f32[2]");
}

TEST_CASE("a traced index becomes dynamic_slice", "[lower][index]") {
  Compiled c = compile("let i = sum(arange(3))\nlet x = arange(10.0)[i]");
  REQUIRE(c.ok());
  CHECK(count(c, ir::Op::DynamicSlice) == 1);
  CHECK(has(c.ir(), "dynamic_slice[slice_sizes=(1,)]"));
  CHECK(c.module.main.eqns.back().out[0].type.str() == "f32[]");
  // Inside a pmap, axis_index picks this replica's row.
  c = compile("let t = arange(12.0)\nlet y = pmap i (v in zeros([4])) { t[axis_index(i)] + v }",
              {4});
  REQUIRE(c.ok());
  CHECK(count(c, ir::Op::DynamicSlice) == 1);
  CHECK(err("let x = arange(10.0)\nlet y = x[x[0]]") ==
        "2:12: an index must be an integer scalar, not f32[]");
}

TEST_CASE("for over a range is a for_loop carrying its vars", "[lower][loop]") {
  Compiled c = compile(
      "var s = zeros([3])\nvar k = 0\nfor t in 0..100 { s = s + f32(t); k = k + 1 }\nprint(s, k)");
  REQUIRE(c.ok());
  CHECK(count(c, ir::Op::ForLoop) == 1);
  CHECK(count(c, ir::Op::Add) == 2);  // not unrolled: one add per statement
  const ir::Eqn *loop = nullptr;
  for (auto &e : c.module.main.eqns)
    if (e.op == ir::Op::ForLoop) loop = &e;
  REQUIRE(loop);
  CHECK(loop->intParam("trip_count") == 100);
  REQUIRE(loop->out.size() == 2);  // the two carried vars
  std::vector<std::string> outs{loop->out[0].type.str(), loop->out[1].type.str()};
  std::sort(outs.begin(), outs.end());
  CHECK(outs == std::vector<std::string>{"f32[3]", "i32[]"});
  // A loop with a nonzero start offsets the index.
  c = compile("var s = 0\nfor t in 2..5 { s = s + t }");
  REQUIRE(c.ok());
  CHECK(has(c.ir(), "trip_count=3"));
  CHECK(has(c.ir(), "add b 2:i32[]"));
  // A loop over a static list is unrolled.
  c = compile("var s = 0.0\nfor t in [1.0, 2.0] { s = s + t }\nprint(s)");
  REQUIRE(c.ok());
  CHECK(count(c, ir::Op::ForLoop) == 0);
  CHECK(err("let i = sum(arange(3))\nfor t in 0..i { }") ==
        "2:13: a range bound must be known at compile time, but this value (i32[]) is computed at "
        "run time");
}

TEST_CASE("if on a traced bool at host level is a cond", "[lower][if]") {
  Compiled c = compile("var s = 1.0\nlet c = sum(arange(3)) > 2\nif c { s = s * 2.0 } else { s = s "
                       "- 1.0 }\nprint(s)");
  REQUIRE(c.ok());
  CHECK(count(c, ir::Op::Cond) == 1);
  CHECK(has(c.ir(), "branches=("));
  // A static condition picks one branch at compile time.
  c = compile("var s = 1.0\nif device_count() > 2 { s = s * 2.0 } else { s = s - 1.0 }\nprint(s)",
              {4});
  REQUIRE(c.ok());
  CHECK(count(c, ir::Op::Cond) == 0);
  CHECK(err("if arange(3) > 1 { }") ==
        "1:14: the condition of 'if' must be a bool scalar, not bool[3]");
}

TEST_CASE("if inside pmap on a traced value is an error", "[lower][if]") {
  Compiled c = compile("let y = pmap i (v in arange(4.0)) { if v > 1.0 { v } else { 0.0 } }", {4});
  CHECK(c.error() ==
        "1:42: inside pmap and vmap the condition of 'if' must be known at compile time");
  CHECK(has(c.notes(), "where(cond, a, b)"));
  // A static condition is fine there.
  CHECK(err("let y = pmap i (v in arange(4.0)) { if axis_size(i) > 2 { v } else { 0.0 } }", {4}) ==
        "OK");
}

TEST_CASE("recursion is rejected", "[lower][calls]") {
  CHECK(err("fn f(x) = f(x)\nlet a = f(1.0)") ==
        "1:11: recursive call of 'f': functions may not call themselves");
  CHECK(err("fn f(x) = f(x)") == "OK");  // never called: nothing to instantiate
}

TEST_CASE("grad needs a scalar function", "[lower][grad]") {
  CHECK(err("fn f(x) = x * 2.0\nprint(grad(f)(arange(3.0)))") ==
        "2:7: grad() needs a function that returns an f32 scalar, but it returns f32[3]");
  CHECK(err("fn f(x) = f32(sum(x))\nlet g = grad(f)(arange(3))") ==
        "2:17: grad() can only differentiate with respect to float arrays, but argument 0 has a "
        "leaf of dtype i32");
  // The argument first, as jax.grad checks its inputs before tracing f.
  CHECK(err("fn f(x) = sum(x)\nlet g = grad(f)(arange(3))") ==
        "2:17: grad() can only differentiate with respect to float arrays, but argument 0 has a "
        "leaf of dtype i32");
  CHECK(err("fn f(x) = i32(sum(x))\nlet g = grad(f)(arange(3.0))") ==
        "2:9: grad() needs a function that returns an f32 scalar, but it returns i32[]");
  CHECK(err("fn f(x) = sum(x * x)\nlet g = grad(f)(arange(3.0))") == "OK");
  CHECK(err("let g = grad(3)") == "1:14: grad() needs a function, not a static int");
}

TEST_CASE("host effects cannot run inside pmap or vmap", "[lower][host]") {
  CHECK(err("let y = pmap i (v in arange(4.0)) { print(v); v }", {4}) ==
        "1:37: print() is a host effect and cannot run inside pmap or vmap");
  CHECK(err("let y = vmap (v in arange(4.0)) { assert_close(v, v); v }") ==
        "1:35: assert_close() is a host effect and cannot run inside pmap or vmap");
}

// Note [Loop variables are not static]: a value computed from a range loop's variable
// where a static one is needed says that it is the loop variable (conf9b's prefix scan
// wrote JAX's unrolled `for r in range(3)` as a loop over a range).
TEST_CASE("a loop variable where a static value is needed names the loop", "[lower][for]") {
  Compiled c = compile("let y = pmap i (v in arange(8.0)) {\n"
                       "  var s = v\n"
                       "  for r in 0..3 {\n"
                       "    s = s + ppermute(s, i, [(j, j + 2 ** r) for j in 0..8 - 2 ** r])\n"
                       "  }\n"
                       "  s\n"
                       "}");
  CHECK(c.error() == "4:59: a range bound must be known at compile time, but this value "
                     "(i32[]) is computed at run time");
  REQUIRE(c.errors.size() == 1);
  REQUIRE(c.errors[0].notes.size() == 2);
  CHECK(c.errors[0].notes[0].first.line == 3);
  CHECK(c.errors[0].notes[0].first.col == 7);
  CHECK(has(c.notes(), "'r' is the variable of a loop over a range"));
  CHECK(has(c.notes(), "for r in [0, 1, 2]"));
  // The same program looping over a static list compiles (the loop is unrolled).
  CHECK(compile("let y = pmap i (v in arange(8.0)) {\n  var s = v\n  for r in [0, 1, 2] {\n"
                "    s = s + ppermute(s, i, [(j, j + 2 ** r) for j in 0..8 - 2 ** r])\n"
                "  }\n  s\n}")
            .ok());
  // A slice bound at host level, through a captured loop variable in a pmap body, and an
  // 'if' in a pmap body.
  Compiled d = compile("var a = 0.0\nfor t in 1..4 { a = a + sum(arange(10.0)[:t + 1]) }");
  CHECK(d.error().rfind("1:", 0) != 0);
  CHECK(has(d.notes(), "'t' is the variable of a loop over a range"));
  Compiled e = compile("for t in 0..2 { print(pmap i (v in ones([8, 4])) { v[:t] }) }");
  CHECK(has(e.notes(), "'t' is the variable of a loop over a range"));
  Compiled f = compile("let y = pmap i (v in arange(8.0)) {\n  var s = v\n"
                       "  for t in 0..3 { if t == 1 { s = s * 2.0 } }\n  s\n}");
  CHECK(has(f.notes(), "'t' is the variable of a loop over a range"));
  CHECK(has(f.notes(), "where(cond, a, b)"));
  // A run-time value not from a loop gets no such note.
  Compiled g = compile("let n = i32(sum(arange(3.0)))\nprint(zeros([n]))");
  CHECK(g.error() == "2:14: a shape must be known at compile time, but this value (i32[]) is "
                     "computed at run time");
  CHECK(g.notes().empty());
}
