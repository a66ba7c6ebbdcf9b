// ===- RefEvalArrays.cpp - host-array helpers of the reference interpreter (tests) ===//
#include "RefEvalArrays.h"

#include <cmath>

namespace spmd::testing::ref {
using namespace ir;

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

double wrap(DType d, double x, Precision p) {
  if (d == DType::Bool) return x != 0;
  if (d == DType::I32) return double(int32_t(uint32_t(int64_t(std::trunc(x)))));
  if (d == DType::U32) return double(uint32_t(int64_t(std::trunc(x))));
  if (d == DType::F32 && p == Precision::Declared) return double(float(x));
  return x;
}

uint32_t u32(double x) { return uint32_t(int64_t(x)); }

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
    for (int64_t i = 0; i < xs[k].numel(); ++i)
      copyElem(r, int64_t(k) * xs[k].numel() + i, xs[k], i);
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

}  // namespace spmd::testing::ref
