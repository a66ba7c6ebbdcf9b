// ===- Threefry2x32.h - JAX's threefry2x32 PRNG, as a plain C++ reference ----===//
//
// The host-side reference for spmdrun's random numbers: the same keys, splits,
// fold_ins and draws as JAX's default PRNG (threefry2x32 with
// `jax_threefry_partitionable=True`, x64 off). Header-only, no dependencies: the
// runtime can call it, tests compare the LLVM emitter (compiler/codegen/ThreefryEmit.h)
// against it, and both are checked against JAX's own outputs in
// tests/data/prng_golden.txt. docs/prng.md says how keys and streams are derived.
//
// Every function is written per output element (`*_at(key, i)` for flat index i), so
// a kernel can compute element i of any result without the others: that is what
// makes JAX's partitionable threefry partitionable, and what the emitter does.
//
// Note [Float rounding]: JAX on CPU (and GPU) lets LLVM fuse a multiply feeding an
// add into one fma; with lo/hi other than 0/1 uniform's `f * (hi - lo) + lo` and
// erf_inv's and log1p's Horner steps are fused, and the results differ from the
// unfused ones in the last bit. We call std::fma explicitly where XLA's code fuses
// (it is exact on any machine), and nowhere else. Compile the rest without contraction (GCC's
// default only contracts when the target has FMA instructions, e.g. -march=native; then pass
// -ffp-contract=off).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace spmd::prng {

/// A threefry key: the two u32 words [k0, k1] that `key_data` shows and that an
/// 8-byte `key` element holds in memory, k0 first.
using Key = std::array<uint32_t, 2>;

namespace detail {
inline uint32_t rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }
inline float asFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint32_t asBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
}  // namespace detail

/// The threefry2x32 block cipher (20 rounds) of counter (x0, x1) under `key`: JAX's
/// `threefry2x32_p`. Random123's known answer: key (0,0), counter (0,0) gives
/// (0x6b200159, 0x99ba4efe).
inline std::array<uint32_t, 2> threefry2x32(Key key, std::array<uint32_t, 2> ctr) {
  static constexpr int kRot[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  const uint32_t ks[3] = {key[0], key[1], key[0] ^ key[1] ^ 0x1BD11BDAu};
  uint32_t x0 = ctr[0] + ks[0], x1 = ctr[1] + ks[1];
  for (int i = 0; i < 5; ++i) {  // five groups of four rounds, then a key injection
    for (int r : kRot[i % 2]) {
      x0 += x1;
      x1 = detail::rotl(x1, r) ^ x0;
    }
    x0 += ks[(i + 1) % 3];
    x1 += ks[(i + 2) % 3] + uint32_t(i + 1);
  }
  return {x0, x1};
}

/// jax.random.key(seed) with JAX's default x64=off: the seed is taken modulo 2^32 (as
/// jnp.asarray(np.int64(seed)) truncates it to int32) and the key is [0, seed mod 2^32].
/// So key(-1) is [0, 4294967295] and key(2^32 + 7) is [0, 7].
inline Key seed(int64_t s) { return {0u, uint32_t(uint64_t(s))}; }

/// The hash of flat element index i of a result: counter (hi(i), lo(i)), the
/// 64-bit iota split into u32 words (JAX's iota_2x32_shape).
inline std::array<uint32_t, 2> hashAt(Key key, uint64_t i) {
  return threefry2x32(key, {uint32_t(i >> 32), uint32_t(i)});
}

/// Element i (row-major) of split(key, shape): the key hashAt(key, i).
inline Key split_at(Key key, uint64_t i) { return hashAt(key, i); }

/// split(key, n): n keys (for a shape, n = its element count, row-major).
inline std::vector<Key> split(Key key, uint64_t n) {
  std::vector<Key> out(n);
  for (uint64_t i = 0; i < n; ++i) out[i] = split_at(key, i);
  return out;
}

/// fold_in(key, data): threefry2x32(key, (0, data)) (JAX hashes threefry_seed(data)).
/// A negative i32 datum folds in as its u32 bits.
inline Key fold_in(Key key, uint32_t data) { return threefry2x32(key, {0u, data}); }

/// Element i of random_bits(key, 32, shape): the xor of the two words of hashAt(key, i).
inline uint32_t random_bits_at(Key key, uint64_t i) {
  auto y = hashAt(key, i);
  return y[0] ^ y[1];
}

/// random_bits(key, n): n u32 words for a flat shape of n elements.
inline std::vector<uint32_t> random_bits(Key key, uint64_t n) {
  std::vector<uint32_t> out(n);
  for (uint64_t i = 0; i < n; ++i) out[i] = random_bits_at(key, i);
  return out;
}

/// A float in [1, 2) from the high 23 bits, minus one: uniform's [0, 1) value.
inline float unitFromBits(uint32_t bits) {
  return detail::asFloat((bits >> 9) | 0x3F800000u) - 1.0f;
}

/// uniform's element from its bits: max(lo, fma(u, hi - lo, lo)), u = unitFromBits.
/// See Note [Float rounding] for the fma.
inline float uniformFromBits(uint32_t bits, float lo, float hi) {
  return std::fmax(lo, std::fma(unitFromBits(bits), hi - lo, lo));
}

/// uniform(key, [n], lo, hi) in float32: bit-identical to jax.random.uniform.
inline std::vector<float> uniform_f32(Key key, uint64_t n, float lo = 0.0f, float hi = 1.0f) {
  std::vector<float> out(n);
  for (uint64_t i = 0; i < n; ++i) out[i] = uniformFromBits(random_bits_at(key, i), lo, hi);
  return out;
}

/// XLA's float32 log on CPU (Cephes's logf, evaluated as XLA's CPU backend does):
/// y = 2^e * m with m in [0.5, 1); below sqrt(1/2) m is doubled (e decremented), so
/// t = m - 1 lies in [sqrt(1/2) - 1, sqrt(2) - 1); then
///   log y = t - t^2/2 + t^3 P(t) + e * kLogLn2Lo + e * kLogLn2Hi
/// with P of degree 8 evaluated in three interleaved groups of three (logF32).
inline constexpr float kLogLn2Hi = 0.693359375f, kLogLn2Lo = -2.12194440e-4f;
/// Cephes logf's P(t), lowest degree first.
inline constexpr float kLogP[9] = {3.3333331174e-1f,  -2.4999993993e-1f, 2.0000714765e-1f,
                                   -1.6668057665e-1f, 1.4249322787e-1f,  -1.2420140846e-1f,
                                   1.1676998740e-1f,  -1.1514610310e-1f, 7.0376836292e-2f};
/// sqrt(1/2) rounded to float32: the bound below which the mantissa is doubled.
inline constexpr float kLogSqrtHalf = 0.707106769f;
/// The smallest normal float32. XLA's CPU code runs with denormals flushed to zero
/// (inputs and results): below this magnitude log, log1p and erf_inv see a zero.
inline constexpr float kMinNormal = 0x1p-126f;
/// A float with |x| < kMinNormal flushed to a zero of its sign (as XLA's CPU code).
inline float flushDenormal(float x) {
  return std::fabs(x) < kMinNormal ? std::copysign(0.0f, x) : x;
}
/// XLA's log1p: below this |x| the rational form is used (sqrt(2) - 1).
inline constexpr float kLog1pSmall = 0.41421356237309504880f;
/// XLA's log1p rational form (from Cephes), numerator and denominator, highest
/// degree first, rounded to float32 as XLA's constants are.
inline constexpr float kLog1pNum[7] = {
    float(4.5270000862445199635215E-5), float(4.9854102823193375972212E-1),
    float(6.5787325942061044846969E0),  float(2.9911919328553073277375E1),
    float(6.0949667980987787057556E1),  float(5.7112963590585538103336E1),
    float(2.0039553499201281259648E1)};
inline constexpr float kLog1pDen[7] = {1.0f,
                                       float(1.5062909083469192043167E1),
                                       float(8.3047565967967209469434E1),
                                       float(2.2176239823732856465394E2),
                                       float(3.0909872225312059774938E2),
                                       float(2.1642788614495947685003E2),
                                       float(6.0118660497603843919306E1)};

/// The natural log in float32, bit for bit as XLA on CPU computes it (jnp.log), with
/// float and integer operations only; see kLogP. The fma calls are where XLA's
/// backend fuses a multiply into the add that consumes it (Note [Float rounding]).
/// Edges: NaN and negatives give NaN, +-0 (and denormals) -inf, +inf +inf. The
/// emitter (emitLogF32) produces the same operations, so the two agree bit for bit.
inline float logF32(float y) {
  using detail::asBits;
  using detail::asFloat;
  y = flushDenormal(y);
  if (std::isnan(y) || y < 0.0f) return std::numeric_limits<float>::quiet_NaN();
  if (y == 0.0f) return -std::numeric_limits<float>::infinity();
  if (y == std::numeric_limits<float>::infinity()) return y;
  uint32_t bits = asBits(y);
  float e = float(int(bits >> 23) - 127) + 1.0f;  // y = 2^e * m
  float m = asFloat((bits & 0x807fffffu) | 0x3f000000u);
  bool low = m < kLogSqrtHalf;
  float t = (m + -1.0f) + (low ? m : 0.0f);  // m - 1, or 2m - 1 when m < sqrt(1/2)
  e = e - (low ? 1.0f : 0.0f);
  float t2 = t * t, t3 = t2 * t;
  // P(t) = (P0 + P1 t + P2 t^2) + t^3 (P3 + P4 t + P5 t^2) + t^6 (P6 + P7 t + P8 t^2).
  float a = std::fma(std::fma(t, kLogP[8], kLogP[7]), t, kLogP[6]);
  float b = std::fma(std::fma(t, kLogP[5], kLogP[4]), t, kLogP[3]);
  float c = std::fma(std::fma(t, kLogP[2], kLogP[1]), t, kLogP[0]);
  float p = std::fma(std::fma(a, t3, b), t3, c);
  float tail = std::fma(p, t3, e * kLogLn2Lo);  // t^3 P(t) + e ln2_lo
  float head = std::fma(-t2, 0.5f, t);          // t - t^2/2
  return std::fma(e, kLogLn2Hi, head + tail);
}

/// log1p in float32 as XLA computes it (bit for bit jnp.log1p on CPU): for
/// |x| < sqrt(2) - 1 the Cephes rational form x - x^2/2 + x^3 P(x)/Q(x) (P, Q by
/// Horner with fma), else logF32(1 + x).
inline float log1pF32(float x) {
  x = flushDenormal(x);
  if (!(std::fabs(x) < kLog1pSmall)) return logF32(1.0f + x);
  float p = kLog1pNum[0], q = kLog1pDen[0];
  for (int i = 1; i < 7; ++i) p = std::fma(p, x, kLog1pNum[i]), q = std::fma(q, x, kLog1pDen[i]);
  float x2 = x * x;
  return x + std::fma(-0.5f, x2, (x * x2) * (p / q));
}

/// The coefficients of XLA's float32 erf_inv (Giles's single-precision polynomials,
/// for w = -log1p(-x^2) < 5 and >= 5), highest degree first, as XLA's chlo expansion.
inline constexpr float kErfInvSmall[9] = {2.81022636e-08f,  3.43273939e-07f, -3.5233877e-06f,
                                          -4.39150654e-06f, 0.00021858087f,  -0.00125372503f,
                                          -0.00417768164f,  0.246640727f,    1.50140941f};
inline constexpr float kErfInvLarge[9] = {-0.000200214257f, 0.000100950558f, 0.00134934322f,
                                          -0.00367342844f,  0.00573950773f,  -0.0076224613f,
                                          0.00943887047f,   1.00167406f,     2.83297682f};

/// erf_inv in float32, XLA's algorithm: w = -log1pF32(x * -x); then for w < 5 the
/// polynomial in w - 2.5, else in sqrt(w) - 3, times x; +-inf at x = +-1. Horner steps
/// use fma (Note [Float rounding]). Bit for bit jax.lax.erf_inv on CPU (denormals
/// flushed, as there), checked against the golden data.
inline float erfInvF32(float x) {
  x = flushDenormal(x);
  float w = -log1pF32(x * -x);
  bool small = w < 5.0f;
  const float *c = small ? kErfInvSmall : kErfInvLarge;
  float t = small ? w - 2.5f : std::sqrt(w) - 3.0f;
  float p = c[0];
  for (int i = 1; i < 9; ++i) p = std::fma(p, t, c[i]);
  if (std::fabs(x) == 1.0f) return x * std::numeric_limits<float>::infinity();
  return flushDenormal(p * x);
}

/// The lower bound of normal()'s uniform draw: nextafter(-1, 0) = -1 + 2^-24.
inline constexpr float kNormalLo = -0x1.fffffep-1f;
/// sqrt(2) rounded to float32.
inline constexpr float kSqrt2 = 1.41421356f;

/// Element of normal() from its bits: sqrt(2) * erf_inv(uniform(bits, kNormalLo, 1)).
inline float normalFromBits(uint32_t bits) {
  return kSqrt2 * erfInvF32(uniformFromBits(bits, kNormalLo, 1.0f));
}

/// normal(key, [n]) in float32: bit-identical to jax.random.normal (on CPU).
inline std::vector<float> normal_f32(Key key, uint64_t n) {
  std::vector<float> out(n);
  for (uint64_t i = 0; i < n; ++i) out[i] = normalFromBits(random_bits_at(key, i));
  return out;
}

/// bernoulli(key, p, [n]): uniform(key, [n]) < p, as JAX's default mode='low'.
inline std::vector<bool> bernoulli(Key key, float p, uint64_t n) {
  std::vector<bool> out(n);
  for (uint64_t i = 0; i < n; ++i) out[i] = uniformFromBits(random_bits_at(key, i), 0.0f, 1.0f) < p;
  return out;
}

/// The element of randint [lo, hi) (int32) from its two draws: JAX splits the key in
/// two, k1 = split_at(key, 0) and k2 = split_at(key, 1), and takes higher =
/// random_bits_at(k1, i), lower = random_bits_at(k2, i). Then, in wrapping u32
/// arithmetic, span = hi > lo ? u32(hi - lo) : 1; m = (2^16 % span)^2 % span;
/// result = lo + i32(((higher % span) * m + lower % span) % span).
inline int32_t randintFromBits(uint32_t higher, uint32_t lower, int32_t lo, int32_t hi) {
  uint32_t span = hi > lo ? uint32_t(hi) - uint32_t(lo) : 1u;
  uint32_t m = (65536u % span) * (65536u % span) % span;
  uint32_t off = ((higher % span) * m + lower % span) % span;
  return int32_t(uint32_t(lo) + off);
}

/// randint(key, [n], lo, hi) for int32: identical to jax.random.randint.
inline std::vector<int32_t> randint(Key key, uint64_t n, int32_t lo, int32_t hi) {
  Key k1 = split_at(key, 0), k2 = split_at(key, 1);
  std::vector<int32_t> out(n);
  for (uint64_t i = 0; i < n; ++i)
    out[i] = randintFromBits(random_bits_at(k1, i), random_bits_at(k2, i), lo, hi);
  return out;
}

}  // namespace spmd::prng
