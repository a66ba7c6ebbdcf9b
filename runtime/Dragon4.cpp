//===- Dragon4.cpp - NumPy's Dragon4 float-to-decimal conversion ------------===//
//
// A port of the parts of numpy/_core/src/multiarray/dragon4.c that array printing
// reaches: the digit generator `Dragon4` in its unique (shortest round-trip) mode
// with a maximum and a minimum cutoff, and the two layouts `FormatPositional`
// and `FormatScientific` with their trim and padding rules. The arithmetic is
// exact, on a small arbitrary-precision integer; see Note [Dragon4 rounding].
//
//===----------------------------------------------------------------------===//
#include "FloatFormat.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace spmd::rt {
namespace {

/// A non-negative arbitrary-precision integer, just big enough for Dragon4:
/// 32-bit blocks, least significant first, no zero blocks at the top.
class BigInt {
public:
  explicit BigInt(uint64_t v = 0) {
    while (v) {
      blocks_.push_back(static_cast<uint32_t>(v));
      v >>= 32;
    }
  }
  static BigInt pow2(int n) {
    BigInt r(1);
    r.shiftLeft(n);
    return r;
  }
  bool isZero() const { return blocks_.empty(); }

  void shiftLeft(int n) {
    if (isZero() || n == 0) return;
    int words = n / 32, bits = n % 32;
    std::vector<uint32_t> out(words, 0);
    uint32_t carry = 0;
    for (uint32_t b : blocks_) {
      out.push_back(bits ? (b << bits) | carry : b);
      carry = bits ? b >> (32 - bits) : 0;
    }
    if (carry) out.push_back(carry);
    blocks_ = std::move(out);
  }
  void mulSmall(uint32_t m) {
    uint64_t carry = 0;
    for (uint32_t &b : blocks_) {
      uint64_t p = static_cast<uint64_t>(b) * m + carry;
      b = static_cast<uint32_t>(p);
      carry = p >> 32;
    }
    if (carry) blocks_.push_back(static_cast<uint32_t>(carry));
  }
  void mulPow10(int n) {
    for (; n >= 9; n -= 9) mulSmall(1000000000u);
    for (; n > 0; --n) mulSmall(10);
  }
  void add(const BigInt &o) {
    if (o.blocks_.size() > blocks_.size()) blocks_.resize(o.blocks_.size(), 0);
    uint64_t carry = 0;
    for (size_t i = 0; i < blocks_.size(); ++i) {
      uint64_t s =
          static_cast<uint64_t>(blocks_[i]) + carry + (i < o.blocks_.size() ? o.blocks_[i] : 0);
      blocks_[i] = static_cast<uint32_t>(s);
      carry = s >> 32;
    }
    if (carry) blocks_.push_back(static_cast<uint32_t>(carry));
  }
  /// *this -= o; requires *this >= o.
  void sub(const BigInt &o) {
    int64_t borrow = 0;
    for (size_t i = 0; i < blocks_.size(); ++i) {
      int64_t d =
          static_cast<int64_t>(blocks_[i]) - borrow - (i < o.blocks_.size() ? o.blocks_[i] : 0);
      borrow = d < 0;
      blocks_[i] = static_cast<uint32_t>(d + (borrow ? (int64_t(1) << 32) : 0));
    }
    while (!blocks_.empty() && blocks_.back() == 0) blocks_.pop_back();
  }
  /// Replaces *this by *this mod d and returns the quotient, which the caller
  /// guarantees is below 10 (as Dragon4's scaling does).
  uint32_t divRemSmallQuotient(const BigInt &d) {
    uint32_t q = 0;
    while (compare(*this, d) >= 0) {
      sub(d);
      ++q;
    }
    return q;
  }
  friend int compare(const BigInt &a, const BigInt &b) {
    if (a.blocks_.size() != b.blocks_.size()) return a.blocks_.size() < b.blocks_.size() ? -1 : 1;
    for (size_t i = a.blocks_.size(); i-- > 0;)
      if (a.blocks_[i] != b.blocks_[i]) return a.blocks_[i] < b.blocks_[i] ? -1 : 1;
    return 0;
  }

private:
  std::vector<uint32_t> blocks_;
};

/// A float split as value = mantissa * 2^exponent, as dragon4.c does it.
struct Decomposed {
  bool negative = false;
  bool isInf = false, isNan = false;
  uint64_t mantissa = 0;
  int exponent = 0;
  int mantissaBit = 0;          ///< index of the highest set mantissa bit
  bool unequalMargins = false;  ///< the gap below is half the gap above
};

int log2Floor(uint64_t v) { return 63 - __builtin_clzll(v); }

Decomposed decompose(FloatValue x) {
  Decomposed d;
  if (x.isF32) {
    float f = static_cast<float>(x.v);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    uint32_t fm = bits & 0x7fffffu, fe = (bits >> 23) & 0xffu;
    d.negative = bits >> 31;
    if (fe == 0xffu) {
      d.isInf = fm == 0;
      d.isNan = fm != 0;
    } else if (fe != 0) {
      d.mantissa = (1u << 23) | fm;
      d.exponent = static_cast<int>(fe) - 127 - 23;
      d.mantissaBit = 23;
      d.unequalMargins = fe != 1 && fm == 0;
    } else {
      d.mantissa = fm;
      d.exponent = 1 - 127 - 23;
      d.mantissaBit = fm ? log2Floor(fm) : 0;
    }
    return d;
  }
  uint64_t bits;
  std::memcpy(&bits, &x.v, 8);
  uint64_t fm = bits & ((uint64_t(1) << 52) - 1);
  uint32_t fe = static_cast<uint32_t>((bits >> 52) & 0x7ffu);
  d.negative = bits >> 63;
  if (fe == 0x7ffu) {
    d.isInf = fm == 0;
    d.isNan = fm != 0;
  } else if (fe != 0) {
    d.mantissa = (uint64_t(1) << 52) | fm;
    d.exponent = static_cast<int>(fe) - 1023 - 52;
    d.mantissaBit = 52;
    d.unequalMargins = fe != 1 && fm == 0;
  } else {
    d.mantissa = fm;
    d.exponent = 1 - 1023 - 52;
    d.mantissaBit = fm ? log2Floor(fm) : 0;
  }
  return d;
}

/// Decimal digits and the power of ten of the first one.
struct Digits {
  std::string digits;
  int exp10 = 0;
};

/// Where a cutoff counts from: digits after the decimal point, or all digits.
enum class Cutoff { Fraction, Total };

// Note [Dragon4 rounding]
// Digits are generated exactly: value, scale and the two half-gaps to the
// neighbouring floats (margins) are integers scaled so that value/scale < 1,
// and each step extracts one digit. Generation stops at the first digit where
// the remainder is within a margin of either end (so the string read back
// gives the same float; margins count as inside when the mantissa is even, as
// IEEE round-half-even reading does), but not before the `cutoffMin` digit,
// and at the latest at the `cutoffMax` digit. The last digit is then rounded:
// down if only the low margin was reached, up if only the high one, else to
// nearest with ties to the even digit. Past the shortest length this is
// almost, but not always, rounding the exact value (the "only high" case with
// the unequal margins of a power of two can round up from below one half), so
// this is a port of NumPy's loop rather than std::to_chars with a precision.
Digits dragon4Digits(const Decomposed &f, Cutoff mode, int cutoffMax, int cutoffMin) {
  Digits out;
  if (f.mantissa == 0) {
    out.digits = "0";
    return out;
  }
  const bool isEven = (f.mantissa & 1) == 0;
  const bool unequal = f.unequalMargins;
  BigInt value(f.mantissa), scale, marginLow, marginHigh;
  if (unequal) {
    if (f.exponent > 0) {
      value.shiftLeft(f.exponent + 2);
      scale = BigInt(4);
      marginLow = BigInt::pow2(f.exponent);
      marginHigh = BigInt::pow2(f.exponent + 1);
    } else {
      value.shiftLeft(2);
      scale = BigInt::pow2(-f.exponent + 2);
      marginLow = BigInt(1);
      marginHigh = BigInt(2);
    }
  } else {
    if (f.exponent > 0) {
      value.shiftLeft(f.exponent + 1);
      scale = BigInt(2);
      marginLow = BigInt::pow2(f.exponent);
    } else {
      value.shiftLeft(1);
      scale = BigInt::pow2(-f.exponent + 1);
      marginLow = BigInt(1);
    }
  }
  auto syncHigh = [&] {
    if (unequal) {
      marginHigh = marginLow;
      marginHigh.mulSmall(2);
    }
  };

  // Estimate floor(log10(v)) + 1, correct or one too low (Burger & Dybvig).
  const double log10_2 = 0.30102999566398119521373889472449;
  int digitExponent =
      static_cast<int>(std::ceil(double(f.mantissaBit + f.exponent) * log10_2 - 0.69));
  if (cutoffMax >= 0 && mode == Cutoff::Fraction && digitExponent <= -cutoffMax)
    digitExponent = -cutoffMax + 1;
  if (digitExponent > 0) {
    scale.mulPow10(digitExponent);
  } else if (digitExponent < 0) {
    value.mulPow10(-digitExponent);
    marginLow.mulPow10(-digitExponent);
    syncHigh();
  }
  if (compare(value, scale) >= 0) {
    ++digitExponent;
  } else {
    value.mulSmall(10);
    marginLow.mulSmall(10);
    syncHigh();
  }

  const int bufferSize = 16384;  // NumPy's repr buffer bounds the digit count
  int cutoffMaxExp = digitExponent - bufferSize;
  if (cutoffMax >= 0) {
    int desired = mode == Cutoff::Total ? digitExponent - cutoffMax : -cutoffMax;
    if (desired > cutoffMaxExp) cutoffMaxExp = desired;
  }
  int cutoffMinExp = digitExponent;
  if (cutoffMin >= 0) {
    int desired = mode == Cutoff::Total ? digitExponent - cutoffMin : -cutoffMin;
    if (desired < cutoffMinExp) cutoffMinExp = desired;
  }
  out.exp10 = digitExponent - 1;

  bool low = false, high = false;
  uint32_t digit = 0;
  for (;;) {
    --digitExponent;
    digit = value.divRemSmallQuotient(scale);
    BigInt valueHigh = value;
    valueHigh.add(unequal ? marginHigh : marginLow);
    int cmp = compare(value, marginLow);
    low = isEven ? cmp <= 0 : cmp < 0;
    cmp = compare(valueHigh, scale);
    high = isEven ? cmp >= 0 : cmp > 0;
    if (((low || high) && digitExponent <= cutoffMinExp) || digitExponent == cutoffMaxExp) break;
    out.digits += static_cast<char>('0' + digit);
    value.mulSmall(10);
    marginLow.mulSmall(10);
    syncHigh();
  }

  bool roundDown = low;
  if (low == high) {
    value.mulSmall(2);
    int cmp = compare(value, scale);
    roundDown = cmp < 0;
    if (cmp == 0) roundDown = (digit & 1) == 0;
  }
  if (roundDown) {
    out.digits += static_cast<char>('0' + digit);
  } else if (digit < 9) {
    out.digits += static_cast<char>('0' + digit + 1);
  } else {
    // Carry: drop trailing nines, bump the digit before them.
    while (!out.digits.empty() && out.digits.back() == '9') out.digits.pop_back();
    if (out.digits.empty()) {
      out.digits = "1";
      ++out.exp10;
    } else {
      ++out.digits.back();
    }
  }
  return out;
}

/// Drops trailing zeros after the point per the trim mode (shared tail of
/// both layouts). `fracDigits` counts the digits after the point.
void trimZeros(std::string &s, int &fracDigits, Trim trim, bool dropBareDot) {
  if (trim == Trim::Keep || fracDigits <= 0) return;
  while (s.back() == '0') {
    s.pop_back();
    --fracDigits;
  }
  if (s.back() == '.') {
    if (trim == Trim::LeaveOneZero) {
      s += '0';
      ++fracDigits;
    } else if (trim == Trim::DotAndZeros && dropBareDot) {
      s.pop_back();
    }
  }
}

/// The tail of the fraction after its digits (both layouts): the point when there is no
/// fraction, the padding zeros of the trim mode and of minDigits, then trimZeros.
void fractionTail(std::string &s, int &fracDigits, const Dragon4Options &o, bool dropBareDot) {
  if (o.trim != Trim::DotAndZeros && fracDigits == 0) s += '.';
  const int wanted = o.minDigits < 0 ? 0 : o.minDigits;
  if (o.trim == Trim::LeaveOneZero) {
    if (fracDigits == 0) {
      s += '0';
      ++fracDigits;
    }
  } else if (o.trim == Trim::Keep && wanted > fracDigits) {
    s += std::string(wanted - fracDigits, '0');
    fracDigits = wanted;
  }
  trimZeros(s, fracDigits, o.trim, dropBareDot);
}

/// FormatPositional of dragon4.c (unique digit mode, fractional cutoff).
std::string formatPositional(const Decomposed &f, const Dragon4Options &o) {
  std::string s = f.negative ? "-" : "";
  const int hasSign = f.negative ? 1 : 0;
  Digits d = dragon4Digits(f, Cutoff::Fraction, o.precision, o.minDigits);
  const int numDigits = static_cast<int>(d.digits.size());
  int wholeDigits = 0, fracDigits = 0;
  if (d.exp10 >= 0) {
    wholeDigits = d.exp10 + 1;
    if (numDigits <= wholeDigits) {
      s += d.digits + std::string(wholeDigits - numDigits, '0');
    } else {
      s += d.digits.substr(0, wholeDigits) + "." + d.digits.substr(wholeDigits);
      fracDigits = numDigits - wholeDigits;
    }
  } else {
    int zeros = -(d.exp10 + 1);
    s += "0." + std::string(zeros, '0') + d.digits;
    fracDigits = numDigits + zeros;
    wholeDigits = 1;
  }
  fractionTail(s, fracDigits, o, /*dropBareDot=*/true);
  if (o.padRight >= fracDigits) {
    if (o.trim == Trim::DotAndZeros && fracDigits == 0) s += ' ';
    s += std::string(o.padRight - fracDigits, ' ');
  }
  if (o.padLeft > wholeDigits + hasSign)
    s.insert(0, std::string(o.padLeft - (wholeDigits + hasSign), ' '));
  return s;
}

/// FormatScientific of dragon4.c (unique digit mode, total-length cutoff).
std::string formatScientific(const Decomposed &f, const Dragon4Options &o) {
  std::string s;
  const int leftChars = 1 + (f.negative ? 1 : 0);
  if (o.padLeft > leftChars) s += std::string(o.padLeft - leftChars, ' ');
  if (f.negative) s += '-';
  Digits d = dragon4Digits(f, Cutoff::Total, o.precision < 0 ? -1 : o.precision + 1,
                           o.minDigits < 0 ? -1 : o.minDigits + 1);
  s += d.digits[0];
  int fracDigits = static_cast<int>(d.digits.size()) - 1;
  if (fracDigits > 0) s += "." + d.digits.substr(1);
  // Scientific keeps a bare "." left by trimming, even in DotAndZeros mode.
  fractionTail(s, fracDigits, o, /*dropBareDot=*/false);

  int expDigits = o.expDigits > 5 ? 5 : o.expDigits < 0 ? 2 : o.expDigits;
  int e = d.exp10;
  s += 'e';
  s += e >= 0 ? '+' : '-';
  std::string ed = std::to_string(e < 0 ? -e : e);
  if (static_cast<int>(ed.size()) < expDigits)
    ed.insert(0, std::string(expDigits - ed.size(), '0'));
  return s + ed;
}

}  // namespace

std::string dragon4(FloatValue x, const Dragon4Options &opts) {
  Decomposed f = decompose(x);
  if (f.isNan) return "nan";
  if (f.isInf) return f.negative ? "-inf" : "inf";
  return opts.scientific ? formatScientific(f, opts) : formatPositional(f, opts);
}

}  // namespace spmd::rt
