// ===- RefEvalPrims.cpp - one primitive on one replica, for the reference interpreter ===//
//
// Elementwise math in double precision (rounded to the declared dtype after each op, or
// only ints wrapped under Precision::Float64), reductions, data movement, dynamic indexing
// with JAX's clamping, dot_general, and random primitives through a simple hash (not
// threefry: tests only need determinism).
#include "RefEvalArrays.h"

#include <algorithm>
#include <array>
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

// ---- elementwise: one scalar function per op, one loop per category ----------------------

using UnaryFn = double (*)(const Eqn &e, DType d, double x);
using BinaryFn = double (*)(bool isInt, double a, double b);  // isInt: int or bool operands

const std::array<UnaryFn, kNumOps> &unaryFns() {
  static const std::array<UnaryFn, kNumOps> t = [] {
    std::array<UnaryFn, kNumOps> u{};
    auto set = [&](Op op, UnaryFn f) { u[size_t(op)] = f; };
    set(Op::Neg, [](const Eqn &, DType, double x) { return -x; });
    set(Op::Exp, [](const Eqn &, DType, double x) { return std::exp(x); });
    set(Op::Log, [](const Eqn &, DType, double x) { return std::log(x); });
    set(Op::Log1p, [](const Eqn &, DType, double x) { return std::log1p(x); });
    set(Op::Sqrt, [](const Eqn &, DType, double x) { return std::sqrt(x); });
    set(Op::Rsqrt, [](const Eqn &, DType, double x) { return 1 / std::sqrt(x); });
    set(Op::Sin, [](const Eqn &, DType, double x) { return std::sin(x); });
    set(Op::Cos, [](const Eqn &, DType, double x) { return std::cos(x); });
    set(Op::Tan, [](const Eqn &, DType, double x) { return std::tan(x); });
    set(Op::Tanh, [](const Eqn &, DType, double x) { return std::tanh(x); });
    set(Op::Logistic, [](const Eqn &, DType, double x) { return 1 / (1 + std::exp(-x)); });
    set(Op::Abs, [](const Eqn &, DType, double x) { return std::fabs(x); });
    set(Op::Sign, [](const Eqn &, DType, double x) { return double((x > 0) - (x < 0)); });
    set(Op::Floor, [](const Eqn &, DType, double x) { return std::floor(x); });
    set(Op::Ceil, [](const Eqn &, DType, double x) { return std::ceil(x); });
    set(Op::Round, [](const Eqn &, DType, double x) { return std::round(x); });
    set(Op::Not, [](const Eqn &, DType d, double x) {
      return d == DType::Bool ? double(x == 0) : double(~int64_t(x));
    });
    set(Op::IntegerPow,
        [](const Eqn &e, DType, double x) { return std::pow(x, double(e.intParam("y"))); });
    set(Op::ErfInv, [](const Eqn &, DType, double x) { return erfInv(x); });
    return u;
  }();
  return t;
}

const std::array<BinaryFn, kNumOps> &binaryFns() {
  static const std::array<BinaryFn, kNumOps> t = [] {
    std::array<BinaryFn, kNumOps> u{};
    auto set = [&](Op op, BinaryFn f) { u[size_t(op)] = f; };
    set(Op::Add, [](bool, double a, double b) { return a + b; });
    set(Op::Sub, [](bool, double a, double b) { return a - b; });
    set(Op::Mul, [](bool, double a, double b) { return a * b; });
    set(Op::Div,
        [](bool in, double a, double b) { return in ? (b == 0 ? 0 : std::trunc(a / b)) : a / b; });
    set(Op::Rem, [](bool in, double a, double b) { return in && b == 0 ? 0 : std::fmod(a, b); });
    set(Op::Pow, [](bool, double a, double b) { return std::pow(a, b); });
    set(Op::Max, [](bool, double a, double b) { return std::max(a, b); });
    set(Op::Min, [](bool, double a, double b) { return std::min(a, b); });
    set(Op::And, [](bool, double a, double b) { return double(int64_t(a) & int64_t(b)); });
    set(Op::Or, [](bool, double a, double b) { return double(int64_t(a) | int64_t(b)); });
    set(Op::Xor, [](bool, double a, double b) { return double(int64_t(a) ^ int64_t(b)); });
    set(Op::ShiftLeft,
        [](bool, double a, double b) { return b >= 32 ? 0 : double(uint32_t(u32(a) << u32(b))); });
    set(Op::ShiftRightLogical,
        [](bool, double a, double b) { return b >= 32 ? 0 : double(u32(a) >> u32(b)); });
    set(Op::Eq, [](bool, double a, double b) { return double(a == b); });
    set(Op::Ne, [](bool, double a, double b) { return double(a != b); });
    set(Op::Lt, [](bool, double a, double b) { return double(a < b); });
    set(Op::Le, [](bool, double a, double b) { return double(a <= b); });
    set(Op::Gt, [](bool, double a, double b) { return double(a > b); });
    set(Op::Ge, [](bool, double a, double b) { return double(a >= b); });
    return u;
  }();
  return t;
}

/// One primitive on one replica: `r` is the zeroed result of the inferred type.
using PrimRule = Arr (*)(const Eqn &e, const std::vector<Arr> &in, Arr r, Precision p);

Arr unaryPrim(const Eqn &e, const std::vector<Arr> &in, Arr r, Precision p) {
  UnaryFn f = unaryFns()[size_t(e.op)];
  internal_assert(f, std::string("RefEval: no unary ") + name(e.op));
  for (int64_t i = 0; i < r.numel(); ++i) r.v[i] = wrap(r.dtype, f(e, r.dtype, in[0].v[i]), p);
  return r;
}

Arr binaryPrim(const Eqn &e, const std::vector<Arr> &in, Arr r, Precision p) {
  for (int64_t i = 0; i < r.numel(); ++i)
    r.v[i] = wrap(r.dtype, binary(e.op, in[0].dtype, at(in[0], i), at(in[1], i)), p);
  return r;
}

Arr convertPrim(const Eqn &, const std::vector<Arr> &in, Arr r, Precision p) {
  for (int64_t i = 0; i < r.numel(); ++i) {
    double x = in[0].v[i];
    r.v[i] =
        r.dtype == DType::Bool ? x != 0 : wrap(r.dtype, isFloat(r.dtype) ? x : std::trunc(x), p);
  }
  return r;
}

Arr bitcastPrim(const Eqn &, const std::vector<Arr> &in, Arr r, Precision) {
  for (int64_t i = 0; i < r.numel(); ++i) {
    double x = in[0].v[i];
    uint32_t bits;
    if (isFloat(in[0].dtype)) {
      float f = float(x);
      std::memcpy(&bits, &f, 4);
    } else
      bits = u32(x);
    if (isFloat(r.dtype)) {
      float f;
      std::memcpy(&f, &bits, 4);
      r.v[i] = f;
    } else
      r.v[i] = wrap(r.dtype, double(r.dtype == DType::I32 ? double(int32_t(bits)) : double(bits)));
  }
  return r;
}

Arr selectPrim(const Eqn &, const std::vector<Arr> &in, Arr r, Precision) {
  for (int64_t i = 0; i < r.numel(); ++i) {  // scalar operands repeat; keys move both words
    const Arr &src = at(in[0], i) != 0 ? in[2] : in[1];
    copyElem(r, i, src, src.shape.empty() ? 0 : i);
  }
  return r;
}

Arr fmaPrim(const Eqn &, const std::vector<Arr> &in, Arr r, Precision p) {
  for (int64_t i = 0; i < r.numel(); ++i)  // rounded once in the operands' precision
    r.v[i] = r.dtype == DType::F32 && p == Precision::Declared
                 ? double(std::fmaf(float(at(in[0], i)), float(at(in[1], i)), float(at(in[2], i))))
                 : std::fma(at(in[0], i), at(in[1], i), at(in[2], i));
  return r;
}

// ---- reductions ------------------------------------------------------------------------------

/// Folds `x` over e's `axes` into `r`: step(acc, v, first, index along axes[0]).
template <typename Step>
Arr fold(const Eqn &e, const Arr &x, Arr r, Step step) {
  auto axes = e.intsParam("axes");
  std::vector<bool> seen(size_t(r.numel()), false);
  forEach(x.shape, [&](const std::vector<int64_t> &idx, int64_t f) {
    std::vector<int64_t> o;
    for (size_t k = 0; k < idx.size(); ++k)
      if (std::find(axes.begin(), axes.end(), int64_t(k)) == axes.end()) o.push_back(idx[k]);
    int64_t of = flatOf(o, r.shape);
    bool first = !seen[of];
    seen[of] = true;
    step(r.v[of], x.v[f], first, of, axes.empty() ? 0 : idx[axes[0]]);
  });
  return r;
}

void setReduceRules(std::array<PrimRule, kNumOps> &t) {
  auto set = [&](Op op, PrimRule f) { t[size_t(op)] = f; };
  set(Op::ReduceSum, [](const Eqn &e, const std::vector<Arr> &in, Arr r, Precision p) {
    DType d = r.dtype;
    return fold(e, in[0], std::move(r),
                [&](double &acc, double v, bool, int64_t, int64_t) { acc = wrap(d, acc + v, p); });
  });
  set(Op::ReduceProd, [](const Eqn &e, const std::vector<Arr> &in, Arr r, Precision p) {
    DType d = r.dtype;
    return fold(e, in[0], std::move(r), [&](double &acc, double v, bool first, int64_t, int64_t) {
      acc = first ? v : wrap(d, acc * v, p);
    });
  });
  set(Op::ReduceMax, [](const Eqn &e, const std::vector<Arr> &in, Arr r, Precision) {
    return fold(e, in[0], std::move(r), [](double &acc, double v, bool first, int64_t, int64_t) {
      acc = first ? v : std::max(acc, v);
    });
  });
  set(Op::ReduceMin, [](const Eqn &e, const std::vector<Arr> &in, Arr r, Precision) {
    return fold(e, in[0], std::move(r), [](double &acc, double v, bool first, int64_t, int64_t) {
      acc = first ? v : std::min(acc, v);
    });
  });
  set(Op::ReduceAnd, [](const Eqn &e, const std::vector<Arr> &in, Arr r, Precision) {
    return fold(e, in[0], std::move(r), [](double &acc, double v, bool first, int64_t, int64_t) {
      acc = first ? v != 0 : (acc != 0 && v != 0);
    });
  });
  set(Op::ReduceOr, [](const Eqn &e, const std::vector<Arr> &in, Arr r, Precision) {
    return fold(e, in[0], std::move(r), [](double &acc, double v, bool first, int64_t, int64_t) {
      acc = first ? v != 0 : (acc != 0 || v != 0);
    });
  });
  for (Op op : {Op::Argmax, Op::Argmin})  // the first best index
    set(op, [](const Eqn &e, const std::vector<Arr> &in, Arr r, Precision) {
      std::vector<double> best(size_t(r.numel()), 0);
      bool isMax = e.op == Op::Argmax;
      return fold(e, in[0], std::move(r),
                  [&](double &acc, double v, bool first, int64_t of, int64_t i) {
                    if (first || (isMax ? v > best[of] : v < best[of])) {
                      best[of] = v;
                      acc = double(i);
                    }
                  });
    });
}

// ---- shapes, indexing, dot_general -----------------------------------------------------------

void setShapeRules(std::array<PrimRule, kNumOps> &t) {
  auto set = [&](Op op, PrimRule f) { t[size_t(op)] = f; };
  set(Op::Constant, [](const Eqn &e, const std::vector<Arr> &, Arr r, Precision) {
    const Param &val = e.param("value");  // a scalar fills the array; a tuple gives every element
    for (size_t i = 0; i < r.v.size(); ++i) {
      const Param &c = val.elems.empty() ? val : val.elems[i];
      r.v[i] = c.kind == Param::Float ? c.f : double(c.i);
    }
    return r;
  });
  set(Op::Iota, [](const Eqn &e, const std::vector<Arr> &, Arr r, Precision) {
    forEach(r.shape, [&](const std::vector<int64_t> &idx, int64_t f) {
      r.v[f] = double(idx[e.intParam("dimension")]);
    });
    return r;
  });
  set(Op::BroadcastInDim, [](const Eqn &e, const std::vector<Arr> &in, Arr r, Precision) {
    const Arr &x = in[0];
    auto dims = e.intsParam("broadcast_dimensions");
    forEach(r.shape, [&](const std::vector<int64_t> &idx, int64_t f) {
      std::vector<int64_t> src;
      for (size_t k = 0; k < dims.size(); ++k) src.push_back(x.shape[k] == 1 ? 0 : idx[dims[k]]);
      copyElem(r, f, x, flatOf(src, x.shape));
    });
    return r;
  });
  set(Op::Reshape, [](const Eqn &, const std::vector<Arr> &in, Arr r, Precision) {
    return reshapeArr(in[0], r.shape);
  });
  set(Op::Transpose, [](const Eqn &e, const std::vector<Arr> &in, Arr, Precision) {
    return transposeArr(in[0], e.intsParam("permutation"));
  });
  set(Op::Concatenate, [](const Eqn &e, const std::vector<Arr> &in, Arr, Precision) {
    return concat(in, e.intParam("dimension"));
  });
  set(Op::Slice, [](const Eqn &e, const std::vector<Arr> &in, Arr r, Precision) {
    const Arr &x = in[0];
    auto st = e.intsParam("start_indices");
    std::vector<int64_t> str(st.size(), 1);
    if (e.has("strides") && e.param("strides").kind != Param::None) str = e.intsParam("strides");
    forEach(r.shape, [&](const std::vector<int64_t> &idx, int64_t f) {
      std::vector<int64_t> src;
      for (size_t k = 0; k < idx.size(); ++k) src.push_back(st[k] + idx[k] * str[k]);
      copyElem(r, f, x, flatOf(src, x.shape));
    });
    return r;
  });
  set(Op::Pad, [](const Eqn &e, const std::vector<Arr> &in, Arr r, Precision) {
    const Arr &x = in[0];
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
  });
  set(Op::Rev, [](const Eqn &e, const std::vector<Arr> &in, Arr r, Precision) {
    const Arr &x = in[0];
    auto dims = e.intsParam("dimensions");
    forEach(r.shape, [&](const std::vector<int64_t> &idx, int64_t f) {
      auto src = idx;
      for (auto d : dims) src[d] = x.shape[d] - 1 - idx[d];
      copyElem(r, f, x, flatOf(src, x.shape));
    });
    return r;
  });
  for (Op op : {Op::DynamicSlice, Op::DynamicUpdateSlice})  // starts clamped, as JAX does
    set(op, [](const Eqn &e, const std::vector<Arr> &in, Arr r, Precision) {
      const Arr &x = in[0];
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
    });
  set(Op::DotGeneral, [](const Eqn &e, const std::vector<Arr> &in, Arr r, Precision p) {
    const Arr &x = in[0];
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
  });
}

// ---- random numbers (the hash `mix`, not threefry) ---------------------------------------------

void setRandomRules(std::array<PrimRule, kNumOps> &t) {
  auto set = [&](Op op, PrimRule f) { t[size_t(op)] = f; };
  set(Op::RandomSeed, [](const Eqn &, const std::vector<Arr> &in, Arr r, Precision) {
    r.v = {0, double(u32(in[0].v[0]))};
    return r;
  });
  for (Op op : {Op::RandomWrap, Op::RandomUnwrap})  // the same words, keys <-> u32 pairs
    set(op, [](const Eqn &, const std::vector<Arr> &in, Arr r, Precision) {
      r.v = in[0].v;
      return r;
    });
  set(Op::RandomFoldIn, [](const Eqn &, const std::vector<Arr> &in, Arr r, Precision) {
    const Arr &x = in[0];
    for (int64_t i = 0; i < r.numel(); ++i) {
      int64_t ki = x.shape.empty() ? 0 : i;
      auto [a, b] = mix(u32(x.v[2 * ki]), u32(x.v[2 * ki + 1]), 0x100000000ull + u32(at(in[1], i)));
      r.v[2 * i] = a, r.v[2 * i + 1] = b;
    }
    return r;
  });
  for (Op op : {Op::RandomSplit, Op::RandomBits})
    set(op, [](const Eqn &e, const std::vector<Arr> &in, Arr r, Precision) {
      const Arr &x = in[0];
      bool bits = e.op == Op::RandomBits;
      int64_t per = r.numel() / std::max<int64_t>(x.numel(), 1);
      for (int64_t k = 0; k < x.numel(); ++k)
        for (int64_t j = 0; j < per; ++j) {
          auto [a, b] =
              mix(u32(x.v[2 * k]), u32(x.v[2 * k + 1]), uint64_t(j) + (bits ? 1ull << 40 : 0));
          if (bits)
            r.v[k * per + j] = a;
          else
            r.v[2 * (k * per + j)] = a, r.v[2 * (k * per + j) + 1] = b;
        }
      return r;
    });
}

/// Every primitive evaluated one replica at a time (not the regions, collectives and host
/// effects RefEval.cpp evaluates itself).
const std::array<PrimRule, kNumOps> &primRules() {
  static const std::array<PrimRule, kNumOps> table = [] {
    std::array<PrimRule, kNumOps> t{};
    for (int k = 0; k < kNumOps; ++k) {
      auto c = info(Op(k)).category;
      if (c == OpCategory::Unary) t[k] = unaryPrim;
      if (c == OpCategory::Binary || c == OpCategory::Compare) t[k] = binaryPrim;
      if (c == OpCategory::Select) t[k] = selectPrim;
    }
    t[size_t(Op::Convert)] = convertPrim;
    t[size_t(Op::BitcastConvert)] = bitcastPrim;
    t[size_t(Op::Fma)] = fmaPrim;
    setReduceRules(t);
    setShapeRules(t);
    setRandomRules(t);
    return t;
  }();
  return table;
}

}  // namespace

bool hasPrimRule(Op op) {
  PrimRule f = primRules()[size_t(op)];
  if (f == unaryPrim) return unaryFns()[size_t(op)] != nullptr;
  if (f == binaryPrim) return binaryFns()[size_t(op)] != nullptr;
  return f != nullptr;
}

Arr refEvalPrim(const Eqn &e, const std::vector<Arr> &in, Precision p) {
  PrimRule f = primRules()[size_t(e.op)];
  internal_assert(f, std::string("RefEval: no rule for ") + name(e.op));
  std::vector<Type> ts;
  for (auto &a : in) ts.push_back(a.type());
  Type outT = inferTypes(e.op, ts, e.params, e.regions).at(0);
  return f(e, in, make(outT.dtype, outT.shape), p);
}

double binary(Op op, DType d, double a, double b) {
  BinaryFn f = binaryFns()[size_t(op)];
  internal_assert(f, std::string("RefEval: no binary ") + name(op));
  return f(isInt(d) || d == DType::Bool, a, b);
}

}  // namespace spmd::testing::ref
