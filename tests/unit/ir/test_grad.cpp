// ===- test_grad.cpp - reverse-mode differentiation against finite differences -===//
//
// Every differentiable primitive's VJP rule is checked against central differences of
// the function itself, evaluated in float64 by the reference interpreter; then pmaps of 1, 2, 3 and
// 8 replicas with each collective, a for_loop, a cond, second order (the gradient of a gradient,
// which exercises the rules of everything a backward pass emits), and the user errors. Every result
// is ir::verify'd (checkGradient does it).
#include "grad_util.h"
#include "transforms/Grad.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace spmd;
using namespace spmd::ir;
using namespace spmd::gradtest;

namespace {

Type F(Shape s) { return Type{DType::F32, std::move(s)}; }
Type I(Shape s) { return Type{DType::I32, std::move(s)}; }
Param axesI() { return Param::tuple({Param::ofStr("i")}); }

/// One primitive case: inputs (with value ranges), the differentiated ones, a body.
struct Case {
  std::string name;
  std::vector<Type> ins;
  std::vector<std::pair<double, double>> ranges;
  std::vector<int> argnums;
  std::function<Atom(Builder &, const std::vector<Var> &)> body;
};

Atom un(Builder &b, Op op, const std::vector<Var> &x) { return b.unary(op, x[0]); }

std::vector<Case> primitiveCases() {
  auto unary = [](const char *n, Op op, double lo, double hi) {
    return Case{n, {F({3, 4})}, {{lo, hi}}, {0}, [op](Builder &b, const std::vector<Var> &x) {
                  return un(b, op, x);
                }};
  };
  auto binary = [](const char *n, Op op, double lo, double hi) {
    return Case{
        n,
        {F({3, 4}), F({3, 4})},
        {{lo, hi}, {lo, hi}},
        {0, 1},
        [op](Builder &b, const std::vector<Var> &x) { return Atom(b.binary(op, x[0], x[1])); }};
  };
  std::vector<Case> cs = {
      unary("neg", Op::Neg, -2, 2),
      unary("exp", Op::Exp, -2, 2),
      unary("log", Op::Log, 0.5, 3),
      unary("log1p", Op::Log1p, -0.5, 2),
      unary("sqrt", Op::Sqrt, 0.5, 3),
      unary("rsqrt", Op::Rsqrt, 0.5, 3),
      unary("sin", Op::Sin, -3, 3),
      unary("cos", Op::Cos, -3, 3),
      unary("tan", Op::Tan, -1.2, 1.2),
      unary("tanh", Op::Tanh, -2, 2),
      unary("logistic", Op::Logistic, -3, 3),
      unary("abs", Op::Abs, -2, 2),
      unary("sign", Op::Sign, -2, 2),
      unary("floor", Op::Floor, -2, 2),
      unary("ceil", Op::Ceil, -2, 2),
      unary("round", Op::Round, -2, 2),
      unary("erf_inv", Op::ErfInv, -0.9, 0.9),
      binary("add", Op::Add, -2, 2),
      binary("sub", Op::Sub, -2, 2),
      binary("mul", Op::Mul, -2, 2),
      binary("div", Op::Div, 0.5, 2),
      binary("pow", Op::Pow, 0.5, 2),
      binary("max", Op::Max, -2, 2),
      binary("min", Op::Min, -2, 2),
      binary("rem", Op::Rem, 0.3, 3),
  };
  for (int64_t y : {0, 1, 2, 3, -2})
    cs.push_back({"integer_pow y=" + std::to_string(y),
                  {F({5})},
                  {{0.5, 2}},
                  {0},
                  [y](Builder &b, const std::vector<Var> &x) {
                    return Atom(b.emit1(Op::IntegerPow, {x[0]}, {{"y", Param::of(y)}}));
                  }});
  cs.push_back({"scalar operand broadcast (mul, sub)",
                {F({3, 2}), F({})},
                {{-2, 2}, {-2, 2}},
                {0, 1},
                [](Builder &b, const std::vector<Var> &x) {
                  return Atom(
                      b.binary(Op::Sub, b.lit(DType::F32, 1), b.binary(Op::Mul, x[0], x[1])));
                }});
  cs.push_back({"convert f32->f64->f32",
                {F({4})},
                {{-2, 2}},
                {0},
                [](Builder &b, const std::vector<Var> &x) {
                  Var d = b.convert(b.unary(Op::Sin, x[0]), DType::F64);
                  return Atom(b.convert(b.binary(Op::Mul, d, d), DType::F32));
                }});
  cs.push_back({"convert to i32 (no gradient through it)",
                {F({4})},
                {{-3, 3}},
                {0},
                [](Builder &b, const std::vector<Var> &x) {
                  Var k = b.convert(b.convert(x[0], DType::I32), DType::F32);
                  return Atom(b.binary(Op::Mul, k, x[0]));
                }});
  cs.push_back({"select_n",
                {F({3, 4}), F({3, 4})},
                {{-2, 2}, {-2, 2}},
                {0, 1},
                [](Builder &b, const std::vector<Var> &x) {
                  Var p = b.binary(Op::Gt, x[0], x[1]);
                  return Atom(b.emit1(Op::Select,
                                      {p, b.unary(Op::Sin, x[0]), b.binary(Op::Mul, x[1], x[1])}));
                }});
  for (auto [op, nm] : {std::pair{Op::ReduceSum, "reduce_sum"},
                        {Op::ReduceMax, "reduce_max"},
                        {Op::ReduceMin, "reduce_min"},
                        {Op::ReduceProd, "reduce_prod"}})
    for (std::vector<int64_t> axes : {std::vector<int64_t>{1}, {0, 2}})
      cs.push_back({std::string(nm) + " axes " + std::to_string(axes.size()),
                    {F({2, 3, 2})},
                    {{0.5, 2}},
                    {0},
                    [op = op, axes](Builder &b, const std::vector<Var> &x) {
                      return Atom(b.reduce(op, x[0], axes));
                    }});
  cs.push_back({"argmax (no gradient) times reduce_sum",
                {F({3, 4})},
                {{-2, 2}},
                {0},
                [](Builder &b, const std::vector<Var> &x) {
                  Var am = b.convert(b.reduce(Op::Argmax, x[0], {0}), DType::F32);
                  return Atom(b.binary(Op::Mul, am, b.reduce(Op::ReduceSum, x[0], {0})));
                }});
  cs.push_back({"broadcast_in_dim",
                {F({3}), F({3, 1})},
                {{-2, 2}, {-2, 2}},
                {0, 1},
                [](Builder &b, const std::vector<Var> &x) {
                  Var a = b.broadcastInDim(x[0], {2, 3, 4}, {1});
                  Var c = b.broadcastInDim(x[1], {2, 3, 4}, {1, 2});
                  return Atom(b.binary(Op::Mul, a, c));
                }});
  cs.push_back({"reshape, transpose",
                {F({2, 3, 4})},
                {{-2, 2}},
                {0},
                [](Builder &b, const std::vector<Var> &x) {
                  return Atom(b.reshape(b.transpose(x[0], {2, 0, 1}), {4, 6}));
                }});
  cs.push_back(
      {"concatenate",
       {F({2, 3}), F({2, 1}), F({2, 2})},
       {{-2, 2}, {-2, 2}, {-2, 2}},
       {0, 2},
       [](Builder &b, const std::vector<Var> &x) {
         return Atom(b.emit1(Op::Concatenate, {x[0], x[1], x[2]}, {{"dimension", Param::of(1)}}));
       }});
  cs.push_back({"slice with strides",
                {F({5, 7})},
                {{-2, 2}},
                {0},
                [](Builder &b, const std::vector<Var> &x) {
                  return Atom(b.emit1(Op::Slice, {x[0]},
                                      {{"start_indices", Param::ints({1, 0})},
                                       {"limit_indices", Param::ints({5, 6})},
                                       {"strides", Param::ints({2, 3})}}));
                }});
  cs.push_back({"pad (lo, hi, interior, negative)",
                {F({3, 4}), F({})},
                {{-2, 2}, {-2, 2}},
                {0, 1},
                [](Builder &b, const std::vector<Var> &x) {
                  Param cfg = Param::tuple({Param::ints({1, 2, 1}), Param::ints({-1, 2, 0})});
                  return Atom(b.emit1(Op::Pad, {x[0], x[1]}, {{"padding_config", cfg}}));
                }});
  cs.push_back({"rev", {F({3, 4})}, {{-2, 2}}, {0}, [](Builder &b, const std::vector<Var> &x) {
                  return Atom(b.binary(
                      Op::Mul, b.emit1(Op::Rev, {x[0]}, {{"dimensions", Param::ints({1})}}), x[0]));
                }});
  cs.push_back({"dynamic_slice",
                {F({5, 4}), I({})},
                {{-2, 2}, {0, 4}},
                {0},
                [](Builder &b, const std::vector<Var> &x) {
                  return Atom(b.emit1(Op::DynamicSlice, {x[0], x[1], b.lit(DType::I32, 1)},
                                      {{"slice_sizes", Param::ints({2, 3})}}));
                }});
  cs.push_back(
      {"dynamic_update_slice",
       {F({5, 4}), F({2, 3}), I({})},
       {{-2, 2}, {-2, 2}, {0, 5}},
       {0, 1},
       [](Builder &b, const std::vector<Var> &x) {
         Var s = b.unary(Op::Sin, x[1]);
         return Atom(b.emit1(Op::DynamicUpdateSlice, {x[0], s, x[2], b.lit(DType::I32, 2)}));
       }});
  auto dot = [](std::vector<int64_t> lc, std::vector<int64_t> rc, std::vector<int64_t> lb,
                std::vector<int64_t> rb) {
    return Params{{"dimension_numbers",
                   Param::tuple({Param::tuple({Param::ints(lc, true), Param::ints(rc, true)}),
                                 Param::tuple({Param::ints(lb, true), Param::ints(rb, true)})})}};
  };
  cs.push_back({"dot_general matmul",
                {F({3, 4}), F({4, 2})},
                {{-2, 2}, {-2, 2}},
                {0, 1},
                [dot](Builder &b, const std::vector<Var> &x) {
                  return Atom(b.emit1(Op::DotGeneral, {x[0], x[1]}, dot({1}, {0}, {}, {})));
                }});
  cs.push_back({"dot_general batched, permuted",
                {F({4, 2, 3}), F({3, 5, 2})},
                {{-2, 2}, {-2, 2}},
                {0, 1},
                [dot](Builder &b, const std::vector<Var> &x) {
                  return Atom(b.emit1(Op::DotGeneral, {x[0], x[1]}, dot({2}, {0}, {1}, {2})));
                }});
  cs.push_back({"dot_general two contracting dims",
                {F({2, 3, 4}), F({4, 5, 2})},
                {{-2, 2}, {-2, 2}},
                {0, 1},
                [dot](Builder &b, const std::vector<Var> &x) {
                  return Atom(b.emit1(Op::DotGeneral, {x[0], x[1]}, dot({0, 2}, {2, 0}, {}, {})));
                }});
  return cs;
}

/// f(ins..., w) = sum(body(ins) * w).
Jaxpr caseJaxpr(Module &m, const Case &c) {
  Jaxpr j;
  for (auto &t : c.ins) j.invars.push_back(m.newVar(t));
  Builder b(m, j);
  Atom y = c.body(b, j.invars);
  weightedSum(m, j, y);
  return j;
}

std::vector<Arr> caseArgs(std::mt19937 &rng, const Case &c, const Jaxpr &f) {
  std::vector<Arr> args;
  for (size_t k = 0; k < c.ins.size(); ++k)
    args.push_back(randomValue(rng, c.ins[k], c.ranges[k].first, c.ranges[k].second));
  args.push_back(randomValue(rng, f.invars.back().type, -1, 1));
  return args;
}

/// f2(ins..., w, w2) = sum(d f / d ins[argnums[0]] * w2): differentiating it checks the
/// rules of every primitive the first backward pass emitted.
Jaxpr secondOrder(Module &m, const Jaxpr &f, int argnum) {
  Jaxpr g = transforms::valueAndGrad(m, f, {argnum}, SrcRange{});
  Atom d = g.outvars[1];
  weightedSum(m, g, d);
  return g;
}

}  // namespace

TEST_CASE("grad: every primitive's VJP matches finite differences", "[grad]") {
  std::mt19937 rng(7);
  for (auto &c : primitiveCases()) {
    SECTION(c.name) {
      Module m;
      Jaxpr f = caseJaxpr(m, c);
      auto args = caseArgs(rng, c, f);
      checkGradient(m, f, c.argnums, args);
      // Second order: the gradient of sum(grad * w2).
      Jaxpr f2 = secondOrder(m, f, c.argnums[0]);
      args.push_back(randomValue(rng, f2.invars.back().type, -1, 1));
      checkGradient(m, f2, c.argnums, args, 1e-5);
    }
  }
}

namespace {

/// One collective in a pmap body: per-replica input shape, and the body after t = sin(x) * c.
struct CollectiveCase {
  std::string name;
  std::function<Shape(int64_t n)> xShape;
  std::function<Atom(Builder &, Atom t, Atom x, int64_t n)> body;
};

std::vector<CollectiveCase> collectiveCases() {
  Params one{{"axis_name", Param::ofStr("i")}};
  auto withN = [](Params p, int64_t n) {
    p["axis_size"] = Param::of(n);
    return p;
  };
  return {
      {"psum", [](int64_t) { return Shape{4}; },
       [](Builder &b, Atom t, Atom x, int64_t) {
         return Atom(b.binary(Op::Mul, b.emit1(Op::Psum, {t}, {{"axes", axesI()}}), x));
       }},
      {"pmean (psum then div)", [](int64_t) { return Shape{4}; },
       [](Builder &b, Atom t, Atom x, int64_t n) {
         Var s = b.binary(Op::Div, b.emit1(Op::Psum, {t}, {{"axes", axesI()}}),
                          b.lit(DType::F32, double(n)));
         return Atom(b.binary(Op::Mul, s, x));
       }},
      {"ppermute", [](int64_t) { return Shape{3}; },
       [one](Builder &b, Atom t, Atom x, int64_t n) {
         std::vector<Param> perm;
         for (int64_t j = 0; j < n; ++j)
           perm.push_back(Param::tuple({Param::of(j), Param::of((j + 1) % n)}));
         Params p = one;
         p["perm"] = Param::tuple(perm);
         return Atom(b.binary(Op::Mul, b.emit1(Op::Ppermute, {t}, p), x));
       }},
      {"all_gather", [](int64_t) { return Shape{3}; },
       [one, withN](Builder &b, Atom t, Atom x, int64_t n) {
         Params p = withN(one, n);
         p["all_gather_dimension"] = Param::of(0);
         p["tiled"] = Param::ofBool(false);
         Var g = b.emit1(Op::AllGather, {t}, p);
         return Atom(b.binary(Op::Mul, g, b.broadcastInDim(x, {n, 3}, {1})));
       }},
      {"all_gather tiled",
       [](int64_t) {
         return Shape{2, 2};
       },
       [one, withN](Builder &b, Atom t, Atom x, int64_t n) {
         Params p = withN(one, n);
         p["all_gather_dimension"] = Param::of(1);
         p["tiled"] = Param::ofBool(true);
         Var g = b.emit1(Op::AllGather, {t}, p);
         return Atom(b.binary(Op::Mul, g, g));
       }},
      {"psum_scatter tiled", [](int64_t n) { return Shape{2 * n}; },
       [one, withN](Builder &b, Atom t, Atom x, int64_t n) {
         Params p = withN(one, n);
         p["scatter_dimension"] = Param::of(0);
         p["tiled"] = Param::ofBool(true);
         Var s = b.emit1(Op::ReduceScatter, {t}, p);
         return Atom(b.binary(Op::Mul, s, s));
       }},
      {"psum_scatter",
       [](int64_t n) {
         return Shape{3, n};
       },
       [one, withN](Builder &b, Atom t, Atom x, int64_t n) {
         Params p = withN(one, n);
         p["scatter_dimension"] = Param::of(1);
         p["tiled"] = Param::ofBool(false);
         Var s = b.emit1(Op::ReduceScatter, {t}, p);
         return Atom(b.binary(Op::Mul, s, b.unary(Op::Sin, s)));
       }},
      {"all_to_all",
       [](int64_t n) {
         return Shape{n, 2};
       },
       [one, withN](Builder &b, Atom t, Atom x, int64_t n) {
         Params p = withN(one, n);
         p["split_axis"] = Param::of(0);
         p["concat_axis"] = Param::of(1);
         Var s = b.emit1(Op::AllToAll, {t}, p);
         return Atom(b.binary(Op::Mul, s, s));
       }},
      {"axis_index", [](int64_t) { return Shape{3}; },
       [one](Builder &b, Atom t, Atom x, int64_t) {
         Var k = b.convert(b.emit1(Op::AxisIndex, {}, one), DType::F32);
         return Atom(b.binary(Op::Add, b.binary(Op::Mul, t, k), b.binary(Op::Mul, t, x)));
       }},
  };
}

Params pmapParams(int64_t n, std::vector<Param> inAxes, size_t nOut) {
  return {{"axis_name", Param::ofStr("i")},
          {"axis_size", Param::of(n)},
          {"in_axes", Param::tuple(inAxes)},
          {"out_axes", Param::ints(std::vector<int64_t>(nOut, 0))}};
}

/// f(xs, c, w) = sum(pmap i (x in xs) { body(sin(x) * c, x) } * w), c captured.
Jaxpr pmapJaxpr(Module &m, const CollectiveCase &cc, int64_t n) {
  Shape xs = cc.xShape(n);
  Shape stacked = xs;
  stacked.insert(stacked.begin(), n);
  Jaxpr f = buildJaxpr(m, {F(stacked), F(xs)}, [&](Builder &b, const std::vector<Var> &in) {
    Jaxpr body = buildJaxpr(m, {F(xs), F(xs)}, [&](Builder &bb, const std::vector<Var> &x) {
      Var t = bb.binary(Op::Mul, bb.unary(Op::Sin, x[0]), x[1]);
      return std::vector<Atom>{cc.body(bb, t, x[0], n)};
    });
    return std::vector<Atom>{b.emit(Op::Pmap, {in[0], in[1]},
                                    pmapParams(n, {Param::of(0), Param::none()}, 1), {body})[0]};
  });
  Atom y = f.outvars[0];
  weightedSum(m, f, y);
  return f;
}

}  // namespace

TEST_CASE("grad: pmap with each collective, 1 2 3 and 8 replicas", "[grad]") {
  std::mt19937 rng(11);
  for (auto &cc : collectiveCases())
    for (int64_t n : {1, 2, 3, 8}) {
      SECTION(cc.name + " n=" + std::to_string(n)) {
        Module m;
        Jaxpr f = pmapJaxpr(m, cc, n);
        std::vector<Arr> args;
        for (auto &v : f.invars) args.push_back(randomValue(rng, v.type, -1.5, 1.5));
        Jaxpr g = checkGradient(m, f, {0, 1}, args);
        // The backward pass of a pmap is a pmap on the same axis.
        int pmaps = 0;
        for (auto &e : g.eqns)
          if (e.op == Op::Pmap) {
            ++pmaps;
            CHECK(e.param("axis_size").i == n);
            CHECK(e.param("axis_name").s == "i");
          }
        CHECK(pmaps == 2);
        if (n == 3 || n == 2) {  // second order through the backward pmap
          Jaxpr f2 = secondOrder(m, f, 0);
          args.push_back(randomValue(rng, f2.invars.back().type, -1, 1));
          checkGradient(m, f2, {0, 1}, args, 1e-5);
        }
      }
    }
}

TEST_CASE("grad: nested pmaps, psum over both axes", "[grad]") {
  Module m;
  Jaxpr f = buildJaxpr(m, {F({2, 3, 2})}, [&](Builder &b, const std::vector<Var> &in) {
    Jaxpr outer = buildJaxpr(m, {F({3, 2})}, [&](Builder &ob, const std::vector<Var> &x) {
      Jaxpr inner = buildJaxpr(m, {F({2})}, [&](Builder &ib, const std::vector<Var> &y) {
        Var s = ib.emit1(Op::Psum, {ib.unary(Op::Sin, y[0])},
                         {{"axes", Param::tuple({Param::ofStr("i"), Param::ofStr("j")})}});
        return std::vector<Atom>{ib.binary(Op::Mul, s, y[0])};
      });
      Params p = pmapParams(3, {Param::of(0)}, 1);
      p["axis_name"] = Param::ofStr("j");
      return std::vector<Atom>{ob.emit(Op::Pmap, {x[0]}, p, {inner})[0]};
    });
    return std::vector<Atom>{
        b.emit(Op::Pmap, {in[0]}, pmapParams(2, {Param::of(0)}, 1), {outer})[0]};
  });
  Atom y = f.outvars[0];
  weightedSum(m, f, y);
  std::mt19937 rng(3);
  std::vector<Arr> args;
  for (auto &v : f.invars) args.push_back(randomValue(rng, v.type, -1, 1));
  checkGradient(m, f, {0}, args);
}

namespace {

/// for i in 0..5: x = sin(x) * w + i * 0.1 * x; loss sum(x * x * v)
Jaxpr loopJaxpr(Module &m, bool withIndex) {
  Jaxpr f = buildJaxpr(m, {F({3}), F({3})}, [&](Builder &b, const std::vector<Var> &in) {
    std::vector<Type> bt{F({3}), F({3})};
    if (withIndex) bt.insert(bt.begin(), I({}));
    Jaxpr body = buildJaxpr(m, bt, [&](Builder &lb, const std::vector<Var> &v) {
      int o = withIndex ? 1 : 0;
      Var y = lb.binary(Op::Mul, lb.unary(Op::Sin, v[o + 1]), v[o]);
      if (withIndex) {
        Var fi = lb.binary(Op::Mul, lb.convert(v[0], DType::F32), lb.lit(DType::F32, 0.1));
        y = lb.binary(Op::Add, y, lb.binary(Op::Mul, fi, v[o + 1]));
      }
      return std::vector<Atom>{y};
    });
    auto outs = b.emit(Op::ForLoop, {in[1], in[0]},
                       {{"trip_count", Param::of(5)}, {"num_consts", Param::of(1)}}, {body});
    return std::vector<Atom>{b.binary(Op::Mul, outs[0], outs[0])};
  });
  Atom y = f.outvars[0];
  weightedSum(m, f, y);
  return f;
}

}  // namespace

TEST_CASE("grad: for_loop stores residuals and runs backwards", "[grad]") {
  for (bool withIndex : {true, false}) {
    SECTION(withIndex ? "body takes the index" : "body without index") {
      Module m;
      Jaxpr f = loopJaxpr(m, withIndex);
      std::mt19937 rng(5);
      std::vector<Arr> args;
      for (auto &v : f.invars) args.push_back(randomValue(rng, v.type, -1.2, 1.2));
      checkGradient(m, f, {0, 1}, args);
      Jaxpr f2 = secondOrder(m, f, 0);
      args.push_back(randomValue(rng, f2.invars.back().type, -1, 1));
      checkGradient(m, f2, {0, 1}, args, 1e-5);
    }
  }
}

TEST_CASE("grad: pmap inside a for_loop", "[grad]") {
  Module m;
  Jaxpr f = buildJaxpr(m, {F({3, 2})}, [&](Builder &b, const std::vector<Var> &in) {
    Jaxpr body = buildJaxpr(m, {I({}), F({3, 2})}, [&](Builder &lb, const std::vector<Var> &v) {
      Jaxpr pb = buildJaxpr(m, {F({2})}, [&](Builder &pb, const std::vector<Var> &x) {
        Var s = pb.emit1(Op::Psum, {pb.unary(Op::Tanh, x[0])}, {{"axes", axesI()}});
        return std::vector<Atom>{pb.binary(Op::Mul, s, x[0])};
      });
      return std::vector<Atom>{
          lb.emit(Op::Pmap, {v[1]}, pmapParams(3, {Param::of(0)}, 1), {pb})[0]};
    });
    return std::vector<Atom>{b.emit(Op::ForLoop, {in[0]},
                                    {{"trip_count", Param::of(3)}, {"num_consts", Param::of(0)}},
                                    {body})[0]};
  });
  Atom y = f.outvars[0];
  weightedSum(m, f, y);
  std::mt19937 rng(9);
  std::vector<Arr> args;
  for (auto &v : f.invars) args.push_back(randomValue(rng, v.type, -0.5, 0.5));
  checkGradient(m, f, {0}, args);
}

TEST_CASE("grad: cond differentiates the branch taken", "[grad]") {
  Module m;
  Jaxpr f = buildJaxpr(
      m, {Type{DType::Bool, {}}, F({3}), F({3})}, [&](Builder &b, const std::vector<Var> &in) {
        Jaxpr no = buildJaxpr(m, {F({3}), F({3})}, [&](Builder &bb, const std::vector<Var> &x) {
          return std::vector<Atom>{bb.binary(Op::Mul, bb.unary(Op::Sin, x[0]), x[1])};
        });
        Jaxpr yes = buildJaxpr(m, {F({3}), F({3})}, [&](Builder &bb, const std::vector<Var> &x) {
          return std::vector<Atom>{
              bb.binary(Op::Add, bb.binary(Op::Mul, x[0], x[0]), bb.unary(Op::Exp, x[1]))};
        });
        return std::vector<Atom>{b.emit(Op::Cond, {in[0], in[1], in[2]}, {}, {no, yes})[0]};
      });
  Atom y = f.outvars[0];
  weightedSum(m, f, y);
  std::mt19937 rng(13);
  for (double pred : {0.0, 1.0}) {
    std::vector<Arr> args;
    for (auto &v : f.invars) args.push_back(randomValue(rng, v.type, -1, 1));
    args[0].v[0] = pred;
    checkGradient(m, f, {1, 2}, args);
    Jaxpr f2 = secondOrder(m, f, 1);
    args.push_back(randomValue(rng, f2.invars.back().type, -1, 1));
    checkGradient(m, f2, {1, 2}, args, 1e-5);
  }
}

TEST_CASE("grad: vmaps are batched away first", "[grad]") {
  Module m;
  Jaxpr f = buildJaxpr(m, {F({4, 3}), F({3})}, [&](Builder &b, const std::vector<Var> &in) {
    Jaxpr body = buildJaxpr(m, {F({3}), F({3})}, [&](Builder &bb, const std::vector<Var> &x) {
      Var t = bb.binary(Op::Mul, bb.unary(Op::Sin, x[0]), x[1]);
      return std::vector<Atom>{
          bb.binary(Op::Mul, bb.emit1(Op::Psum, {t}, {{"axes", axesI()}}), x[0])};
    });
    return std::vector<Atom>{b.emit(Op::Vmap, {in[0], in[1]},
                                    pmapParams(4, {Param::of(0), Param::none()}, 1), {body})[0]};
  });
  Atom y = f.outvars[0];
  weightedSum(m, f, y);
  std::mt19937 rng(17);
  std::vector<Arr> args;
  for (auto &v : f.invars) args.push_back(randomValue(rng, v.type, -1, 1));
  Jaxpr g = checkGradient(m, f, {0, 1}, args);
  walk(g, [](const Eqn &e) { CHECK(e.op != Op::Vmap); });
}

TEST_CASE("grad: second order, d2/dx2 of sin(x) * x", "[grad]") {
  Module m;
  Jaxpr f = buildJaxpr(m, {F({})}, [](Builder &b, const std::vector<Var> &x) {
    return std::vector<Atom>{b.binary(Op::Mul, b.unary(Op::Sin, x[0]), x[0])};
  });
  Jaxpr g = transforms::valueAndGrad(m, f, {0}, SrcRange{});
  Jaxpr dg = g;
  dg.outvars = {g.outvars[1]};
  Jaxpr h = transforms::valueAndGrad(m, dg, {0}, SrcRange{});
  verifyJaxpr(h);
  for (double x : {-1.3, 0.0, 0.7, 2.5}) {
    auto out = evalF64(h, {Arr{DType::F32, {}, {x}}});
    CHECK(out[0].v[0] == Approx(std::sin(x) + x * std::cos(x)).margin(1e-12));
    CHECK(out[1].v[0] == Approx(2 * std::cos(x) - x * std::sin(x)).margin(1e-12));
  }
}

TEST_CASE("grad: reduce_prod is exact where inputs are zero, to second order", "[grad]") {
  // The rule multiplies the other elements instead of dividing by x: grad(prod)([2, 0, 3])
  // is [0, 6, 0] as in JAX, not NaN. prod is multilinear, so central differences at
  // exact zeros are still accurate.
  Module m;
  Jaxpr p = buildJaxpr(m, {F({3})}, [](Builder &b, const std::vector<Var> &x) {
    return std::vector<Atom>{b.reduce(Op::ReduceProd, x[0], {0})};
  });
  Jaxpr g = transforms::valueAndGrad(m, p, {0}, SrcRange{});
  auto out = evalF64(g, {Arr{DType::F32, {3}, {2, 0, 3}}});
  CHECK(out[1].v == std::vector<double>{0, 6, 0});
  out = evalF64(g, {Arr{DType::F32, {3}, {0, 0, 3}}});
  CHECK(out[1].v == std::vector<double>{0, 0, 0});

  std::mt19937 rng(11);
  for (std::vector<int64_t> axes : {std::vector<int64_t>{1}, {0, 2}, {0, 1, 2}}) {
    SECTION("axes " + std::to_string(axes.size())) {
      Jaxpr f = buildJaxpr(m, {F({2, 3, 2})}, [&](Builder &b, const std::vector<Var> &x) {
        return std::vector<Atom>{b.reduce(Op::ReduceProd, x[0], axes)};
      });
      weightedSum(m, f, f.outvars[0]);
      // One zero in some groups, two in another, none in the rest.
      Arr x{DType::F32, {2, 3, 2}, {1.5, 0, -2, 0.5, 1.25, 3, 0, 0, 2, -1, 0.75, 1.5}};
      std::vector<Arr> args{x, randomValue(rng, f.invars.back().type, -1, 1)};
      Jaxpr g1 = checkGradient(m, f, {0}, args);
      walk(g1, [](const Eqn &e) { CHECK(e.op != Op::Div); });
      Jaxpr f2 = secondOrder(m, f, 0);
      args.push_back(randomValue(rng, f2.invars.back().type, -1, 1));
      checkGradient(m, f2, {0}, args, 1e-5);
    }
  }
}

TEST_CASE("grad: user errors", "[grad]") {
  Module m;
  SrcRange loc{0, 3, 5, 3, 9};
  SECTION("pmax on the gradient's path") {
    Jaxpr f = buildJaxpr(m, {F({2, 3})}, [&](Builder &b, const std::vector<Var> &in) {
      Jaxpr body = buildJaxpr(m, {F({3})}, [&](Builder &bb, const std::vector<Var> &x) {
        return std::vector<Atom>{bb.emit1(Op::Pmax, {x[0]}, {{"axes", axesI()}})};
      });
      Var p = b.emit(Op::Pmap, {in[0]}, pmapParams(2, {Param::of(0)}, 1), {body})[0];
      return std::vector<Atom>{b.reduce(Op::ReduceSum, p, {0, 1})};
    });
    try {
      transforms::valueAndGrad(m, f, {0}, loc);
      FAIL("no error");
    } catch (const UserError &e) {
      CHECK(std::string(e.what()) == "pmax is not differentiable");
      CHECK(e.diag.loc.line == 3);
    }
  }
  SECTION("pmax off the path is fine") {
    Jaxpr f = buildJaxpr(m, {F({2, 3}), F({2, 3})}, [&](Builder &b, const std::vector<Var> &in) {
      Jaxpr body = buildJaxpr(m, {F({3}), F({3})}, [&](Builder &bb, const std::vector<Var> &x) {
        Var mx = bb.emit1(Op::Pmax, {x[1]}, {{"axes", axesI()}});
        return std::vector<Atom>{bb.binary(Op::Mul, x[0], mx)};
      });
      Var p = b.emit(Op::Pmap, {in[0], in[1]}, pmapParams(2, {Param::of(0), Param::of(0)}, 1),
                     {body})[0];
      return std::vector<Atom>{b.reduce(Op::ReduceSum, p, {0, 1})};
    });
    std::mt19937 rng(1);
    std::vector<Arr> args{randomValue(rng, F({2, 3}), -1, 1), randomValue(rng, F({2, 3}), -1, 1)};
    checkGradient(m, f, {0}, args);
  }
  SECTION("integer argument") {
    Jaxpr f = buildJaxpr(m, {I({3})}, [](Builder &b, const std::vector<Var> &in) {
      return std::vector<Atom>{b.convert(b.reduce(Op::ReduceSum, in[0], {0}), DType::F32)};
    });
    CHECK_THROWS_AS(transforms::valueAndGrad(m, f, {0}, loc), UserError);
  }
  SECTION("non-scalar result") {
    Jaxpr f = buildJaxpr(m, {F({3})}, [](Builder &b, const std::vector<Var> &in) {
      return std::vector<Atom>{in[0]};
    });
    CHECK_THROWS_AS(transforms::valueAndGrad(m, f, {0}, loc), UserError);
  }
}
