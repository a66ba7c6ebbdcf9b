// ===- PrngGolden.h - reads tests/data/prng_golden.txt for the PRNG tests ---===//
//
// The golden file holds JAX's own keys and draws, one record a line
// (`KIND ARGS... : VALUES...`, see tests/data/gen_prng_golden.py). The runtime's
// reference test and the codegen emitter's test both read it through this header.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace spmd::testing {

/// One record: its kind, the words before the colon and the words after it.
struct GoldenRecord {
  std::string kind;
  std::vector<std::string> args, values;
};

/// The path of tests/data/prng_golden.txt: from $SPMD_SOURCE_DIR (CTest sets it), else
/// relative to this header.
inline std::string prngGoldenPath() {
  if (const char *dir = std::getenv("SPMD_SOURCE_DIR"))
    return std::string(dir) + "/tests/data/prng_golden.txt";
  std::string here = __FILE__;  // .../tests/unit/PrngGolden.h
  return here.substr(0, here.rfind("/unit/")) + "/data/prng_golden.txt";
}

/// Every record of the golden file; throws if it cannot be read.
inline std::vector<GoldenRecord> readPrngGolden() {
  std::ifstream in(prngGoldenPath());
  if (!in) throw std::runtime_error("cannot open " + prngGoldenPath());
  std::vector<GoldenRecord> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    GoldenRecord r;
    std::istringstream ss(line);
    ss >> r.kind;
    std::string w;
    bool after = false;
    while (ss >> w) {
      if (w == ":")
        after = true;
      else
        (after ? r.values : r.args).push_back(w);
    }
    out.push_back(std::move(r));
  }
  return out;
}

inline uint32_t goldenU32(const std::string &s) { return uint32_t(std::stoull(s)); }
inline float goldenF32Hex(const std::string &s) {
  uint32_t u = uint32_t(std::stoul(s, nullptr, 16));
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
/// A shape word: `2x3`, or `-` for a scalar; returns its element count.
inline uint64_t goldenNumel(const std::string &s) {
  if (s == "-") return 1;
  uint64_t n = 1;
  std::istringstream ss(s);
  std::string d;
  while (std::getline(ss, d, 'x')) n *= std::stoull(d);
  return n;
}

/// FNV-1a (64-bit) over u32 words: h = (h ^ w) * 0x100000001b3 from the offset basis.
/// The golden record `normal_table` is this hash (gen_prng_golden.py's fnv1a64).
inline uint64_t fnv1a64Words(const uint32_t *w, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ w[i]) * 0x100000001b3ull;
  return h;
}

/// The distance in units in the last place between two floats (0 for equal values,
/// both NaN, or +0 and -0).
inline int64_t ulpDistance(float a, float b) {
  if (a == b || (a != a && b != b)) return 0;
  if (a != a || b != b) return INT64_MAX;
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  int64_t la = ia < 0 ? int64_t(INT32_MIN) - ia : ia, lb = ib < 0 ? int64_t(INT32_MIN) - ib : ib;
  return la > lb ? la - lb : lb - la;
}

}  // namespace spmd::testing
