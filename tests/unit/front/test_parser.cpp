// ===- test_parser.cpp - grammar and AST construction ----------------------===//
//
// The spec's example programs parse; precedence, newline rules and every construct of
// the language build the expected AST; locations are exact.
#include "FrontTestUtil.h"

#include "SpmdLexer.h"
#include "SpmdParser.h"

#include <catch2/catch.hpp>

using namespace spmd;
using namespace spmd::ast;
using namespace spmd::fronttest;

TEST_CASE("every example of the spec parses", "[parser]") {
  namespace fs = std::filesystem;
  fs::path dir = examplesDir();
  REQUIRE(!dir.empty());
  int parsed = 0;
  for (auto sub : {dir, dir / "errors"})
    for (auto &entry : fs::directory_iterator(sub)) {
      if (entry.path().extension() != ".spmd" || entry.path().filename() == "syntax_error.spmd")
        continue;
      INFO(entry.path().string());
      Parsed p = parse(readFile(entry.path()), entry.path().string());
      CHECK(p.firstError() == "");
      CHECK(!p.prog.stmts.empty());
      CHECK(dumpAst(p.prog).rfind("Program\n", 0) == 0);
      ++parsed;
    }
  CHECK(parsed >= 19);
}

TEST_CASE("precedence and associativity", "[parser]") {
  CHECK(sx("-x**2") == "(neg (** x 2))");
  CHECK(sx("2 ** 3 ** 2") == "(** 2 (** 3 2))");
  CHECK(sx("x ** -y") == "(** x (neg y))");
  CHECK(sx("a + b * c") == "(+ a (* b c))");
  CHECK(sx("a - b - c") == "(- (- a b) c)");
  CHECK(sx("a * b // c % d @ e") == "(@ (% (// (* a b) c) d) e)");
  CHECK(sx("not a == b") == "(not (== a b))");
  CHECK(sx("a or b and not c") == "(or a (and b (not c)))");
  CHECK(sx("a | b ^ c & d + e") == "(| a (^ b (& c (+ d e))))");
  CHECK(sx("a < b + 1 != c") == "(!= (< a (+ b 1)) c)");
  CHECK(sx("~a * -b") == "(* (~ a) (neg b))");
  CHECK(sx("0..n") == "(.. 0 n)");
  CHECK(sx("1..n + 1") == "(.. 1 (+ n 1))");
  CHECK(sx("(a + b) * c") == "(* (+ a b) c)");
  CHECK(sx("pmap i (v in arange(8)) { v ** 2 } / 2") ==
        "(/ (pmap i (v in (call arange 8)) {(** v 2)}) 2)");
}

TEST_CASE("numeric and other literals", "[parser]") {
  CHECK(sx("4.") == "f4.");
  CHECK(sx("[1.0, 2.5e-3, 4., 3e2, 7]") == "[f1.0 f2.5e-3 f4. f3e2 7]");
  CHECK(sx("0..3") == "(.. 0 3)");
  CHECK(sx("1.5..3.0") == "(.. f1.5 f3.0)");
  CHECK(sx("true and false") == "(and true false)");
  CHECK(sx(R"("a\"b\\c\n")") == "\"a\"b\\c\n\"");
  Parsed p = parse("let x = 2.5e-3");
  REQUIRE(p.ok());
  CHECK(exprOf(p).as<FloatLitExpr>()->value == Approx(0.0025));
}

TEST_CASE("newlines: ignored inside ( ) and [ ], kept inside { }", "[parser]") {
  Parsed p = parse("let a = f(1,\n    2,\n    3)\nlet b = [1,\n 2]\nprint(a,\n  b)\n");
  REQUIRE(p.ok());
  CHECK(p.prog.stmts.size() == 3);
  CHECK(sexpr(exprOf(p, 0)) == "(call f 1 2 3)");
  // A block inside parentheses is a statement context again.
  p = parse("print(tree_map(fn (p) {\n  let q = p\n  q * 2\n}, g))\n");
  REQUIRE(p.ok());
  CHECK(sexpr(exprOf(p)) == "(call print (call tree_map (fn (p) {let q p; (* q 2)}) g))");
  // Blank lines, newlines after '{' and before '}', and ';' as separators.
  p = parse("\n\nfn f(x) {\n\n  let y = x;  let z = y\n\n  z\n\n}\n;;\nf(1); f(2)\n\n");
  REQUIRE(p.ok());
  REQUIRE(p.prog.stmts.size() == 3);
  auto *fn = p.prog.stmts[0]->as<FnStmt>();
  REQUIRE(fn);
  CHECK(fn->fn->body->as<BlockExpr>()->stmts.size() == 3);
  // A newline ends a statement: this is two statements, not a call.
  p = parse("let a = b\n(c, d)\n");
  REQUIRE(p.ok());
  CHECK(p.prog.stmts.size() == 2);
  // No newline at the end of the file, comments everywhere.
  p = parse("# header\nlet a = 1  # trailing\n# only a comment\nprint(a # inside parens\n)");
  REQUIRE(p.ok());
  CHECK(p.prog.stmts.size() == 2);
  CHECK(parse("").ok());
  CHECK(parse("# nothing\n").ok());
}

TEST_CASE("statements", "[parser]") {
  Parsed p = parse("let (a, (b, _)) = t\nvar s = 0\ns = s + 1\nfor (i, j) in pairs { print(i) }\n");
  REQUIRE(p.ok());
  auto *let = p.prog.stmts[0]->as<LetStmt>();
  REQUIRE(let);
  CHECK(sexprPattern(let->pattern) == "(tuple a (tuple b _))");
  CHECK(let->pattern.elems[1].elems[1].kind == Pattern::Wildcard);
  auto *var = p.prog.stmts[1]->as<VarStmt>();
  REQUIRE(var);
  CHECK(var->name.name == "s");
  auto *assign = p.prog.stmts[2]->as<AssignStmt>();
  REQUIRE(assign);
  CHECK(assign->name.name == "s");
  CHECK(sexpr(*assign->value) == "(+ s 1)");
  auto *loop = p.prog.stmts[3]->as<ForStmt>();
  REQUIRE(loop);
  CHECK(sexprPattern(loop->var) == "(tuple i j)");
  CHECK(sexpr(*loop->body) == "{(call print i)}");

  // `(a)` is a parenthesised name, `(a,)` a one-element tuple pattern.
  p = parse("let (a) = t\nlet (b,) = t");
  REQUIRE(p.ok());
  CHECK(p.prog.stmts[0]->as<LetStmt>()->pattern.kind == Pattern::Name);
  CHECK(sexprPattern(p.prog.stmts[1]->as<LetStmt>()->pattern) == "(tuple b)");
}

TEST_CASE("named functions with axis parameters and types", "[parser]") {
  Parsed p = parse("fn square(x) = x * x\n"
                   "fn normalize[i, j](x) { x / psum(x, (i, j)) }\n"
                   "fn affine(w: f32[n, m], x: f32[m], s: f32) -> f32[n] { w @ x }\n");
  REQUIRE(p.ok());
  auto *sq = p.prog.stmts[0]->as<FnStmt>();
  REQUIRE(sq);
  CHECK(sq->name.name == "square");
  CHECK(sexpr(*sq->fn->body) == "(* x x)");
  auto *norm = p.prog.stmts[1]->as<FnStmt>();
  REQUIRE(norm->fn->axisParams.size() == 2);
  CHECK(norm->fn->axisParams[1].name == "j");
  CHECK(norm->fn->axisParams[1].loc.col == 17);
  CHECK(sexpr(*norm->fn->body) == "{(/ x (call psum x (tuple i j)))}");
  auto *aff = p.prog.stmts[2]->as<FnStmt>();
  REQUIRE(aff->fn->params.size() == 3);
  const TypeAnn &w = *aff->fn->params[0].type;
  CHECK(w.dtype.name == "f32");
  CHECK(w.hasShape);
  REQUIRE(w.dims.size() == 2);
  CHECK((w.dims[0].isName && w.dims[0].name.name == "n"));
  CHECK(!aff->fn->params[2].type->hasShape);
  REQUIRE(aff->fn->result);
  CHECK(aff->fn->result->dims.size() == 1);
  p = parse("fn z() -> i32[2, 3] = zeros([2, 3], i32)");
  REQUIRE(p.ok());
  auto &dims = p.prog.stmts[0]->as<FnStmt>()->fn->result->dims;
  CHECK((!dims[0].isName && dims[0].value == 2 && dims[1].value == 3));
}

TEST_CASE("calls: keyword arguments, axis arguments, chained calls", "[parser]") {
  CHECK(sx("sum(a, axis=1, keepdims=true)") == "(call sum a axis=1 keepdims=true)");
  CHECK(sx("normalize[rows, cols](x)") == "(call normalize [rows cols] x)");
  CHECK(sx("grad(f)(x)") == "(call (call grad f) x)");
  CHECK(sx("value_and_grad(loss, argnums=(0, 1))(p, x)") ==
        "(call (call value_and_grad loss argnums=(tuple 0 1)) p x)");
  CHECK(sx("step[i](s)[0]") == "(index (call step [i] s) 0)");
  CHECK(sx("x[i]") == "(index x i)");
  CHECK(sx("device_count()") == "(call device_count)");
  Parsed p = parse("f[i](x)");
  REQUIRE(p.ok());
  auto *c = exprOf(p).as<CallExpr>();
  REQUIRE(c);
  CHECK(c->hasAxisList);
  CHECK(c->axes[0].loc.col == 3);
  p = parse("f(x)");
  CHECK(!exprOf(p).as<CallExpr>()->hasAxisList);
}

TEST_CASE("indexing and slices", "[parser]") {
  CHECK(sx("x[3]") == "(index x 3)");
  CHECK(sx("x[-1]") == "(index x (neg 1))");
  CHECK(sx("x[1:3]") == "(index x (slice 1 3 _))");
  CHECK(sx("x[:-2]") == "(index x (slice _ (neg 2) _))");
  CHECK(sx("x[::2]") == "(index x (slice _ _ 2))");
  CHECK(sx("x[:, 0]") == "(index x (slice _ _ _) 0)");
  CHECK(sx("x[:, :, 0] * x[1:, 2]") ==
        "(* (index x (slice _ _ _) (slice _ _ _) 0) (index x (slice 1 _ _) 2))");
  CHECK(sx("t[0][1]") == "(index (index t 0) 1)");
}

TEST_CASE("arrays, tuples, comprehensions", "[parser]") {
  CHECK(sx("[[1, 2], [3, 4]]") == "[[1 2] [3 4]]");
  CHECK(sx("[]") == "[]");
  CHECK(sx("(a, b)") == "(tuple a b)");
  CHECK(sx("(a,)") == "(tuple a)");
  CHECK(sx("()") == "(tuple)");
  CHECK(sx("(a)") == "a");
  CHECK(sx("[(j, (j + 1) % n) for j in 0..n]") == "(for (tuple j (% (+ j 1) n)) j (.. 0 n))");
  CHECK(sx("[a * b for (a, b) in pairs]") == "(for (* a b) (tuple a b) pairs)");
}

TEST_CASE("lambdas, blocks and if", "[parser]") {
  CHECK(sx("fn (x) = x + 1") == "(fn (x) (+ x 1))");
  CHECK(sx("tree_map(fn (p, d) = p - lr * d, params, g)") ==
        "(call tree_map (fn (p d) (- p (* lr d))) params g)");
  CHECK(sx("fn (x) { let y = x\n y }") == "(fn (x) {let y x; y})");
  CHECK(sx("{ let a = 1; a }") == "{let a 1; a}");
  CHECK(sx("if c { 1 } else { 2 }") == "(if c {1} {2})");
  CHECK(sx("if c { 1 }") == "(if c {1})");
  CHECK(sx("if a { 1 } else if b { 2 } else { 3 }") == "(if a {1} (if b {2} {3}))");
  CHECK(sx("if a {\n 1\n}\nelse {\n 2\n}") == "(if a {1} {2})");
  CHECK(sx("let v = if x > 0 { x } else { -x }") == "(if (> x 0) {x} {(neg x)})");
  CHECK(sx("if step % 100 == 0 { print(step) }") == "(if (== (% step 100) 0) {(call print step)})");
}

TEST_CASE("pmap and vmap blocks", "[parser]") {
  CHECK(sx("pmap i (x in xs) { x }") == "(pmap i (x in xs) {x})");
  // shard_map: the trailing index of an input is its partition spec, not an index.
  CHECK(sx("shard_map (r=4, c=2) (a in x [r, c], b in (w[0]) [(r, c), _]) -> [r, _] { a }") ==
        "(shard_map (r=4 c=2) (a in x [r c]) (b in (index w 0) [(r c) _]) -> [r _] {a})");
  CHECK(sx("shard_map (r=2) (a in x [r]) -> ([r], []) { (a, 1) }") ==
        "(shard_map (r=2) (a in x [r]) -> [r] [] {(tuple a 1)})");
  // A mesh bound by name: `let m = mesh(r=4, c=2)` then `shard_map m (...)`.
  CHECK(sx("shard_map m (a in x [r, _]) -> [r, _] { a }") ==
        "(shard_map m (a in x [r _]) -> [r _] {a})");
  CHECK(sx("vmap (a in x, b in y) { a + b }") == "(vmap (a in x) (b in y) {(+ a b)})");
  CHECK(sx("vmap j (a in x along 1) -> along 1 { a }") == "(vmap j (a in x along 1) -> 1 {a})");
  CHECK(sx("pmap i ((a, b) in t, c in u along 2) -> along (0, 1) { (a, b) }") ==
        "(pmap i ((tuple a b) in t) (c in u along 2) -> (tuple 0 1) {(tuple a b)})");
  Parsed p = parse("let y = pmap rows (r in x) {\n  pmap cols (v in r) {\n    v\n  }\n}\n");
  REQUIRE(p.ok());
  auto *outer = exprOf(p).as<MapExpr>();
  REQUIRE(outer);
  CHECK(outer->isPmap);
  CHECK(outer->axis->name == "rows");
  auto *inner = outer->body->as<BlockExpr>()->stmts[0]->as<ExprStmt>()->expr->as<MapExpr>();
  REQUIRE(inner);
  CHECK(inner->loc.line == 2);
  CHECK(inner->loc.col == 3);
  CHECK(inner->axis->loc.col == 8);
  CHECK(!parse("vmap (x in xs) { x }").prog.stmts.empty());
  CHECK(!exprOf(parse("vmap (x in xs) { x }")).as<MapExpr>()->axis);
}

// Note [Factored brackets]: `(e)` and tuples, array literals and comprehensions, are told
// apart by the token after their first expression, not by reading ahead through it. With
// them as separate alternatives, the prediction of `primary` read 13 to 17 tokens here.
TEST_CASE("brackets are told apart without reading ahead", "[parser]") {
  for (const char *src : {"let p = [((j + 1) % n, j) for j in 0..n]\n",
                          "let t = ((a + b) * (c - d) // e, [f(x, y) ** 2 for x in xs])\n",
                          "let u = [(((a * 2) + 1) * 3) - 4, (5, 6)]\n"}) {
    INFO(src);
    antlr4::ANTLRInputStream input(src);
    spmdgen::SpmdLexer lexer(&input);
    antlr4::CommonTokenStream tokens(&lexer);
    spmdgen::SpmdParser parser(&tokens);
    parser.removeErrorListeners();
    parser.setProfile(true);
    parser.program();
    REQUIRE(parser.getNumberOfSyntaxErrors() == 0);
    long long maxLook = 0;
    for (auto &d : parser.getParseInfo().getDecisionInfo())
      maxLook = std::max({maxLook, (long long)d.SLL_MaxLook, (long long)d.LL_MaxLook});
    CHECK(maxLook <= 3);
  }
}
