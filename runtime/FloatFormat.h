//===- FloatFormat.h - NumPy's Dragon4 float printing -----------------------===//
//
// The float half of printing arrays exactly as NumPy does (see Format.h). NumPy
// prints floats with its own port of Ryan Juckett's Dragon4 (numpy/_core/src/
// multiarray/dragon4.c), whose quirks (rounding at a cutoff, `min_digits`
// padding with exact digits, the trim modes, the padding rules) show in its
// output, so this file follows that algorithm step by step rather than building
// on std::to_chars: the bytes must match, not just the values.
//
// On top of it sit the two callers NumPy has: `FloatArrayFormat`, the
// `FloatingFormat` class of arrayprint.py with its default options (precision 8,
// floatmode 'maxprec', suppress=False, sign '-'), and `formatFloatScalar`, the
// str() of a NumPy float scalar.
//
//===----------------------------------------------------------------------===//
#ifndef SPMD_RUNTIME_FLOATFORMAT_H
#define SPMD_RUNTIME_FLOATFORMAT_H

#include <string>
#include <vector>

namespace spmd::rt {

/// How Dragon4 trims trailing zeros; named after NumPy's `trim` letters.
enum class Trim {
  Keep,          ///< 'k': keep trailing zeros and the decimal point
  Zeros,         ///< '.': drop trailing zeros, keep the decimal point ("1.")
  LeaveOneZero,  ///< '0': drop trailing zeros but keep one after the point ("1.0")
  DotAndZeros,   ///< '-': drop trailing zeros and a bare decimal point ("1")
};

/// The options of np.format_float_positional / np.format_float_scientific with
/// unique=True (the only digit mode NumPy's array printing uses); -1 means unset.
struct Dragon4Options {
  bool scientific = false;
  int precision = -1;  ///< at most this many digits after the point
  int minDigits = -1;  ///< at least this many digits after the point
  Trim trim = Trim::Keep;
  int padLeft = -1;    ///< pad with spaces to this many chars left of the point
  int padRight = -1;   ///< positional only: pad to this many chars right of it
  int expDigits = -1;  ///< scientific only: at least this many exponent digits
};

/// One float of an array, remembering whether it is a float32 (printed with
/// float32's margins) or a float64. Exact: a float32 widens to double losslessly.
struct FloatValue {
  double v;
  bool isF32;
};

/// NumPy's dragon4_positional / dragon4_scientific with unique=True,
/// fractional=True, sign=False. Finite and non-finite values alike ("nan", "inf").
std::string dragon4(FloatValue x, const Dragon4Options &opts);

/// str() of a NumPy float32 / float64 scalar: positional with one trailing zero
/// ("0.1", "100000.0") for 0 and 1e-4 <= |x| < 1e6 (f32) or 1e16 (f64), else
/// scientific ("1e-05", "1.5e+16"); "nan", "inf", "-inf".
std::string formatFloatScalar(FloatValue x);

/// arrayprint.FloatingFormat with NumPy's default print options: chooses
/// positional or scientific notation and the common widths from the values to
/// be printed (the summarised ones only), then formats each value to that width.
class FloatArrayFormat {
public:
  /// `values` are the elements that will be printed; all of one dtype.
  FloatArrayFormat(const std::vector<FloatValue> &values);
  /// One element, padded to the common width.
  std::string operator()(FloatValue x) const;

private:
  bool expFormat_ = false;
  int padLeft_ = 0, padRight_ = 0;
  int precision_ = 8, minDigits_ = -1, expSize_ = -1;
  Trim trim_ = Trim::Zeros;
};

}  // namespace spmd::rt

#endif  // SPMD_RUNTIME_FLOATFORMAT_H
