// ===- test_printer.cpp - the jaxpr-style printer, and verify on the spec's programs ===//
//
// The exact text of small lowered programs (spec section 10: typed binders, literals as
// `2.0:f32[]`, params sorted by name, nested bodies inline, dot_general's
// dimension_numbers as JAX prints them), and that ir::verify accepts the lowered IR of
// every spec example in tests/spec.
#include "LowerTestUtil.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace spmd;
using namespace spmd::lowertest;

TEST_CASE("printer: an empty program", "[printer]") {
  CHECK(irOf("") == "{ lambda ; . let in () }\n");
}

TEST_CASE("printer: a tiny program, exactly", "[printer]") {
  CHECK(irOf("let x = zeros([3])\nlet y = x * 2\nprint(y)") ==
        "{ lambda ; . let\n"
        "    a:f32[3] = broadcast_in_dim[broadcast_dimensions=() shape=(3,)] 0.0:f32[]\n"
        "    b:f32[3] = mul a 2.0:f32[]\n"
        "    _ = print[segments=[0]] b\n"
        "  in () }\n");
}

TEST_CASE("printer: a pmap body inline, params sorted, dot_general", "[printer]") {
  std::string want =
      "{ lambda ; . let\n"
      "    a:f32[4] = iota[dimension=0 dtype=f32 shape=(4,) sharding=None]\n"
      "    b:f32[4] = pmap[\n"
      "      axis_name=i\n"
      "      axis_size=4\n"
      "      in_axes=(0,)\n"
      "      jaxpr={ lambda ; c:f32[]. let\n"
      "          d:f32[] = mul c 2.0:f32[]\n"
      "          e:f32[] = psum[axes=('i',) axis_index_groups=None] d\n"
      "        in (e,) }\n"
      "      out_axes=(0,)\n"
      "    ] a\n"
      "    f:f32[2,3] = broadcast_in_dim[broadcast_dimensions=() shape=(2, 3)] 1.0:f32[]\n"
      "    g:f32[3] = broadcast_in_dim[broadcast_dimensions=() shape=(3,)] 1.0:f32[]\n"
      "    h:f32[2] = dot_general[\n"
      "      dimension_numbers=(([1], [0]), ([], []))\n"
      "      precision=None\n"
      "      preferred_element_type=f32\n"
      "    ] f g\n"
      "    _ = print[segments=[0, ' ', 1]] b h\n"
      "  in () }\n";
  CHECK(irOf("let x = arange(4.0)\n"
             "let y = pmap i (v in x) { psum(v * 2.0, i) }\n"
             "let m = ones([2, 3]) @ ones([3])\n"
             "print(y, m)",
             {4}) == want);
}

TEST_CASE("printer: matmul dimension numbers for every rank pair", "[printer]") {
  CHECK(has(irOf("let m = ones([3]) @ ones([3, 2])"), "dimension_numbers=(([0], [0]), ([], []))"));
  CHECK(has(irOf("let m = ones([3]) @ ones([3])"), "dimension_numbers=(([0], [0]), ([], []))"));
  CHECK(has(irOf("let m = ones([5, 2, 3]) @ ones([5, 3, 4])"),
            "dimension_numbers=(([2], [1]), ([0], [0]))"));
  Compiled c = compile("let m = ones([5, 2, 3]) @ ones([3, 4])");
  REQUIRE(c.ok());
  CHECK(c.module.main.eqns.back().out[0].type.str() == "f32[5,2,4]");
  CHECK(err("let m = ones([2, 3]) @ ones([4])") ==
        "1:22: '@' contracts dimensions of different sizes: f32[2,3] and f32[4] (3 != 4)");
  CHECK(err("let m = ones([2, 3]) @ 2.0") ==
        "1:22: '@' needs arrays of rank 1 or more, not f32[2,3] and f32[]");
}

TEST_CASE("printer: literals of every dtype and regions of loops and conds", "[printer]") {
  ir::Module m;
  ir::Builder b(m, m.main);
  ir::Var x =
      b.emit1(ir::Op::BroadcastInDim, {b.lit(ir::DType::I32, 0)},
              {{"shape", ir::Param::ints({2})}, {"broadcast_dimensions", ir::Param::tuple({})}});
  ir::Var y = b.emit1(ir::Op::Add, {x, b.lit(ir::DType::I32, -3)});
  ir::Var z = b.emit1(ir::Op::Select, {b.lit(ir::DType::Bool, 1), y, x});
  ir::Var f = b.emit1(ir::Op::Mul, {b.convert(z, ir::DType::F32), b.lit(ir::DType::F32, 0.5)});
  m.main.outvars = {f};
  ir::verify(m);
  CHECK(ir::print(m) ==
        "{ lambda ; . let\n"
        "    a:i32[2] = broadcast_in_dim[broadcast_dimensions=() shape=(2,)] 0:i32[]\n"
        "    b:i32[2] = add a -3:i32[]\n"
        "    c:i32[2] = select_n True:bool[] b a\n"
        "    d:f32[2] = convert_element_type[new_dtype=f32 weak_type=False] c\n"
        "    e:f32[2] = mul d 0.5:f32[]\n"
        "  in (e,) }\n");
  std::string loop = irOf("var s = 0.0\nfor t in 0..5 { s = s + f32(t) }\nprint(s)");
  CHECK(loop == "{ lambda ; . let\n"
                "    a:f32[] = for_loop[\n"
                "      body={ lambda ; b:i32[] c:f32[]. let\n"
                "          d:f32[] = convert_element_type[new_dtype=f32 weak_type=False] b\n"
                "          e:f32[] = add c d\n"
                "        in (e,) }\n"
                "      num_consts=0\n"
                "      trip_count=5\n"
                "    ] 0.0:f32[]\n"
                "    _ = print[segments=[0]] a\n"
                "  in () }\n");
}

namespace {
std::filesystem::path specDir() {
  const char *root = std::getenv("SPMD_SOURCE_DIR");
  std::filesystem::path p = std::filesystem::path(root ? root : "/work/main") / "tests" / "spec";
  return std::filesystem::exists(p / "normalize.spmd") ? p : std::filesystem::path();
}
}  // namespace

TEST_CASE("verify accepts the lowered IR of every spec example", "[printer][verify]") {
  std::filesystem::path dir = specDir();
  REQUIRE(!dir.empty());
  int n = 0;
  for (auto &entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".spmd") continue;
    std::ifstream in(entry.path());
    std::stringstream ss;
    ss << in.rdbuf();
    INFO(entry.path().filename().string());
    Compiled c = compile(ss.str(), {8});  // compile() runs ir::verify; InternalError fails here
    CHECK(c.error() == "");
    CHECK(!c.ir().empty());
    ++n;
  }
  CHECK(n >= 7);
}
