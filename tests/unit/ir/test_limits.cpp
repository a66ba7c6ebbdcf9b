// ===- test_limits.cpp - counts, sizes and keys the type checker must reject ------===//
//
// Note [Array size limits] (IR.h): every shape lowering builds goes through one checked
// constructor, and ir::Builder::emit checks every inferred result; counts are
// non-negative; keys are JAX's typed keys (no arithmetic, reductions or casts); the
// random functions take one key, as jax.random does. Each failure is a user error with a
// location, never a crash or an internal error.
#include "LowerTestUtil.h"

#include <catch2/catch.hpp>

using namespace spmd;
using namespace spmd::lowertest;

namespace {
/// Whether `src` compiles and its last equation's first result has type `type`.
bool lastIs(const std::string &src, const std::string &type) {
  Compiled c = compile(src);
  if (!c.ok()) {
    UNSCOPED_INFO(c.error());
    return false;
  }
  if (c.module.main.eqns.empty() || c.module.main.eqns.back().out.empty()) return false;
  UNSCOPED_INFO(c.module.main.eqns.back().out[0].type.str());
  return c.module.main.eqns.back().out[0].type.str() == type;
}
}  // namespace

TEST_CASE("arraySizeError: overflow, the byte limit and empty arrays", "[ir][limits]") {
  using ir::DType;
  CHECK(ir::arraySizeError(DType::F32, {}) == "");
  CHECK(ir::arraySizeError(DType::F32, {1 << 20, 1 << 20}) == "");   // 4 TiB: under the limit
  CHECK(ir::arraySizeError(DType::Bool, {int64_t(1) << 48}) == "");  // exactly the limit
  CHECK(ir::arraySizeError(DType::Bool, {(int64_t(1) << 48) + 1}) ==
        "array of shape [281474976710657] (bool) would need 281474976710657 bytes, more than the "
        "limit of 2^48 bytes (256 TiB)");
  CHECK(ir::arraySizeError(DType::F32, {65536, 65536, 65536, 65536}) ==
        "array of shape [65536, 65536, 65536, 65536] (f32) would need 7.38e+19 bytes, more than "
        "the limit of 2^48 bytes (256 TiB)");
  // Overflow only in bytes (the element count fits).
  CHECK(ir::arraySizeError(DType::Key, {int64_t(1) << 61}).find("would need 1.84e+19 bytes") !=
        std::string::npos);
  CHECK(ir::arraySizeError(DType::F32, {0, 1 << 20}) == "");
  CHECK(ir::arraySizeError(DType::F32, {0, int64_t(1) << 62})
            .find("is empty, but its other sizes are too large") != std::string::npos);
  CHECK(ir::arraySizeError(DType::F32, {3, -1}) ==
        "array of shape [3, -1] (f32) has a negative size");
}

TEST_CASE("counts: negative, absurd and zero", "[lower][limits]") {
  CHECK(err("let x = linspace(0.0, 1.0, -2)") ==
        "1:28: linspace() needs a non-negative number of samples, not -2");
  CHECK(err("let x = eye(-1)") == "1:13: eye() needs a non-negative size, not -1");
  CHECK(err("let x = one_hot(arange(3), -2)") ==
        "1:28: one_hot() needs a non-negative number of classes, not -2");
  CHECK(err("let x = arange(1e30)") ==
        "1:9: arange() would make 1e+30 elements: too many for an array (at most 2^48 bytes)");
  CHECK(err("let x = arange(5, step=0)") == "1:24: arange() step cannot be zero");
  CHECK(err("let x = split(key(0), -1)") ==
        "1:23: split() needs a non-negative number of keys, not -1");
  CHECK(err("let x = zeros([3, -1])") == "1:19: a shape cannot have a negative size (-1)");
  CHECK(err("let x = zeros([2**32 * 2**32])") == "1:22: integer overflow in a static expression: "
                                                 "4294967296 * 4294967296 does not fit in 64 bits");
  CHECK(err("let x = 1 ** 1000000000000000000") == "OK");  // square and multiply, no long loop
  CHECK(err("for t in 0..10000000000 { }") ==
        "1:13: a loop bound must fit in i32, not 10000000000");
  CHECK(err("let x = max(zeros([0]))") == "1:13: max() of an empty axis: axis 0 of f32[0] has size "
                                          "0 and the reduction has no identity");
  CHECK(lastIs("let x = split(key(0), 0)", "key[0]"));
}

TEST_CASE("sizes: every shape the checker builds or derives", "[lower][limits]") {
  CHECK(err("let x = zeros([65536, 65536, 65536, 65536])")
            .find("1:15: array of shape [65536, 65536, 65536, 65536] (f32) would need") == 0);
  CHECK(err("let x = eye(3037000500)").find("1:9: array of shape [3037000500, 3037000500] (f32)") ==
        0);
  CHECK(err("let x = uniform(key(0), [2**62])")
            .find("1:25: array of shape [4611686018427387904] (f32)") == 0);
  CHECK(err("let x = split(key(0), 2**60)")
            .find("1:24: array of shape [1152921504606846976] (key)") == 0);
  CHECK(err("let x = reshape(zeros([0]), [0, 2**62, 4])")
            .find("1:29: array of shape [0, 4611686018427387904, 4] (f32) is empty") == 0);
  // Derived: broadcasting, at the operator.
  CHECK(err("let x = zeros([2**20, 1]) + zeros([1, 2**30])")
            .find("1:27: array of shape [1048576, 1073741824] (f32)") == 0);
}

TEST_CASE("keys are not numbers", "[lower][limits]") {
  CHECK(err("let y = sum(split(key(0), 4))") == "1:13: keys cannot be used in sum()");
  CHECK(err("let y = argmax(split(key(0), 4))") == "1:16: keys cannot be used in argmax()");
  CHECK(err("let y = -key(0)") == "1:9: keys cannot be used in '-'");
  CHECK(err("let y = key(0) ** 2") == "1:16: keys cannot be used in '**'");
  CHECK(err("let y = abs(key(0))") == "1:13: keys cannot be used in abs()");
  CHECK(err("let y = one_hot(key(0), 3)") == "1:17: keys cannot be used in one_hot()");
  CHECK(err("let y = pmap i (k in split(key(0), 4)) { pmean(k, i) }") ==
        "1:48: keys cannot be used in pmean()");
  CHECK(err("let y = key(0) == 1") ==
        "1:16: a key can only be compared with a key, not with a static int");
  CHECK(lastIs("let y = split(key(0), 3) == key(0)", "bool[3]"));
  CHECK(lastIs("let y = where(true, key(0), key(1))", "key[]"));
  CHECK(lastIs("let y = stack([key(0), key(1)])", "key[2]"));
}

TEST_CASE("the random functions take one key, as jax.random", "[lower][limits]") {
  CHECK(err("let y = bernoulli(split(key(0), 3), 0.5)") ==
        "1:19: bernoulli() needs a single key, not key[3]");
  CHECK(err("let y = fold_in(split(key(0), 3), 1)") ==
        "1:17: fold_in() needs a single key, not key[3]");
  CHECK(err("let y = fold_in(key(0), arange(3))") ==
        "1:25: fold_in() needs a scalar to fold in, not i32[3]");
  CHECK(err("let y = bernoulli(key(0), [0.1, 0.9], [3])") ==
        "1:27: bernoulli() needs p to broadcast to the shape argument [3], but p is f32[2]");
  CHECK(lastIs("let y = bernoulli(key(0), [0.1, 0.9])", "bool[2]"));
  CHECK(lastIs("let y = bernoulli(key(0), [[0.1], [0.9]], [2, 3])", "bool[2,3]"));
}

TEST_CASE("print takes no keyword arguments", "[lower][limits]") {
  Compiled c = compile("print(1, foo=3)");
  CHECK(c.error() == "1:10: print() takes no keyword arguments");
  CHECK(c.notes().find("no options such as sep= or end=") != std::string::npos);
}
