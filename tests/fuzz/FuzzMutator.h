// ===- FuzzMutator.h - a cheap structure-aware mutator for .spmd text ------------===//
//
// libFuzzer's byte mutations (with the token dictionary, spmd.dict) find the lexer's and
// parser's corners but rarely keep a program well formed enough to reach lowering. Half
// of the mutations here work on the program's structure instead: statements are lines,
// so whole lines are deleted, duplicated, swapped or borrowed from a list of typical
// statements; and tokens (names, numbers, operators) are replaced by other tokens of the
// same program or by builtins and edge-case literals. The other half are libFuzzer's own.
// Included once per fuzz target.
#pragma once

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

namespace spmd::fuzz {

inline const std::vector<std::string> &snippetLines() {
  static const std::vector<std::string> v = {
      "let x = reshape(arange(8.0), [4, 2])",
      "let y = pmap i (r in x) { r / psum(r, i) }",
      "let z = vmap j (c in x) { sum(c) }",
      "fn f(a) { a * a + 1.0 }",
      "fn g[ax](a) { pmean(a, ax) }",
      "let k = key(0)",
      "let ks = split(k)",
      "let u = uniform(ks[0], [8, 3])",
      "print(x)",
      "print(grad(fn(a) { sum(a * a) })(x))",
      "var acc = 0.0",
      "for t in 0..4 { acc = acc + f32(t) }",
      "let e = zeros([0, 3])",
      "let w = pmap i (v in arange(8.0)) { all_gather(v, i) }",
      "let q = pmap i (v in ones([8, 8])) { all_to_all(v, i, 0, 0) }",
      "let p = pmap i (v in arange(8)) { ppermute(v, i, [(j, (j + 1) % 8) for j in 0..8]) }",
      "let s = set(x, (1, 1), 5.0)",
      "let h = if x[0, 0] > 0.0 { 1.0 } else { 2.0 }",
      "let n = one_hot(arange(4), 5)",
      "let r = pmap a (m in reshape(arange(16.0), [4, 2, 2])) { pmap b (v in m) { psum(v, (a, b)) "
      "} }",
  };
  return v;
}

inline const std::vector<std::string> &snippetTokens() {
  static const std::vector<std::string> v = {"0",
                                             "1",
                                             "-1",
                                             "2",
                                             "8",
                                             "0.0",
                                             "1.5",
                                             "-0.0",
                                             "1e30",
                                             "1e-30",
                                             "2147483648",
                                             "9223372036854775807",
                                             "x",
                                             "i",
                                             "j",
                                             "f",
                                             "k",
                                             "sum",
                                             "psum",
                                             "pmap",
                                             "vmap",
                                             "grad",
                                             "fn",
                                             "let",
                                             "var",
                                             "if",
                                             "else",
                                             "for",
                                             "in",
                                             "along",
                                             "zeros",
                                             "arange",
                                             "reshape",
                                             "transpose",
                                             "eye",
                                             "linspace",
                                             "set",
                                             "where",
                                             "key",
                                             "split",
                                             "fold_in",
                                             "uniform",
                                             "normal",
                                             "bernoulli",
                                             "all_gather",
                                             "all_to_all",
                                             "psum_scatter",
                                             "axis_index",
                                             "f32",
                                             "i32",
                                             "u32",
                                             "bool",
                                             "f64",
                                             "true",
                                             "false",
                                             "[",
                                             "]",
                                             "(",
                                             ")",
                                             "{",
                                             "}",
                                             ",",
                                             ":",
                                             "..",
                                             "+",
                                             "-",
                                             "*",
                                             "/",
                                             "//",
                                             "%",
                                             "**",
                                             "@",
                                             "==",
                                             "<",
                                             "and",
                                             "not",
                                             "[]",
                                             "()",
                                             "x[0]",
                                             "x[1:]",
                                             "x[::-1]"};
  return v;
}

/// Splits `s` into tokens (runs of name characters, digits with . and e, or single other
/// characters); concatenating them gives `s` back.
inline std::vector<std::string> tokens(const std::string &s) {
  std::vector<std::string> out;
  size_t i = 0;
  auto word = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
  };
  while (i < s.size()) {
    size_t j = i + 1;
    if (word(s[i]))
      while (j < s.size() && word(s[j])) ++j;
    out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

inline std::vector<std::string> lines(const std::string &s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= s.size()) {
    size_t j = s.find('\n', i);
    if (j == std::string::npos) j = s.size();
    out.push_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

inline size_t mutate(uint8_t *data, size_t size, size_t maxSize, unsigned seed) {
  std::mt19937 rng(seed);
  auto pick = [&](size_t n) { return n ? size_t(rng() % n) : 0; };
  if (rng() % 2 == 0 || size == 0) return LLVMFuzzerMutate(data, size, maxSize);
  std::string s(reinterpret_cast<const char *>(data), size), r;
  if (rng() % 2 == 0) {
    auto ls = lines(s);
    size_t a = pick(ls.size()), b = pick(ls.size());
    switch (rng() % 5) {
    case 0: ls.erase(ls.begin() + a); break;
    case 1: ls.insert(ls.begin() + a, ls[b]); break;
    case 2: std::swap(ls[a], ls[b]); break;
    case 3: ls.insert(ls.begin() + a, snippetLines()[pick(snippetLines().size())]); break;
    default: ls[a] = "{ " + ls[a] + " }"; break;
    }
    for (size_t k = 0; k < ls.size(); ++k) r += (k ? "\n" : "") + ls[k];
  } else {
    auto ts = tokens(s);
    size_t a = pick(ts.size());
    switch (rng() % 4) {
    case 0: ts[a] = ts[pick(ts.size())]; break;
    case 1: ts[a] = snippetTokens()[pick(snippetTokens().size())]; break;
    case 2: ts.erase(ts.begin() + a); break;
    default: ts.insert(ts.begin() + a, ts[pick(ts.size())]); break;
    }
    for (auto &t : ts) r += t;
  }
  if (r.size() > maxSize) r.resize(maxSize);
  std::memcpy(data, r.data(), r.size());
  return r.size();
}

}  // namespace spmd::fuzz

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t maxSize,
                                          unsigned int seed) {
  return spmd::fuzz::mutate(data, size, maxSize, seed);
}
