// ===- test_refeval.cpp - the reference interpreter itself, on known answers -----===//
//
// The vmap and grad tests trust RefEval; these pin down its replica model (Note
// [Replicas] in RefEval.cpp) and its two precisions with answers worked out by hand.
#include "VmapTestUtil.h"

#include <catch2/catch.hpp>

using namespace spmd;
using namespace spmd::ir;
using namespace spmd::testing;

namespace {

Type f32(Shape s) { return {DType::F32, std::move(s)}; }
using Vars = std::vector<Var>;
using Atoms = std::vector<Atom>;

}  // namespace

TEST_CASE("RefEval: collectives group the replicas of a pmap nest", "[refeval]") {
  // pmap i (2) { pmap j (3) { (psum(x, i), psum(x, (i, j)), axis_index((i, j))) } } over
  // x[i, j] = 10 i + j: a psum over i sums each column, over (i, j) everything.
  std::mt19937 rng(1);
  Module m;
  Jaxpr top;
  top.invars = {m.newVar(f32({2, 3}))};
  Builder b(m, top);
  auto inner = [&](Builder &bi, const Vars &u) {
    auto body = [&](Builder &bj, const Vars &v) {
      Var one = bj.emit1(Op::Psum, {v[0]}, {{"axes", Param::tuple({Param::ofStr("i")})}});
      Var all = bj.emit1(Op::Psum, {v[0]},
                         {{"axes", Param::tuple({Param::ofStr("i"), Param::ofStr("j")})}});
      Var idx = bj.emit1(Op::AxisIndex, {},
                         {{"axis_name", Param::tuple({Param::ofStr("i"), Param::ofStr("j")})}});
      return Atoms{one, all, idx};
    };
    auto r = emitMap(bi, Op::Pmap, {u[0]}, {0}, 3, "j", body, {0, 0, 0}, rng);
    return Atoms(r.begin(), r.end());
  };
  auto outs = emitMap(b, Op::Pmap, {top.invars[0]}, {0}, 2, "i", inner, {0, 0, 0}, rng);
  top.outvars = Atoms(outs.begin(), outs.end());
  auto got = refEval(top, {Arr{DType::F32, {2, 3}, {0, 1, 2, 10, 11, 12}}});
  REQUIRE(got.size() == 3);
  CHECK(got[0].v == std::vector<double>{10, 12, 14, 10, 12, 14});
  CHECK(got[1].v == std::vector<double>(6, 36));
  CHECK(got[2].dtype == DType::I32);
  CHECK(got[2].v == std::vector<double>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("RefEval: Declared rounds floats to their dtype, Float64 does not", "[refeval]") {
  Module m;
  Jaxpr j;
  j.invars = {m.newVar(f32({})), m.newVar(f32({}))};
  Builder b(m, j);
  j.outvars = {b.binary(Op::Div, j.invars[0], j.invars[1])};
  std::vector<Arr> ins{Arr{DType::F32, {}, {1}}, Arr{DType::F32, {}, {3}}};
  CHECK(refEval(j, ins)[0].v[0] == double(1.0f / 3.0f));
  CHECK(refEval(j, ins, {Precision::Float64})[0].v[0] == 1.0 / 3.0);
  CHECK(1.0 / 3.0 != double(1.0f / 3.0f));
}

TEST_CASE("RefEval: a cond whose examples disagree runs both branches on every example",
          "[refeval]") {
  // vmap i (4) { if p { psum(x, i) } else { -x } }: as JAX's vmap of cond (a select), the
  // psum in the true branch sums over all four examples, the false ones included.
  std::mt19937 rng(2);
  Module m;
  Jaxpr top;
  top.invars = {m.newVar(f32({4})), m.newVar(Type{DType::Bool, {4}})};
  Builder b(m, top);
  auto body = [&](Builder &bb, const Vars &v) {
    Jaxpr br[2];
    for (int k = 0; k < 2; ++k) {
      br[k].invars = {m.newVar(f32({}))};
      Builder rb(m, br[k]);
      Atom x = br[k].invars[0];
      br[k].outvars = {
          k ? Atom(rb.emit1(Op::Psum, {x}, {{"axes", Param::tuple({Param::ofStr("i")})}}))
            : Atom(rb.unary(Op::Neg, x))};
    }
    auto r = bb.emit(Op::Cond, {v[1], v[0]}, {}, {std::move(br[0]), std::move(br[1])});
    return Atoms(r.begin(), r.end());
  };
  auto outs = emitMap(b, Op::Vmap, {top.invars[0], top.invars[1]}, {0, 0}, 4, "i", body, {0}, rng);
  top.outvars = {outs[0]};
  Arr x{DType::F32, {4}, {1, 2, 3, 4}};
  CHECK(refEval(top, {x, Arr{DType::Bool, {4}, {1, 0, 1, 0}}})[0].v ==
        std::vector<double>{10, -2, 10, -4});
  // All agree: only the branch taken runs, and its psum still sees every example.
  CHECK(refEval(top, {x, Arr{DType::Bool, {4}, {1, 1, 1, 1}}})[0].v == std::vector<double>(4, 10));
  CHECK(refEval(top, {x, Arr{DType::Bool, {4}, {0, 0, 0, 0}}})[0].v ==
        std::vector<double>{-1, -2, -3, -4});
}
