// ===- VmapTestUtil.cpp - building vmapped jaxprs and checking them against RefEval ===//
#include "VmapTestUtil.h"

#include "transforms/Vmap.h"

#include <catch2/catch.hpp>
#include <cmath>

namespace spmd::testing {
using namespace ir;

std::vector<Var> emitMap(Builder &b, Op op, const std::vector<Atom> &ins,
                         const std::vector<int> &inAxes, int64_t n, const std::string &axis,
                         const BodyFn &body, std::vector<int> outAxes, std::mt19937 &rng) {
  Jaxpr region;
  std::vector<Param> ia;
  for (size_t k = 0; k < ins.size(); ++k) {
    Type t = ins[k].type();
    if (inAxes[k] != kNone) {
      REQUIRE(t.shape[inAxes[k]] == n);
      t.shape.erase(t.shape.begin() + inAxes[k]);
      ia.push_back(Param::of(inAxes[k]));
    } else {
      ia.push_back(Param::none());
    }
    region.invars.push_back(b.newVar(t));
  }
  Builder rb(b.module(), region);
  region.outvars = body(rb, region.invars);
  if (outAxes.empty())
    for (auto &a : region.outvars)
      outAxes.push_back(std::uniform_int_distribution<int>(0, a.type().rank())(rng));
  std::vector<int64_t> oa(outAxes.begin(), outAxes.end());
  Params p{{"axis_name", axis.empty() ? Param::none() : Param::ofStr(axis)},
           {"axis_size", Param::of(n)},
           {"in_axes", Param::tuple(ia)},
           {"out_axes", Param::ints(oa)}};
  return b.emit(op, ins, p, {std::move(region)});
}

Shape randomShape(std::mt19937 &rng, int maxRank, int minRank) {
  int r = std::uniform_int_distribution<int>(minRank, maxRank)(rng);
  Shape s;
  for (int k = 0; k < r; ++k) s.push_back(std::uniform_int_distribution<int>(1, 4)(rng));
  return s;
}

int randomInAxis(std::mt19937 &rng, int exampleRank, bool allowNone) {
  std::vector<int> choices{0, exampleRank};
  if (exampleRank >= 1) choices.push_back(1);
  if (allowNone) choices.push_back(kNone);
  return choices[std::uniform_int_distribution<size_t>(0, choices.size() - 1)(rng)];
}

Type stackedType(DType d, const Shape &example, int ax, int64_t n) {
  Shape s = example;
  if (ax != kNone) s.insert(s.begin() + ax, n);
  return Type{d, s};
}

std::vector<Arr> randomInputs(const Jaxpr &j, std::mt19937 &rng) {
  std::vector<Arr> r;
  for (auto &v : j.invars) {
    Arr a{v.type.dtype, v.type.shape, {}};
    int64_t n = a.numel() * (a.dtype == DType::Key ? 2 : 1);
    for (int64_t i = 0; i < n; ++i) {
      switch (a.dtype) {
      case DType::F32:
      case DType::F64:
        a.v.push_back(double(float(std::uniform_real_distribution<double>(-2, 2)(rng))));
        break;
      case DType::I32: a.v.push_back(std::uniform_int_distribution<int>(-5, 5)(rng)); break;
      case DType::U32: a.v.push_back(std::uniform_int_distribution<int>(0, 9)(rng)); break;
      case DType::Bool: a.v.push_back(std::uniform_int_distribution<int>(0, 1)(rng)); break;
      case DType::Key: a.v.push_back(double(uint32_t(rng()))); break;
      }
    }
    r.push_back(a);
  }
  return r;
}

Jaxpr checkVmap(Module &m, const Jaxpr &j, std::mt19937 &rng) {
  auto ins = randomInputs(j, rng);
  auto want = refEval(j, ins);
  Module bm;
  bm.main = j;
  bm.nextId = m.nextId;
  transforms::eliminateVmaps(bm, bm.main);
  m.nextId = bm.nextId;
  INFO(print(j));
  INFO(print(bm.main));
  REQUIRE_NOTHROW(verify(bm));
  int vmaps = 0;
  walk(bm.main, [&](const Eqn &e) { vmaps += e.op == Op::Vmap; });
  REQUIRE(vmaps == 0);
  auto got = refEval(bm.main, ins);
  REQUIRE(got.size() == want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    REQUIRE(got[k].type() == want[k].type());
    for (size_t i = 0; i < got[k].v.size(); ++i) {
      double a = got[k].v[i], w = want[k].v[i];
      if (std::isnan(w))
        CHECK(std::isnan(a));
      else
        CHECK(std::fabs(a - w) <= 1e-5 + 1e-5 * std::fabs(w));
    }
  }
  return bm.main;
}

Jaxpr vmapped(Module &m, const std::vector<Type> &types, const std::vector<int> &inAxes, int64_t n,
              const std::string &axis, const BodyFn &body, std::mt19937 &rng,
              std::vector<int> outAxes) {
  Jaxpr top;
  for (auto &t : types) top.invars.push_back(m.newVar(t));
  Builder b(m, top);
  std::vector<Atom> ins(top.invars.begin(), top.invars.end());
  for (auto &v : emitMap(b, Op::Vmap, ins, inAxes, n, axis, body, outAxes, rng))
    top.outvars.push_back(v);
  return top;
}

}  // namespace spmd::testing
