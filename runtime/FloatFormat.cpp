//===- FloatFormat.cpp - NumPy's FloatingFormat and float scalar str --------===//
//
// The two users of Dragon4 in NumPy's printing: arrayprint.FloatingFormat
// (array elements, with one notation and one width for the whole array) and the
// str() of a float scalar (scalartypes.c), which is what a rank-0 array prints.
//
//===----------------------------------------------------------------------===//
#include "FloatFormat.h"

#include <algorithm>
#include <cmath>

namespace spmd::rt {
namespace {

/// NumPy's default print precision.
constexpr int kPrecision = 8;

/// Whether FloatingFormat switches to scientific notation. NumPy computes this
/// in the array's own dtype (NEP 50 makes the Python-float cutoffs weak), so a
/// float32 array compares and divides in float32.
template <typename T>
bool wantsScientific(const std::vector<FloatValue> &nonZeroFinite, T cutoffMax) {
  T maxVal = 0, minVal = 0;
  bool first = true;
  for (const FloatValue &x : nonZeroFinite) {
    T a = std::fabs(static_cast<T>(x.v));
    if (first || a > maxVal) maxVal = a;
    if (first || a < minVal) minVal = a;
    first = false;
  }
  if (first) return false;
  T ratio = maxVal / minVal;  // may overflow to inf, as in NumPy
  return maxVal >= cutoffMax || minVal < static_cast<T>(0.0001) || ratio > static_cast<T>(1000.);
}

/// Splits "int.frac" (or "int.frac" before an 'e') into its two parts.
void splitAtPoint(const std::string &s, std::string &intPart, std::string &fracPart) {
  size_t dot = s.find('.');
  intPart = s.substr(0, dot);
  fracPart = dot == std::string::npos ? "" : s.substr(dot + 1);
}

}  // namespace

FloatArrayFormat::FloatArrayFormat(const std::vector<FloatValue> &values) {
  std::vector<FloatValue> finite, nonZero;
  bool anyNonFinite = false, negInf = false;
  for (const FloatValue &x : values) {
    if (std::isfinite(x.v)) {
      finite.push_back(x);
      if (x.v != 0) nonZero.push_back(x);
    } else {
      anyNonFinite = true;
      negInf |= std::isinf(x.v) && x.v < 0;
    }
  }
  bool isF32 = !values.empty() && values.front().isF32;
  // float32's finfo precision is 6, float64's 15: the cutoff is 10**min(8, p).
  expFormat_ =
      isF32 ? wantsScientific<float>(nonZero, 1e6f) : wantsScientific<double>(nonZero, 1e8);

  if (finite.empty()) {
    padLeft_ = padRight_ = 0;
    trim_ = Trim::Zeros;
    expSize_ = -1;
    minDigits_ = -1;
  } else if (expFormat_) {
    // First pass at full precision tells how many digits the widest needs.
    Dragon4Options probe;
    probe.scientific = true;
    probe.precision = kPrecision;
    probe.trim = Trim::Zeros;
    size_t maxInt = 0, maxFrac = 0, maxExp = 0;
    for (const FloatValue &x : finite) {
      std::string s = dragon4(x, probe), intPart, fracPart;
      size_t e = s.find('e');
      maxExp = std::max(maxExp, s.size() - e - 1);
      splitAtPoint(s.substr(0, e), intPart, fracPart);
      maxInt = std::max(maxInt, intPart.size());
      maxFrac = std::max(maxFrac, fracPart.size());
    }
    expSize_ = static_cast<int>(maxExp) - 1;
    trim_ = Trim::Keep;
    precision_ = minDigits_ = static_cast<int>(maxFrac);
    padLeft_ = static_cast<int>(maxInt);
    padRight_ = expSize_ + 2 + precision_;
  } else {
    Dragon4Options probe;
    probe.precision = kPrecision;
    probe.trim = Trim::Zeros;
    size_t maxInt = 0, maxFrac = 0;
    for (const FloatValue &x : finite) {
      std::string intPart, fracPart;
      splitAtPoint(dragon4(x, probe), intPart, fracPart);
      maxInt = std::max(maxInt, intPart.size());
      maxFrac = std::max(maxFrac, fracPart.size());
    }
    padLeft_ = static_cast<int>(maxInt);
    padRight_ = static_cast<int>(maxFrac);
    expSize_ = -1;
    trim_ = Trim::Zeros;
    minDigits_ = 0;
  }

  if (anyNonFinite) {
    // "nan" / "inf" / "-inf" must fit in the width too.
    int offset = padRight_ + 1;
    padLeft_ = std::max({padLeft_, 3 - offset, 3 + (negInf ? 1 : 0) - offset});
  }
}

std::string FloatArrayFormat::operator()(FloatValue x) const {
  if (!std::isfinite(x.v)) {
    std::string ret = std::isnan(x.v) ? "nan" : x.v < 0 ? "-inf" : "inf";
    int pad = padLeft_ + padRight_ + 1 - static_cast<int>(ret.size());
    return pad > 0 ? std::string(pad, ' ') + ret : ret;
  }
  Dragon4Options o;
  o.scientific = expFormat_;
  o.precision = precision_;
  o.minDigits = minDigits_;
  o.trim = trim_;
  o.padLeft = padLeft_;
  if (expFormat_)
    o.expDigits = expSize_;
  else
    o.padRight = padRight_;
  return dragon4(x, o);
}

std::string formatFloatScalar(FloatValue x) {
  if (!std::isfinite(x.v)) return dragon4(x, Dragon4Options{});
  double a = std::fabs(x.v);
  double upper = x.isF32 ? 1e6 : 1e16;
  Dragon4Options o;
  if (a == 0 || (a >= 1e-4 && a < upper)) {
    o.trim = Trim::LeaveOneZero;
  } else {
    o.scientific = true;
    o.trim = Trim::DotAndZeros;
  }
  return dragon4(x, o);
}

}  // namespace spmd::rt
