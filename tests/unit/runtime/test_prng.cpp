// ===- test_prng.cpp - the C++ threefry reference against JAX's own outputs -===//
//
// Every record of tests/data/prng_golden.txt (written by JAX, see
// tests/data/gen_prng_golden.py) is recomputed with runtime/prng/Threefry2x32.h: keys, splits,
// fold_ins, bits and every draw must be identical, and so must erf_inv, log and log1p
// (JAX's on CPU); normal() is also checked on all 2^23 uniform draws it can start from.
#include "../PrngGolden.h"
#include "Threefry2x32.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <map>

using namespace spmd;
using namespace spmd::testing;

namespace {

prng::Key keyOf(const GoldenRecord &r) { return {goldenU32(r.args[0]), goldenU32(r.args[1])}; }

std::vector<uint32_t> u32s(const std::vector<std::string> &v) {
  std::vector<uint32_t> out;
  for (auto &s : v) out.push_back(goldenU32(s));
  return out;
}

const std::vector<GoldenRecord> &golden() {
  static const std::vector<GoldenRecord> records = readPrngGolden();
  return records;
}

}  // namespace

TEST_CASE("threefry2x32 known answers and the spec's examples", "[prng]") {
  // Random123's known answer for threefry2x32-20 with a zero key and counter.
  auto y = prng::threefry2x32({0, 0}, {0, 0});
  CHECK(y[0] == 0x6b200159u);
  CHECK(y[1] == 0x99ba4efeu);
  // language.md section 9.
  auto keys = prng::split(prng::seed(0), 2);
  CHECK(keys[0] == prng::Key{1797259609u, 2579123966u});
  CHECK(keys[1] == prng::Key{928981903u, 3453687069u});
  auto u = prng::uniform_f32(prng::seed(0), 3);
  CHECK(u[0] == 0.947667f);
  CHECK(u[1] == 0.9785799f);
  CHECK(u[2] == 0.33229148f);
}

TEST_CASE("every golden record matches JAX", "[prng]") {
  std::map<std::string, int> seen;
  int64_t worstNormal = 0, normalsExact = 0, normals = 0;
  for (const GoldenRecord &r : golden()) {
    INFO(r.kind << " " << (r.args.empty() ? "" : r.args[0]) << " "
                << (r.args.size() > 2 ? r.args[2] : ""));
    ++seen[r.kind];
    if (r.kind == "seed") {
      CHECK(prng::seed(std::stoll(r.args[0])) ==
            prng::Key{goldenU32(r.values[0]), goldenU32(r.values[1])});
    } else if (r.kind == "threefry") {
      auto a = u32s(r.args);
      auto y = prng::threefry2x32({a[0], a[1]}, {a[2], a[3]});
      CHECK(std::vector<uint32_t>{y[0], y[1]} == u32s(r.values));
    } else if (r.kind == "split") {
      std::vector<uint32_t> got;
      for (auto k : prng::split(keyOf(r), goldenNumel(r.args[2])))
        got.insert(got.end(), k.begin(), k.end());
      CHECK(got == u32s(r.values));
    } else if (r.kind == "fold_in") {
      auto k = prng::fold_in(keyOf(r), goldenU32(r.args[2]));
      CHECK(std::vector<uint32_t>{k[0], k[1]} == u32s(r.values));
    } else if (r.kind == "bits") {
      CHECK(prng::random_bits(keyOf(r), goldenNumel(r.args[2])) == u32s(r.values));
    } else if (r.kind == "uniform") {
      auto got = prng::uniform_f32(keyOf(r), goldenNumel(r.args[2]), std::stof(r.args[3]),
                                   std::stof(r.args[4]));
      REQUIRE(got.size() == r.values.size());
      int bad = 0;
      for (size_t i = 0; i < got.size(); ++i) bad += got[i] != goldenF32Hex(r.values[i]);
      CHECK(bad == 0);
    } else if (r.kind == "normal") {
      auto got = prng::normal_f32(keyOf(r), goldenNumel(r.args[2]));
      REQUIRE(got.size() == r.values.size());
      for (size_t i = 0; i < got.size(); ++i) {
        int64_t d = ulpDistance(got[i], goldenF32Hex(r.values[i]));
        worstNormal = std::max(worstNormal, d);
        normalsExact += d == 0;
        ++normals;
      }
    } else if (r.kind == "bernoulli") {
      auto got = prng::bernoulli(keyOf(r), std::stof(r.args[3]), goldenNumel(r.args[2]));
      std::vector<bool> want;
      for (auto &s : r.values) want.push_back(s == "1");
      CHECK(got == want);
    } else if (r.kind == "randint") {
      auto got = prng::randint(keyOf(r), goldenNumel(r.args[2]), std::stoi(r.args[3]),
                               std::stoi(r.args[4]));
      std::vector<int32_t> want;
      for (auto &s : r.values) want.push_back(std::stoi(s));
      CHECK(got == want);
    }
  }
  INFO("normals: " << normals << ", exact " << normalsExact << ", worst " << worstNormal << " ulp");
  CHECK(worstNormal == 0);
  CHECK(normals > 5000);
  for (const char *kind :
       {"seed", "threefry", "split", "fold_in", "bits", "uniform", "normal", "bernoulli", "randint",
        "erf_inv", "log", "log1p", "normal_table", "normal_from_bits"})
    CHECK(seen[kind] > 0);
}

/// The golden (x, f(x)) pairs of one kind; every result must have JAX's bits (NaNs of
/// any sign or payload count as equal).
static void checkPairs(const char *kind, float (*f)(float), int atLeast) {
  int checked = 0, bad = 0;
  for (const GoldenRecord &r : golden()) {
    if (r.kind != kind) continue;
    for (size_t i = 0; i + 1 < r.values.size(); i += 2) {
      float x = goldenF32Hex(r.values[i]), want = goldenF32Hex(r.values[i + 1]), got = f(x);
      bool same =
          prng::detail::asBits(got) == prng::detail::asBits(want) || (got != got && want != want);
      if (!same && bad++ < 5)
        UNSCOPED_INFO(kind << "(" << x << ") = " << got << ", JAX gives " << want);
      ++checked;
    }
  }
  CHECK(checked >= atLeast);
  CHECK(bad == 0);
}

TEST_CASE("erf_inv, log and log1p are bit for bit XLA's on CPU", "[prng]") {
  checkPairs("erf_inv", prng::erfInvF32, 3500);
  checkPairs("log", prng::logF32, 5000);
  checkPairs("log1p", prng::log1pF32, 5000);
  CHECK(std::isinf(prng::erfInvF32(1.0f)));
  CHECK(prng::erfInvF32(-1.0f) < 0);
  CHECK(prng::erfInvF32(0.0f) == 0.0f);
  CHECK(std::isnan(prng::logF32(-1.0f)));
  CHECK(prng::logF32(0.0f) == -INFINITY);
  CHECK(prng::logF32(1e-40f) == -INFINITY);  // denormals are flushed, as by XLA
  CHECK(std::isnan(prng::log1pF32(-2.0f)));
  CHECK(prng::log1pF32(-1.0f) == -INFINITY);
  CHECK(prng::log1pF32(INFINITY) == INFINITY);
}

TEST_CASE("normal() is bit-identical to JAX's for every possible uniform draw", "[prng]") {
  // normal() keeps the top 23 of its 32 random bits: 2^23 possible values, all checked.
  std::vector<float> table(size_t(1) << 23);
  for (uint32_t m = 0; m < (1u << 23); ++m) table[m] = prng::normalFromBits(m << 9);
  int samples = 0, bad = 0;
  for (const GoldenRecord &r : golden()) {
    if (r.kind == "normal_table") {
      std::vector<uint32_t> words(table.size());
      std::memcpy(words.data(), table.data(), 4 * table.size());
      char hex[17];
      snprintf(hex, sizeof hex, "%016llx",
               (unsigned long long)fnv1a64Words(words.data(), words.size()));
      CHECK(std::string(hex) == r.values.at(0));
    }
    if (r.kind != "normal_from_bits") continue;
    for (size_t i = 0; i + 1 < r.values.size(); i += 2, ++samples) {
      uint32_t m = goldenU32(r.values[i]);
      float want = goldenF32Hex(r.values[i + 1]);
      if (prng::detail::asBits(table.at(m)) != prng::detail::asBits(want) && bad++ < 5)
        UNSCOPED_INFO("bits " << (m << 9) << ": " << table[m] << ", JAX gives " << want);
    }
  }
  CHECK(samples > 3000);
  CHECK(bad == 0);
}

TEST_CASE("log1pF32 and logF32 are close to the double-precision ones", "[prng]") {
  int64_t worst = 0, worstLog = 0;
  for (uint32_t u = 0x00800000u; u < (1u << 31); u += 40009) {  // normal floats of both signs
    for (uint32_t sign : {0u, 0x80000000u}) {
      float x;
      uint32_t bits = u | sign;
      std::memcpy(&x, &bits, 4);
      if (std::isnan(x)) continue;
      if (x >= 0.0f)
        worstLog = std::max(worstLog, ulpDistance(prng::logF32(x), float(std::log(double(x)))));
      if (x >= -0.5f)
        worst = std::max(worst, ulpDistance(prng::log1pF32(x), float(std::log1p(double(x)))));
    }
  }
  INFO("log: " << worstLog << " ulp, log1p: " << worst << " ulp");
  CHECK(worstLog <= 2);  // neither XLA's log nor its log1p is correctly rounded
  CHECK(worst <= 2);
}
