// ===- test_vmap_collectives.cpp - vmap over named axes, nesting and regions ----===//
//
// Collectives over a named vmap axis, collectives naming several axes (pmap and vmap),
// pmaps inside vmaps, vmaps inside pmaps, nested vmaps (named and anonymous), for_loop
// carries that become batched, and cond with batched and unbatched predicates. Every
// case is checked against the reference interpreter (VmapTestUtil.h).
#include "VmapTestUtil.h"

#include <catch2/catch.hpp>

using namespace spmd;
using namespace spmd::ir;
using namespace spmd::testing;

namespace {

std::mt19937 &rng() {
  static std::mt19937 r(777);
  return r;
}
int rnd(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng()); }
using Vars = std::vector<Var>;
using Atoms = std::vector<Atom>;

Type f32(Shape s) { return {DType::F32, std::move(s)}; }

Param axes(std::initializer_list<const char *> names) {
  if (names.size() == 1) return Param::ofStr(*names.begin());
  std::vector<Param> e;
  for (auto n : names) e.push_back(Param::ofStr(n));
  return Param::tuple(e);
}
Var psum(Builder &b, Atom x, Param ax, Op op = Op::Psum) {
  return b.emit1(op, {x}, {{"axes", ax}});
}
Var axisIndexF(Builder &b, const char *ax) {
  return b.convert(b.emit1(Op::AxisIndex, {}, {{"axis_name", Param::ofStr(ax)}}), DType::F32);
}
Var allGatherAxes(Builder &b, Atom x, Param ax, int64_t n, int64_t d, bool tiled) {
  return b.emit1(Op::AllGather, {x},
                 {{"axis_name", ax},
                  {"axis_size", Param::of(n)},
                  {"all_gather_dimension", Param::of(d)},
                  {"tiled", Param::ofBool(tiled)}});
}
Var allGather(Builder &b, Atom x, const char *ax, int64_t n, int64_t d, bool tiled) {
  return allGatherAxes(b, x, Param::ofStr(ax), n, d, tiled);
}
/// A random partial permutation of 0..n-1 as ((src, dst), ...).
Param randomPerm(int64_t n) {
  std::vector<int64_t> dst(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) dst[k] = k;
  std::shuffle(dst.begin(), dst.end(), rng());
  std::vector<Param> pairs;
  for (int64_t k = 0; k < n; ++k)
    if (rnd(0, 3)) pairs.push_back(Param::ints({k, dst[k]}));
  return Param::tuple(pairs);
}
Var ppermute(Builder &b, Atom x, const char *ax, int64_t n) {
  return b.emit1(Op::Ppermute, {x}, {{"axis_name", Param::ofStr(ax)}, {"perm", randomPerm(n)}});
}

}  // namespace

TEST_CASE("vmap: collectives over the vmap's named axis", "[vmap]") {
  for (int t = 0; t < 16; ++t) {
    int64_t n = rnd(1, 4);
    Shape s = randomShape(rng(), 2, 1);
    int d = t % int(s.size());  // both dimensions, whatever the draws
    Shape ss = s;               // for all_to_all / reduce_scatter: dimension d divisible by n
    ss[d] = n * rnd(1, 2);
    int ca = rnd(0, int(s.size()) - 1);
    Shape su = s;  // untiled reduce_scatter: dimension d of size n
    su[d] = n;
    Module m;
    int ax = randomInAxis(rng(), int(s.size())), axs = randomInAxis(rng(), int(s.size()));
    int axu = randomInAxis(rng(), int(s.size()));
    auto body = [&](Builder &b, const Vars &v) {
      Params a2a{{"axis_name", Param::ofStr("v")},
                 {"axis_size", Param::of(n)},
                 {"split_axis", Param::of(d)},
                 {"concat_axis", Param::of(ca)}};
      auto rs = [&](Atom x, bool tiled) {
        return b.emit1(Op::ReduceScatter, {x},
                       {{"axis_name", Param::ofStr("v")},
                        {"axis_size", Param::of(n)},
                        {"scatter_dimension", Param::of(d)},
                        {"tiled", Param::ofBool(tiled)}});
      };
      return Atoms{psum(b, v[0], axes({"v"})),
                   psum(b, v[0], axes({"v"}), Op::Pmax),
                   psum(b, v[0], axes({"v"}), Op::Pmin),
                   allGather(b, v[0], "v", n, rnd(0, int(s.size())), false),
                   allGather(b, v[0], "v", n, d, true),
                   ppermute(b, v[0], "v", n),
                   b.binary(Op::Add, v[0], axisIndexF(b, "v")),
                   b.emit1(Op::AllToAll, {v[1]}, a2a),
                   rs(v[1], true),
                   rs(v[2], false)};
    };
    Jaxpr j = vmapped(m,
                      {stackedType(DType::F32, s, ax, n), stackedType(DType::F32, ss, axs, n),
                       stackedType(DType::F32, su, axu, n)},
                      {ax, axs, axu}, n, "v", body, rng());
    checkVmap(m, j, rng());
  }
}

TEST_CASE("vmap inside pmap: collectives over both axes", "[vmap]") {
  for (int t = 0; t < 8; ++t) {
    int64_t r = rnd(1, 3), n = rnd(1, 3);
    Shape s = randomShape(rng(), 2);
    Module m;
    Jaxpr top;
    top.invars.push_back(m.newVar(f32([&] {
      Shape x{r, n};
      x.insert(x.end(), s.begin(), s.end());
      return x;
    }())));
    Builder b(m, top);
    auto inner = [&](Builder &ib, const Vars &v) {
      return Atoms{
          psum(ib, v[0], axes({"i", "v"})),
          psum(ib, v[0], axes({"v", "i"}), Op::Pmax),
          psum(ib, v[0], axes({"i"})),
          allGather(ib, v[0], "i", r, 0, false),
          ppermute(ib, v[0], "i", r),
          ib.binary(Op::Add, axisIndexF(ib, "i"), ib.binary(Op::Mul, v[0], axisIndexF(ib, "v"))),
          allGatherAxes(ib, v[0], axes({"i", "v"}), r * n, 0, false),
          allGatherAxes(ib, v[0], axes({"v", "i"}), r * n, 0, !s.empty())};
    };
    auto outer = [&](Builder &pb, const Vars &v) {
      auto outs = emitMap(pb, Op::Vmap, {v[0]}, {0}, n, "v", inner, {}, rng());
      return Atoms(outs.begin(), outs.end());
    };
    for (auto &o : emitMap(b, Op::Pmap, {top.invars[0]}, {0}, r, "i", outer, {}, rng()))
      top.outvars.push_back(o);
    checkVmap(m, top, rng());
  }
}

TEST_CASE("pmap inside vmap: the batch dimension rides through the pmap", "[vmap]") {
  for (int t = 0; t < 8; ++t) {
    int64_t n = rnd(1, 3), r = rnd(1, 3);
    Shape s = randomShape(rng(), 2);
    Shape ex{r};
    ex.insert(ex.end(), s.begin(), s.end());
    int ax = randomInAxis(rng(), int(ex.size()), false);
    Module m;
    auto pbody = [&](Builder &pb, const Vars &v) {
      return Atoms{psum(pb, v[0], axes({"p"})),
                   psum(pb, v[0], axes({"v"})),
                   psum(pb, v[1], axes({"p", "v"})),
                   pb.binary(Op::Add, v[0], axisIndexF(pb, "v")),
                   allGather(pb, v[0], "v", n, 0, false),
                   ppermute(pb, v[0], "v", n),
                   v[1]};
    };
    auto vbody = [&](Builder &vb, const Vars &v) {
      auto outs = emitMap(vb, Op::Pmap, {v[0], v[1]}, {0, kNone}, r, "p", pbody, {}, rng());
      return Atoms(outs.begin(), outs.end());
    };
    Jaxpr j = vmapped(m, {stackedType(DType::F32, ex, ax, n), f32({2})}, {ax, kNone}, n, "v", vbody,
                      rng());
    checkVmap(m, j, rng());
  }
}

TEST_CASE("nested vmaps, named and anonymous, name the outer axis from inside", "[vmap]") {
  for (int t = 0; t < 12; ++t) {
    int64_t n = rnd(1, 3), k = rnd(1, 3);
    bool named = t % 2;
    const char *w = named ? "w" : "";
    Shape s = randomShape(rng(), 2);
    Shape ex{k};
    ex.insert(ex.end(), s.begin(), s.end());
    Module m;
    auto ibody = [&](Builder &ib, const Vars &v) {
      Atoms r{psum(ib, v[0], axes({"v"})), allGather(ib, v[0], "v", n, 0, rnd(0, 1) && !s.empty()),
              ib.binary(Op::Mul, v[0], axisIndexF(ib, "v")), ppermute(ib, v[0], "v", n),
              ib.binary(Op::Add, v[0], v[1])};
      if (named) {
        r.push_back(psum(ib, v[0], axes({"v", "w"})));
        r.push_back(ib.binary(Op::Sub, v[0], axisIndexF(ib, "w")));
      }
      return r;
    };
    auto obody = [&](Builder &ob, const Vars &v) {
      auto outs = emitMap(ob, Op::Vmap, {v[0], v[1]}, {0, kNone}, k, w, ibody, {}, rng());
      return Atoms(outs.begin(), outs.end());
    };
    int ax = randomInAxis(rng(), int(ex.size()), false);
    Jaxpr j =
        vmapped(m, {stackedType(DType::F32, ex, ax, n), f32(s)}, {ax, kNone}, n, "v", obody, rng());
    checkVmap(m, j, rng());
  }
}

TEST_CASE("vmap of for_loop: carries become batched when the body makes them so", "[vmap]") {
  for (int t = 0; t < 6; ++t) {
    Shape s = randomShape(rng(), 2);
    Module m;
    auto body = [&](Builder &b, const Vars &v) {
      Jaxpr lb;
      for (auto &ty : {Type{DType::I32, {}}, f32(s), f32(s), f32(s)})
        lb.invars.push_back(m.newVar(ty));
      Builder bb(m, lb);
      Var i = bb.convert(lb.invars[0], DType::F32);
      // (i, x, c, d) -> (c + x * i, d + 1): c turns batched, d stays unbatched
      lb.outvars = {bb.binary(Op::Add, lb.invars[2], bb.binary(Op::Mul, lb.invars[1], i)),
                    bb.binary(Op::Add, lb.invars[3], bb.lit(DType::F32, 1))};
      auto outs =
          b.emit(Op::ForLoop, {v[0], b.fill(DType::F32, s, 0), b.fill(DType::F32, s, 1)},
                 {{"trip_count", Param::of(3)}, {"num_consts", Param::of(1)}}, {std::move(lb)});
      return Atoms(outs.begin(), outs.end());
    };
    int ax = randomInAxis(rng(), int(s.size()), false);
    Jaxpr j = vmapped(m, {stackedType(DType::F32, s, ax, 3)}, {ax}, 3, "v", body, rng());
    checkVmap(m, j, rng());
  }
}

TEST_CASE("vmap of cond: unbatched and batched predicates", "[vmap]") {
  for (int t = 0; t < 8; ++t) {
    Shape s = randomShape(rng(), 2);
    int64_t n = rnd(1, 4);
    Module m;
    auto body = [&](Builder &b, const Vars &v) {
      Jaxpr br[2];
      for (int k = 0; k < 2; ++k) {
        br[k].invars = {m.newVar(f32(s)), m.newVar(f32(s))};
        Builder bb(m, br[k]);
        auto &x = br[k].invars;
        // false: (-x, y); true: (x + y, 2): the second output is batched in one branch only
        br[k].outvars = k ? Atoms{bb.binary(Op::Add, x[0], x[1]), bb.fill(DType::F32, s, 2)}
                          : Atoms{bb.unary(Op::Neg, x[0]), x[1]};
      }
      auto outs = b.emit(Op::Cond, {v[2], v[0], v[1]}, {}, {std::move(br[0]), std::move(br[1])});
      return Atoms(outs.begin(), outs.end());
    };
    int ax = randomInAxis(rng(), int(s.size()), false);
    int py = randomInAxis(rng(), int(s.size()));
    int pp = rnd(0, 1) ? 0 : kNone;
    Jaxpr j = vmapped(m,
                      {stackedType(DType::F32, s, ax, n), stackedType(DType::F32, s, py, n),
                       stackedType(DType::Bool, {}, pp, n)},
                      {ax, py, pp}, n, "v", body, rng());
    checkVmap(m, j, rng());
  }
}
