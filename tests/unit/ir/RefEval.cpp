// ===- RefEval.cpp - the reference interpreter behind the vmap tests ------------===//
//
// The replica logic: every equation runs on all replicas of the axes bound around it in
// lock step (a vector of per-replica values), so collectives can group replicas by axis
// index; pmap and vmap enter a body with one more axis. Per-replica primitives are in
// RefEvalPrims.cpp.
#include "RefEval.h"

#include "RefEvalArrays.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace spmd::testing {
using namespace ir;
using namespace ref;

int64_t Arr::numel() const {
  int64_t n = 1;
  for (auto s : shape) n *= s;
  return n;
}

namespace {

/// Where host ops (print, assert_close) put their operands during one refEval.
std::vector<Arr> *gHostLog = nullptr;

/// The replicas of the axes bound around an equation, in lock step.
struct Ctx {
  std::vector<std::pair<std::string, int64_t>> axes;  ///< outermost first
  int64_t replicas() const {
    int64_t n = 1;
    for (auto &a : axes) n *= a.second;
    return n;
  }
  int64_t indexOf(int64_t r, size_t axis) const {
    for (size_t k = axes.size(); k-- > axis + 1;) r /= axes[k].second;
    return r % axes[axis].second;
  }
};

using Multi = std::vector<Arr>;  // one value per replica

std::vector<std::string> axisNames(const Param &p) {
  if (p.kind == Param::Str) return {p.s};
  std::vector<std::string> r;
  for (auto &e : p.elems) r.push_back(e.s);
  return r;
}

std::vector<Multi> evalJaxpr(const Jaxpr &j, const Ctx &c, const std::vector<Multi> &ins);

/// A collective: replicas grouped by their indices on the other axes, ranked over the
/// named ones (in the order named).
Multi collective(const Eqn &e, const Ctx &c, const std::vector<Multi> &in) {
  bool sum = e.op == Op::Psum || e.op == Op::Pmax || e.op == Op::Pmin;
  auto names = axisNames(e.param(sum ? "axes" : "axis_name"));
  std::vector<size_t> named;
  for (auto &n : names)
    for (size_t k = 0; k < c.axes.size(); ++k)
      if (c.axes[k].first == n) named.push_back(k);
  internal_assert(named.size() == names.size(), "RefEval: collective over an unbound axis");
  int64_t R = c.replicas();
  std::map<std::vector<int64_t>, std::vector<int64_t>> groups;  // key -> members by rank
  std::vector<int64_t> rank(static_cast<size_t>(R));
  int64_t gsize = 1;
  for (auto k : named) gsize *= c.axes[k].second;
  for (int64_t r = 0; r < R; ++r) {
    std::vector<int64_t> key;
    for (size_t k = 0; k < c.axes.size(); ++k)
      if (std::find(named.begin(), named.end(), k) == named.end()) key.push_back(c.indexOf(r, k));
    int64_t rk = 0;
    for (auto k : named) rk = rk * c.axes[k].second + c.indexOf(r, k);
    rank[r] = rk;
    auto &g = groups[key];
    g.resize(size_t(gsize), -1);
    g[rk] = r;
  }
  Multi out(static_cast<size_t>(R));
  for (int64_t r = 0; r < R; ++r) {
    auto key = std::vector<int64_t>();
    for (size_t k = 0; k < c.axes.size(); ++k)
      if (std::find(named.begin(), named.end(), k) == named.end()) key.push_back(c.indexOf(r, k));
    auto &g = groups[key];
    int64_t me = rank[r];
    const Arr &x = e.op == Op::AxisIndex ? Arr{} : in[0][r];
    switch (e.op) {
    case Op::AxisIndex: out[r] = Arr{DType::I32, {}, {double(me)}}; break;
    case Op::Psum: case Op::Pmax: case Op::Pmin: {
      Arr a = in[0][g[0]];
      Op op = e.op == Op::Psum ? Op::Add : e.op == Op::Pmax ? Op::Max : Op::Min;
      for (size_t m = 1; m < g.size(); ++m)
        for (size_t i = 0; i < a.v.size(); ++i) a.v[i] = wrap(a.dtype, binary(op, a.dtype, a.v[i], in[0][g[m]].v[i]));
      out[r] = a;
      break;
    }
    case Op::AllGather: {
      std::vector<Arr> xs;
      for (auto m : g) xs.push_back(in[0][m]);
      int64_t d = e.intParam("all_gather_dimension");
      out[r] = e.param("tiled").i ? concat(xs, d) : stack(xs, d);
      break;
    }
    case Op::Ppermute: {
      out[r] = make(x.dtype, x.shape);
      for (auto &pr : e.param("perm").elems) {
        auto sd = pr.toInts();
        if (sd[1] == me) out[r] = in[0][g[sd[0]]];
      }
      break;
    }
    case Op::AllToAll: {
      int64_t sa = e.intParam("split_axis"), ca = e.intParam("concat_axis"), n = gsize;
      int64_t blk = x.shape[sa] / n;
      std::vector<Arr> parts;
      for (auto m : g) parts.push_back(sliceDim(in[0][m], sa, me * blk, (me + 1) * blk));
      out[r] = concat(parts, ca);
      break;
    }
    case Op::ReduceScatter: {
      Arr a = in[0][g[0]];
      for (size_t m = 1; m < g.size(); ++m)
        for (size_t i = 0; i < a.v.size(); ++i) a.v[i] += in[0][g[m]].v[i];
      int64_t d = e.intParam("scatter_dimension");
      if (e.param("tiled").i) {
        int64_t blk = a.shape[d] / gsize;
        out[r] = sliceDim(a, d, me * blk, (me + 1) * blk);
      } else {
        out[r] = take(a, d, me);
      }
      break;
    }
    default: internal_assert(false, "RefEval: not a collective");
    }
  }
  return out;
}

std::vector<Multi> evalMap(const Eqn &e, const Ctx &c, const std::vector<Multi> &in) {
  static int anon = 0;
  const Param &nm = e.param("axis_name");
  int64_t n = e.intParam("axis_size");
  Ctx inner = c;
  inner.axes.push_back({nm.kind == Param::Str ? nm.s : "<anon" + std::to_string(anon++) + ">", n});
  auto &inAxes = e.param("in_axes").elems;
  int64_t R = c.replicas();
  std::vector<Multi> bodyIn(in.size(), Multi(size_t(R * n)));
  for (size_t k = 0; k < in.size(); ++k)
    for (int64_t r = 0; r < R; ++r)
      for (int64_t i = 0; i < n; ++i)
        bodyIn[k][r * n + i] = inAxes[k].kind == Param::Int ? take(in[k][r], inAxes[k].i, i) : in[k][r];
  auto bodyOut = evalJaxpr(e.regions[0], inner, bodyIn);
  auto outAxes = e.intsParam("out_axes");
  std::vector<Multi> out(bodyOut.size(), Multi(size_t(R)));
  for (size_t k = 0; k < bodyOut.size(); ++k)
    for (int64_t r = 0; r < R; ++r)
      out[k][r] = stack(std::vector<Arr>(bodyOut[k].begin() + r * n, bodyOut[k].begin() + (r + 1) * n), outAxes[k]);
  return out;
}

std::vector<Multi> evalEqn(const Eqn &e, const Ctx &c, const std::vector<Multi> &in) {
  int64_t R = c.replicas();
  switch (e.op) {
  case Op::Pmap: case Op::Vmap: return evalMap(e, c, in);
  case Op::ForLoop: {
    const Jaxpr &body = e.regions[0];
    size_t nc = size_t(e.intParam("num_consts"));
    bool withIndex = body.invars.size() == in.size() + 1;
    std::vector<Multi> carries(in.begin() + nc, in.end());
    for (int64_t t = 0; t < e.intParam("trip_count"); ++t) {
      std::vector<Multi> bin;
      if (withIndex) bin.push_back(Multi(size_t(R), Arr{DType::I32, {}, {double(t)}}));
      bin.insert(bin.end(), in.begin(), in.begin() + nc);
      bin.insert(bin.end(), carries.begin(), carries.end());
      carries = evalJaxpr(body, c, bin);
    }
    return carries;
  }
  case Op::Cond: {
    std::vector<Multi> ops(in.begin() + 1, in.end());
    auto f = evalJaxpr(e.regions[0], c, ops), t = evalJaxpr(e.regions[1], c, ops);
    for (size_t k = 0; k < f.size(); ++k)
      for (int64_t r = 0; r < R; ++r)
        if (in[0][r].v[0] != 0) f[k][r] = t[k][r];
    return f;
  }
  default: break;
  }
  if (info(e.op).category == OpCategory::Host) {  // operands go to the host log
    for (auto &m : in)
      if (gHostLog) gHostLog->push_back(m[0]);
    return {};
  }
  if (info(e.op).category == OpCategory::Collective) return {collective(e, c, in)};
  std::vector<Multi> out(e.out.size(), Multi(size_t(R)));
  for (int64_t r = 0; r < R; ++r) {
    std::vector<Arr> args;
    for (auto &m : in) args.push_back(m[r]);
    out[0][r] = refEvalPrim(e, args);
  }
  return out;
}

std::vector<Multi> evalJaxpr(const Jaxpr &j, const Ctx &c, const std::vector<Multi> &ins) {
  std::unordered_map<int, Multi> env;
  int64_t R = c.replicas();
  for (size_t k = 0; k < ins.size(); ++k) env[j.invars[k].id] = ins[k];
  auto read = [&](const Atom &a) -> Multi {
    if (!a.isLit) return env.at(a.var.id);
    return Multi(size_t(R), Arr{a.lit.dtype, {}, {a.lit.asDouble()}});
  };
  for (auto &e : j.eqns) {
    std::vector<Multi> in;
    for (auto &a : e.in) in.push_back(read(a));
    auto out = evalEqn(e, c, in);
    for (size_t k = 0; k < e.out.size(); ++k) env[e.out[k].id] = out[k];
  }
  std::vector<Multi> r;
  for (auto &a : j.outvars) r.push_back(read(a));
  return r;
}

} // namespace

std::vector<Arr> refEval(const Jaxpr &j, const std::vector<Arr> &ins, std::vector<Arr> *hostLog) {
  gHostLog = hostLog;
  std::vector<Multi> in;
  for (auto &a : ins) in.push_back({a});
  std::vector<Arr> out;
  for (auto &m : evalJaxpr(j, Ctx{}, in)) out.push_back(m[0]);
  return out;
}

} // namespace spmd::testing
