// ===- test_vmap.cpp - the vmap batching rules against the reference interpreter ===//
//
// Each primitive with a batching rule is checked by the vmap property on random shapes
// and random in/out axes (0, 1, last, None): eliminateVmaps(f)(xs) must equal f run
// example by example (RefEval). Then the shape of the result for the matrix-vector
// product, collectives over named vmap axes, nested maps, loops and conditionals.
#include "VmapTestUtil.h"
#include "transforms/Vmap.h"

#include <catch2/catch.hpp>
#include <numeric>

using namespace spmd;
using namespace spmd::ir;
using namespace spmd::testing;

namespace {

std::mt19937 &rng() {
  static std::mt19937 r(20261122);
  return r;
}
int rnd(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng()); }
using Vars = std::vector<Var>;
using Atoms = std::vector<Atom>;

/// One vmap of random size over operands with these per-example types (random in-axes).
Jaxpr prop(const std::vector<Type> &examples, const BodyFn &body, const std::string &axis = "v",
           bool allowNone = true, int64_t n = 0) {
  if (n == 0) n = rnd(1, 4);
  std::vector<Type> outer;
  std::vector<int> axes;
  for (auto &t : examples) {
    int ax = randomInAxis(rng(), t.rank(), allowNone);
    axes.push_back(ax);
    outer.push_back(stackedType(t.dtype, t.shape, ax, n));
  }
  Module m;
  return checkVmap(m, vmapped(m, outer, axes, n, axis, body, rng()), rng());
}

Type f32(Shape s) { return {DType::F32, std::move(s)}; }
Type i32(Shape s = {}) { return {DType::I32, std::move(s)}; }

Var iota(Builder &b, Shape s, int dim, DType d = DType::I32) {
  return b.emit1(
      Op::Iota, {},
      {{"dtype", Param::ofDType(d)}, {"shape", Param::ints(s)}, {"dimension", Param::of(dim)}});
}

Var positive(Builder &b, Atom x) {
  return b.binary(Op::Add, b.unary(Op::Abs, x), b.lit(DType::F32, 0.5));
}

}  // namespace

TEST_CASE("vmap: unary elementwise ops", "[vmap]") {
  for (Op op : {Op::Neg, Op::Exp, Op::Log, Op::Log1p, Op::Sqrt, Op::Rsqrt, Op::Sin, Op::Cos,
                Op::Tan, Op::Tanh, Op::Logistic, Op::Abs, Op::Sign, Op::Floor, Op::Ceil, Op::Round})
    for (int t = 0; t < 3; ++t)
      prop({f32(randomShape(rng()))},
           [&](Builder &b, const Vars &v) { return Atoms{b.unary(op, positive(b, v[0]))}; });
}

TEST_CASE("vmap: binary, compare and select with scalars and literals", "[vmap]") {
  for (Op op : {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Rem, Op::Pow, Op::Max, Op::Min, Op::Lt,
                Op::Eq, Op::Ge})
    for (int t = 0; t < 4; ++t) {
      Shape s = randomShape(rng());
      Shape s2 = rnd(0, 2) == 0 ? Shape{} : s;  // a per-example scalar meets an array
      prop({f32(s), f32(s2)}, [&](Builder &b, const Vars &v) {
        Var y = b.binary(op, positive(b, v[0]), positive(b, v[1]));
        Var z = b.binary(Op::Mul, v[0], b.lit(DType::F32, 2.0));
        return Atoms{y, z};
      });
    }
  for (int t = 0; t < 6; ++t) {
    Shape s = randomShape(rng());
    prop({f32(s), f32(rnd(0, 1) ? s : Shape{}), f32(s)}, [&](Builder &b, const Vars &v) {
      Var c = b.binary(Op::Gt, v[1], b.lit(DType::F32, 0));
      return Atoms{b.emit1(Op::Select, {c, v[0], v[2]})};
    });
  }
}

TEST_CASE("vmap: integer, bitwise, convert, bitcast and integer_pow", "[vmap]") {
  for (int t = 0; t < 6; ++t) {
    Shape s = randomShape(rng());
    prop({Type{DType::U32, s}, Type{DType::U32, s}}, [&](Builder &b, const Vars &v) {
      Atoms r;
      for (Op op : {Op::And, Op::Or, Op::Xor, Op::ShiftLeft, Op::ShiftRightLogical})
        r.push_back(b.binary(op, v[0], v[1]));
      r.push_back(b.unary(Op::Not, v[0]));
      return r;
    });
    prop({i32(s), i32(s), f32(s)}, [&](Builder &b, const Vars &v) {
      Var d = b.binary(Op::Add, b.unary(Op::Abs, v[1]), b.lit(DType::I32, 1));
      Params bc{{"new_dtype", Param::ofDType(DType::U32)}};
      return Atoms{b.binary(Op::Div, v[0], d),
                   b.binary(Op::Rem, v[0], d),
                   b.convert(v[2], DType::I32),
                   b.convert(v[0], DType::F32),
                   b.convert(v[2], DType::Bool),
                   b.emit1(Op::BitcastConvert, {v[2]}, bc),
                   b.emit1(Op::IntegerPow, {v[2]}, {{"y", Param::of(3)}})};
    });
  }
}

TEST_CASE("vmap: reductions and argmax/argmin shift their axes", "[vmap]") {
  for (int t = 0; t < 12; ++t) {
    Shape s = randomShape(rng(), 3, 1);
    std::vector<int64_t> axes;
    for (int k = 0; k < int(s.size()); ++k)
      if (rnd(0, 1) || (k + 1 == int(s.size()) && axes.empty())) axes.push_back(k);
    int64_t one = rnd(0, int(s.size()) - 1);
    prop({f32(s)}, [&](Builder &b, const Vars &v) {
      Atoms r;
      for (Op op : {Op::ReduceSum, Op::ReduceMax, Op::ReduceMin, Op::ReduceProd})
        r.push_back(b.reduce(op, v[0], axes));
      Var pos = b.binary(Op::Gt, v[0], b.lit(DType::F32, 0));
      r.push_back(b.reduce(Op::ReduceAnd, pos, axes));
      r.push_back(b.reduce(Op::ReduceOr, pos, axes));
      r.push_back(b.reduce(Op::Argmax, v[0], {one}));
      r.push_back(b.reduce(Op::Argmin, v[0], {one}));
      return r;
    });
  }
}

TEST_CASE("vmap: iota, broadcast_in_dim, reshape, transpose, rev", "[vmap]") {
  for (int t = 0; t < 12; ++t) {
    Shape s = randomShape(rng(), 3);
    prop({f32(s)}, [&](Builder &b, const Vars &v) {
      Atoms r;
      if (!s.empty())
        r.push_back(
            b.binary(Op::Add, v[0], b.convert(iota(b, s, rnd(0, int(s.size()) - 1)), DType::F32)));
      // broadcast: insert one new dim somewhere
      int at = rnd(0, int(s.size()));
      Shape big = s;
      big.insert(big.begin() + at, rnd(1, 3));
      std::vector<int64_t> dims;
      for (int k = 0; k < int(s.size()); ++k) dims.push_back(k < at ? k : k + 1);
      r.push_back(b.broadcastInDim(v[0], big, dims));
      Shape flat{Type{DType::F32, s}.numel()};
      r.push_back(b.reshape(v[0], flat));
      std::vector<int64_t> perm(s.size());
      std::iota(perm.begin(), perm.end(), 0);
      std::shuffle(perm.begin(), perm.end(), rng());
      r.push_back(b.transpose(v[0], perm));
      std::vector<int64_t> rd;
      for (int k = 0; k < int(s.size()); ++k)
        if (rnd(0, 1)) rd.push_back(k);
      r.push_back(b.emit1(Op::Rev, {v[0]}, {{"dimensions", Param::ints(rd)}}));
      return r;
    });
  }
}

TEST_CASE("vmap: concatenate, slice, pad", "[vmap]") {
  for (int t = 0; t < 12; ++t) {
    Shape s = randomShape(rng(), 3, 1);
    int d = rnd(0, int(s.size()) - 1);
    Shape s2 = s;
    s2[d] = rnd(1, 3);
    prop({f32(s), f32(s2), f32({})}, [&](Builder &b, const Vars &v) {
      Atoms r;
      r.push_back(b.emit1(Op::Concatenate, {v[0], v[1], v[0]}, {{"dimension", Param::of(d)}}));
      std::vector<int64_t> st, li, str;
      for (auto n : s) {
        int64_t a = rnd(0, int(n) - 1), z = rnd(int(a) + 1, int(n));
        st.push_back(a), li.push_back(z), str.push_back(rnd(1, 2));
      }
      r.push_back(b.emit1(Op::Slice, {v[0]},
                          {{"start_indices", Param::ints(st)},
                           {"limit_indices", Param::ints(li)},
                           {"strides", rnd(0, 1) ? Param::ints(str) : Param::none()}}));
      std::vector<Param> cfg;
      for (auto n : s)
        cfg.push_back(Param::ints({n > 1 ? rnd(-1, 2) : rnd(0, 2), rnd(0, 2), rnd(0, 1)}));
      r.push_back(b.emit1(Op::Pad, {v[0], v[2]}, {{"padding_config", Param::tuple(cfg)}}));
      r.push_back(
          b.emit1(Op::Pad, {v[0], b.lit(DType::F32, 7)}, {{"padding_config", Param::tuple(cfg)}}));
      return r;
    });
  }
}

TEST_CASE("vmap: dynamic_slice and dynamic_update_slice, batched or unbatched indices", "[vmap]") {
  for (int t = 0; t < 16; ++t) {
    Shape s = randomShape(rng(), 3, 1);
    Shape w;
    for (auto n : s) w.push_back(rnd(1, int(n)));
    std::vector<Type> types{f32(s), f32(w)};
    for (size_t k = 0; k < s.size(); ++k) types.push_back(i32());
    prop(types, [&](Builder &b, const Vars &v) {
      Atoms ds{v[0]}, dus{v[0], v[1]};
      for (size_t k = 0; k < s.size(); ++k) ds.push_back(v[2 + k]), dus.push_back(v[2 + k]);
      Var sl = b.emit1(Op::DynamicSlice, ds, {{"slice_sizes", Param::ints(w)}});
      Var up = b.emit1(Op::DynamicUpdateSlice, dus);
      Atoms bs = ds;
      bs[0] = b.binary(Op::Gt, v[0], b.lit(DType::F32, 0));  // bools take the reduce_or path
      Var bools = b.emit1(Op::DynamicSlice, bs, {{"slice_sizes", Param::ints(w)}});
      return Atoms{sl, up, bools};
    });
  }
}

TEST_CASE("vmap: dot_general with either or both operands batched", "[vmap]") {
  for (int t = 0; t < 12; ++t) {
    int64_t m = rnd(1, 3), k = rnd(1, 3), n = rnd(1, 3), bb = rnd(1, 2);
    Params mm{{"dimension_numbers",
               Param::tuple({Param::tuple({Param::ints({1}, true), Param::ints({0}, true)}),
                             Param::tuple({Param::ints({}, true), Param::ints({}, true)})})}};
    Params bmm{{"dimension_numbers",
                Param::tuple({Param::tuple({Param::ints({2}, true), Param::ints({1}, true)}),
                              Param::tuple({Param::ints({0}, true), Param::ints({0}, true)})})}};
    prop({f32({m, k}), f32({k, n}), f32({k}), f32({bb, m, k}), f32({bb, k, n})},
         [&](Builder &b, const Vars &v) {
           return Atoms{b.emit1(Op::DotGeneral, {v[0], v[1]}, mm),
                        b.emit1(Op::DotGeneral, {v[0], v[2]}, mm),
                        b.emit1(Op::DotGeneral, {v[3], v[4]}, bmm)};
         });
  }
}

TEST_CASE("vmap: a vmapped matrix-vector product is one batched dot_general", "[vmap]") {
  Module m;
  Params mv{{"dimension_numbers",
             Param::tuple({Param::tuple({Param::ints({1}, true), Param::ints({0}, true)}),
                           Param::tuple({Param::ints({}, true), Param::ints({}, true)})})}};
  Jaxpr j = vmapped(m, {f32({5, 2, 3}), f32({5, 3})}, {0, 0}, 5, "",
                    [&](Builder &b, const Vars &v) {
                      return Atoms{b.emit1(Op::DotGeneral, {v[0], v[1]}, mv)};
                    },
                    rng(), {0});
  Jaxpr r = checkVmap(m, j, rng());
  REQUIRE(r.eqns.size() == 1);
  CHECK(r.eqns[0].op == Op::DotGeneral);
  CHECK(r.eqns[0].param("dimension_numbers").str() == "(([2], [1]), ([0], [0]))");
  CHECK(r.eqns[0].out[0].type.str() == "f32[5,2]");
  walk(r, [](const Eqn &e) { CHECK(e.op != Op::ForLoop); });
}

TEST_CASE("vmap: random primitives on batched keys and seeds", "[vmap]") {
  for (int t = 0; t < 6; ++t) {
    Shape s = randomShape(rng(), 2);
    prop({i32(), Type{DType::Key, s}, Type{DType::U32, s}}, [&](Builder &b, const Vars &v) {
      Var k = b.emit1(Op::RandomSeed, {v[0]});
      Var bits =
          b.emit1(Op::RandomBits, {k}, {{"bit_width", Param::of(32)}, {"shape", Param::ints({3})}});
      Var split = b.emit1(Op::RandomSplit, {v[1]}, {{"shape", Param::ints({2})}});
      Var fold = b.emit1(Op::RandomFoldIn, {v[1], v[2]});
      Var words = b.emit1(Op::RandomUnwrap, {fold});
      Var back = b.emit1(Op::RandomWrap, {words});
      return Atoms{k, bits, split, back};
    });
  }
}
