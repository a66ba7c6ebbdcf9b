// ===- FrontTestUtil.h - helpers shared by the front-end unit tests --------===//
//
// Parsing a string in one call, and a compact S-expression rendering of expressions
// (`(+ a (* b c))`) that makes precedence and structure easy to assert on.
#pragma once

#include "ast/Parse.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace spmd::fronttest {

/// The result of parsing one buffer named "test.spmd".
struct Parsed {
  SourceManager sm;
  ast::Program prog;
  std::vector<Diagnostic> errors;
  bool ok() const { return errors.empty(); }
  /// The first error rendered as the driver prints it ("" when none).
  std::string firstError() const {
    return errors.empty() ? "" : DiagEngine(sm).format(errors.front());
  }
};

inline Parsed parse(const std::string &text, const std::string &name = "test.spmd") {
  Parsed p;
  int file = p.sm.add(name, text);
  p.prog = parseProgram(p.sm, file, p.errors);
  return p;
}

inline std::string readFile(const std::filesystem::path &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The spec's examples folder: $SPMD_SOURCE_DIR/examples when the repository holds a
/// copy, else the shared spec beside the repository. Empty when neither exists.
inline std::filesystem::path examplesDir() {
  namespace fs = std::filesystem;
  const char *root = std::getenv("SPMD_SOURCE_DIR");
  std::vector<fs::path> candidates;
  if (root) {
    candidates.push_back(fs::path(root) / "examples");
    candidates.push_back(fs::path(root) / ".." / "shared" / "spec" / "examples");
  }
  candidates.push_back("/work/shared/spec/examples");
  for (auto &c : candidates)
    if (fs::exists(c / "normalize.spmd") && fs::exists(c / "errors" / "syntax_error.spmd"))
      return c;
  return {};
}

inline std::string sexpr(const ast::Expr &e);

inline std::string sexprPattern(const ast::Pattern &p) {
  if (p.kind == ast::Pattern::Name) return p.name.name;
  if (p.kind == ast::Pattern::Wildcard) return "_";
  std::string s = "(tuple";
  for (auto &e : p.elems) s += " " + sexprPattern(e);
  return s + ")";
}

/// `(op lhs rhs)`, `(neg x)`, `(call f a k=b)`, `(index x 0 (slice 1 _ 2))`, ...
inline std::string sexpr(const ast::Expr &e) {
  using namespace ast;
  switch (e.kind) {
  case ExprKind::IntLit: return std::to_string(e.as<IntLitExpr>()->value);
  case ExprKind::FloatLit: return "f" + e.as<FloatLitExpr>()->text;
  case ExprKind::BoolLit: return e.as<BoolLitExpr>()->value ? "true" : "false";
  case ExprKind::StringLit: return "\"" + e.as<StringLitExpr>()->value + "\"";
  case ExprKind::Name: return e.as<NameExpr>()->name;
  case ExprKind::Unary: {
    auto *u = e.as<UnaryExpr>();
    std::string op = u->op == UnOp::Neg ? "neg" : spelling(u->op);
    return "(" + op + " " + sexpr(*u->operand) + ")";
  }
  case ExprKind::Binary: {
    auto *b = e.as<BinaryExpr>();
    return "(" + std::string(spelling(b->op)) + " " + sexpr(*b->lhs) + " " + sexpr(*b->rhs) + ")";
  }
  case ExprKind::Range:
    return "(.. " + sexpr(*e.as<RangeExpr>()->lo) + " " + sexpr(*e.as<RangeExpr>()->hi) + ")";
  case ExprKind::Call: {
    auto *c = e.as<CallExpr>();
    std::string s = "(call " + sexpr(*c->callee);
    if (c->hasAxisList) {
      s += " [";
      for (size_t i = 0; i < c->axes.size(); ++i) s += (i ? " " : "") + c->axes[i].name;
      s += "]";
    }
    for (auto &a : c->args) s += " " + (a.keyword ? a.keyword->name + "=" : "") + sexpr(*a.value);
    return s + ")";
  }
  case ExprKind::Index: {
    auto *ix = e.as<IndexExpr>();
    std::string s = "(index " + sexpr(*ix->base);
    for (auto &it : ix->items) {
      if (!it.isSlice) {
        s += " " + sexpr(*it.index);
        continue;
      }
      auto part = [](const ExprP &p) { return p ? sexpr(*p) : std::string("_"); };
      s += " (slice " + part(it.lo) + " " + part(it.hi) + " " + part(it.step) + ")";
    }
    return s + ")";
  }
  case ExprKind::ArrayLit: {
    std::string s = "[";
    for (auto &x : e.as<ArrayLitExpr>()->elems) s += (s.size() > 1 ? " " : "") + sexpr(*x);
    return s + "]";
  }
  case ExprKind::TupleLit: {
    std::string s = "(tuple";
    for (auto &x : e.as<TupleLitExpr>()->elems) s += " " + sexpr(*x);
    return s + ")";
  }
  case ExprKind::Comprehension: {
    auto *c = e.as<ComprehensionExpr>();
    return "(for " + sexpr(*c->elem) + " " + sexprPattern(c->var) + " " + sexpr(*c->iter) + ")";
  }
  case ExprKind::Lambda: {
    auto *l = e.as<LambdaExpr>();
    std::string s = "(fn (";
    for (size_t i = 0; i < l->params.size(); ++i) s += (i ? " " : "") + l->params[i].name.name;
    return s + ") " + sexpr(*l->body) + ")";
  }
  case ExprKind::Block: {
    std::string s = "{";
    for (auto &st : e.as<BlockExpr>()->stmts) {
      s += s.size() > 1 ? "; " : "";
      if (auto *x = st->as<ExprStmt>())
        s += sexpr(*x->expr);
      else if (auto *l = st->as<LetStmt>())
        s += "let " + sexprPattern(l->pattern) + " " + sexpr(*l->value);
      else
        s += "stmt";
    }
    return s + "}";
  }
  case ExprKind::If: {
    auto *i = e.as<IfExpr>();
    return "(if " + sexpr(*i->cond) + " " + sexpr(*i->then) +
           (i->otherwise ? " " + sexpr(*i->otherwise) : std::string()) + ")";
  }
  case ExprKind::Map: {
    auto *m = e.as<MapExpr>();
    std::string s =
        std::string("(") + (m->isPmap ? "pmap" : "vmap") + (m->axis ? " " + m->axis->name : "");
    for (auto &b : m->bindings)
      s += " (" + sexprPattern(b.pattern) + " in " + sexpr(*b.source) +
           (b.along ? " along " + sexpr(*b.along) : "") + ")";
    if (m->outAlong) s += " -> " + sexpr(*m->outAlong);
    return s + " " + sexpr(*m->body) + ")";
  }
  case ExprKind::ShardMap: {
    auto *m = e.as<ShardMapExpr>();
    auto spec = [](const PartitionSpec &ps) {
      std::string s = "[";
      for (size_t k = 0; k < ps.dims.size(); ++k) {
        s += k ? " " : "";
        auto &a = ps.dims[k].axes;
        if (a.empty())
          s += "_";
        else if (a.size() == 1)
          s += a[0].name;
        else {
          s += "(";
          for (size_t j = 0; j < a.size(); ++j) s += (j ? " " : "") + a[j].name;
          s += ")";
        }
      }
      return s + "]";
    };
    std::string s = "(shard_map ";
    if (m->meshName) {
      s += m->meshName->name;
    } else {
      s += "(";
      for (size_t k = 0; k < m->mesh.size(); ++k)
        s += (k ? " " : "") + m->mesh[k].name.name + "=" + sexpr(*m->mesh[k].size);
      s += ")";
    }
    for (auto &b : m->bindings)
      s += " (" + sexprPattern(b.pattern) + " in " + sexpr(*b.source) + " " + spec(b.spec) + ")";
    s += " ->";
    for (auto &o : m->outSpecs) s += " " + spec(o);
    return s + " " + sexpr(*m->body) + ")";
  }
  }
  return "?";
}

/// The expression of statement `i`: an expression statement's, or a let's value.
inline const ast::Expr &exprOf(const Parsed &p, size_t i = 0) {
  const ast::Stmt &s = *p.prog.stmts.at(i);
  if (auto *e = s.as<ast::ExprStmt>()) return *e->expr;
  if (auto *l = s.as<ast::LetStmt>()) return *l->value;
  throw std::runtime_error("statement has no expression");
}

/// Parses `text` (which must parse) and renders statement 0's expression.
inline std::string sx(const std::string &text) {
  Parsed p = parse(text);
  if (!p.ok()) return "ERROR: " + p.firstError();
  return sexpr(exprOf(p));
}

}  // namespace spmd::fronttest
