// ===- test_emit.cpp - the emitted LLVM IR (fusion, freeing) and PTX --------===//
#include "Harness.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace spmd::testing;

namespace {

size_t count(const std::string &s, const std::string &what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

/// exp(x * 0.5) + x * x - 1 over iota(1024): one fused loop.
void chain(Prog &p) {
  Var x = p.b.emit1(Op::Iota, {},
                    {{"dtype", Param::ofDType(DType::F32)},
                     {"shape", Param::ints({1024})},
                     {"dimension", Param::of(0)}});
  Var e = p.b.unary(Op::Exp, p.b.binary(Op::Mul, x, p.b.lit(DType::F32, 0.5)));
  Var y = p.b.binary(Op::Sub, p.b.binary(Op::Add, e, p.b.binary(Op::Mul, x, x)),
                     p.b.lit(DType::F32, 1));
  p.print(p.b.unary(Op::Tanh, y));
}

/// A pmap with a collective, a loop and a dot in its body.
void kernelModule(Prog &p) {
  Var xs = p.constant(DType::F32, {2, 8}, iotaVals(16));
  Jaxpr body;
  Builder bb(p.m, body);
  body.invars = {p.m.newVar(Type{DType::F32, {8}})};
  Var v = body.invars[0];
  Var s = bb.emit1(Op::Psum, {bb.unary(Op::Exp, v)}, {{"axes", Param::tuple({Param::ofStr("i")})}});
  Var m = bb.reshape(s, {2, 4});
  Params dn{
      {"dimension_numbers", Param::tuple({Param::tuple({Param::ints({1}), Param::ints({1})}),
                                          Param::tuple({Param::ints({}), Param::ints({})})})}};
  body.outvars = {bb.reduce(Op::ReduceSum, bb.emit1(Op::DotGeneral, {m, m}, dn), {1})};
  Params pp{{"axis_name", Param::ofStr("i")},
            {"axis_size", Param::of(2)},
            {"in_axes", Param::tuple({Param::of(0)})},
            {"out_axes", Param::ints({0})}};
  p.print(p.b.emit(Op::Pmap, {xs}, pp, {body}).at(0));
}

}  // namespace

TEST_CASE("an elementwise chain is fused into one buffer and freed", "[codegen][emit]") {
  Prog p;
  chain(p);
  std::string ir = spmd::codegen::emitLLVM(p.m, {});
  INFO(ir);
  CHECK(count(ir, "@spmd_host_alloc(") == 2);  // the declaration and one call
  CHECK(count(ir, "@spmd_host_free(") == 2);
  CHECK(ir.find("define void @spmd_main") != std::string::npos);
}

TEST_CASE("fused elementwise loops and reductions are vectorised", "[codegen][emit]") {
  // 2048 elements: a sum this small is scalar code in XLA's order (Note [XLA sum order];
  // from 4096 elements it is written with explicit vectors), left to LLVM to vectorise.
  Prog p;
  Var x = p.b.emit1(Op::Iota, {},
                    {{"dtype", Param::ofDType(DType::F32)},
                     {"shape", Param::ints({8, 256})},
                     {"dimension", Param::of(1)}});
  Var y = p.b.binary(Op::Add, p.b.binary(Op::Mul, x, x), p.b.lit(DType::F32, 1));
  p.print(y);
  p.print(p.b.reduce(Op::ReduceSum, y, {1}));
  std::string ir = spmd::codegen::emitLLVM(p.m, {});
  INFO(ir);
  CHECK(ir.find(" x float>") != std::string::npos);
  spmd::codegen::Options o0;
  o0.optLevel = 0;
  CHECK(spmd::codegen::emitLLVM(p.m, o0).find(" x float>") == std::string::npos);
}

TEST_CASE("the GPU kernels are data-parallel and assemble completely", "[codegen][ptx]") {
  Prog p;
  kernelModule(p);
  std::string ptx = spmd::codegen::emitPTX(p.m, {});
  INFO(ptx);
  // exp(v), the fold of psum's gathered blocks, the right operand of the dot transposed to
  // [K, N], the dot (when there is no BLAS) and the row sums: one kernel each.
  CHECK(count(ptx, ".visible .entry k") == 5);
  CHECK(count(ptx, "%tid.x") == 5);
  CHECK(count(ptx, "%ctaid.x") == 5);
  CHECK(ptx.find("spmd_") == std::string::npos);  // no runtime call in a kernel
  CHECK(ptx.find(".extern") == std::string::npos);
  CHECK(ptx.find("spmd_main") == std::string::npos);
  const char *ptxas = "/usr/local/cuda/bin/ptxas";
  if (!std::filesystem::exists(ptxas)) {
    WARN("ptxas not found at " << ptxas << ": the PTX was not assembled");
    SUCCEED();
    return;
  }
  auto dir = std::filesystem::temp_directory_path();
  std::string in = (dir / "spmd_codegen_test.ptx").string(),
              out = (dir / "spmd_codegen_test.cubin").string();
  std::ofstream(in) << ptx;
  // No -c: the kernels must be complete (nothing left for a linker).
  std::string cmd = std::string(ptxas) + " -arch=sm_90 " + in + " -o " + out + " 2>&1";
  CHECK(std::system(cmd.c_str()) == 0);
  std::remove(in.c_str());
  std::remove(out.c_str());
}

TEST_CASE("a device program keeps collectives and launches the kernels", "[codegen][split]") {
  Prog p;
  kernelModule(p);
  spmd::codegen::Options o;
  o.backend = spmd::codegen::Backend::Cuda;
  o.optLevel = 0;
  std::string ir = spmd::codegen::emitLLVM(p.m, o);
  INFO(ir);
  // The device program: psum is an all_gather of bytes (the fold is a kernel), the dot
  // goes to the device's BLAS first, and every array value comes from a kernel launch.
  CHECK(count(ir, "call void @spmd_all_gather(") == 1);
  CHECK(count(ir, "call void @spmd_allreduce(") == 0);
  CHECK(count(ir, "call i32 @spmd_gemm(") == 1);
  CHECK(count(ir, "call void @spmd_kernel_launch(") == 5);
  CHECK(count(ir, "call ptr @spmd_dev_alloc(") >= 3);
  // Nothing in the device program loads an element of an array.
  CHECK(ir.find("load float") == std::string::npos);
  // On CPU devices without the split, the same body is one function doing the work.
  std::string cpu = spmd::codegen::emitLLVM(p.m, {});
  CHECK(count(cpu, "@spmd_kernel_launch(") == 0);
  // The psum's operand has a buffer: the allreduce reads it in place, writes the result.
  CHECK(count(cpu, "call void @spmd_allreduce_to(") == 1);
  CHECK(count(cpu, "call void @spmd_allreduce(") == 0);
}

TEST_CASE("a reshape takes over the buffer of an operand that dies at it", "[codegen][emit]") {
  auto iotaPlusOne = [](Prog &p) {
    Var x = p.b.emit1(Op::Iota, {},
                      {{"dtype", Param::ofDType(DType::F32)},
                       {"shape", Param::ints({1024})},
                       {"dimension", Param::of(0)}});
    return p.b.binary(Op::Add, x, p.b.lit(DType::F32, 1));
  };
  {  // y dies at the reshape: one buffer, no copy
    Prog p;
    Var r = p.b.reshape(iotaPlusOne(p), {8, 128});
    p.print(p.b.reduce(Op::ReduceSum, r, {1}));
    std::string ir = spmd::codegen::emitLLVM(p.m, {});
    INFO(ir);
    CHECK(count(ir, "@spmd_host_alloc(") == 3);  // declaration, y (= r), the row sums
    CHECK(count(ir, "@spmd_host_free(") == 3);
    CHECK(count(ir, "llvm.memcpy") == 0);
    std::vector<double> want;
    for (int row = 0; row < 8; ++row) want.push_back(128.0 * 128 * row + 128 * 129 / 2.0);
    near(numbers(run(p.m)), want);
  }
  {  // y is read again after the reshape: the reshape copies it
    Prog p;
    Var y = iotaPlusOne(p);
    Var r = p.b.reshape(y, {8, 128});
    p.print(p.b.reduce(Op::ReduceSum, r, {1}));
    p.print(p.b.reduce(Op::ReduceSum, y, {0}));
    std::string ir = spmd::codegen::emitLLVM(p.m, {});
    INFO(ir);
    CHECK(count(ir, "llvm.memcpy") >= 1);
    std::vector<double> want;
    for (int row = 0; row < 8; ++row) want.push_back(128.0 * 128 * row + 128 * 129 / 2.0);
    want.push_back(1024.0 * 1025 / 2);
    near(numbers(run(p.m)), want);
  }
}

TEST_CASE("a host dot's multiply-adds are explicit in the IR", "[codegen][emit]") {
  // Note [Explicit contraction]: spmd_main's machine code is made as -O0 makes it (Note
  // [Host code compiled quickly]), which fuses no `contract` fmul + fadd; a [3, 5] @ [5, 7]
  // (too small for the micro-kernel) is the dot's scalar loop.
  Prog p;
  Var a = p.constant(DType::F32, {3, 5}, iotaVals(15, 0.1));
  Var c = p.constant(DType::F32, {5, 7}, iotaVals(35, 0.3));
  Params dn{
      {"dimension_numbers", Param::tuple({Param::tuple({Param::ints({1}), Param::ints({0})}),
                                          Param::tuple({Param::ints({}), Param::ints({})})})}};
  p.print(p.b.emit1(Op::DotGeneral, {a, c}, dn));
  spmd::codegen::Options o0;
  o0.optLevel = 0;
  std::string ir = spmd::codegen::emitLLVM(p.m, o0);
  INFO(ir);
  CHECK(ir.find("llvm.fmuladd.f32") != std::string::npos);
  CHECK(ir.find(" contract ") == std::string::npos);
}

TEST_CASE("a sum's windows of 32 are a loop", "[codegen][emit]") {
  // Note [Rolled windows]: a sum of 64 is two windows of 32, each a loop of additions in
  // order (unrolled, it was 32 range tests and 32 additions per window).
  Prog p;
  Var x = p.b.emit1(Op::Iota, {},
                    {{"dtype", Param::ofDType(DType::F32)},
                     {"shape", Param::ints({64})},
                     {"dimension", Param::of(0)}});
  p.print(p.b.reduce(Op::ReduceSum, p.b.unary(Op::Exp, x), {0}));
  spmd::codegen::Options o0;
  o0.optLevel = 0;
  std::string ir = spmd::codegen::emitLLVM(p.m, o0);
  INFO(ir);
  CHECK(count(ir, "fadd float") < 8);
  CHECK(count(ir, "icmp sge") == 0);  // 64 = 2 x 32: no window is padded
}
