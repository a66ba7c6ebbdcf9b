// ===- test_inplace.cpp - ir::canWriteOver, the body half of buffer donation ---===//
//
// Note [Buffer donation] in compiler/ir/InPlace.cpp: a pmap body may write its output
// over an input only when every read of that input comes first, or reads the element
// being written.
#include "ir/IR.h"
#include "ir/InPlace.h"

#include <catch2/catch.hpp>

using namespace spmd::ir;

namespace {

struct Body {
  Module m;
  Jaxpr j;
  Builder b{m, j};
  Var x = m.newVar(Type{DType::F32, {4, 4}});
  Body() { j.invars = {x}; }
  bool over(std::vector<Atom> outs) {
    j.outvars = outs;
    return canWriteOver(j, x, outs.at(0));
  }
};

}  // namespace

TEST_CASE("an elementwise write over x after its reductions may donate", "[ir][donation]") {
  Body t;
  Var s = t.b.reduce(Op::ReduceSum, t.x, {0, 1});
  Var bs = t.b.broadcastInDim(s, {4, 4}, {});
  Var y = t.b.binary(Op::Div, t.x, bs);
  CHECK(t.over({y}));
}

TEST_CASE("a chain of elementwise ops of x may donate", "[ir][donation]") {
  Body t;
  Var a = t.b.binary(Op::Mul, t.x, t.b.lit(DType::F32, 2.0));
  Var y = t.b.unary(Op::Exp, a);
  CHECK(t.over({y}));
}

TEST_CASE("a transpose of x read by the write refuses", "[ir][donation]") {
  Body t;
  Var tr = t.b.transpose(t.x, {1, 0});
  Var y = t.b.binary(Op::Add, t.x, tr);
  CHECK_FALSE(t.over({y}));
  Body u;  // also through an elementwise value of the transpose
  Var tr2 = u.b.transpose(u.x, {1, 0});
  Var e = u.b.unary(Op::Exp, tr2);
  CHECK_FALSE(u.over({u.b.binary(Op::Add, u.x, e)}));
}

TEST_CASE("a read of x after the write refuses", "[ir][donation]") {
  Body t;
  Var y = t.b.binary(Op::Mul, t.x, t.x);
  Var z = t.b.reduce(Op::ReduceSum, t.x, {0, 1});
  CHECK_FALSE(t.over({y, z}));
  Body u;  // a value of x defined before the write but returned as another output
  Var a = u.b.binary(Op::Mul, u.x, u.b.lit(DType::F32, 3.0));
  Var y2 = u.b.unary(Op::Exp, u.x);
  CHECK_FALSE(u.over({y2, a}));
}

TEST_CASE("a write that is not elementwise, or of another type, refuses", "[ir][donation]") {
  Body t;
  Var r = t.b.reshape(t.b.unary(Op::Exp, t.x), {4, 4});
  CHECK_FALSE(t.over({r}));
  Body u;
  Var c = u.b.convert(u.x, DType::I32);
  CHECK_FALSE(u.over({c}));
  Body v;  // the input itself
  CHECK_FALSE(v.over({v.x}));
}
