// ===- test_interrupt.cpp - poll points stop runs (Note [Interrupts]) ----------===//
#include "Harness.h"

#include <chrono>
#include <future>
#include <thread>

using namespace spmd;
using namespace spmd::testing;

namespace {

Params pmapParams(const std::string &axis, int64_t n) {
  return {{"axis_name", Param::ofStr(axis)},
          {"axis_size", Param::of(n)},
          {"in_axes", Param::tuple({Param::of(0)})},
          {"out_axes", Param::ints({0})}};
}

/// for t in 0..trips { x = x * 0.5 + 1 } over an f32[n] carry, in the jaxpr of `b`.
Var halvingLoop(Module &m, Builder &b, Var x0, int64_t trips, const std::string &psumAxis = "") {
  Jaxpr body;
  Builder bb(m, body);
  const Type t = x0.type;
  body.invars = {m.newVar(Type{DType::I32, {}}), m.newVar(t)};
  Var x = body.invars[1];
  if (!psumAxis.empty())
    x = bb.binary(Op::Mul,
                  bb.emit1(Op::Psum, {x}, {{"axes", Param::tuple({Param::ofStr(psumAxis)})}}),
                  bb.lit(DType::F32, 0.25));
  body.outvars = {
      bb.binary(Op::Add, bb.binary(Op::Mul, x, bb.lit(DType::F32, 0.5)), bb.lit(DType::F32, 1))};
  return b
      .emit(Op::ForLoop, {x0}, {{"trip_count", Param::of(trips)}, {"num_consts", Param::of(0)}},
            {body})
      .at(0);
}

/// Runs `m` on a thread, requests an interrupt after `afterMs`, and returns the run's
/// code; fails the test when the run does not stop within 10 s.
int runAndInterrupt(const Module &m, rt::Host &host, int afterMs) {
  codegen::Options o;
  auto exe = codegen::compile(m, o);
  std::ostringstream out, err;
  host.setOutput(&out);
  host.setErrorOutput(&err);
  rt::clearInterrupt();
  auto done = std::async(std::launch::async, [&] { return host.run(exe->entry()); });
  std::this_thread::sleep_for(std::chrono::milliseconds(afterMs));
  auto t0 = std::chrono::steady_clock::now();
  rt::requestInterrupt();
  bool stopped = done.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  REQUIRE(stopped);
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  INFO("stopped " << ms << " ms after the request");
  int rc = done.get();
  rt::clearInterrupt();
  CHECK(out.str().empty());
  CHECK(err.str().empty());  // an interrupted run reports nothing itself
  return rc;
}

}  // namespace

TEST_CASE("an interrupt stops a host for loop; the host runs the next program",
          "[codegen][interrupt]") {
  Prog p;
  p.print(halvingLoop(p.m, p.b, p.b.fill(DType::F32, {8}, 0), 2000000000));
  auto host = rt::Host::create(rt::DeviceSpec{"cpu", 2});
  CHECK(runAndInterrupt(p.m, *host, 100) == rt::kInterrupted);
  CHECK(host->lastError() == "interrupted");

  Prog q;
  q.print(halvingLoop(q.m, q.b, q.b.fill(DType::F32, {2}, 0), 3));
  codegen::Options o;
  auto exe = codegen::compile(q.m, o);
  std::ostringstream out;
  host->setOutput(&out);
  CHECK(host->run(exe->entry()) == 0);
  CHECK(out.str() == "[1.75 1.75]\n");
}

TEST_CASE("an interrupt stops devices looping over a psum; the devices run the next launch",
          "[codegen][interrupt]") {
  for (int devices : {1, 4}) {
    Prog p;
    Var xs = p.b.emit1(Op::Iota, {},
                       {{"dtype", Param::ofDType(DType::F32)},
                        {"shape", Param::ints({devices})},
                        {"dimension", Param::of(0)}});
    Jaxpr body;
    Builder bb(p.m, body);
    body.invars = {p.m.newVar(Type{DType::F32, {}})};
    body.outvars = {halvingLoop(p.m, bb, body.invars[0], 2000000000, "i")};
    p.print(p.b.emit(Op::Pmap, {xs}, pmapParams("i", devices), {body}).at(0));
    auto host = rt::Host::create(rt::DeviceSpec{"cpu", 4});
    INFO(devices << " devices");
    CHECK(runAndInterrupt(p.m, *host, 100) == rt::kInterrupted);

    // The same program with 3 iterations runs to its end on the same devices.
    Prog q;
    Var ys = q.b.fill(DType::F32, {devices}, 0);
    Jaxpr qb;
    Builder qbb(q.m, qb);
    qb.invars = {q.m.newVar(Type{DType::F32, {}})};
    qb.outvars = {halvingLoop(q.m, qbb, qb.invars[0], 3, "i")};
    q.print(q.b.emit(Op::Pmap, {ys}, pmapParams("i", devices), {qb}).at(0));
    codegen::Options o;
    auto exe = codegen::compile(q.m, o);
    std::ostringstream out;
    host->setOutput(&out);
    CHECK(host->run(exe->entry()) == 0);
    double want = 0;  // x = psum(x) * 0.25 * 0.5 + 1 = x * devices / 8 + 1, three times
    for (int k = 0; k < 3; ++k) want = want * devices / 8 + 1;
    CHECK(numbers(out.str()) == std::vector<double>(size_t(devices), want));
  }
}

TEST_CASE("a requested interrupt stops a run at its first launch", "[codegen][interrupt]") {
  Prog p;
  Jaxpr body;
  Builder bb(p.m, body);
  body.invars = {p.m.newVar(Type{DType::F32, {}})};
  body.outvars = {bb.binary(Op::Add, body.invars[0], bb.lit(DType::F32, 1))};
  p.print(p.b.emit(Op::Pmap, {p.b.fill(DType::F32, {2}, 0)}, pmapParams("i", 2), {body}).at(0));
  codegen::Options o;
  auto exe = codegen::compile(p.m, o);
  auto host = rt::Host::create(rt::DeviceSpec{"cpu", 2});
  std::ostringstream out;
  host->setOutput(&out);
  rt::requestInterrupt();
  CHECK(host->run(exe->entry()) == rt::kInterrupted);
  rt::clearInterrupt();
  CHECK(out.str().empty());
  CHECK(host->run(exe->entry()) == 0);
  CHECK(out.str() == "[1. 1.]\n");
}
