// ===- test_ast_dump.cpp - the --dump=ast rendering ------------------------===//
#include "FrontTestUtil.h"

#include <catch2/catch.hpp>

using namespace spmd;
using namespace spmd::fronttest;

TEST_CASE("dumpAst renders one node per line with positions", "[dump]") {
  Parsed p = parse("let result = pmap i (x in arange(4.0)) { x / psum(x, i) }\n"
                   "fn norm[ax](x: f32[n]) -> f32[n] = x[1:, ::2] ** 2\n"
                   "for (a, _) in zip(u, v) { print(\"s\\n\", a, axis=-1) }\n"
                   "var t = if c { [1, 2] } else { (3,) }\n"
                   "vmap (b in q along 1) -> along 0 { fn (z) = not z..3 }\n");
  REQUIRE(p.ok());
  std::string want = R"(Program
  Let @1:1
    Pattern result @1:5
    Map pmap axis=i @1:14
      Binding
        Pattern x @1:22
        Call @1:27
          Name arange @1:27
          Float 4.0 @1:34
      Block @1:40
        ExprStmt @1:42
          Binary / @1:44
            Name x @1:42
            Call @1:46
              Name psum @1:46
              Name x @1:51
              Name i @1:54
  Fn norm[ax](x: f32[n]) -> f32[n] @2:1
    Binary ** @2:47
      Index @2:37
        Name x @2:36
        Slice @2:38
          lo=Int 1 @2:38
        Slice @2:42
          step=Int 2 @2:44
      Int 2 @2:50
  For @3:1
    Pattern (a, _) @3:5
    in=Call @3:15
      Name zip @3:15
      Name u @3:19
      Name v @3:22
    Block @3:25
      ExprStmt @3:27
        Call @3:27
          Name print @3:27
          String "s\n" @3:33
          Name a @3:40
          axis=Unary - @3:48
            Int 1 @3:49
  Var t @4:1
    If @4:9
      cond=Name c @4:12
      then=Block @4:14
        ExprStmt @4:16
          Array @4:16
            Int 1 @4:17
            Int 2 @4:20
      else=Block @4:30
        ExprStmt @4:32
          Tuple @4:32
            Int 3 @4:33
  ExprStmt @5:1
    Map vmap @5:1
      Binding
        Pattern b @5:7
        Name q @5:12
        along=Int 1 @5:20
      out_along=Int 0 @5:32
      Block @5:34
        ExprStmt @5:36
          Lambda (z) @5:36
            Range @5:50
              Unary not @5:45
                Name z @5:49
              Int 3 @5:52
)";
  CHECK(ast::dumpAst(p.prog) == want);
}

TEST_CASE("a deep tree dumps in linear size", "[dump]") {
  std::string src = "let x = a";
  for (int k = 0; k < 5000; ++k) src += " + a";
  Parsed p = parse(src);
  REQUIRE(p.ok());
  std::string d = ast::dumpAst(p.prog);
  CHECK(d.size() < 2000000);  // 10,000 lines: the indent stops growing at level 64
  CHECK(d.find("\n" + std::string(128, ' ') + "[65] Binary + @1:") != std::string::npos);
  CHECK(d.find("[5002] Name a @1:9") != std::string::npos);
}
