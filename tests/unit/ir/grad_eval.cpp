// ===- grad_eval.cpp - a float64 reference interpreter for jaxprs (grad tests) -===//
//
// Structure: `Interp::run` walks a jaxpr for a set of *lanes* (replicas) at once; region
// and collective equations are handled across lanes, every other primitive lane by lane
// by `evalPrim`. A lane knows its index along every enclosing pmap axis, which is what
// the collectives group by (Note [Collective groups] below).
#include "grad_eval.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>

namespace spmd::gradtest {
using namespace ir;

Value makeValue(const Type &t, double fill) {
  return Value{t.dtype, t.shape, std::vector<double>(size_t(t.numel()), fill)};
}

namespace {

using Ints = std::vector<int64_t>;

/// Calls f(index, flat) for every index of `s` in row-major order.
void forEach(const Shape &s, const std::function<void(const Ints &, int64_t)> &f) {
  int64_t n = 1;
  for (auto d : s) n *= d;
  Ints idx(s.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    f(idx, flat);
    for (int k = int(s.size()) - 1; k >= 0; --k) {
      if (++idx[k] < s[k]) break;
      idx[k] = 0;
    }
  }
}

int64_t flatten(const Ints &idx, const Shape &s) {
  int64_t f = 0;
  for (size_t k = 0; k < s.size(); ++k) f = f * s[k] + idx[k];
  return f;
}

Value lit(const Literal &l) { return Value{l.dtype, {}, {l.asDouble()}}; }

double castTo(DType d, double v) {
  switch (d) {
  case DType::Bool: return v != 0;
  case DType::I32: return double(int32_t(int64_t(std::trunc(v))));
  case DType::U32: return double(uint32_t(int64_t(std::trunc(v))));
  default: return v;
  }
}

double erfInv(double y) {
  if (y <= -1) return -INFINITY;
  if (y >= 1) return INFINITY;
  double x = 0;
  for (int it = 0; it < 100; ++it) {  // Newton on erf(x) - y
    double step = (std::erf(x) - y) / (2 / std::sqrt(M_PI) * std::exp(-x * x));
    x -= step;
    if (std::abs(step) < 1e-16) break;
  }
  return x;
}

double unaryFn(const Eqn &e, double x) {
  switch (e.op) {
  case Op::Neg: return -x;
  case Op::Exp: return std::exp(x);
  case Op::Log: return std::log(x);
  case Op::Log1p: return std::log1p(x);
  case Op::Sqrt: return std::sqrt(x);
  case Op::Rsqrt: return 1 / std::sqrt(x);
  case Op::Sin: return std::sin(x);
  case Op::Cos: return std::cos(x);
  case Op::Tan: return std::tan(x);
  case Op::Tanh: return std::tanh(x);
  case Op::Logistic: return 1 / (1 + std::exp(-x));
  case Op::Abs: return std::abs(x);
  case Op::Sign: return double((x > 0) - (x < 0));
  case Op::Floor: return std::floor(x);
  case Op::Ceil: return std::ceil(x);
  case Op::Round: return std::round(x);
  case Op::ErfInv: return erfInv(x);
  case Op::IntegerPow: return std::pow(x, double(e.intParam("y")));
  default: internalError(__FILE__, __LINE__, std::string("grad_eval: unary ") + name(e.op));
  }
}

double binaryFn(Op op, DType d, double a, double b) {
  bool isI = !isFloat(d);
  switch (op) {
  case Op::Add: return castTo(d, a + b);
  case Op::Sub: return castTo(d, a - b);
  case Op::Mul: return castTo(d, a * b);
  case Op::Div: return isI ? std::trunc(a / b) : a / b;
  case Op::Rem: return std::fmod(a, b);
  case Op::Pow: return std::pow(a, b);
  case Op::Max: return std::max(a, b);
  case Op::Min: return std::min(a, b);
  case Op::And: return double(int64_t(a) & int64_t(b));
  case Op::Or: return double(int64_t(a) | int64_t(b));
  case Op::Xor: return double(int64_t(a) ^ int64_t(b));
  case Op::Eq: return a == b;
  case Op::Ne: return a != b;
  case Op::Lt: return a < b;
  case Op::Le: return a <= b;
  case Op::Gt: return a > b;
  case Op::Ge: return a >= b;
  default: internalError(__FILE__, __LINE__, std::string("grad_eval: binary ") + name(op));
  }
}

double at(const Value &v, int64_t flat) { return v.shape.empty() ? v.data[0] : v.data[flat]; }

Value reduce(const Eqn &e, const Value &x, const Type &outT) {
  Ints axes = e.intsParam("axes");
  Value r = makeValue(outT, 0);
  std::vector<bool> first(r.data.size(), true);
  forEach(x.shape, [&](const Ints &idx, int64_t flat) {
    Ints o;
    int64_t pos = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      if (std::find(axes.begin(), axes.end(), int64_t(d)) == axes.end()) o.push_back(idx[d]);
      else pos = idx[d];
    int64_t of = flatten(o, outT.shape);
    double v = x.data[flat], &acc = r.data[of];
    bool f = first[of];
    first[of] = false;
    switch (e.op) {
    case Op::ReduceSum: acc += v; break;
    case Op::ReduceProd: acc = f ? v : acc * v; break;
    case Op::ReduceMax: acc = f ? v : std::max(acc, v); break;
    case Op::ReduceMin: acc = f ? v : std::min(acc, v); break;
    case Op::ReduceAnd: acc = f ? v != 0 : (acc != 0 && v != 0); break;
    case Op::ReduceOr: acc = f ? v != 0 : (acc != 0 || v != 0); break;
    default: break;
    }
    (void)pos;
  });
  if (e.op == Op::Argmax || e.op == Op::Argmin) {  // one axis; the first extreme wins
    int64_t ax = axes.at(0);
    forEach(outT.shape, [&](const Ints &o, int64_t of) {
      Ints idx = o;
      idx.insert(idx.begin() + ax, 0);
      double best = 0;
      for (int64_t k = 0; k < x.shape[ax]; ++k) {
        idx[ax] = k;
        double v = x.data[flatten(idx, x.shape)];
        bool better = e.op == Op::Argmax ? v > best : v < best;
        if (k == 0 || better) { best = v; r.data[of] = double(k); }
      }
    });
  }
  return r;
}

Value dotGeneral(const Eqn &e, const Value &x, const Value &y, const Type &outT) {
  auto &dn = e.param("dimension_numbers").elems;
  Ints lc = dn[0].elems[0].toInts(), rc = dn[0].elems[1].toInts();
  Ints lb = dn[1].elems[0].toInts(), rb = dn[1].elems[1].toInts();
  auto freeDims = [](int n, const Ints &c, const Ints &b) {
    Ints r;
    for (int64_t d = 0; d < n; ++d)
      if (std::find(c.begin(), c.end(), d) == c.end() && std::find(b.begin(), b.end(), d) == b.end()) r.push_back(d);
    return r;
  };
  Ints lf = freeDims(int(x.shape.size()), lc, lb), rf = freeDims(int(y.shape.size()), rc, rb);
  Shape cs;
  for (auto d : lc) cs.push_back(x.shape[d]);
  Value r = makeValue(outT, 0);
  forEach(outT.shape, [&](const Ints &o, int64_t of) {
    Ints xi(x.shape.size()), yi(y.shape.size());
    size_t p = 0;
    for (size_t k = 0; k < lb.size(); ++k, ++p) xi[lb[k]] = yi[rb[k]] = o[p];
    for (auto d : lf) xi[d] = o[p++];
    for (auto d : rf) yi[d] = o[p++];
    double acc = 0;
    forEach(cs, [&](const Ints &ci, int64_t) {
      for (size_t k = 0; k < lc.size(); ++k) xi[lc[k]] = yi[rc[k]] = ci[k];
      acc += x.data[flatten(xi, x.shape)] * y.data[flatten(yi, y.shape)];
    });
    r.data[of] = acc;
  });
  return r;
}

/// Every primitive that is neither a region nor a collective, on one lane.
Value evalPrim(const Eqn &e, const std::vector<Value> &in) {
  Type outT = e.out.at(0).type;
  Value r = makeValue(outT, 0);
  switch (info(e.op).category) {
  case OpCategory::Unary:
    if (e.op == Op::Convert) {
      for (size_t k = 0; k < r.data.size(); ++k) r.data[k] = castTo(outT.dtype, in[0].data[k]);
    } else if (e.op == Op::Not) {
      for (size_t k = 0; k < r.data.size(); ++k)
        r.data[k] = outT.dtype == DType::Bool ? in[0].data[k] == 0 : castTo(outT.dtype, ~int64_t(in[0].data[k]));
    } else {
      for (size_t k = 0; k < r.data.size(); ++k) r.data[k] = unaryFn(e, in[0].data[k]);
    }
    return r;
  case OpCategory::Binary:
  case OpCategory::Compare:
    for (int64_t k = 0; k < r.numel(); ++k)
      r.data[k] = binaryFn(e.op, in[0].dtype, at(in[0], k), at(in[1], k));
    return r;
  case OpCategory::Select:
    for (int64_t k = 0; k < r.numel(); ++k) r.data[k] = at(in[0], k) != 0 ? at(in[2], k) : at(in[1], k);
    return r;
  case OpCategory::Ternary:  // fma, in double like every other float op here
    for (int64_t k = 0; k < r.numel(); ++k) r.data[k] = std::fma(at(in[0], k), at(in[1], k), at(in[2], k));
    return r;
  case OpCategory::Reduce: return reduce(e, in[0], outT);
  case OpCategory::Dot: return dotGeneral(e, in[0], in[1], outT);
  default: break;
  }
  const Value &x = in.empty() ? r : in[0];
  switch (e.op) {
  case Op::Iota: {
    int64_t dim = e.intParam("dimension");
    forEach(outT.shape, [&](const Ints &i, int64_t f) { r.data[f] = double(i[dim]); });
    return r;
  }
  case Op::Constant: {
    auto &v = e.param("value");
    for (size_t k = 0; k < r.data.size(); ++k) {
      const Param &p = v.elems.empty() ? v : v.elems[k];
      r.data[k] = p.kind == Param::Float ? p.f : double(p.i);
    }
    return r;
  }
  case Op::BroadcastInDim: {
    Ints dims = e.intsParam("broadcast_dimensions");
    forEach(outT.shape, [&](const Ints &o, int64_t f) {
      Ints xi(x.shape.size());
      for (size_t k = 0; k < dims.size(); ++k) xi[k] = x.shape[k] == 1 ? 0 : o[dims[k]];
      r.data[f] = x.data[flatten(xi, x.shape)];
    });
    return r;
  }
  case Op::Reshape: r.data = x.data; return r;
  case Op::Transpose: {
    Ints perm = e.intsParam("permutation");
    forEach(outT.shape, [&](const Ints &o, int64_t f) {
      Ints xi(x.shape.size());
      for (size_t d = 0; d < perm.size(); ++d) xi[perm[d]] = o[d];
      r.data[f] = x.data[flatten(xi, x.shape)];
    });
    return r;
  }
  case Op::Concatenate: {
    int64_t dim = e.intParam("dimension"), off = 0;
    for (auto &v : in) {
      forEach(v.shape, [&](const Ints &i, int64_t f) {
        Ints o = i;
        o[dim] += off;
        r.data[flatten(o, outT.shape)] = v.data[f];
      });
      off += v.shape[dim];
    }
    return r;
  }
  case Op::Slice: {
    Ints st = e.intsParam("start_indices");
    Ints str = e.has("strides") && e.param("strides").kind != Param::None ? e.intsParam("strides")
                                                                            : Ints(st.size(), 1);
    forEach(outT.shape, [&](const Ints &o, int64_t f) {
      Ints xi(o.size());
      for (size_t d = 0; d < o.size(); ++d) xi[d] = st[d] + o[d] * str[d];
      r.data[f] = x.data[flatten(xi, x.shape)];
    });
    return r;
  }
  case Op::Pad: {
    auto &cfg = e.param("padding_config").elems;
    std::fill(r.data.begin(), r.data.end(), in[1].data[0]);
    forEach(x.shape, [&](const Ints &i, int64_t f) {
      Ints o(i.size());
      for (size_t d = 0; d < i.size(); ++d) {
        auto c = cfg[d].toInts();
        o[d] = c[0] + i[d] * (c[2] + 1);
        if (o[d] < 0 || o[d] >= outT.shape[d]) return;
      }
      r.data[flatten(o, outT.shape)] = x.data[f];
    });
    return r;
  }
  case Op::Rev: {
    Ints dims = e.intsParam("dimensions");
    forEach(outT.shape, [&](const Ints &o, int64_t f) {
      Ints xi = o;
      for (auto d : dims) xi[d] = x.shape[d] - 1 - o[d];
      r.data[f] = x.data[flatten(xi, x.shape)];
    });
    return r;
  }
  case Op::DynamicSlice:
  case Op::DynamicUpdateSlice: {
    bool update = e.op == Op::DynamicUpdateSlice;
    const Shape &win = update ? in[1].shape : outT.shape;
    Ints st;
    for (size_t d = 0; d < x.shape.size(); ++d)
      st.push_back(std::clamp<int64_t>(int64_t(in[(update ? 2 : 1) + d].data[0]), 0, x.shape[d] - win[d]));
    if (update) r.data = x.data;
    forEach(win, [&](const Ints &w, int64_t f) {
      Ints xi(w.size());
      for (size_t d = 0; d < w.size(); ++d) xi[d] = st[d] + w[d];
      if (update) r.data[flatten(xi, x.shape)] = in[1].data[f];
      else r.data[f] = x.data[flatten(xi, x.shape)];
    });
    return r;
  }
  default: internalError(__FILE__, __LINE__, std::string("grad_eval: no rule for ") + name(e.op));
  }
}

// Note [Collective groups]: a lane is one replica; `axes` maps each enclosing pmap axis
// to (index, size). A collective over named axes groups the lanes that agree on every
// other axis; within a group a lane's position is its row-major index over the named axes.
struct Lane {
  std::map<std::string, std::pair<int64_t, int64_t>> axes;
};

std::vector<std::string> axisNames(const Param &p) {
  if (p.kind == Param::Str) return {p.s};
  std::vector<std::string> r;
  for (auto &e : p.elems) r.push_back(e.s);
  return r;
}

Value sliceAxis(const Value &v, int64_t axis, int64_t i) {
  Shape s = v.shape;
  s.erase(s.begin() + axis);
  Value r = makeValue(Type{v.dtype, s}, 0);
  forEach(s, [&](const Ints &o, int64_t f) {
    Ints vi = o;
    vi.insert(vi.begin() + axis, i);
    r.data[f] = v.data[flatten(vi, v.shape)];
  });
  return r;
}

Value stackAxis(const std::vector<Value> &vs, int64_t axis) {
  Shape s = vs.at(0).shape;
  s.insert(s.begin() + axis, int64_t(vs.size()));
  Value r = makeValue(Type{vs[0].dtype, s}, 0);
  forEach(s, [&](const Ints &o, int64_t f) {
    Ints vi = o;
    vi.erase(vi.begin() + axis);
    r.data[f] = vs[o[axis]].data[flatten(vi, vs[o[axis]].shape)];
  });
  return r;
}

/// Splits v along `axis` into n equal blocks, or joins blocks along it.
std::vector<Value> splitAxis(const Value &v, int64_t axis, int64_t n) {
  Shape s = v.shape;
  s[axis] /= n;
  std::vector<Value> r(n, makeValue(Type{v.dtype, s}, 0));
  forEach(v.shape, [&](const Ints &i, int64_t f) {
    Ints o = i;
    o[axis] = i[axis] % s[axis];
    r[i[axis] / s[axis]].data[flatten(o, s)] = v.data[f];
  });
  return r;
}
Value concatAxis(const std::vector<Value> &vs, int64_t axis) {
  Shape s = vs[0].shape;
  s[axis] *= int64_t(vs.size());
  Value r = makeValue(Type{vs[0].dtype, s}, 0);
  forEach(s, [&](const Ints &o, int64_t f) {
    Ints i = o;
    int64_t blk = vs[0].shape[axis];
    i[axis] = o[axis] % blk;
    r.data[f] = vs[o[axis] / blk].data[flatten(i, vs[0].shape)];
  });
  return r;
}

using Env = std::unordered_map<int, Value>;

class Interp {
public:
  /// Runs `j` on every lane; args[lane][k] is invar k's value on that lane.
  std::vector<std::vector<Value>> run(const Jaxpr &j, const std::vector<Lane> &lanes,
                                      const std::vector<std::vector<Value>> &args) {
    std::vector<Env> env(lanes.size());
    for (size_t l = 0; l < lanes.size(); ++l)
      for (size_t k = 0; k < j.invars.size(); ++k) env[l][j.invars[k].id] = args[l][k];
    auto get = [&](size_t l, const Atom &a) { return a.isLit ? lit(a.lit) : env[l].at(a.var.id); };
    for (auto &e : j.eqns) {
      std::vector<std::vector<Value>> ins(lanes.size());
      for (size_t l = 0; l < lanes.size(); ++l)
        for (auto &a : e.in) ins[l].push_back(get(l, a));
      std::vector<std::vector<Value>> outs;
      auto cat = info(e.op).category;
      if (e.op == Op::Pmap || e.op == Op::Vmap) outs = pmap(e, lanes, ins);
      else if (e.op == Op::ForLoop) outs = forLoop(e, lanes, ins);
      else if (e.op == Op::Cond) outs = cond(e, lanes, ins);
      else if (cat == OpCategory::Collective) outs = collective(e, lanes, ins);
      else if (cat == OpCategory::Host) continue;
      else
        for (size_t l = 0; l < lanes.size(); ++l) outs.push_back({evalPrim(e, ins[l])});
      for (size_t l = 0; l < lanes.size(); ++l)
        for (size_t k = 0; k < e.out.size(); ++k) env[l][e.out[k].id] = outs[l][k];
    }
    std::vector<std::vector<Value>> r(lanes.size());
    for (size_t l = 0; l < lanes.size(); ++l)
      for (auto &a : j.outvars) r[l].push_back(get(l, a));
    return r;
  }

private:
  using Lanes = std::vector<std::vector<Value>>;

  static std::vector<std::optional<int64_t>> axesOf(const Param &p) {
    std::vector<std::optional<int64_t>> r;
    for (auto &x : p.elems) r.push_back(x.kind == Param::None ? std::nullopt : std::optional<int64_t>(x.i));
    return r;
  }

  Lanes pmap(const Eqn &e, const std::vector<Lane> &lanes, const Lanes &ins) {
    int64_t n = e.intParam("axis_size");
    std::string axis = e.param("axis_name").s;
    auto inAxes = axesOf(e.param("in_axes"));
    auto outAxes = e.intsParam("out_axes");
    std::vector<Lane> sub;
    Lanes args;
    for (size_t l = 0; l < lanes.size(); ++l)
      for (int64_t r = 0; r < n; ++r) {
        Lane ln = lanes[l];
        ln.axes[axis] = {r, n};
        sub.push_back(ln);
        std::vector<Value> a;
        for (size_t k = 0; k < ins[l].size(); ++k)
          a.push_back(inAxes[k] ? sliceAxis(ins[l][k], *inAxes[k], r) : ins[l][k]);
        args.push_back(a);
      }
    Lanes res = run(e.regions[0], sub, args), outs(lanes.size());
    for (size_t l = 0; l < lanes.size(); ++l)
      for (size_t k = 0; k < outAxes.size(); ++k) {
        std::vector<Value> parts;
        for (int64_t r = 0; r < n; ++r) parts.push_back(res[l * n + r][k]);
        outs[l].push_back(stackAxis(parts, outAxes[k]));
      }
    return outs;
  }

  Lanes forLoop(const Eqn &e, const std::vector<Lane> &lanes, const Lanes &ins) {
    int64_t T = e.intParam("trip_count"), nc = e.intParam("num_consts");
    bool withIndex = e.regions[0].invars.size() == ins.at(0).size() + 1;  // (i, consts, carries)
    Lanes carries(lanes.size());
    for (size_t l = 0; l < lanes.size(); ++l) carries[l].assign(ins[l].begin() + nc, ins[l].end());
    for (int64_t i = 0; i < T; ++i) {
      Lanes args(lanes.size());
      for (size_t l = 0; l < lanes.size(); ++l) {
        if (withIndex) args[l].push_back(Value{DType::I32, {}, {double(i)}});
        args[l].insert(args[l].end(), ins[l].begin(), ins[l].begin() + nc);
        args[l].insert(args[l].end(), carries[l].begin(), carries[l].end());
      }
      carries = run(e.regions[0], lanes, args);
    }
    return carries;
  }

  Lanes cond(const Eqn &e, const std::vector<Lane> &lanes, const Lanes &ins) {
    Lanes outs(lanes.size());
    for (int br = 0; br < 2; ++br) {
      std::vector<Lane> sub;
      Lanes args;
      std::vector<size_t> which;
      for (size_t l = 0; l < lanes.size(); ++l)
        if ((ins[l][0].data[0] != 0) == (br == 1)) {
          sub.push_back(lanes[l]);
          args.emplace_back(ins[l].begin() + 1, ins[l].end());
          which.push_back(l);
        }
      if (sub.empty()) continue;
      auto res = run(e.regions[br], sub, args);
      for (size_t k = 0; k < which.size(); ++k) outs[which[k]] = res[k];
    }
    return outs;
  }

  Lanes collective(const Eqn &e, const std::vector<Lane> &lanes, const Lanes &ins) {
    auto names = axisNames(e.has("axes") ? e.param("axes") : e.param("axis_name"));
    Lanes outs(lanes.size());
    if (e.op == Op::AxisIndex) {
      for (size_t l = 0; l < lanes.size(); ++l) {
        int64_t idx = 0;
        for (auto &a : names) idx = idx * lanes[l].axes.at(a).second + lanes[l].axes.at(a).first;
        outs[l].push_back(Value{DType::I32, {}, {double(idx)}});
      }
      return outs;
    }
    // Group the lanes (Note [Collective groups]).
    std::map<std::vector<int64_t>, std::vector<std::pair<int64_t, size_t>>> groups;
    for (size_t l = 0; l < lanes.size(); ++l) {
      std::vector<int64_t> key;
      for (auto &[a, is] : lanes[l].axes)
        if (std::find(names.begin(), names.end(), a) == names.end()) key.push_back(is.first);
      int64_t pos = 0;
      for (auto &a : names) pos = pos * lanes[l].axes.at(a).second + lanes[l].axes.at(a).first;
      groups[key].push_back({pos, l});
    }
    for (auto &[key, members] : groups) {
      std::sort(members.begin(), members.end());
      std::vector<Value> xs;
      for (auto &m : members) xs.push_back(ins[m.second][0]);
      auto rs = combine(e, xs);
      for (size_t k = 0; k < members.size(); ++k) outs[members[k].second].push_back(rs[k]);
    }
    return outs;
  }

  static std::vector<Value> combine(const Eqn &e, const std::vector<Value> &xs) {
    int64_t n = int64_t(xs.size());
    Value total = xs[0];
    for (int64_t r = 1; r < n; ++r)
      for (size_t k = 0; k < total.data.size(); ++k) {
        double v = xs[r].data[k];
        total.data[k] = e.op == Op::Pmax ? std::max(total.data[k], v)
                        : e.op == Op::Pmin ? std::min(total.data[k], v) : total.data[k] + v;
      }
    switch (e.op) {
    case Op::Psum: case Op::Pmax: case Op::Pmin: return std::vector<Value>(n, total);
    case Op::AllGather: {
      int64_t d = e.intParam("all_gather_dimension");
      return std::vector<Value>(n, e.intParam("tiled") ? concatAxis(xs, d) : stackAxis(xs, d));
    }
    case Op::ReduceScatter: {
      int64_t d = e.intParam("scatter_dimension");
      std::vector<Value> r;
      for (int64_t k = 0; k < n; ++k)
        r.push_back(e.intParam("tiled") ? splitAxis(total, d, n)[k] : sliceAxis(total, d, k));
      return r;
    }
    case Op::Ppermute: {
      std::vector<Value> r(n, makeValue(Type{xs[0].dtype, xs[0].shape}, 0));
      for (auto &p : e.param("perm").elems) r[p.elems[1].i] = xs[p.elems[0].i];
      return r;
    }
    case Op::AllToAll: {
      int64_t sa = e.intParam("split_axis"), ca = e.intParam("concat_axis");
      std::vector<std::vector<Value>> chunks;
      for (auto &x : xs) chunks.push_back(splitAxis(x, sa, n));
      std::vector<Value> r;
      for (int64_t k = 0; k < n; ++k) {
        std::vector<Value> recv;
        for (int64_t src = 0; src < n; ++src) recv.push_back(chunks[src][k]);
        r.push_back(concatAxis(recv, ca));
      }
      return r;
    }
    default: internalError(__FILE__, __LINE__, std::string("grad_eval: collective ") + name(e.op));
    }
  }
};

} // namespace

std::vector<Value> evalJaxpr(const Jaxpr &j, const std::vector<Value> &args) {
  return Interp().run(j, {Lane{}}, {args}).at(0);
}

} // namespace spmd::gradtest
