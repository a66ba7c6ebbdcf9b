// ===- test_fma.cpp - the fma primitive: type rule, one rounding, vmap, grad ---===//
//
// fma(a, b, c) = a * b + c rounded once (uniform's scaling uses it to match XLA's
// fused multiply-add bit for bit, docs/prng.md). Checked here: its type rule and printed
// name, that the reference interpreter rounds once (a case where mul then add differ),
// the vmap property with random in-axes and scalar operands, and its VJP (first and
// second order) against finite differences.
#include "VmapTestUtil.h"
#include "grad_util.h"
#include "transforms/Grad.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace spmd;
using namespace spmd::ir;

namespace {

Type f32(Shape s) { return {DType::F32, std::move(s)}; }

/// fma's result type for operands of these types.
Type fmaType(const std::vector<Type> &ins) { return inferTypes(Op::Fma, ins, {}, {}).at(0); }

}  // namespace

TEST_CASE("fma: type rule, printed name, operand checks", "[fma]") {
  REQUIRE(std::string(name(Op::Fma)) == "fma");
  REQUIRE(info(Op::Fma).arity == 3);
  REQUIRE(fmaType({f32({2, 3}), f32({}), f32({2, 3})}) == f32({2, 3}));
  REQUIRE(fmaType({f32({}), f32({}), f32({})}) == f32({}));
  REQUIRE(fmaType({Type{DType::F64, {4}}, Type{DType::F64, {}}, Type{DType::F64, {}}}) ==
          Type{DType::F64, {4}});
  REQUIRE_THROWS_AS(fmaType({f32({2}), f32({3}), f32({2})}), InternalError);
  REQUIRE_THROWS_AS(fmaType({f32({2}), Type{DType::F64, {2}}, f32({2})}), InternalError);
  REQUIRE_THROWS_AS(fmaType({Type{DType::I32, {2}}, Type{DType::I32, {2}}, Type{DType::I32, {2}}}),
                    InternalError);
  Module m;
  Jaxpr j;
  j.invars = {m.newVar(f32({3})), m.newVar(f32({}))};
  Builder b(m, j);
  j.outvars.push_back(b.emit1(Op::Fma, {j.invars[0], j.invars[1], b.lit(DType::F32, 0.5)}));
  REQUIRE(print(j).find("fma ") != std::string::npos);
}

TEST_CASE("fma: the reference interpreter rounds once", "[fma]") {
  // a * b = 1 - 2^-46 exactly; rounded to f32 it is 1, so mul then add gives 0 while
  // fma gives -2^-46.
  float a = 1.0f + 0x1p-23f, bb = 1.0f - 0x1p-23f, c = -1.0f;
  Module m;
  Jaxpr j;
  for (int k = 0; k < 3; ++k) j.invars.push_back(m.newVar(f32({2})));
  Builder b(m, j);
  j.outvars.push_back(b.emit1(Op::Fma, {j.invars[0], j.invars[1], j.invars[2]}));
  j.outvars.push_back(b.binary(Op::Add, b.binary(Op::Mul, j.invars[0], j.invars[1]), j.invars[2]));
  auto arr = [](double x, double y) { return testing::Arr{DType::F32, {2}, {x, y}}; };
  auto out = testing::refEval(j, {arr(a, 3), arr(bb, 0.5), arr(c, 0.25)});
  REQUIRE(out[0].v[0] == -0x1p-46);
  REQUIRE(out[1].v[0] == 0.0);
  REQUIRE(out[0].v[1] == 1.75);
  REQUIRE(out[1].v[1] == 1.75);
}

TEST_CASE("fma: vmap with random in-axes, scalars and literals", "[fma][vmap]") {
  std::mt19937 rng(20260512);
  for (int t = 0; t < 12; ++t) {
    Shape s = testing::randomShape(rng);
    // Each operand is independently an array of the example shape or a scalar.
    std::vector<Type> ex;
    for (int k = 0; k < 3; ++k) ex.push_back(f32(rng() % 3 == 0 ? Shape{} : s));
    int64_t n = 1 + int64_t(rng() % 4);
    std::vector<Type> outer;
    std::vector<int> axes;
    for (auto &e : ex) {
      int ax = testing::randomInAxis(rng, e.rank());
      axes.push_back(ax);
      outer.push_back(testing::stackedType(e.dtype, e.shape, ax, n));
    }
    Module m;
    Jaxpr j = testing::vmapped(
        m, outer, axes, n, "v",
        [&](Builder &b, const std::vector<Var> &v) {
          Var y = b.emit1(Op::Fma, {v[0], v[1], v[2]});
          Var z = b.emit1(Op::Fma, {v[0], b.lit(DType::F32, 3.5), b.lit(DType::F32, -1)});
          return std::vector<Atom>{y, z};
        },
        rng);
    Jaxpr batched = testing::checkVmap(m, j, rng);
    int fmas = 0;
    for (auto &e : batched.eqns) fmas += e.op == Op::Fma;
    REQUIRE(fmas == 2);
  }
}

TEST_CASE("fma: VJP matches finite differences, first and second order", "[fma][grad]") {
  std::mt19937 rng(5);
  // A scalar operand exercises unbroadcast; the body is nonlinear so that the second
  // order gradient is not trivially zero.
  for (Shape cs : {Shape{3, 4}, Shape{}}) {
    Module m;
    Jaxpr f;
    for (auto &t : {f32({3, 4}), f32({3, 4}), f32(cs)}) f.invars.push_back(m.newVar(t));
    Builder b(m, f);
    Var y = b.emit1(Op::Fma, {b.unary(Op::Sin, f.invars[0]), f.invars[1], f.invars[2]});
    gradtest::weightedSum(m, f, b.binary(Op::Mul, y, y));
    std::vector<gradtest::Arr> args;
    for (auto &v : f.invars) args.push_back(gradtest::randomValue(rng, v.type, -2, 2));
    gradtest::checkGradient(m, f, {0, 1, 2}, args);
    bool emitsFma = false;
    for (auto &e : f.eqns) emitsFma |= e.op == Op::Fma;
    REQUIRE(emitsFma);
    // Second order: differentiate sum(d f / d a * w2) again, w.r.t. all three.
    Jaxpr f2 = transforms::valueAndGrad(m, f, {0}, SrcRange{});
    Atom d = f2.outvars[1];
    gradtest::weightedSum(m, f2, d);
    args.push_back(gradtest::randomValue(rng, f2.invars.back().type, -1, 1));
    gradtest::checkGradient(m, f2, {0, 1, 2}, args, 1e-5);
  }
}
