// ===- test_lower_axes.cpp - named axes: scoping, axis parameters, device counts -===//
//
// The axis environment of Note [Axis scoping] (AxisCheck.h): closures inside a pmap see
// its axis, a function's axis parameters bind in its body, and every misuse is a
// compile-time error at the axis name (all of them reported in one run). Then the pmap
// device-count check, with its note naming --devices.
#include "LowerTestUtil.h"

#include <catch2/catch.hpp>

using namespace spmd;
using namespace spmd::lowertest;

TEST_CASE("closures and lambdas inside a pmap see its axis", "[lower][axes]") {
  Compiled c = compile("let y = pmap i (v in arange(4.0)) {\n"
                       "  fn scaled(z) = z * axis_size(i)\n"
                       "  let g = fn (z) = z / psum(z, i)\n"
                       "  g(scaled(v))\n"
                       "}",
                       {4});
  REQUIRE(c.ok());
  CHECK(has(c.ir(), "psum[axes=('i',)"));
  CHECK(has(c.ir(), "mul c 4.0:f32[]"));
}

TEST_CASE("a function's axis parameters bind in its body", "[lower][axes]") {
  std::string ir = irOf("fn norm[a](x) = x / psum(x, a)\n"
                        "let y = pmap rows (v in ones([4, 2])) { norm[rows](v) }",
                        {4});
  CHECK(has(ir, "psum[axes=('rows',)"));
  // Two axis parameters, passed a nest's axes, and a tuple of axes in a collective.
  ir = irOf("fn tot[a, b](x) = psum(x, (a, b))\n"
            "let y = pmap r (u in ones([2, 2])) { pmap c (v in u) { tot[r, c](v) } }",
            {4});
  CHECK(has(ir, "psum[axes=('r', 'c')"));
  CHECK(err("fn norm[a](x) = x / psum(x, a)\nlet y = pmap i (v in arange(4.0)) { norm(v) }", {4}) ==
        "2:37: 'norm' takes 1 axis argument ([a...]) but 0 were given");
  CHECK(err("fn norm(x) = x\nlet y = pmap i (v in arange(4.0)) { norm[i](v) }", {4}) ==
        "2:37: 'norm' takes no axis arguments");
  CHECK(err("let y = pmap i (v in arange(4.0)) { exp[i](v) }", {4}) ==
        "1:37: exp() takes no axis arguments in [ ]");
}

TEST_CASE("an unbound axis is an error that lists the axes in scope", "[lower][axes]") {
  Compiled c = compile("let y = pmap i (x in arange(4.0)) { x / psum(x, j) }", {4});
  CHECK(c.error() == "1:49: axis 'j' is not bound here");
  CHECK(c.notes() == "axes in scope: i");
  c = compile("let y = pmap r (u in ones([2, 2])) { pmap c (v in u) { axis_index(k) } }", {4});
  CHECK(c.error() == "1:67: axis 'k' is not bound here");
  CHECK(c.notes() == "axes in scope: r, c");
  // Axis names are lexical: a function defined outside the block does not see it,
  // whether or not it is ever called.
  c = compile("fn f(x) = psum(x, i)\nlet y = pmap i (x in arange(4.0)) { x }", {4});
  CHECK(c.error() == "1:19: axis 'i' is not bound here");
  CHECK(has(c.notes(), "no axes are in scope here"));
  // f[i](x) must pass axes bound at the call site.
  CHECK(err("fn f[a](x) = psum(x, a)\nlet y = f[i](1.0)") == "2:11: axis 'i' is not bound here");
}

TEST_CASE("a collective outside any block is an axis error", "[lower][axes]") {
  Compiled c = compile("let x = psum(zeros([3]), i)");
  CHECK(c.error() == "1:26: axis 'i' is not bound here");
  CHECK(has(c.notes(), "no axes are in scope here"));
  CHECK(err("let x = axis_index(i)") == "1:20: axis 'i' is not bound here");
}

TEST_CASE("rebinding an axis in scope is an error", "[lower][axes]") {
  Compiled c = compile("let x = pmap i (v in zeros([4, 2])) { pmap i (w in v) { w } }", {8});
  CHECK(c.error() == "1:44: axis 'i' is already bound by an enclosing block");
  CHECK(c.notes() == "the enclosing binding is here");
  CHECK(c.errors[0].notes.at(0).first.col == 14);
  // An axis parameter may not reuse a block's axis either.
  CHECK(err("let x = pmap i (v in zeros([4])) { fn f[i](z) = z; v }", {4}) ==
        "1:41: axis 'i' is already bound by an enclosing block");
  // Axis names and variables live in separate namespaces.
  CHECK(err("let i = 3\nlet x = pmap i (v in zeros([4])) { v * i }", {4}) == "OK");
  CHECK(err("let x = pmap i (v in zeros([4])) { v * i }", {4}) ==
        "1:40: 'i' is an axis name, not a value; use axis_index(i) for this replica's index");
}

TEST_CASE("all axis errors of a program are reported in one run", "[lower][axes]") {
  Compiled c = compile("let x = pmap i (v in zeros([4])) { psum(v, j) + psum(v, k) }\n"
                       "let y = pmap i (v in zeros([4])) { pmap i (w in zeros([2])) { w } }\n"
                       "let z = pmax(1.0, q)",
                       {8});
  REQUIRE(c.errors.size() == 4);
  CHECK(c.error(0) == "1:44: axis 'j' is not bound here");
  CHECK(c.error(1) == "1:57: axis 'k' is not bound here");
  CHECK(c.error(2) == "2:41: axis 'i' is already bound by an enclosing block");
  CHECK(c.error(3) == "3:19: axis 'q' is not bound here");
}

TEST_CASE("a pmap needs as many devices as its nest", "[lower][devices]") {
  Compiled c = compile("let y = pmap i (x in arange(10.0)) { x * 2.0 }", {8});
  CHECK(c.error() == "1:9: pmap over axis 'i' needs 10 devices, but only 8 are available");
  CHECK(has(c.notes(), "--devices"));
  c = compile("let y = pmap rows (r in ones([3, 4])) {\n  pmap cols (x in r) { x }\n}", {8});
  CHECK(c.error() == "2:3: pmap over axis 'cols' needs 12 devices, but only 8 are available");
  CHECK(has(c.notes(), "N >= 12"));
  CHECK(err("let y = pmap rows (r in ones([2, 4])) { pmap cols (x in r) { x } }", {8}) == "OK");
  // vmap uses no devices: a vmap inside a pmap does not multiply the count.
  CHECK(err("let y = pmap rows (r in ones([8, 100])) { vmap (x in r) { x } }", {8}) == "OK");
  CHECK(err("let y = pmap i (a in arange(4.0), b in arange(5.0)) { a + b }", {8}) ==
        "1:40: mapped inputs disagree on the size of the mapped axis: 4 and 5");
}

TEST_CASE("collective argument errors", "[lower][axes]") {
  CHECK(has(err("let y = pmap i (x in arange(4.0)) { ppermute(x, i, [(0, 0), (1, 0)]) }", {4}),
            "1:52: invalid permutation: destination 0 appears twice"));
  CHECK(has(err("let y = pmap i (x in arange(4.0)) { ppermute(x, i, [(0, 4)]) }", {4}),
            "1:52: invalid permutation: index 4 is out of range"));
  CHECK(err("let y = pmap i (x in arange(4.0)) { psum(x, 3) }", {4}) ==
        "1:45: expected an axis name or a tuple of axis names");
}
