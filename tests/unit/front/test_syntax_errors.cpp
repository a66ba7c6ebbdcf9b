// ===- test_syntax_errors.cpp - friendly syntax errors, never a crash -------===//
//
// The parser reports one clang-style error at the right place with a helpful message;
// random damage to the example programs never makes it throw; inputIsIncomplete.
#include "FrontTestUtil.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <iostream>
#include <sstream>

#include <random>

using namespace spmd;
using namespace spmd::ast;
using namespace spmd::fronttest;

namespace {
/// "LINE:COL: message" of the only error of `text` (fails unless exactly one).
std::string err(const std::string &text) {
  Parsed p = parse(text);
  REQUIRE(p.errors.size() == 1);
  const Diagnostic &d = p.errors[0];
  return std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " + d.message;
}
}  // namespace

TEST_CASE("syntax_error.spmd: an unclosed block", "[errors]") {
  std::filesystem::path dir = examplesDir();
  REQUIRE(!dir.empty());
  Parsed p = parse(readFile(dir / "errors" / "syntax_error.spmd"), "errors/syntax_error.spmd");
  REQUIRE(p.errors.size() == 1);
  std::string text = p.firstError();
  CHECK(text.find("errors/syntax_error.spmd:2:44: error: expected '}' to close the block\n") == 0);
  CHECK(text.find("\n                                           ^\n") != std::string::npos);
  REQUIRE(p.errors[0].notes.size() == 1);
  CHECK(p.errors[0].notes[0].first.col == 35);
  CHECK(p.errors[0].notes[0].second == "to match this '{'");
  CHECK(err("fn f(x) {\n  let y = x\n\n") == "2:12: expected '}' to close the block");
}

TEST_CASE("misspelt keywords", "[errors]") {
  CHECK(err("lett x = 1") == "1:1: 'lett' is not a keyword; did you mean 'let'?");
  CHECK(err("fnn f(x) = x") == "1:1: 'fnn' is not a keyword; did you mean 'fn'?");
  CHECK(err("lett (a, b) = t") == "1:1: 'lett' is not a keyword; did you mean 'let'?");
  CHECK(err("let y = vmapp (x in xs) { x }") ==
        "1:9: 'vmapp' is not a keyword; did you mean 'vmap'?");
  CHECK(err("let y = pmapp i (x in xs) { x }") ==
        "1:9: 'pmapp' is not a keyword; did you mean 'pmap'?");
  CHECK(err("x = 1\nfor t inn 0..3 { }") == "2:7: 'inn' is not a keyword; did you mean 'in'?");
  CHECK(err("{\n  vra s = 1\n}") == "2:3: 'vra' is not a keyword; did you mean 'var'?");
}

TEST_CASE("brackets", "[errors]") {
  CHECK(err("let x = f(1]") == "1:12: expected ')'");
  CHECK(err("let x = [1, 2\n") == "1:14: expected ']'");
  CHECK(err("let x = )") == "1:9: unexpected ')' with no matching opening bracket");
  // The newline after an unclosed '(' is swallowed: the error is at that line's end.
  Parsed p = parse("print(1, 2\nprint(3)\n");
  REQUIRE(p.errors.size() == 1);
  CHECK(p.errors[0].message == "expected ')'");
  CHECK(p.errors[0].loc.line == 1);
  CHECK(p.errors[0].loc.col == 11);
  REQUIRE(p.errors[0].notes.size() == 1);
  CHECK(p.errors[0].notes[0].first.col == 6);
}

TEST_CASE("expected an expression, unexpected tokens", "[errors]") {
  CHECK(err("let x = 1 +\n") == "1:12: expected an expression");
  CHECK(err("let x = 1 +* 2") == "1:12: expected an expression");
  CHECK(err("let f = fn (x) =") == "1:17: expected an expression");
  CHECK(err("let x = 1 2") == "1:11: unexpected '2': a statement ends with a newline or ';'");
  CHECK(err("let x = a..b..c") == "1:13: unexpected '..': a statement ends with a newline or ';'");
  CHECK(err("for t 0..3 { }") == "1:7: expected 'in', found '0'");
  CHECK(err("let y = pmap i (x in xs)\n") == "1:25: expected '{', found end of line");
  CHECK(err("pmap (x in xs) { x }") == "1:6: expected an axis name after 'pmap'");
  CHECK(err("else { 1 }") == "1:1: 'else' without an 'if' block before it");
  CHECK(err("let s = 3 $ 4") == "1:11: unexpected character '$'");
  CHECK(err("let s = \"abc\n") == "1:9: missing terminating '\"' character");
  CHECK(err("let s = \"a\\q\"") == "1:11: unknown escape sequence '\\q'");
  CHECK(err("let n = 99999999999999999999") ==
        "1:9: integer literal '99999999999999999999' is too large");
  CHECK(err("let s = \"\xc3\xa9\" \xc3\xa9") == "1:14: unexpected character '\xc3\xa9'");
  CHECK(err(std::string(300, '(')).find("nested too deeply") != std::string::npos);
  CHECK(err(std::string(300, '-') + "1").find("nested too deeply") != std::string::npos);
}

TEST_CASE("nesting limits: brackets, right-nested chains, long expressions", "[errors][limits]") {
  auto repeat = [](const std::string &s, int n) {
    std::string r;
    for (int k = 0; k < n; ++k) r += s;
    return r;
  };
  // Right-nested: '**', prefix operators, 'if'/'else if' chains, lambdas.
  CHECK(err("let x = " + repeat("a ** ", 300) + "a") ==
        "1:1011: expression nested too deeply (more than 200 levels)");
  CHECK(parse("let x = " + repeat("a ** ", 190) + "a").ok());
  CHECK(err("let x = " + repeat("not ", 300) + "a").find("1:809: expression nested too deeply") ==
        0);
  CHECK(err("let x = " + repeat("- ~", 150) + "a").find("expression nested too deeply") !=
        std::string::npos);
  CHECK(err("let x = " + repeat("if c { 1 } else ", 300) + "{ 2 }").find("nested too deeply") !=
        std::string::npos);
  CHECK(err("let x = " + repeat("fn (y) = ", 300) + "1").find("nested too deeply") !=
        std::string::npos);
  // A binary minus is no prefix operator: a long difference is a chain, not a nest.
  CHECK(parse("let x = " + repeat("a - ", 5000) + "a").ok());
  CHECK(parse("let x = " + repeat("a ** b + ", 500) + "a").ok());  // '+' ends each '**'
  // Long chains: a left-nested tree as deep as the chain is long.
  CHECK(err("let x = " + repeat("a + ", 10005) + "a") ==
        "1:40011: expression too long (more than 10000 operators)");
  CHECK(err("let x = a" + repeat("[0]", 10005)).find("expression too long") != std::string::npos);
  CHECK(parse("let x = " + repeat("a + ", 9000) + "a").ok());
  // Statements are not one expression: any number of them.
  CHECK(parse(repeat("x = x + 1\n", 20000)).ok());
  CHECK(parse(repeat("f(x, y + 1, z * 2)\n", 5000)).ok());
  // 'else' on the next line continues the expression.
  CHECK(err("let x = if a { 1 }\n" + repeat("else if b { 2 }\n", 300) + "else { 3 }")
            .find("nested too deeply") != std::string::npos);
  CHECK(parse("let x = if a { 1 }\n" + repeat("else if b { 2 }\n", 150) + "else { 3 }").ok());
}

// Note [One statement at a time]: the top level is parsed statement by statement; the
// errors are those of the whole parse.
TEST_CASE("errors of the statement-at-a-time parse are the whole parse's", "[errors]") {
  // A syntax error anywhere comes before an error building an earlier statement's AST.
  CHECK(err("print(\"a\\q\")\nlet x = 1\nlet = 2\n") == "3:5: expected '(' or a name, found '='");
  CHECK(err("let x = 99999999999999999999999\nprint(\"a\\q\")\n").find("1:9: ") == 0);
  // A complete statement followed by more on its line; a closer with no opener.
  CHECK(err("let x = 1\nx = 1 2\n") ==
        "2:7: unexpected '2': a statement ends with a newline or ';'");
  CHECK(err("let x = 1\nprint(x) }\n").find("2:10: ") == 0);
  // `else` after blank lines continues the top-level `if`; `;;` and blank lines separate.
  Parsed p = parse("let c = true\nif c { 1 }\n\n\nelse { 2 }\nprint(3); print(4);;\n\n");
  REQUIRE(p.ok());
  CHECK(p.prog.stmts.size() == 4);
  // One statement of 1,000,000 tokens at most, counted before parsing (Note [Nesting limits]).
  std::string ones;
  for (int i = 0; i < 499998; ++i) ones += "1,";
  CHECK(err("let a = 1\nlet b = [" + ones + "1]\n") ==
        "2:1000006: statement too long (more than 1000000 tokens)");
}

TEST_CASE("scripts that are not UTF-8 text", "[errors]") {
  CHECK(err(std::string("print(1)\0\n", 10)) ==
        "1:9: unexpected NUL byte: this is not a text file");
  CHECK(err("let x = 1\n# caf\xe9\n") ==
        "2:6: invalid UTF-8 byte 0xE9: a script must be UTF-8 text");
  CHECK(err("print(\"\xc3\") + 1") == "1:8: invalid UTF-8 byte 0xC3: a script must be UTF-8 text");
  CHECK(err("print(\"\xed\xa0\x80\")") ==
        "1:8: invalid UTF-8 byte 0xED: a script must be UTF-8 text");  // a surrogate
  CHECK(err("print(1)\x1b") == "1:9: unexpected control character U+001B");
  CHECK(parse("\xef\xbb\xbfprint(\"\xf0\x9f\x98\x80\")").ok());  // a byte order mark; an emoji
  CHECK(parse("").ok());
  // The line under the error never carries raw bytes to the terminal.
  Parsed p = parse(std::string("let a = 1\nprint(\x01 a)\n"));
  CHECK(p.firstError() ==
        "test.spmd:2:7: error: unexpected control character U+0001\nprint(? a)\n      ^\n");
}

TEST_CASE("damaged example programs never crash the parser", "[errors][fuzz]") {
  namespace fs = std::filesystem;
  fs::path dir = examplesDir();
  REQUIRE(!dir.empty());
  std::mt19937 rng(12345);
  const std::string junk = "()[]{},;:=+-*/.\"#\n\t xyz0123456789fnletpmap";
  int runs = 0, failures = 0;
  for (auto &entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".spmd") continue;
    std::string text = readFile(entry.path());
    for (int k = 0; k < 40; ++k) {
      std::string t = text;
      switch (k % 4) {
      case 0: t = t.substr(0, rng() % (t.size() + 1)); break;          // truncated
      case 1: t.erase(rng() % t.size(), 1 + rng() % 8); break;         // a piece cut out
      case 2: t[rng() % t.size()] = junk[rng() % junk.size()]; break;  // one char changed
      case 3: t.insert(rng() % t.size(), 1, junk[rng() % junk.size()]); break;
      }
      Parsed p;
      REQUIRE_NOTHROW(p = parse(t));
      ++runs;
      if (!p.ok()) {
        ++failures;
        const Diagnostic &d = p.errors[0];
        CHECK(p.errors.size() == 1);
        CHECK(d.loc.valid());
        CHECK(!d.message.empty());
        CHECK(!p.firstError().empty());
      }
    }
  }
  CHECK(runs >= 200);
  CHECK(failures > runs / 4);  // the damage does break most programs
}

TEST_CASE("inputIsIncomplete: open brackets ask the REPL for more", "[repl]") {
  CHECK(inputIsIncomplete("fn f(x) {"));
  CHECK(inputIsIncomplete("print(1,\n 2"));
  CHECK(inputIsIncomplete("let a = [1,"));
  CHECK(inputIsIncomplete("let y = pmap i (x in xs) {\n  let z = \"}\" # }\n"));
  CHECK(!inputIsIncomplete("let a = 1"));
  CHECK(!inputIsIncomplete("fn f(x) { x }\n"));
  CHECK(!inputIsIncomplete("print(\"(\")"));
  CHECK(!inputIsIncomplete("print(x))"));    // an error, not more input
  CHECK(!inputIsIncomplete("print(\"abc"));  // strings do not span lines
  CHECK(!inputIsIncomplete("# (\n"));
  CHECK(!inputIsIncomplete(""));
  // Line by line, as the REPL reads: the same answers, one scan in all.
  std::vector<char> open;
  CHECK(inputIsIncomplete("let y = pmap i (x in xs) {\n", open));
  CHECK(inputIsIncomplete("  let z = [1, \"]\" # ]\n", open));
  CHECK(inputIsIncomplete("\n", open));
  CHECK(inputIsIncomplete("  2]\n", open));
  CHECK(!inputIsIncomplete("  z }\n", open));
  CHECK(open.empty());
}

TEST_CASE("an internal error is reported as spmdrun's bug, after the program's output", "[diag]") {
  std::ostringstream out, err;
  auto *oldOut = std::cout.rdbuf(out.rdbuf());
  auto *oldErr = std::cerr.rdbuf(err.rdbuf());
  std::cout << "partial";
  try {
    internal_assert(1 + 1 == 3, "arithmetic");
  } catch (const InternalError &e) { reportBug(e.what()); }
  std::cout.rdbuf(oldOut);
  std::cerr.rdbuf(oldErr);
  CHECK(out.str() == "partial");
  CHECK(err.str().find("internal compiler error at ") == 0);
  CHECK(err.str().find("1 + 1 == 3: arithmetic\nthis is a bug in spmdrun, not in your program; "
                       "please report it\n") != std::string::npos);
}

// Note [Showing a source line]: a diagnostic on a very long line is cut to the window's
// bytes before the line is split into cells. Splitting the whole line took 10 s and
// 1.6 GB for 16 MiB; here each of 20 diagnostics on a 32 MiB line would take seconds.
TEST_CASE("a diagnostic on a very long line costs its window, not the line", "[diag]") {
  SourceManager sm;
  std::string mid(size_t(32) << 20, ' ');
  for (size_t k = 1000; k < mid.size(); k += 997) mid[k] = 'x';
  int file = sm.add("long.spmd", "let a = 1\nprint(zz)" + mid + "€tail\nprint(a)\n");
  DiagEngine diags(sm);
  auto t0 = std::chrono::steady_clock::now();
  std::string first, last;
  for (int k = 0; k < 20; ++k) {
    Diagnostic d;
    d.loc = SrcRange{file, 2, 7, 2, 9};  // zz
    d.message = "unknown name 'zz'";
    first = diags.format(d);
    int end = int(mid.size()) + 10;  // the euro sign's first byte, col = byte + 1
    d.loc = SrcRange{file, 2, end, 2, end + 3};
    last = diags.format(d);
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(secs < 2.0);
  // Near the start: the first 200 cells, cut after; near the end: "..." and the last cells.
  CHECK(first.rfind("long.spmd:2:7: error: unknown name 'zz'\nprint(zz)   ", 0) == 0);
  CHECK(first.find("...\n      ^~\n") != std::string::npos);
  CHECK(last.find("\n...") != std::string::npos);
  CHECK(last.find("€tail\n") != std::string::npos);
  CHECK(last.size() - last.find("€tail\n") == std::string("€tail\n").size() + 105);  // "..." + 100 + "^\n"
  CHECK(last.substr(last.size() - 2) == "^\n");
}
