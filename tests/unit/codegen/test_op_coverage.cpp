// ===- test_op_coverage.cpp - every primitive of Ops.def has all its rules -----===//
//
// Walks ir/Ops.def and checks, for each op, that every per-op table has an entry: the
// type rule (inferTypes), the batching rule (vmap), the VJP rule (or an explicit zero
// cotangent / "not differentiable"), the host and CPU-kernel emitter, the device-program
// emitter (GPU kernels, and CPU ones with --split-kernels), a collective's reduction entry,
// and the tests' reference interpreter (tests/unit/ir/RefEval*.cpp). An op added to Ops.def
// without one of them fails here, naming the op and the missing rule, instead of in a
// user's run (or in a test that happens to use it).
#include "Harness.h"
#include "RefEval.h"
#include "codegen/LlvmEmitter.h"
#include "ir/TypeRules.h"
#include "transforms/Grad.h"
#include "transforms/Vmap.h"

#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

using namespace spmd;

namespace {

struct OpEntry {
  ir::Op op;
  const char *name;
};

/// Every op, straight from Ops.def (not through ir::kNumOps, so the walk is the table's).
const std::vector<OpEntry> &allOps() {
  static const std::vector<OpEntry> ops = {
// clang-format off
#define SPMD_OP(E, name, arity, cat) {ir::Op::E, name},
#include "ir/Ops.def"
      // clang-format on
  };
  return ops;
}

/// The ops of Ops.def for which `has` is false.
template <typename F>
std::vector<std::string> missing(F has) {
  std::vector<std::string> out;
  for (auto &o : allOps())
    if (!has(o.op)) out.push_back(o.name);
  return out;
}

}  // namespace

TEST_CASE("the op walk covers every op of the enum", "[coverage]") {
  REQUIRE(int(allOps().size()) == ir::kNumOps);
  for (size_t k = 0; k < allOps().size(); ++k) {
    CHECK(int(allOps()[k].op) == int(k));
    CHECK(std::string(ir::name(allOps()[k].op)) == allOps()[k].name);
  }
}

TEST_CASE("every op has a type rule", "[coverage]") {
  CHECK(missing([](ir::Op op) { return ir::hasTypeRule(op); }) == std::vector<std::string>{});
}

TEST_CASE("every op has a batching rule", "[coverage]") {
  CHECK(missing([](ir::Op op) { return transforms::hasBatchRule(op); }) ==
        std::vector<std::string>{});
}

TEST_CASE("every op has a VJP rule or is marked non-differentiable", "[coverage]") {
  CHECK(missing([](ir::Op op) { return transforms::hasVjpRule(op); }) ==
        std::vector<std::string>{});
}

TEST_CASE("every op has CPU code", "[coverage]") {
  CHECK(missing([](ir::Op op) { return codegen::hostEmitters()[size_t(op)] != nullptr; }) ==
        std::vector<std::string>{});
}

TEST_CASE("every op has device-program (PTX) code", "[coverage]") {
  CHECK(missing([](ir::Op op) { return codegen::deviceEmitters()[size_t(op)] != nullptr; }) ==
        std::vector<std::string>{});
}

TEST_CASE("every collective says how it combines its group", "[coverage]") {
  CHECK(missing([](ir::Op op) {
          return ir::info(op).category != ir::OpCategory::Collective ||
                 codegen::collectiveReduction(op) != nullptr;
        }) == std::vector<std::string>{});
  // Only collectives have an entry: the table is not a second list of categories.
  CHECK(missing([](ir::Op op) {
          return ir::info(op).category == ir::OpCategory::Collective ||
                 codegen::collectiveReduction(op) == nullptr;
        }) == std::vector<std::string>{});
}

TEST_CASE("the all-reduce collectives have their reduction code and combiner", "[coverage]") {
  using ir::DType;
  using ir::Op;
  CHECK(codegen::collectiveReduceCode(Op::Psum) == SPMD_REDUCE_SUM);
  CHECK(codegen::collectiveReduceCode(Op::Pmax) == SPMD_REDUCE_MAX);
  CHECK(codegen::collectiveReduceCode(Op::Pmin) == SPMD_REDUCE_MIN);
  CHECK(codegen::collectiveReduceCode(Op::ReduceScatter) == SPMD_REDUCE_SUM);
  CHECK(codegen::collectiveReduceCode(Op::AllGather) == -1);
  CHECK(codegen::collectiveReduceCode(Op::Add) == -1);
  CHECK(codegen::collectiveCombiner(Op::Psum, DType::F32) == Op::Add);
  CHECK(codegen::collectiveCombiner(Op::Psum, DType::Bool) == Op::Or);
  CHECK(codegen::collectiveCombiner(Op::ReduceScatter, DType::I32) == Op::Add);
  CHECK(codegen::collectiveCombiner(Op::Pmax, DType::F32) == Op::Max);
  CHECK(codegen::collectiveCombiner(Op::Pmin, DType::Bool) == Op::Min);
}

/// Ops the reference interpreter deliberately does not evaluate, each with the reason. An op
/// listed here must have no rule there (so the list cannot go stale); today there is none.
const std::map<std::string, std::string> kNotInterpreted = {};

TEST_CASE("the reference interpreter has a rule for every op", "[coverage]") {
  CHECK(missing([](ir::Op op) {
          return testing::refEvalHasRule(op) || kNotInterpreted.count(ir::name(op));
        }) == std::vector<std::string>{});
  for (auto &o : allOps())
    if (kNotInterpreted.count(o.name)) {
      INFO(o.name << " is listed as not interpreted: " << kNotInterpreted.at(o.name));
      CHECK_FALSE(testing::refEvalHasRule(o.op));
    }
}

namespace {

/// The dtype an elementwise op is tried on here: the bitwise ops are on ints.
ir::DType dtypeFor(ir::Op op) {
  using ir::Op;
  switch (op) {
  case Op::Not:
  case Op::And:
  case Op::Or:
  case Op::Xor:
  case Op::ShiftLeft:
  case Op::ShiftRightLogical: return ir::DType::I32;
  default: return ir::DType::F32;
  }
}

/// `op` applied to `x` (and copies of it) with the params it needs, in builder `b`.
ir::Var applyOp(ir::Builder &b, ir::Op op, ir::Var x) {
  using ir::Op;
  using ir::Param;
  switch (ir::info(op).category) {
  case ir::OpCategory::Unary: {
    ir::Params p;
    if (op == Op::IntegerPow) p["y"] = Param::of(3);
    if (op == Op::Convert || op == Op::BitcastConvert)
      p["new_dtype"] = Param::ofDType(ir::DType::I32);
    return b.emit1(op, {x}, p);
  }
  case ir::OpCategory::Ternary: return b.emit1(op, {x, x, x});
  case ir::OpCategory::Select:
    return b.emit1(op, {b.binary(Op::Lt, x, b.lit(x.type.dtype, 3)), x, x});
  default: return b.binary(op, x, x);
  }
}

}  // namespace

// The emitter tables above hold one entry for every elementwise op; its scalar code is a
// case of LlvmEmitter::unaryOp/binaryOp (or the select/fma code). Compile each elementwise
// op on the host and inside a pmap (CPU kernels and the GPU's PTX), so that a missing case
// fails here rather than as an internal error in a user's run.
TEST_CASE("every elementwise op has scalar code on the host and in kernels", "[coverage]") {
  using namespace spmd::testing;
  std::vector<std::string> failed;
  for (auto &o : allOps()) {
    if (!ir::isElementwise(o.op)) continue;
    ir::DType d = dtypeFor(o.op);
    Prog p;
    ir::Var x = p.b.emit1(ir::Op::Iota, {},
                          {{"dtype", ir::Param::ofDType(d)},
                           {"shape", ir::Param::ints({2, 8})},
                           {"dimension", ir::Param::of(1)}});
    p.print(applyOp(p.b, o.op, x));
    ir::Jaxpr body;
    ir::Builder bb(p.m, body);
    body.invars = {p.m.newVar(ir::Type{d, {8}})};
    body.outvars = {applyOp(bb, o.op, body.invars[0])};
    ir::Params pp{{"axis_name", ir::Param::ofStr("i")},
                  {"axis_size", ir::Param::of(2)},
                  {"in_axes", ir::Param::tuple({ir::Param::of(0)})},
                  {"out_axes", ir::Param::ints({0})}};
    p.print(p.b.emit(ir::Op::Pmap, {x}, pp, {body}).at(0));
    try {
      codegen::emitLLVM(p.m, {});
      codegen::Options split;
      split.backend = codegen::Backend::CpuSplit;
      codegen::emitLLVM(p.m, split);
      codegen::emitPTX(p.m, {});
    } catch (const std::exception &e) {
      failed.push_back(std::string(o.name) + ": " + e.what());
    }
  }
  CHECK(failed == std::vector<std::string>{});
}
