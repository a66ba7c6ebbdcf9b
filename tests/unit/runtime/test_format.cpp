//===- test_format.cpp - formatArray against NumPy's own output -------------===//
//
// data/format_golden.txt holds what NumPy printed for several hundred arrays
// (written by gen_format_golden.py; see its docstring for the format). Every case
// must match byte for byte. A few hand-written checks below read as examples.
//
//===----------------------------------------------------------------------===//
#include "Format.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using spmd::rt::formatArray;

namespace {

struct GoldenCase {
  std::string name;
  int dtype = 0;
  std::vector<int64_t> shape;
  std::vector<unsigned char> bytes;
  std::string expected;
};

std::filesystem::path goldenPath() {
  const char *root = std::getenv("SPMD_SOURCE_DIR");
  if (root) return std::filesystem::path(root) / "tests/unit/runtime/data/format_golden.txt";
  return std::filesystem::path(__FILE__).parent_path() / "data/format_golden.txt";
}

std::vector<unsigned char> fromHex(const std::string &hex) {
  std::vector<unsigned char> out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<unsigned char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

/// Parses the golden file; fails the test on a malformed block.
std::vector<GoldenCase> readGolden(const std::filesystem::path &path) {
  std::ifstream in(path);
  INFO("golden file: " << path.string());
  REQUIRE(in.good());
  std::vector<GoldenCase> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    REQUIRE(line.rfind("case ", 0) == 0);
    GoldenCase c;
    c.name = line.substr(5);
    std::string key;
    REQUIRE(std::getline(in, line));
    std::istringstream(line) >> key >> c.dtype;
    REQUIRE(key == "dtype");
    REQUIRE(std::getline(in, line));
    std::istringstream shapeLine(line);
    size_t rank = 0;
    shapeLine >> key >> rank;
    REQUIRE(key == "shape");
    c.shape.resize(rank);
    for (int64_t &d : c.shape) shapeLine >> d;
    REQUIRE(std::getline(in, line));
    REQUIRE(line.rfind("data", 0) == 0);
    c.bytes = fromHex(line.size() > 5 ? line.substr(5) : "");
    REQUIRE(std::getline(in, line));
    size_t numLines = 0;
    std::istringstream(line) >> key >> numLines;
    REQUIRE(key == "expect");
    for (size_t i = 0; i < numLines; ++i) {
      REQUIRE(std::getline(in, line));
      c.expected += (i ? "\n" : "") + line;
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

std::string print(const std::vector<float> &v, std::vector<int64_t> shape) {
  return formatArray(v.data(), 3, shape);
}

}  // namespace

TEST_CASE("formatArray matches NumPy on every golden case", "[format]") {
  std::vector<GoldenCase> cases = readGolden(goldenPath());
  REQUIRE(cases.size() >= 300);
  size_t failures = 0;
  for (const GoldenCase &c : cases) {
    std::string got = formatArray(c.bytes.data(), c.dtype, c.shape);
    if (got != c.expected && failures++ == 0) {
      // Report the first mismatch in full; count the rest.
      INFO("case: " << c.name << "\nexpected:\n" << c.expected << "\ngot:\n" << got);
      CHECK(got == c.expected);
    }
  }
  INFO(failures << " of " << cases.size() << " golden cases differ");
  CHECK(failures == 0);
}

TEST_CASE("formatArray examples", "[format]") {
  CHECK(print({0.f, 1.f / 6, 2.f / 6, 0.5f}, {4}) ==
        "[0.         0.16666667 0.33333334 0.5       ]");
  CHECK(print({1.f, 1.f}, {2}) == "[1. 1.]");
  CHECK(print({0.f, 0.5f, 2.f}, {3}) == "[0.  0.5 2. ]");
  CHECK(print({-1.f, 2.f}, {2}) == "[-1.  2.]");
  CHECK(print({6.f}, {}) == "6.0");
  CHECK(print({1e-5f}, {}) == "1e-05");
  CHECK(print({0.f, 1.f, 2.f, 3.f}, {2, 2}) == "[[0. 1.]\n [2. 3.]]");
  int32_t sq[] = {0, 1, 4, 9, 16, 25, 36};
  CHECK(formatArray(sq, 1, {7}) == "[ 0  1  4  9 16 25 36]");
  unsigned char b[] = {1, 0};
  CHECK(formatArray(b, 0, {2}) == "[ True False]");
  uint32_t key[] = {0, 42};
  CHECK(formatArray(key, 5, {}) == "[ 0 42]");
  CHECK(formatArray(sq, 1, {0}) == "[]");
}
