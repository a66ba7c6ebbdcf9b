// ===- RefEval.cpp - the reference interpreter: replicas, regions, collectives --===//
//
// Walks a jaxpr equation by equation for every replica at once. Maps, loops and conds
// are handled here across replicas, and so are collectives (Note [Replicas]); every other
// primitive runs replica by replica through refEvalPrim (RefEvalPrims.cpp). Each op's rule
// is a table entry (Interp::rules, combineRules here, primRules there), and
// tests/unit/codegen/test_op_coverage.cpp checks through refEvalHasRule that every op has one.
#include "RefEval.h"

#include "RefEvalArrays.h"

#include <algorithm>
#include <array>
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

Arr full(const Type &t, double fill) {
  Arr a = make(t.dtype, t.shape);
  std::fill(a.v.begin(), a.v.end(), fill);
  return a;
}

namespace {

// Note [Replicas]: every equation runs on all replicas of the map axes bound around it, in
// lock step: a value is a vector with one array per replica (`Multi`). `Ctx::axes` lists
// those axes outermost first; replica r's index along axis k is its row-major digit k, so
// a map of size n over R replicas makes R * n, replica r's examples being r * n + i.
// A collective over named axes groups the replicas that agree on every other axis; within
// a group a replica's rank is its row-major index over the named axes, in the order named.
// A cond whose predicate differs between replicas runs both branches on every replica and
// keeps each replica's own (JAX's vmap of cond: a select), so a collective inside a branch
// still sees every replica; when all replicas agree only the branch taken runs.
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

// ---- collectives: one rule per op ----------------------------------------------------------

/// One replica's result of a collective: `g` holds the replicas of its group by rank, `me`
/// is its own rank, `in` the operands (one value per replica).
using CombineRule = Arr (*)(const Eqn &e, const std::vector<Multi> &in,
                            const std::vector<int64_t> &g, int64_t me, Precision p);

/// The group's operands folded with the binary primitive `op`, in rank order.
Arr allReduce(Op op, const Multi &in, const std::vector<int64_t> &g, Precision p) {
  Arr a = in[g[0]];
  for (size_t m = 1; m < g.size(); ++m)
    for (size_t i = 0; i < a.v.size(); ++i)
      a.v[i] = wrap(a.dtype, binary(op, a.dtype, a.v[i], in[g[m]].v[i]), p);
  return a;
}

const std::array<CombineRule, kNumOps> &combineRules() {
  static const std::array<CombineRule, kNumOps> table = [] {
    std::array<CombineRule, kNumOps> t{};
    auto set = [&](Op op, CombineRule f) { t[size_t(op)] = f; };
    set(Op::Psum, [](const Eqn &, const std::vector<Multi> &in, const std::vector<int64_t> &g,
                     int64_t, Precision p) { return allReduce(Op::Add, in[0], g, p); });
    set(Op::Pmax, [](const Eqn &, const std::vector<Multi> &in, const std::vector<int64_t> &g,
                     int64_t, Precision p) { return allReduce(Op::Max, in[0], g, p); });
    set(Op::Pmin, [](const Eqn &, const std::vector<Multi> &in, const std::vector<int64_t> &g,
                     int64_t, Precision p) { return allReduce(Op::Min, in[0], g, p); });
    set(Op::AxisIndex, [](const Eqn &, const std::vector<Multi> &, const std::vector<int64_t> &,
                          int64_t me, Precision) {
      return Arr{DType::I32, {}, {double(me)}};
    });
    set(Op::AllGather, [](const Eqn &e, const std::vector<Multi> &in, const std::vector<int64_t> &g,
                          int64_t, Precision) {
      std::vector<Arr> xs;
      for (auto m : g) xs.push_back(in[0][m]);
      int64_t d = e.intParam("all_gather_dimension");
      return e.param("tiled").i ? concat(xs, d) : stack(xs, d);
    });
    set(Op::Ppermute, [](const Eqn &e, const std::vector<Multi> &in, const std::vector<int64_t> &g,
                         int64_t me, Precision) {
      const Arr &x = in[0][g[me]];
      Arr r = make(x.dtype, x.shape);  // a replica no pair sends to receives zeros
      for (auto &pr : e.param("perm").elems) {
        auto sd = pr.toInts();
        if (sd[1] == me) r = in[0][g[sd[0]]];
      }
      return r;
    });
    set(Op::AllToAll, [](const Eqn &e, const std::vector<Multi> &in, const std::vector<int64_t> &g,
                         int64_t me, Precision) {
      // block `me` of every member's split axis, joined on concat_axis
      int64_t sa = e.intParam("split_axis"), ca = e.intParam("concat_axis");
      int64_t blk = in[0][g[me]].shape[sa] / int64_t(g.size());
      std::vector<Arr> parts;
      for (auto m : g) parts.push_back(sliceDim(in[0][m], sa, me * blk, (me + 1) * blk));
      return concat(parts, ca);
    });
    set(Op::ReduceScatter, [](const Eqn &e, const std::vector<Multi> &in,
                              const std::vector<int64_t> &g, int64_t me, Precision p) {
      Arr a = allReduce(Op::Add, in[0], g, p);
      int64_t d = e.intParam("scatter_dimension");
      if (!e.param("tiled").i) return take(a, d, me);
      int64_t blk = a.shape[d] / int64_t(g.size());
      return sliceDim(a, d, me * blk, (me + 1) * blk);
    });
    return t;
  }();
  return table;
}

class Interp {
public:
  explicit Interp(const EvalOptions &o) : opts(o) {}

  std::vector<Multi> run(const Jaxpr &j, const Ctx &c, const std::vector<Multi> &ins) {
    internal_assert(ins.size() == j.invars.size(), "RefEval: wrong number of inputs");
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
      auto out = eqn(e, c, in);
      for (size_t k = 0; k < e.out.size(); ++k) env[e.out[k].id] = out[k];
    }
    std::vector<Multi> r;
    for (auto &a : j.outvars) r.push_back(read(a));
    return r;
  }

private:
  const EvalOptions &opts;
  int anon = 0;  ///< unnamed map axes get private names

  /// How each op is evaluated (refEvalHasRule checks that every op has an entry).
  using Rule = std::vector<Multi> (Interp::*)(const Eqn &, const Ctx &, const std::vector<Multi> &);
  static const std::array<Rule, kNumOps> &rules() {
    static const std::array<Rule, kNumOps> table = [] {
      std::array<Rule, kNumOps> t{};
      for (int k = 0; k < kNumOps; ++k) {
        auto cat = info(Op(k)).category;
        if (cat == OpCategory::Host)
          t[k] = &Interp::host;
        else if (cat == OpCategory::Collective)
          t[k] = &Interp::collective;
        else if (cat != OpCategory::Region)
          t[k] = &Interp::perReplica;
      }
      t[size_t(Op::Pmap)] = t[size_t(Op::Vmap)] = &Interp::map;
      t[size_t(Op::ForLoop)] = &Interp::forLoop;
      t[size_t(Op::Cond)] = &Interp::cond;
      return t;
    }();
    return table;
  }
  friend bool spmd::testing::refEvalHasRule(ir::Op op);

  std::vector<Multi> eqn(const Eqn &e, const Ctx &c, const std::vector<Multi> &in) {
    Rule rule = rules()[size_t(e.op)];
    internal_assert(rule, std::string("RefEval: no rule for ") + name(e.op));
    return (this->*rule)(e, c, in);
  }

  /// print, assert_close, check: the operands go to the host log (no check is made:
  /// the interpreter clamps indices as JAX does, and tests compare values themselves).
  std::vector<Multi> host(const Eqn &, const Ctx &, const std::vector<Multi> &in) {
    if (opts.hostLog)
      for (auto &m : in) opts.hostLog->push_back(m[0]);
    return {};
  }

  /// Every other primitive: replica by replica (RefEvalPrims.cpp).
  std::vector<Multi> perReplica(const Eqn &e, const Ctx &c, const std::vector<Multi> &in) {
    int64_t R = c.replicas();
    std::vector<Multi> out(e.out.size(), Multi(size_t(R)));
    for (int64_t r = 0; r < R; ++r) {
      std::vector<Arr> args;
      for (auto &m : in) args.push_back(m[r]);
      out[0][r] = refEvalPrim(e, args, opts.precision);
    }
    return out;
  }

  std::vector<Multi> map(const Eqn &e, const Ctx &c, const std::vector<Multi> &in) {
    const Param &nm = e.param("axis_name");
    int64_t n = e.intParam("axis_size");
    Ctx inner = c;
    inner.axes.push_back(
        {nm.kind == Param::Str ? nm.s : "<anon" + std::to_string(anon++) + ">", n});
    auto &inAxes = e.param("in_axes").elems;
    int64_t R = c.replicas();
    std::vector<Multi> bodyIn(in.size(), Multi(size_t(R * n)));
    for (size_t k = 0; k < in.size(); ++k)
      for (int64_t r = 0; r < R; ++r)
        for (int64_t i = 0; i < n; ++i)
          bodyIn[k][r * n + i] =
              inAxes[k].kind == Param::Int ? take(in[k][r], inAxes[k].i, i) : in[k][r];
    auto bodyOut = run(e.regions[0], inner, bodyIn);
    auto outAxes = e.intsParam("out_axes");
    std::vector<Multi> out(bodyOut.size(), Multi(size_t(R)));
    for (size_t k = 0; k < bodyOut.size(); ++k)
      for (int64_t r = 0; r < R; ++r)
        out[k][r] =
            stack(std::vector<Arr>(bodyOut[k].begin() + r * n, bodyOut[k].begin() + (r + 1) * n),
                  outAxes[k]);
    return out;
  }

  /// for_loop: the body's invars are (index?, consts, carries).
  std::vector<Multi> forLoop(const Eqn &e, const Ctx &c, const std::vector<Multi> &in) {
    const Jaxpr &body = e.regions[0];
    size_t nc = size_t(e.intParam("num_consts"));
    bool withIndex = body.invars.size() == in.size() + 1;
    std::vector<Multi> carries(in.begin() + nc, in.end());
    for (int64_t t = 0; t < e.intParam("trip_count"); ++t) {
      std::vector<Multi> bin;
      if (withIndex) bin.push_back(Multi(size_t(c.replicas()), Arr{DType::I32, {}, {double(t)}}));
      bin.insert(bin.end(), in.begin(), in.begin() + nc);
      bin.insert(bin.end(), carries.begin(), carries.end());
      carries = run(body, c, bin);
    }
    return carries;
  }

  /// cond: regions (false, true), operand 0 the predicate (Note [Replicas]).
  std::vector<Multi> cond(const Eqn &e, const Ctx &c, const std::vector<Multi> &in) {
    std::vector<Multi> ops(in.begin() + 1, in.end());
    bool anyTrue = false, anyFalse = false;
    for (auto &p : in[0]) (p.v[0] != 0 ? anyTrue : anyFalse) = true;
    if (!anyFalse) return run(e.regions[1], c, ops);
    if (!anyTrue) return run(e.regions[0], c, ops);
    auto f = run(e.regions[0], c, ops), t = run(e.regions[1], c, ops);
    for (size_t k = 0; k < f.size(); ++k)
      for (size_t r = 0; r < f[k].size(); ++r)
        if (in[0][r].v[0] != 0) f[k][r] = t[k][r];
    return f;
  }

  /// A collective: replicas grouped by their indices on the other axes, ranked over the
  /// named ones (Note [Replicas]).
  std::vector<Multi> collective(const Eqn &e, const Ctx &c, const std::vector<Multi> &in) {
    CombineRule combine = combineRules()[size_t(e.op)];
    internal_assert(combine, std::string("RefEval: no collective rule for ") + name(e.op));
    auto names = axisNames(e.has("axes") ? e.param("axes") : e.param("axis_name"));
    std::vector<size_t> named;
    for (auto &n : names)
      for (size_t k = 0; k < c.axes.size(); ++k)
        if (c.axes[k].first == n) named.push_back(k);
    internal_assert(named.size() == names.size(), "RefEval: collective over an unbound axis");
    int64_t R = c.replicas(), gsize = 1;
    for (auto k : named) gsize *= c.axes[k].second;
    auto keyOf = [&](int64_t r) {
      std::vector<int64_t> key;
      for (size_t k = 0; k < c.axes.size(); ++k)
        if (std::find(named.begin(), named.end(), k) == named.end()) key.push_back(c.indexOf(r, k));
      return key;
    };
    std::map<std::vector<int64_t>, std::vector<int64_t>> groups;  // key -> members by rank
    std::vector<int64_t> rank(static_cast<size_t>(R));
    for (int64_t r = 0; r < R; ++r) {
      int64_t rk = 0;
      for (auto k : named) rk = rk * c.axes[k].second + c.indexOf(r, k);
      rank[r] = rk;
      auto &g = groups[keyOf(r)];
      g.resize(size_t(gsize), -1);
      g[rk] = r;
    }
    Multi out(static_cast<size_t>(R));
    for (int64_t r = 0; r < R; ++r)
      out[r] = combine(e, in, groups[keyOf(r)], rank[r], opts.precision);
    return {out};
  }
};

}  // namespace

bool refEvalHasRule(Op op) {
  Interp::Rule rule = Interp::rules()[size_t(op)];
  if (rule == &Interp::collective) return combineRules()[size_t(op)] != nullptr;
  if (rule == &Interp::perReplica) return hasPrimRule(op);
  return rule != nullptr;
}

std::vector<Arr> refEval(const Jaxpr &j, const std::vector<Arr> &ins, const EvalOptions &opts) {
  std::vector<Multi> in;
  for (auto &a : ins) in.push_back({a});
  std::vector<Arr> out;
  for (auto &m : Interp(opts).run(j, Ctx{}, in)) out.push_back(m[0]);
  return out;
}

}  // namespace spmd::testing
