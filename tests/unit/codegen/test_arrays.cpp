// ===- test_arrays.cpp - reductions, data movement, dynamic slices, dot ----===//
#include "Harness.h"

#include <chrono>

using namespace spmd::testing;

namespace {

/// Row-major strides of a shape.
std::vector<int64_t> strides(const Shape &s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t k = s.size(); k-- > 1;) st[k - 1] = st[k] * s[k];
  return st;
}

/// Reference reduction of `x` (shape `s`) over `axes`.
std::vector<double> refReduce(const std::vector<double> &x, const Shape &s,
                              const std::vector<int64_t> &axes, double init,
                              double (*f)(double, double)) {
  Shape out;
  std::vector<bool> red(s.size());
  for (auto a : axes) red[a] = true;
  for (size_t k = 0; k < s.size(); ++k)
    if (!red[k]) out.push_back(s[k]);
  int64_t n = 1;
  for (auto d : out) n *= d;
  std::vector<double> r(n, init);
  auto st = strides(s), ost = strides(out);
  for (size_t i = 0; i < x.size(); ++i) {
    int64_t o = 0, rem = int64_t(i), ok = 0;
    for (size_t k = 0; k < s.size(); ++k) {
      int64_t c = rem / st[k];
      rem %= st[k];
      if (!red[k]) o += c * ost[ok++];
    }
    r[o] = f(r[o], x[i]);
  }
  return r;
}

}  // namespace

TEST_CASE("reductions over various axes and dtypes", "[codegen][reduce]") {
  Shape s = {3, 4, 5};
  std::vector<double> x;
  for (int k = 0; k < 60; ++k) x.push_back(double((k * 37) % 23) - 11);
  std::vector<std::vector<int64_t>> axesList = {{0}, {1}, {2}, {0, 1}, {1, 2}, {0, 2}, {0, 1, 2}};
  for (DType d : {DType::F32, DType::I32}) {
    for (auto &axes : axesList) {
      INFO(name(d) << " axes " << axes.size() << " first " << axes[0]);
      Prog p;
      Var v = p.constant(d, s, x);
      p.print(p.b.reduce(Op::ReduceSum, v, axes));
      p.print(p.b.reduce(Op::ReduceMax, v, axes));
      p.print(p.b.reduce(Op::ReduceMin, v, axes));
      auto want = refReduce(x, s, axes, 0, [](double a, double b) { return a + b; });
      auto mx = refReduce(x, s, axes, -1e9, [](double a, double b) { return std::max(a, b); });
      auto mn = refReduce(x, s, axes, 1e9, [](double a, double b) { return std::min(a, b); });
      want.insert(want.end(), mx.begin(), mx.end());
      want.insert(want.end(), mn.begin(), mn.end());
      near(numbers(run(p.m, 1)), want);
    }
  }
  SECTION("prod, and, or, argmax, argmin") {
    Prog p;
    Var v = p.constant(DType::F32, {2, 3}, {1, 5, 2, 7, -1, 7});
    p.print(p.b.reduce(Op::ReduceProd, v, {1}));
    Var pos = p.b.binary(Op::Gt, v, p.b.lit(DType::F32, 0));
    p.print(p.b.reduce(Op::ReduceAnd, pos, {1}));
    p.print(p.b.reduce(Op::ReduceOr, pos, {0}));
    p.print(p.b.reduce(Op::Argmax, v, {1}));
    p.print(p.b.reduce(Op::Argmin, v, {0}));
    near(numbers(run(p.m, 1)), {10, -49, 1, 0, 1, 1, 1, 1, 0, 0, 1, 0});
  }
}

TEST_CASE("shape ops: iota, broadcast, transpose, slice, pad, concatenate, rev",
          "[codegen][shape]") {
  Prog p;
  Var x = p.constant(DType::I32, {3, 4}, iotaVals(12));
  p.print(p.b.emit1(Op::Iota, {},
                    {{"dtype", Param::ofDType(DType::I32)},
                     {"shape", Param::ints({2, 3})},
                     {"dimension", Param::of(1)}}));
  p.print(p.b.broadcastInDim(p.constant(DType::I32, {3}, {7, 8, 9}), {2, 3}, {1}));
  p.print(p.b.transpose(x, {1, 0}));
  p.print(p.b.emit1(Op::Slice, {x},
                    {{"start_indices", Param::ints({0, 1})},
                     {"limit_indices", Param::ints({3, 4})},
                     {"strides", Param::ints({2, 2})}}));
  // pad: lo -1 (drops the first row), hi 1, interior 1 along axis 1.
  Param cfg = Param::tuple({Param::ints({-1, 1, 0}), Param::ints({0, 0, 1})});
  p.print(p.b.emit1(Op::Pad, {x, p.b.lit(DType::I32, -5)}, {{"padding_config", cfg}}));
  p.print(p.b.emit1(Op::Concatenate,
                    {x, p.b.reshape(p.constant(DType::I32, {3}, {70, 80, 90}), {3, 1})},
                    {{"dimension", Param::of(1)}}));
  p.print(p.b.emit1(Op::Rev, {x}, {{"dimensions", Param::ints({0, 1})}}));
  std::vector<double> want = {0, 1, 2, 0, 1, 2, 7, 8, 9, 7, 8, 9};
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 3; ++i) want.push_back(i * 4 + j);
  for (double v : {1, 3, 9, 11}) want.push_back(v);
  for (double v : {4, -5, 5, -5, 6, -5, 7, 8, -5, 9, -5, 10, -5, 11, -5, -5, -5, -5, -5, -5, -5})
    want.push_back(v);
  for (double v : {0, 1, 2, 3, 70, 4, 5, 6, 7, 80, 8, 9, 10, 11, 90}) want.push_back(v);
  for (int k = 11; k >= 0; --k) want.push_back(k);
  near(numbers(run(p.m, 1)), want);
}

TEST_CASE("dynamic_slice and dynamic_update_slice", "[codegen][index]") {
  Prog p;
  Var x = p.constant(DType::F32, {4, 3}, iotaVals(12));
  Var i = p.b.convert(p.constant(DType::F32, {}, {2}), DType::I32);
  p.print(p.b.emit1(Op::DynamicSlice, {x, i, p.b.lit(DType::I32, 1)},
                    {{"slice_sizes", Param::ints({2, 2})}}));
  p.print(p.b.emit1(Op::DynamicUpdateSlice,
                    {x, p.constant(DType::F32, {1, 3}, {-1, -2, -3}), i, p.b.lit(DType::I32, 0)}));
  near(numbers(run(p.m, 1)), {7, 8, 10, 11, 0, 1, 2, 3, 4, 5, -1, -2, -3, 9, 10, 11});

  SECTION("an index out of range is a run-time error naming the location") {
    Prog q;
    Var y = q.constant(DType::F32, {4}, iotaVals(4));
    q.b.setLoc(spmd::SrcRange{0, 3, 9, 3, 12});
    Var j = q.b.convert(q.constant(DType::F32, {}, {4}), DType::I32);
    q.print(q.b.emit1(Op::DynamicSlice, {y, j}, {{"slice_sizes", Param::ints({1})}}));
    std::string err = run(q.m, 1, 2, true);
    CHECK(err.find("3:9") != std::string::npos);
    CHECK(err.find('4') != std::string::npos);
  }
}

TEST_CASE("dot_general: matmul, batch dims, transposed operands, ints", "[codegen][dot]") {
  auto dn = [](std::vector<int64_t> lc, std::vector<int64_t> rc, std::vector<int64_t> lb,
               std::vector<int64_t> rb) {
    return Params{
        {"dimension_numbers", Param::tuple({Param::tuple({Param::ints(lc), Param::ints(rc)}),
                                            Param::tuple({Param::ints(lb), Param::ints(rb)})})}};
  };
  const int64_t B = 2, M = 13, K = 7, N = 600;  // remainders in both M and N, several blocks
  std::vector<double> a, b;
  for (int64_t k = 0; k < B * M * K; ++k) a.push_back(double(k % 7) - 3);
  for (int64_t k = 0; k < B * K * N; ++k) b.push_back(double(k % 5) - 2);
  auto A = [&](int64_t bb, int64_t i, int64_t k) { return a[(bb * M + i) * K + k]; };
  auto Bv = [&](int64_t bb, int64_t k, int64_t j) { return b[(bb * K + k) * N + j]; };
  for (DType d : {DType::F32, DType::I32}) {
    INFO(name(d));
    Prog p;
    Var va = p.constant(d, {B, M, K}, a), vb = p.constant(d, {B, K, N}, b);
    Var c = p.b.emit1(Op::DotGeneral, {va, vb}, dn({2}, {1}, {0}, {0}));  // [B, M, N]
    p.print(p.b.reduce(Op::ReduceSum, c, {2}));
    // lhs contracting over its first dim: A^T of [K, M] (rhs free first in the output).
    Var at = p.b.transpose(p.b.reshape(p.b.emit1(Op::Slice, {va},
                                                 {{"start_indices", Param::ints({0, 0, 0})},
                                                  {"limit_indices", Param::ints({1, M, K})}}),
                                       {M, K}),
                           {1, 0});
    Var bt = p.b.reshape(p.b.emit1(Op::Slice, {vb},
                                   {{"start_indices", Param::ints({0, 0, 0})},
                                    {"limit_indices", Param::ints({1, K, 4})},
                                    {"strides", Param::ints({1, 1, 1})}}),
                         {K, 4});
    p.print(p.b.emit1(Op::DotGeneral, {bt, at}, dn({0}, {0}, {}, {})));  // [4, M]
    std::vector<double> want;
    for (int64_t bb = 0; bb < B; ++bb)
      for (int64_t i = 0; i < M; ++i) {
        double s = 0;
        for (int64_t j = 0; j < N; ++j)
          for (int64_t k = 0; k < K; ++k) s += A(bb, i, k) * Bv(bb, k, j);
        want.push_back(s);
      }
    for (int64_t j = 0; j < 4; ++j)
      for (int64_t i = 0; i < M; ++i) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k) s += A(0, i, k) * Bv(0, k, j);
        want.push_back(s);
      }
    near(numbers(run(p.m, 1)), want);
  }
}

TEST_CASE("for_loop and cond, on the host and inside a pmap", "[codegen][control]") {
  // for i in 0..5: (acc, x) = (acc + x * i, x + 1), from (0, [1, 2]); then cond on acc > 50.
  auto build = [](Module &m, Builder &b, Var x0) {
    Jaxpr body;
    Builder bb(m, body);
    Var i = m.newVar(Type{DType::I32, {}});
    Var acc = m.newVar(Type{DType::F32, {2}}), x = m.newVar(Type{DType::F32, {2}});
    body.invars = {i, acc, x};
    Var fi = bb.convert(i, DType::F32);
    body.outvars = {bb.binary(Op::Add, acc, bb.binary(Op::Mul, x, bb.broadcastInDim(fi, {2}, {}))),
                    bb.binary(Op::Add, x, bb.lit(DType::F32, 1))};
    auto outs = b.emit(Op::ForLoop, {b.fill(DType::F32, {2}, 0), x0},
                       {{"trip_count", Param::of(5)}, {"num_consts", Param::of(0)}}, {body});
    Jaxpr f, t;
    Builder fb(m, f), tb(m, t);
    f.invars = {m.newVar(Type{DType::F32, {2}})};
    t.invars = {m.newVar(Type{DType::F32, {2}})};
    f.outvars = {fb.unary(Op::Neg, f.invars[0])};
    t.outvars = {t.invars[0]};
    Var big = b.binary(Op::Gt, b.reduce(Op::ReduceSum, outs[0], {0}), b.lit(DType::F32, 50));
    return b.emit(Op::Cond, {big, outs[0]}, {}, {f, t}).at(0);
  };
  // acc = sum_i (x0 + i) * i = 10 x0 + 30: [40, 50] from x0 = [1, 2]; sum 90 > 50.
  Prog p;
  p.print(build(p.m, p.b, p.constant(DType::F32, {2}, {1, 2})));
  // inside a pmap over 2 devices: x0 = [0, 0] gives [30, 30], sum 60 > 50; x0 = [-2, -2]
  // gives [10, 10], sum 20: negated.
  Jaxpr body;
  Builder bb(p.m, body);
  body.invars = {p.m.newVar(Type{DType::F32, {2}})};
  body.outvars = {build(p.m, bb, body.invars[0])};
  Params pp{{"axis_name", Param::ofStr("i")},
            {"axis_size", Param::of(2)},
            {"in_axes", Param::tuple({Param::of(0)})},
            {"out_axes", Param::ints({0})}};
  p.print(p.b.emit(Op::Pmap, {p.constant(DType::F32, {2, 2}, {0, 0, -2, -2})}, pp, {body}).at(0));
  near(numbers(run(p.m, 2)), {40, 50, 30, 30, -10, -10});
}

TEST_CASE("random bits and uniform match JAX", "[codegen][random]") {
  Prog p;
  Var key = p.b.emit1(Op::RandomSeed, {p.b.lit(DType::I32, 0)});
  Var bits =
      p.b.emit1(Op::RandomBits, {key}, {{"bit_width", Param::of(32)}, {"shape", Param::ints({3})}});
  Var m = p.b.binary(Op::Or, p.b.binary(Op::ShiftRightLogical, bits, p.b.lit(DType::U32, 9)),
                     p.b.lit(DType::U32, 0x3F800000));
  Var f = p.b.emit1(Op::BitcastConvert, {m}, {{"new_dtype", Param::ofDType(DType::F32)}});
  p.print(p.b.binary(Op::Sub, f, p.b.lit(DType::F32, 1)));
  CHECK(run(p.m, 1) == "[0.947667   0.9785799  0.33229148]\n");
}

TEST_CASE("dot_general throughput, 1000x1200 @ 1200x1000 f32", "[.bench]") {
  // Hidden (run with `test_codegen [.bench]`): times `reps` products in a for_loop.
  auto timeRun = [](int reps) {
    Prog p;
    auto iota = [&](Shape s, int64_t dim) {
      return p.b.emit1(Op::Iota, {},
                       {{"dtype", Param::ofDType(DType::F32)},
                        {"shape", Param::ints(s)},
                        {"dimension", Param::of(dim)}});
    };
    Var a = p.b.binary(Op::Mul, iota({1000, 1200}, 1), p.b.lit(DType::F32, 1e-3f));
    Var bm = p.b.binary(Op::Mul, iota({1200, 1000}, 0), p.b.lit(DType::F32, 1e-3f));
    Jaxpr body;
    Builder bb(p.m, body);
    body.invars = {p.m.newVar(Type{DType::I32, {}}), p.m.newVar(a.type), p.m.newVar(bm.type),
                   p.m.newVar(Type{DType::F32, {1000, 1000}})};
    Params dn{
        {"dimension_numbers", Param::tuple({Param::tuple({Param::ints({1}), Param::ints({0})}),
                                            Param::tuple({Param::ints({}), Param::ints({})})})}};
    body.outvars = {bb.emit1(Op::DotGeneral, {body.invars[1], body.invars[2]}, dn)};
    auto c = p.b.emit(Op::ForLoop, {a, bm, p.b.fill(DType::F32, {1000, 1000}, 0)},
                      {{"trip_count", Param::of(reps)}, {"num_consts", Param::of(2)}}, {body});
    p.print(p.b.reduce(Op::ReduceMax, c[0], {0, 1}));
    auto exe = spmd::codegen::compile(p.m, spmd::codegen::Options{});
    auto host = spmd::rt::Host::create(spmd::rt::DeviceSpec{"cpu", 1});
    std::ostringstream out;
    host->setOutput(&out);
    auto t0 = std::chrono::steady_clock::now();
    REQUIRE(host->run(exe->entry()) == 0);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  double t1 = timeRun(1), t5 = timeRun(5);
  double per = (t5 - t1) / 4;
  WARN("dot 1000x1200x1000: " << per * 1e3 << " ms per product, "
                              << 2.0 * 1000 * 1200 * 1000 / per / 1e9 << " GFLOP/s");
  SUCCEED();
}
