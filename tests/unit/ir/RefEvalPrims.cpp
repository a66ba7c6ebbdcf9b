// ===- RefEvalPrims.cpp - one primitive on one replica, for the reference interpreter ===//
//
// Elementwise math in double precision (rounded to the declared dtype after each op, or
// only ints wrapped under Precision::Float64), reductions, data movement, dynamic indexing
// with JAX's clamping, dot_general, and random primitives through a simple hash (not
// threefry: tests only need determinism).
#include "RefEvalArrays.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace spmd::testing::ref {
using namespace ir;

namespace {

/// A deterministic mix of three words into two (the tests' stand-in for threefry).
std::pair<double, double> mix(uint64_t a, uint64_t b, uint64_t c) {
  uint64_t z = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull) * 0xBF58476D1CE4E5B9ull ^
               c * 0x94D049BB133111EBull;
  z ^= z >> 31;
  z *= 0xD6E8FEB86659FD93ull;
  z ^= z >> 29;
  return {double(uint32_t(z)), double(uint32_t(z >> 32))};
}

/// erf^-1 by Newton's method from 0 (monotone on each side); NaN outside [-1, 1].
double erfInv(double y) {
  if (std::isnan(y) || y < -1 || y > 1) return NAN;
  if (y == -1 || y == 1) return std::copysign(INFINITY, y);
  double x = 0;
  for (int it = 0; it < 200; ++it) {
    double step = (std::erf(x) - y) / (2 / std::sqrt(M_PI) * std::exp(-x * x));
    x -= step;
    if (std::fabs(step) <= 1e-16 * std::max(1.0, std::fabs(x))) break;
  }
  return x;
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
  case Op::ErfInv: return erfInv(x);
  default: break;
  }
  internal_assert(false, std::string("RefEval: no unary ") + name(e.op));
  return 0;
}

/// Reductions, shapes, indexing, dot_general and random: `r` is the zeroed result.
Arr refEvalShapePrim(const Eqn &e, const std::vector<Arr> &in, Arr r, Precision p) {
  const Arr &x = in.empty() ? r : in[0];
  switch (e.op) {
  case Op::ReduceSum:
  case Op::ReduceMax:
  case Op::ReduceMin:
  case Op::ReduceProd:
  case Op::ReduceAnd:
  case Op::ReduceOr:
  case Op::Argmax:
  case Op::Argmin: {
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
      case Op::ReduceSum: acc = wrap(r.dtype, acc + v, p); break;
      case Op::ReduceProd: acc = first ? v : wrap(r.dtype, acc * v, p); break;
      case Op::ReduceMax: acc = first ? v : std::max(acc, v); break;
      case Op::ReduceMin: acc = first ? v : std::min(acc, v); break;
      case Op::ReduceAnd: acc = first ? v != 0 : (acc != 0 && v != 0); break;
      case Op::ReduceOr: acc = first ? v != 0 : (acc != 0 || v != 0); break;
      default:  // argmax/argmin: the first best index
        if (first || (e.op == Op::Argmax ? v > best[of] : v < best[of])) {
          best[of] = v;
          acc = double(idx[axes[0]]);
        }
      }
    });
    return r;
  }
  case Op::Constant: {  // a scalar value fills the array; a tuple gives every element
    const Param &val = e.param("value");
    for (size_t i = 0; i < r.v.size(); ++i) {
      const Param &c = val.elems.empty() ? val : val.elems[i];
      r.v[i] = c.kind == Param::Float ? c.f : double(c.i);
    }
    return r;
  }
  case Op::Iota:
    forEach(r.shape, [&](const std::vector<int64_t> &idx, int64_t f) {
      r.v[f] = double(idx[e.intParam("dimension")]);
    });
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
  case Op::DynamicSlice:
  case Op::DynamicUpdateSlice: {
    bool upd = e.op == Op::DynamicUpdateSlice;
    const Shape &win = upd ? in[1].shape : r.shape;
    std::vector<int64_t> st;
    for (size_t k = 0; k < x.shape.size(); ++k)
      st.push_back(
          std::clamp(int64_t(in[k + (upd ? 2 : 1)].v[0]), int64_t(0), x.shape[k] - win[k]));
    if (upd) r = x;
    forEach(win, [&](const std::vector<int64_t> &idx, int64_t f) {
      std::vector<int64_t> o;
      for (size_t k = 0; k < idx.size(); ++k) o.push_back(st[k] + idx[k]);
      if (upd)
        copyElem(r, flatOf(o, x.shape), in[1], f);
      else
        copyElem(r, f, x, flatOf(o, x.shape));
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
        if (std::find(c.begin(), c.end(), d) == c.end() &&
            std::find(b.begin(), b.end(), d) == b.end())
          f.push_back(d);
      return f;
    };
    auto lf = freeDims(int(x.shape.size()), lc, lb), rf = freeDims(int(in[1].shape.size()), rc, rb);
    Shape cs;
    for (auto d : lc) cs.push_back(x.shape[d]);
    forEach(r.shape, [&](const std::vector<int64_t> &idx, int64_t f) {
      std::vector<int64_t> li(x.shape.size()), ri(in[1].shape.size());
      size_t o = 0;
      for (size_t k = 0; k < lb.size(); ++k, ++o) li[lb[k]] = ri[rb[k]] = idx[o];
      for (auto d : lf) li[d] = idx[o++];
      for (auto d : rf) ri[d] = idx[o++];
      double acc = 0;
      forEach(cs, [&](const std::vector<int64_t> &c, int64_t) {
        for (size_t k = 0; k < lc.size(); ++k) li[lc[k]] = ri[rc[k]] = c[k];
        acc += x.v[flatOf(li, x.shape)] * in[1].v[flatOf(ri, in[1].shape)];
      });
      r.v[f] = wrap(r.dtype, acc, p);
    });
    return r;
  }
  case Op::RandomSeed: r.v = {0, double(u32(x.v[0]))}; return r;
  case Op::RandomWrap:
  case Op::RandomUnwrap: r.v = x.v; return r;
  case Op::RandomFoldIn:
    for (int64_t i = 0; i < r.numel(); ++i) {
      int64_t ki = x.shape.empty() ? 0 : i;
      auto [a, b] = mix(u32(x.v[2 * ki]), u32(x.v[2 * ki + 1]), 0x100000000ull + u32(at(in[1], i)));
      r.v[2 * i] = a, r.v[2 * i + 1] = b;
    }
    return r;
  case Op::RandomSplit:
  case Op::RandomBits: {
    int64_t per = r.numel() / std::max<int64_t>(x.numel(), 1);
    for (int64_t k = 0; k < x.numel(); ++k)
      for (int64_t j = 0; j < per; ++j) {
        auto [a, b] = mix(u32(x.v[2 * k]), u32(x.v[2 * k + 1]),
                          uint64_t(j) + (e.op == Op::RandomBits ? 1ull << 40 : 0));
        if (e.op == Op::RandomBits)
          r.v[k * per + j] = a;
        else
          r.v[2 * (k * per + j)] = a, r.v[2 * (k * per + j) + 1] = b;
      }
    return r;
  }
  default: break;
  }
  internal_assert(false, std::string("RefEval: no rule for ") + name(e.op));
  return r;
}

}  // namespace

Arr refEvalPrim(const Eqn &e, const std::vector<Arr> &in, Precision p) {
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
      if (e.op == Op::Convert)
        r.v[i] = outT.dtype == DType::Bool
                     ? x != 0
                     : wrap(outT.dtype, isFloat(outT.dtype) ? x : std::trunc(x), p);
      else if (e.op == Op::BitcastConvert) {
        uint32_t bits;
        if (isFloat(in[0].dtype)) {
          float f = float(x);
          std::memcpy(&bits, &f, 4);
        } else
          bits = u32(x);
        if (isFloat(outT.dtype)) {
          float f;
          std::memcpy(&f, &bits, 4);
          r.v[i] = f;
        } else
          r.v[i] = wrap(outT.dtype,
                        double(outT.dtype == DType::I32 ? double(int32_t(bits)) : double(bits)));
      } else
        r.v[i] = wrap(outT.dtype, unary(e, outT.dtype, x), p);
    }
    return r;
  case OpCategory::Binary:
  case OpCategory::Compare:
    for (int64_t i = 0; i < r.numel(); ++i)
      r.v[i] = wrap(outT.dtype, binary(e.op, in[0].dtype, at(in[0], i), at(in[1], i)), p);
    return r;
  case OpCategory::Select:  // scalar operands repeat; keys move both words
    for (int64_t i = 0; i < r.numel(); ++i) {
      const Arr &src = at(in[0], i) != 0 ? in[2] : in[1];
      copyElem(r, i, src, src.shape.empty() ? 0 : i);
    }
    return r;
  case OpCategory::Ternary:  // fma, rounded once in the operands' precision
    for (int64_t i = 0; i < r.numel(); ++i)
      r.v[i] =
          outT.dtype == DType::F32 && p == Precision::Declared
              ? double(std::fmaf(float(at(in[0], i)), float(at(in[1], i)), float(at(in[2], i))))
              : std::fma(at(in[0], i), at(in[1], i), at(in[2], i));
    return r;
  default: break;
  }
  return refEvalShapePrim(e, in, std::move(r), p);
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

}  // namespace spmd::testing::ref
