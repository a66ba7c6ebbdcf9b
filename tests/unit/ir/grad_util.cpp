// ===- grad_util.cpp - building jaxprs and checking gradients, for test_grad --===//
#include "grad_util.h"

#include "transforms/Grad.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

namespace spmd::gradtest {
using namespace ir;

Jaxpr buildJaxpr(Module &m, const std::vector<Type> &types, const BodyFn &body) {
  Jaxpr j;
  for (auto &t : types) j.invars.push_back(m.newVar(t));
  Builder b(m, j);
  j.outvars = body(b, j.invars);
  return j;
}

void verifyJaxpr(const Jaxpr &j) {
  Module tmp;
  tmp.main = j;
  verify(tmp);
}

std::vector<Arr> evalF64(const Jaxpr &j, const std::vector<Arr> &args) {
  return testing::refEval(j, args, {testing::Precision::Float64});
}

Arr randomValue(std::mt19937 &rng, const Type &t, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  Arr v = testing::full(t);
  for (auto &x : v.v)
    x = isFloat(t.dtype)         ? u(rng)
        : t.dtype == DType::Bool ? double(u(rng) > (lo + hi) / 2)
                                 : std::floor(u(rng));
  return v;
}

void weightedSum(Module &m, Jaxpr &j, Atom y) {
  Var w = m.newVar(y.type());
  j.invars.push_back(w);
  Builder b(m, j);
  std::vector<int64_t> axes(y.type().rank());
  std::iota(axes.begin(), axes.end(), 0);
  j.outvars = {b.reduce(Op::ReduceSum, b.binary(Op::Mul, y, w), axes)};
}

Jaxpr checkGradient(Module &m, const Jaxpr &f, const std::vector<int> &argnums,
                    const std::vector<Arr> &args, double tol) {
  Jaxpr g = transforms::valueAndGrad(m, f, argnums, SrcRange{});
  verifyJaxpr(g);
  INFO("f = " << print(f));
  INFO("grad = " << print(g));
  auto outs = evalF64(g, args);
  REQUIRE(outs.size() == argnums.size() + 1);
  auto value = [&](const std::vector<Arr> &a) { return evalF64(f, a).at(0).v.at(0); };
  CHECK(outs[0].v[0] == Approx(value(args)).epsilon(1e-12).margin(1e-12));
  for (size_t n = 0; n < argnums.size(); ++n) {
    int a = argnums[n];
    REQUIRE(outs[n + 1].shape == args[a].shape);
    for (int64_t k = 0; k < args[a].numel(); ++k) {
      auto plus = args, minus = args;
      double x = args[a].v[k], h = 1e-6 * std::max(1.0, std::abs(x));
      plus[a].v[k] = x + h;
      minus[a].v[k] = x - h;
      double fd = (value(plus) - value(minus)) / (2 * h);
      INFO("argument " << a << " element " << k);
      CHECK(std::abs(outs[n + 1].v[k] - fd) <= tol * (1 + std::abs(fd)));
    }
  }
  return g;
}

}  // namespace spmd::gradtest
