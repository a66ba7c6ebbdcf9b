// ===- Harness.h - building, compiling and running small IR programs in tests ===//
//
// Codegen tests build a Module by hand with ir::Builder, JIT compile it, run it on CPU
// devices and read back what it printed: `numbers()` parses NumPy-style output into
// doubles so results can be compared with plain C++ references.
#pragma once

#include "codegen/Codegen.h"
#include "ir/IR.h"
#include "Runtime.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace spmd::testing {

using namespace spmd::ir;

/// A program under construction: the module and a builder on its main jaxpr.
struct Prog {
  Module m;
  Builder b{m, m.main};

  /// A constant array with the given values (row-major).
  Var constant(DType d, Shape s, const std::vector<double> &v) {
    std::vector<Param> ps;
    for (double x : v) ps.push_back(isFloat(d) ? Param::ofFloat(x) : Param::of(int64_t(x)));
    return b.emit1(
        Op::Constant, {},
        {{"value", Param::list(ps)}, {"dtype", Param::ofDType(d)}, {"shape", Param::ints(s)}});
  }
  /// Prints `x` on its own line.
  void print(Atom x) { b.emit(Op::Print, {x}, {{"segments", Param::list({Param::of(0)})}}); }
};

/// The output of running `m` on `devices` CPU devices; fails the test on a run error
/// unless `expectError`, in which case the error message is returned.
inline std::string run(const Module &m, int devices = 8, int opt = 2, bool expectError = false) {
  codegen::Options o;
  o.optLevel = opt;
  auto exe = codegen::compile(m, o);
  auto host = rt::Host::create(rt::DeviceSpec{"cpu", devices});
  std::ostringstream out, err;
  host->setOutput(&out);
  host->setErrorOutput(&err);
  int rc = host->run(exe->entry());
  if (expectError) {
    CHECK(rc != 0);
    return host->lastError();
  }
  INFO(err.str());
  REQUIRE(rc == 0);
  return out.str();
}

/// The numbers in NumPy-style output (True/False as 1/0, nan, inf).
inline std::vector<double> numbers(const std::string &s) {
  std::vector<double> r;
  std::string tok;
  auto flush = [&] {
    if (tok.empty()) return;
    if (tok == "True")
      r.push_back(1);
    else if (tok == "False")
      r.push_back(0);
    else
      r.push_back(std::stod(tok));
    tok.clear();
  };
  for (char c : s) {
    if (c == '[' || c == ']' || c == ',' || c == ' ' || c == '\n' || c == '(' || c == ')')
      flush();
    else
      tok += c;
  }
  flush();
  return r;
}

/// Checks `got` against `want` elementwise with a relative tolerance.
inline void near(const std::vector<double> &got, const std::vector<double> &want,
                 double rtol = 1e-6) {
  REQUIRE(got.size() == want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    INFO("element " << k << ": got " << got[k] << ", want " << want[k]);
    if (std::isnan(want[k]))
      CHECK(std::isnan(got[k]));
    else
      CHECK(std::abs(got[k] - want[k]) <= rtol * std::abs(want[k]) + 1e-6);
  }
}

inline std::vector<double> iotaVals(int64_t n, double scale = 1, double off = 0) {
  std::vector<double> v;
  for (int64_t k = 0; k < n; ++k) v.push_back(off + scale * double(k));
  return v;
}

}  // namespace spmd::testing
