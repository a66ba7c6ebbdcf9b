// ===- test_elementwise.cpp - elementwise primitives against C++ references ===//
#include "Harness.h"

#include <functional>

using namespace spmd::testing;

namespace {

const std::vector<double> kF = {-2.5, -1.0, -0.5, 0.0, 0.25, 0.5, 1.5, 2.5, 3.0, 7.25, 0.1, 1.0};
const std::vector<double> kPos = {0.5, 1.0, 2.0, 3.5, 0.1, 10.0};

double roundEven(double x) {
  return x - std::floor(x) == 0.5 ? 2 * std::round(x / 2) : std::round(x);
}

struct UnaryCase {
  Op op;
  std::function<double(double)> ref;
  bool positive = false;
};

}  // namespace

TEST_CASE("unary float ops match libm", "[codegen][elementwise]") {
  std::vector<UnaryCase> cases = {
      {Op::Neg, [](double x) { return -x; }},
      {Op::Exp, [](double x) { return std::exp(x); }},
      {Op::Log, [](double x) { return std::log(x); }, true},
      {Op::Log1p, [](double x) { return std::log1p(x); }, true},
      {Op::Sqrt, [](double x) { return std::sqrt(x); }, true},
      {Op::Rsqrt, [](double x) { return 1 / std::sqrt(x); }, true},
      {Op::Sin, [](double x) { return std::sin(x); }},
      {Op::Cos, [](double x) { return std::cos(x); }},
      {Op::Tan, [](double x) { return std::tan(x); }},
      {Op::Tanh, [](double x) { return std::tanh(x); }},
      {Op::Logistic, [](double x) { return 1 / (1 + std::exp(-x)); }},
      {Op::Abs, [](double x) { return std::abs(x); }},
      {Op::Sign, [](double x) { return double((x > 0) - (x < 0)); }},
      {Op::Floor, [](double x) { return std::floor(x); }},
      {Op::Ceil, [](double x) { return std::ceil(x); }},
      {Op::Round, roundEven},
  };
  for (DType d : {DType::F32, DType::F64}) {
    for (auto &c : cases) {
      INFO(name(c.op) << " on " << name(d));
      Prog p;
      auto &in = c.positive ? kPos : kF;
      Var x = p.constant(d, {int64_t(in.size()) / 2, 2}, in);
      p.print(p.b.unary(c.op, x));
      std::vector<double> want;
      for (double v : in) want.push_back(c.ref(v));
      near(numbers(run(p.m)), want, 1e-6);
    }
  }
}

TEST_CASE("integer_pow, convert and bitcast", "[codegen][elementwise]") {
  Prog p;
  Var x = p.constant(DType::F32, {4}, {-2, 0.5, 3, 1.5});
  p.print(p.b.emit1(Op::IntegerPow, {x}, {{"y", Param::of(3)}}));
  p.print(p.b.emit1(Op::IntegerPow, {x}, {{"y", Param::of(-2)}}));
  Var f = p.constant(DType::F32, {4}, {-2.7, 2.7, 0, 1e10});
  p.print(p.b.convert(f, DType::I32));
  p.print(p.b.convert(f, DType::Bool));
  Var i = p.constant(DType::I32, {3}, {-1, 0, 5});
  p.print(p.b.convert(i, DType::F32));
  p.print(p.b.convert(i, DType::U32));
  p.print(p.b.emit1(Op::BitcastConvert, {p.constant(DType::F32, {2}, {1.0, -2.0})},
                    {{"new_dtype", Param::ofDType(DType::I32)}}));
  auto got = numbers(run(p.m));
  std::vector<double> want = {-8, 0.125, 27, 3.375,        0.25, 4, 1.0 / 9,    1 / 2.25,
                              -2, 2,     0,  2147483647,   1,    1, 0,          1,
                              -1, 0,     5,  4294967295.0, 0,    5, 1065353216, -1073741824};
  near(got, want, 1e-6);
}

TEST_CASE("binary ops on floats, ints and unsigned", "[codegen][elementwise]") {
  struct Case {
    Op op;
    std::function<double(double, double)> f;
  };
  std::vector<double> a = {-7, 7, 9, -9, 5, 0}, bb = {2, -2, 4, 3, 1, 3};
  std::vector<Case> cases = {
      {Op::Add, [](double x, double y) { return x + y; }},
      {Op::Sub, [](double x, double y) { return x - y; }},
      {Op::Mul, [](double x, double y) { return x * y; }},
      {Op::Max, [](double x, double y) { return std::max(x, y); }},
      {Op::Min, [](double x, double y) { return std::min(x, y); }},
      {Op::Lt, [](double x, double y) { return double(x < y); }},
      {Op::Ge, [](double x, double y) { return double(x >= y); }},
      {Op::Eq, [](double x, double y) { return double(x == y); }},
      {Op::Ne, [](double x, double y) { return double(x != y); }},
  };
  for (DType d : {DType::F32, DType::I32, DType::F64}) {
    for (auto &c : cases) {
      INFO(name(c.op) << " on " << name(d));
      Prog p;
      p.print(p.b.binary(c.op, p.constant(d, {2, 3}, a), p.constant(d, {2, 3}, bb)));
      std::vector<double> want;
      for (size_t k = 0; k < a.size(); ++k) want.push_back(c.f(a[k], bb[k]));
      near(numbers(run(p.m)), want);
    }
  }
  SECTION("C-style integer division and remainder") {
    Prog p;
    Var x = p.constant(DType::I32, {6}, a), y = p.constant(DType::I32, {6}, bb);
    p.print(p.b.binary(Op::Div, x, y));
    p.print(p.b.binary(Op::Rem, x, y));
    std::vector<double> want;
    for (size_t k = 0; k < a.size(); ++k) want.push_back(double(int(a[k]) / int(bb[k])));
    for (size_t k = 0; k < a.size(); ++k) want.push_back(double(int(a[k]) % int(bb[k])));
    near(numbers(run(p.m)), want);
  }
  SECTION("float div, rem (fmod) and pow") {
    Prog p;
    Var x = p.constant(DType::F32, {3}, {7.5, -7.5, 2}),
        y = p.constant(DType::F32, {3}, {2, 2, 0.5});
    p.print(p.b.binary(Op::Div, x, y));
    p.print(p.b.binary(Op::Rem, x, y));
    p.print(p.b.binary(Op::Pow, y, p.constant(DType::F32, {3}, {3, 2, 2})));
    near(numbers(run(p.m)), {3.75, -3.75, 4, 1.5, -1.5, 0, 8, 4, 0.25});
  }
  SECTION("unsigned shifts, bitwise ops and comparisons") {
    Prog p;
    Var x = p.constant(DType::U32, {4}, {1, 0x80000000u, 12, 4294967295.0});
    Var s = p.constant(DType::U32, {4}, {3, 31, 33, 1});
    p.print(p.b.binary(Op::ShiftLeft, x, s));
    p.print(p.b.binary(Op::ShiftRightLogical, x, s));
    p.print(p.b.binary(Op::Xor, x, s));
    p.print(p.b.binary(Op::Lt, x, s));
    p.print(p.b.unary(Op::Not, x));
    near(numbers(run(p.m)), {8,
                             0,
                             0,
                             4294967294.0,
                             0,
                             1,
                             0,
                             2147483647.0,
                             2,
                             0x80000000u + 31.0,
                             45,
                             4294967294.0,
                             1,
                             0,
                             1,
                             0,
                             4294967294.0,
                             2147483647.0,
                             4294967283.0,
                             0});
  }
}

TEST_CASE("select_n, bool logic, scalar literals and fused chains", "[codegen][elementwise]") {
  Prog p;
  Var x = p.constant(DType::F32, {2, 4}, iotaVals(8, 1, -3));
  Var pos = p.b.binary(Op::Gt, x, p.b.lit(DType::F32, 0));
  Var neg = p.b.unary(Op::Not, pos);
  p.print(p.b.emit1(Op::Select,
                    {pos, p.b.unary(Op::Neg, x), p.b.binary(Op::Mul, x, p.b.lit(DType::F32, 2))}));
  p.print(p.b.binary(Op::And, neg, p.b.binary(Op::Ne, x, p.b.lit(DType::F32, -3))));
  // A longer chain that the emitter fuses into one loop: exp(x*0.5) + x*x - 1.
  Var h = p.b.binary(Op::Mul, x, p.b.lit(DType::F32, 0.5));
  Var e = p.b.unary(Op::Exp, h);
  Var sq = p.b.binary(Op::Mul, x, x);
  p.print(p.b.binary(Op::Sub, p.b.binary(Op::Add, e, sq), p.b.lit(DType::F32, 1)));
  std::vector<double> want;
  for (int k = 0; k < 8; ++k) want.push_back(k - 3 > 0 ? 2.0 * (k - 3) : -(k - 3.0));
  for (int k = 0; k < 8; ++k) want.push_back(k - 3 <= 0 && k - 3 != -3);
  for (int k = 0; k < 8; ++k) want.push_back(std::exp((k - 3) * 0.5) + (k - 3.0) * (k - 3.0) - 1);
  near(numbers(run(p.m)), want);
}

TEST_CASE("every optimisation level gives the same result", "[codegen]") {
  for (int o = 0; o <= 3; ++o) {
    Prog p;
    Var x = p.constant(DType::F32, {5}, {1, 2, 3, 4, 5});
    p.print(p.b.reduce(Op::ReduceSum, p.b.binary(Op::Mul, x, x), {0}));
    CHECK(run(p.m, 1, o) == "55.0\n");
  }
}
