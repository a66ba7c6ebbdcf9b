// ===- RefEval.cpp - the reference interpreter behind the vmap tests ------------===//
#include "RefEval.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <unordered_map>

namespace spmd::testing {
using namespace ir;

int64_t Arr::numel() const {
  int64_t n = 1;
  for (auto s : shape) n *= s;
  return n;
}

namespace {

int W(const Arr &a) { return a.dtype == DType::Key ? 2 : 1; }  // words per element

Arr make(DType d, Shape s) {
  Arr a{d, std::move(s), {}};
  a.v.assign(size_t(a.numel() * W(a)), 0.0);
  return a;
}

std::vector<int64_t> strides(const Shape &s) {
  std::vector<int64_t> st(s.size(), 1);
  for (int k = int(s.size()) - 2; k >= 0; --k) st[k] = st[k + 1] * s[k + 1];
  return st;
}

/// Calls f(multi-index, flat index) for every element of `s`.
void forEach(const Shape &s, const std::function<void(const std::vector<int64_t> &, int64_t)> &f) {
  int64_t n = 1;
  for (auto d : s) n *= d;
  std::vector<int64_t> idx(s.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    f(idx, flat);
    for (int k = int(s.size()) - 1; k >= 0; --k) {
      if (++idx[k] < s[k]) break;
      idx[k] = 0;
    }
  }
}

int64_t flatOf(const std::vector<int64_t> &idx, const Shape &s) {
  int64_t f = 0;
  for (size_t k = 0; k < s.size(); ++k) f = f * s[k] + idx[k];
  return f;
}

void copyElem(Arr &dst, int64_t di, const Arr &src, int64_t si) {
  for (int w = 0; w < W(src); ++w) dst.v[di * W(dst) + w] = src.v[si * W(src) + w];
}

double wrap(DType d, double x) {
  if (d == DType::Bool) return x != 0;
  if (d == DType::I32) return double(int32_t(uint32_t(int64_t(std::trunc(x)))));
  if (d == DType::U32) return double(uint32_t(int64_t(std::trunc(x))));
  if (d == DType::F32) return double(float(x));
  return x;
}

uint32_t u32(double x) { return uint32_t(int64_t(x)); }

/// A deterministic mix of three words into two (the tests' stand-in for threefry).
std::pair<double, double> mix(uint64_t a, uint64_t b, uint64_t c) {
  uint64_t z = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull) * 0xBF58476D1CE4E5B9ull ^ c * 0x94D049BB133111EBull;
  z ^= z >> 31;
  z *= 0xD6E8FEB86659FD93ull;
  z ^= z >> 29;
  return {double(uint32_t(z)), double(uint32_t(z >> 32))};
}

double unary(const Eqn &e, DType d, double x) {
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
  case Op::Abs: return std::fabs(x);
  case Op::Sign: return double((x > 0) - (x < 0));
  case Op::Floor: return std::floor(x);
  case Op::Ceil: return std::ceil(x);
  case Op::Round: return std::round(x);
  case Op::Not: return d == DType::Bool ? double(x == 0) : double(~int64_t(x));
  case Op::IntegerPow: return std::pow(x, double(e.intParam("y")));
  default: break;
  }
  internal_assert(false, std::string("RefEval: no unary ") + name(e.op));
  return 0;
}

double binary(Op op, DType d, double a, double b) {
  bool in = isInt(d) || d == DType::Bool;
  switch (op) {
  case Op::Add: return a + b;
  case Op::Sub: return a - b;
  case Op::Mul: return a * b;
  case Op::Div: return in ? (b == 0 ? 0 : std::trunc(a / b)) : a / b;
  case Op::Rem: return in && b == 0 ? 0 : std::fmod(a, b);
  case Op::Pow: return std::pow(a, b);
  case Op::Max: return std::max(a, b);
  case Op::Min: return std::min(a, b);
  case Op::And: return double(int64_t(a) & int64_t(b));
  case Op::Or: return double(int64_t(a) | int64_t(b));
  case Op::Xor: return double(int64_t(a) ^ int64_t(b));
  case Op::ShiftLeft: return b >= 32 ? 0 : double(uint32_t(u32(a) << u32(b)));
  case Op::ShiftRightLogical: return b >= 32 ? 0 : double(u32(a) >> u32(b));
  case Op::Eq: return a == b;
  case Op::Ne: return a != b;
  case Op::Lt: return a < b;
  case Op::Le: return a <= b;
  case Op::Gt: return a > b;
  case Op::Ge: return a >= b;
  default: break;
  }
  internal_assert(false, std::string("RefEval: no binary ") + name(op));
  return 0;
}

/// Element `flat` of `a` broadcast to an elementwise result (scalars repeat).
double at(const Arr &a, int64_t flat) { return a.shape.empty() ? a.v[0] : a.v[flat]; }

Arr transposeArr(const Arr &x, const std::vector<int64_t> &perm) {
  Shape s;
  for (auto p : perm) s.push_back(x.shape[p]);
  Arr r = make(x.dtype, s);
  auto st = strides(x.shape);
  forEach(s, [&](const std::vector<int64_t> &i, int64_t f) {
    int64_t src = 0;
    for (size_t k = 0; k < perm.size(); ++k) src += i[k] * st[perm[k]];
    copyElem(r, f, x, src);
  });
  return r;
}

/// Stacks `xs` along a new dimension `d`.
Arr stack(const std::vector<Arr> &xs, int64_t d) {
  Shape s = xs[0].shape;
  s.insert(s.begin(), int64_t(xs.size()));
  Arr r = make(xs[0].dtype, s);
  for (size_t k = 0; k < xs.size(); ++k)
    for (int64_t i = 0; i < xs[k].numel(); ++i) copyElem(r, int64_t(k) * xs[k].numel() + i, xs[k], i);
  std::vector<int64_t> perm;
  for (int64_t k = 1; k <= d; ++k) perm.push_back(k);
  perm.push_back(0);
  for (int64_t k = d + 1; k < int64_t(s.size()); ++k) perm.push_back(k);
  return transposeArr(r, perm);
}

/// Index `i` of dimension `d` (the dimension removed).
Arr take(const Arr &x, int64_t d, int64_t i) {
  Shape s = x.shape;
  s.erase(s.begin() + d);
  Arr r = make(x.dtype, s);
  forEach(s, [&](const std::vector<int64_t> &idx, int64_t f) {
    auto full = idx;
    full.insert(full.begin() + d, i);
    copyElem(r, f, x, flatOf(full, x.shape));
  });
  return r;
}

/// Elements [lo, hi) of dimension d.
Arr sliceDim(const Arr &x, int64_t d, int64_t lo, int64_t hi) {
  Shape s = x.shape;
  s[d] = hi - lo;
  Arr r = make(x.dtype, s);
  forEach(s, [&](const std::vector<int64_t> &idx, int64_t f) {
    auto full = idx;
    full[d] += lo;
    copyElem(r, f, x, flatOf(full, x.shape));
  });
  return r;
}

Arr concat(const std::vector<Arr> &xs, int64_t d) {
  Shape s = xs[0].shape;
  s[d] = 0;
  for (auto &x : xs) s[d] += x.shape[d];
  Arr r = make(xs[0].dtype, s);
  int64_t off = 0;
  for (auto &x : xs) {
    forEach(x.shape, [&](const std::vector<int64_t> &idx, int64_t f) {
      auto o = idx;
      o[d] += off;
      copyElem(r, flatOf(o, s), x, f);
    });
    off += x.shape[d];
  }
  return r;
}

Arr reshapeArr(Arr x, Shape s) {
  x.shape = std::move(s);
  return x;
}

/// One primitive on one replica's operands (defined at the end of the file).
Arr refEvalPrim(const Eqn &e, const std::vector<Arr> &in);

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

std::vector<Arr> refEval(const Jaxpr &j, const std::vector<Arr> &ins) {
  std::vector<Multi> in;
  for (auto &a : ins) in.push_back({a});
  std::vector<Arr> out;
  for (auto &m : evalJaxpr(j, Ctx{}, in)) out.push_back(m[0]);
  return out;
}

// ---- per-replica primitives ---------------------------------------------------------------
namespace {

/// Reductions, shapes, indexing, dot_general and random: `r` is the zeroed result.
Arr refEvalShapePrim(const Eqn &e, const std::vector<Arr> &in, Arr r) {
  const Arr &x = in.empty() ? r : in[0];
  switch (e.op) {
  case Op::ReduceSum: case Op::ReduceMax: case Op::ReduceMin: case Op::ReduceProd:
  case Op::ReduceAnd: case Op::ReduceOr: case Op::Argmax: case Op::Argmin: {
    auto axes = e.intsParam("axes");
    std::vector<bool> seen(size_t(r.numel()), false);
    std::vector<double> best(size_t(r.numel()), 0);
    forEach(x.shape, [&](const std::vector<int64_t> &idx, int64_t f) {
      std::vector<int64_t> o;
      for (size_t k = 0; k < idx.size(); ++k)
        if (std::find(axes.begin(), axes.end(), int64_t(k)) == axes.end()) o.push_back(idx[k]);
      int64_t of = flatOf(o, r.shape);
      double v = x.v[f];
      double &acc = r.v[of];
      bool first = !seen[of];
      seen[of] = true;
      switch (e.op) {
      case Op::ReduceSum: acc = wrap(r.dtype, acc + v); break;
      case Op::ReduceProd: acc = first ? v : wrap(r.dtype, acc * v); break;
      case Op::ReduceMax: acc = first ? v : std::max(acc, v); break;
      case Op::ReduceMin: acc = first ? v : std::min(acc, v); break;
      case Op::ReduceAnd: acc = first ? v != 0 : (acc != 0 && v != 0); break;
      case Op::ReduceOr: acc = first ? v != 0 : (acc != 0 || v != 0); break;
      default:  // argmax/argmin: the first best index
        if (first || (e.op == Op::Argmax ? v > best[of] : v < best[of])) { best[of] = v; acc = double(idx[axes[0]]); }
      }
    });
    return r;
  }
  case Op::Iota:
    forEach(r.shape, [&](const std::vector<int64_t> &idx, int64_t f) { r.v[f] = double(idx[e.intParam("dimension")]); });
    return r;
  case Op::BroadcastInDim: {
    auto dims = e.intsParam("broadcast_dimensions");
    forEach(r.shape, [&](const std::vector<int64_t> &idx, int64_t f) {
      std::vector<int64_t> src;
      for (size_t k = 0; k < dims.size(); ++k) src.push_back(x.shape[k] == 1 ? 0 : idx[dims[k]]);
      copyElem(r, f, x, flatOf(src, x.shape));
    });
    return r;
  }
  case Op::Reshape: return reshapeArr(x, r.shape);
  case Op::Transpose: return transposeArr(x, e.intsParam("permutation"));
  case Op::Concatenate: return concat(in, e.intParam("dimension"));
  case Op::Slice: {
    auto st = e.intsParam("start_indices");
    std::vector<int64_t> str(st.size(), 1);
    if (e.has("strides") && e.param("strides").kind != Param::None) str = e.intsParam("strides");
    forEach(r.shape, [&](const std::vector<int64_t> &idx, int64_t f) {
      std::vector<int64_t> src;
      for (size_t k = 0; k < idx.size(); ++k) src.push_back(st[k] + idx[k] * str[k]);
      copyElem(r, f, x, flatOf(src, x.shape));
    });
    return r;
  }
  case Op::Pad: {
    auto &cfg = e.param("padding_config").elems;
    forEach(r.shape, [&](const std::vector<int64_t> &idx, int64_t f) {
      std::vector<int64_t> src;
      bool pad = false;
      for (size_t k = 0; k < idx.size(); ++k) {
        auto c = cfg[k].toInts();
        int64_t i = idx[k] - c[0];
        if (i < 0 || i % (c[2] + 1) != 0 || i / (c[2] + 1) >= x.shape[k]) pad = true;
        src.push_back(i / (c[2] + 1));
      }
      r.v[f] = pad ? in[1].v[0] : x.v[flatOf(src, x.shape)];
    });
    return r;
  }
  case Op::Rev: {
    auto dims = e.intsParam("dimensions");
    forEach(r.shape, [&](const std::vector<int64_t> &idx, int64_t f) {
      auto src = idx;
      for (auto d : dims) src[d] = x.shape[d] - 1 - idx[d];
      copyElem(r, f, x, flatOf(src, x.shape));
    });
    return r;
  }
  case Op::DynamicSlice: case Op::DynamicUpdateSlice: {
    bool upd = e.op == Op::DynamicUpdateSlice;
    const Shape &win = upd ? in[1].shape : r.shape;
    std::vector<int64_t> st;
    for (size_t k = 0; k < x.shape.size(); ++k)
      st.push_back(std::clamp(int64_t(in[k + (upd ? 2 : 1)].v[0]), int64_t(0), x.shape[k] - win[k]));
    if (upd) r = x;
    forEach(win, [&](const std::vector<int64_t> &idx, int64_t f) {
      std::vector<int64_t> o;
      for (size_t k = 0; k < idx.size(); ++k) o.push_back(st[k] + idx[k]);
      if (upd) copyElem(r, flatOf(o, x.shape), in[1], f);
      else copyElem(r, f, x, flatOf(o, x.shape));
    });
    return r;
  }
  case Op::DotGeneral: {
    auto &dn = e.param("dimension_numbers").elems;
    auto lc = dn[0].elems[0].toInts(), rc = dn[0].elems[1].toInts();
    auto lb = dn[1].elems[0].toInts(), rb = dn[1].elems[1].toInts();
    auto freeDims = [](int rank, const std::vector<int64_t> &c, const std::vector<int64_t> &b) {
      std::vector<int64_t> f;
      for (int64_t d = 0; d < rank; ++d)
        if (std::find(c.begin(), c.end(), d) == c.end() && std::find(b.begin(), b.end(), d) == b.end()) f.push_back(d);
      return f;
    };
    auto lf = freeDims(int(x.shape.size()), lc, lb), rf = freeDims(int(in[1].shape.size()), rc, rb);
    Shape cs;
    for (auto d : lc) cs.push_back(x.shape[d]);
    forEach(r.shape, [&](const std::vector<int64_t> &idx, int64_t f) {
      std::vector<int64_t> li(x.shape.size()), ri(in[1].shape.size());
      size_t p = 0;
      for (size_t k = 0; k < lb.size(); ++k, ++p) li[lb[k]] = ri[rb[k]] = idx[p];
      for (auto d : lf) li[d] = idx[p++];
      for (auto d : rf) ri[d] = idx[p++];
      double acc = 0;
      forEach(cs, [&](const std::vector<int64_t> &c, int64_t) {
        for (size_t k = 0; k < lc.size(); ++k) li[lc[k]] = ri[rc[k]] = c[k];
        acc += x.v[flatOf(li, x.shape)] * in[1].v[flatOf(ri, in[1].shape)];
      });
      r.v[f] = wrap(r.dtype, acc);
    });
    return r;
  }
  case Op::RandomSeed: r.v = {0, double(u32(x.v[0]))}; return r;
  case Op::RandomWrap: case Op::RandomUnwrap: r.v = x.v; return r;
  case Op::RandomFoldIn:
    for (int64_t i = 0; i < r.numel(); ++i) {
      int64_t ki = x.shape.empty() ? 0 : i;
      auto [a, b] = mix(u32(x.v[2 * ki]), u32(x.v[2 * ki + 1]), 0x100000000ull + u32(at(in[1], i)));
      r.v[2 * i] = a, r.v[2 * i + 1] = b;
    }
    return r;
  case Op::RandomSplit: case Op::RandomBits: {
    int64_t per = r.numel() / std::max<int64_t>(x.numel(), 1);
    for (int64_t k = 0; k < x.numel(); ++k)
      for (int64_t j = 0; j < per; ++j) {
        auto [a, b] = mix(u32(x.v[2 * k]), u32(x.v[2 * k + 1]), uint64_t(j) + (e.op == Op::RandomBits ? 1ull << 40 : 0));
        if (e.op == Op::RandomBits) r.v[k * per + j] = a;
        else r.v[2 * (k * per + j)] = a, r.v[2 * (k * per + j) + 1] = b;
      }
    return r;
  }
  default: break;
  }
  internal_assert(false, std::string("RefEval: no rule for ") + name(e.op));
  return r;
}

Arr refEvalPrim(const Eqn &e, const std::vector<Arr> &in) {
  Type outT;
  {
    std::vector<Type> ts;
    for (auto &a : in) ts.push_back(a.type());
    outT = inferTypes(e.op, ts, e.params, e.regions).at(0);
  }
  Arr r = make(outT.dtype, outT.shape);
  auto cat = info(e.op).category;
  switch (cat) {
  case OpCategory::Unary:
    for (int64_t i = 0; i < r.numel(); ++i) {
      double x = in[0].v[i];
      if (e.op == Op::Convert) r.v[i] = outT.dtype == DType::Bool ? x != 0 : wrap(outT.dtype, isFloat(outT.dtype) ? x : std::trunc(x));
      else if (e.op == Op::BitcastConvert) {
        uint32_t bits;
        if (isFloat(in[0].dtype)) { float f = float(x); std::memcpy(&bits, &f, 4); }
        else bits = u32(x);
        if (isFloat(outT.dtype)) { float f; std::memcpy(&f, &bits, 4); r.v[i] = f; }
        else r.v[i] = wrap(outT.dtype, double(outT.dtype == DType::I32 ? double(int32_t(bits)) : double(bits)));
      } else r.v[i] = wrap(outT.dtype, unary(e, outT.dtype, x));
    }
    return r;
  case OpCategory::Binary: case OpCategory::Compare:
    for (int64_t i = 0; i < r.numel(); ++i)
      r.v[i] = wrap(outT.dtype, binary(e.op, in[0].dtype, at(in[0], i), at(in[1], i)));
    return r;
  case OpCategory::Select:
    for (int64_t i = 0; i < r.numel(); ++i) r.v[i] = at(in[0], i) != 0 ? at(in[2], i) : at(in[1], i);
    return r;
  default: break;
  }
  return refEvalShapePrim(e, in, std::move(r));
}

} // namespace
} // namespace spmd::testing
