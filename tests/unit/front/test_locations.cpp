// ===- test_locations.cpp - source locations on AST nodes ------------------===//
//
// The positions later passes report errors at: binary operators, callees, names,
// pmap keywords and axis names, keyword arguments, patterns and statements.
#include "FrontTestUtil.h"

#include <catch2/catch.hpp>

using namespace spmd;
using namespace spmd::ast;
using namespace spmd::fronttest;

namespace {
std::string pos(const SrcRange &r) {
  return std::to_string(r.line) + ":" + std::to_string(r.col) + "-" + std::to_string(r.endLine) +
         ":" + std::to_string(r.endCol);
}
}  // namespace

TEST_CASE("a binary expression points at its operator", "[locations]") {
  Parsed p = parse("let a = [1.0, 2.0]\nlet c = a + b");
  REQUIRE(p.ok());
  const Expr &e = exprOf(p, 1);
  REQUIRE(e.as<BinaryExpr>());
  CHECK(pos(e.loc) == "2:11-2:12");
  CHECK(pos(e.range) == "2:9-2:14");
  CHECK(e.loc.file == 0);
  CHECK(pos(e.as<BinaryExpr>()->rhs->loc) == "2:13-2:14");
  CHECK(pos(p.prog.stmts[1]->loc) == "2:1-2:14");

  p = parse("x ** 2 // 3");
  CHECK(pos(exprOf(p).loc) == "1:8-1:10");                        // the '//'
  CHECK(pos(exprOf(p).as<BinaryExpr>()->lhs->loc) == "1:3-1:5");  // the '**'
  p = parse("not x");
  CHECK(pos(exprOf(p).loc) == "1:1-1:4");
  CHECK(pos(exprOf(p).range) == "1:1-1:6");
}

TEST_CASE("a call points at its callee", "[locations]") {
  Parsed p = parse("fn f(x) = x * 2.0\nprint(grad(f)(arange(3.0)))");
  REQUIRE(p.ok());
  auto *print = exprOf(p, 1).as<CallExpr>();
  REQUIRE(print);
  CHECK(pos(print->loc) == "2:1-2:6");
  auto *gradCall = print->args[0].value->as<CallExpr>();
  REQUIRE(gradCall);
  CHECK(pos(gradCall->loc) == "2:7-2:11");  // `grad` of grad(f)(...)
  CHECK(pos(gradCall->range) == "2:7-2:27");
  CHECK(pos(gradCall->args[0].value->loc) == "2:15-2:21");  // arange(3.0)

  // errors/mismatched_sizes.spmd wants 3:40 for `arange(5.0)`.
  p = parse("\n\nlet y = pmap i (a in arange(4.0), b in arange(5.0)) { a + b }");
  REQUIRE(p.ok());
  auto *m = exprOf(p).as<MapExpr>();
  CHECK(pos(m->bindings[1].source->loc) == "3:40-3:46");
  CHECK(pos(m->bindings[1].pattern.loc) == "3:35-3:36");
  CHECK(pos(m->loc) == "3:9-3:13");
  CHECK(pos(m->axis->loc) == "3:14-3:15");
}

TEST_CASE("names, keyword arguments, literals and brackets", "[locations]") {
  Parsed p = parse("let y = pmap i (x in arange(4.0)) { ppermute(x, i, [(0, 0), (1, 0)]) }");
  REQUIRE(p.ok());
  auto *m = exprOf(p).as<MapExpr>();
  auto *call = m->body->as<BlockExpr>()->stmts[0]->as<ExprStmt>()->expr->as<CallExpr>();
  REQUIRE(call);
  CHECK(pos(call->args[1].value->loc) == "1:49-1:50");  // the axis name i
  CHECK(pos(call->args[2].value->loc) == "1:52-1:53");  // the '[' of the perm
  CHECK(pos(call->args[2].value->range) == "1:52-1:68");
  CHECK(pos(m->body->loc) == "1:35-1:36");
  CHECK(pos(m->body->as<BlockExpr>()->close) == "1:70-1:71");

  p = parse("sum(a, axis=1)\nlet (u, _) = t\nx[1:2]");
  REQUIRE(p.ok());
  auto *s = exprOf(p, 0).as<CallExpr>();
  CHECK(pos(s->args[1].keyword->loc) == "1:8-1:12");
  CHECK(pos(s->args[1].value->loc) == "1:13-1:14");
  auto &pat = p.prog.stmts[1]->as<LetStmt>()->pattern;
  CHECK(pos(pat.loc) == "2:5-2:11");
  CHECK(pos(pat.elems[0].name.loc) == "2:6-2:7");
  CHECK(pos(pat.elems[1].loc) == "2:9-2:10");
  auto *ix = exprOf(p, 2).as<IndexExpr>();
  CHECK(pos(ix->loc) == "3:2-3:3");
  CHECK(pos(ix->items[0].loc) == "3:3-3:6");
}

TEST_CASE("statements and multi-line ranges", "[locations]") {
  Parsed p = parse("var s = 0\nfor t in 0..3 {\n  s = s + t\n}\n");
  REQUIRE(p.ok());
  CHECK(pos(p.prog.stmts[0]->as<VarStmt>()->name.loc) == "1:5-1:6");
  auto *loop = p.prog.stmts[1]->as<ForStmt>();
  CHECK(pos(loop->loc) == "2:1-4:2");
  CHECK(pos(loop->iter->loc) == "2:11-2:13");  // the '..'
  auto *assign = loop->body->as<BlockExpr>()->stmts[0]->as<AssignStmt>();
  CHECK(pos(assign->name.loc) == "3:3-3:4");
  CHECK(pos(assign->loc) == "3:3-3:12");
  // Tabs count as one column, as in the diagnostics' caret line.
  p = parse("\tlet q = 1 + 2");
  CHECK(pos(exprOf(p).loc) == "1:12-1:13");
}
