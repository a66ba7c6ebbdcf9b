// ===- ArgNames.cpp - the names a program passes to arg() ----------------------===//
//
// argNamesInSource() walks the whole AST, taken branches or not, called functions or not,
// for calls `arg("NAME", default)` (also `arg(name="NAME", ...)`) whose name is a string
// literal. The driver refuses an `--arg NAME=VALUE` that no such call names and that the
// lowering never looked up (Note [Arguments nobody reads] in cli/Driver.cpp).
#include "sema/Lower.h"

namespace spmd::sema {

using namespace ast;

namespace {
struct ArgNameWalk {
  std::set<std::string> names;

  void expr(const Expr *e) {
    if (!e) return;
    switch (e->kind) {
    case ExprKind::IntLit:
    case ExprKind::FloatLit:
    case ExprKind::BoolLit:
    case ExprKind::StringLit:
    case ExprKind::Name: return;
    case ExprKind::Unary: return expr(e->as<UnaryExpr>()->operand.get());
    case ExprKind::Binary: {
      auto *b = e->as<BinaryExpr>();
      expr(b->lhs.get());
      return expr(b->rhs.get());
    }
    case ExprKind::Call: {
      auto *c = e->as<CallExpr>();
      auto *callee = c->callee->as<NameExpr>();
      if (callee && callee->name == "arg") {
        const Expr *name = nullptr;
        for (auto &a : c->args) {
          if (a.keyword && a.keyword->name == "name") {
            name = a.value.get();
            break;
          }
          if (!a.keyword && !name) name = a.value.get();
        }
        if (auto *s = name ? name->as<StringLitExpr>() : nullptr) names.insert(s->value);
      }
      expr(c->callee.get());
      for (auto &a : c->args) expr(a.value.get());
      return;
    }
    case ExprKind::Index: {
      auto *ix = e->as<IndexExpr>();
      expr(ix->base.get());
      for (auto &it : ix->items) {
        expr(it.index.get());
        expr(it.lo.get());
        expr(it.hi.get());
        expr(it.step.get());
      }
      return;
    }
    case ExprKind::ArrayLit:
      for (auto &x : e->as<ArrayLitExpr>()->elems) expr(x.get());
      return;
    case ExprKind::TupleLit:
      for (auto &x : e->as<TupleLitExpr>()->elems) expr(x.get());
      return;
    case ExprKind::Comprehension: {
      auto *c = e->as<ComprehensionExpr>();
      expr(c->elem.get());
      return expr(c->iter.get());
    }
    case ExprKind::Range: {
      auto *r = e->as<RangeExpr>();
      expr(r->lo.get());
      return expr(r->hi.get());
    }
    case ExprKind::Lambda: return expr(e->as<LambdaExpr>()->body.get());
    case ExprKind::Block:
      for (auto &s : e->as<BlockExpr>()->stmts) stmt(s.get());
      return;
    case ExprKind::If: {
      auto *i = e->as<IfExpr>();
      expr(i->cond.get());
      expr(i->then.get());
      return expr(i->otherwise.get());
    }
    case ExprKind::Map: {
      auto *m = e->as<MapExpr>();
      for (auto &b : m->bindings) {
        expr(b.source.get());
        expr(b.along.get());
      }
      expr(m->outAlong.get());
      return expr(m->body.get());
    }
    case ExprKind::ShardMap: {
      auto *m = e->as<ShardMapExpr>();
      for (auto &a : m->mesh) expr(a.size.get());
      for (auto &b : m->bindings) expr(b.source.get());
      return expr(m->body.get());
    }
    }
  }

  void stmt(const Stmt *s) {
    if (!s) return;
    switch (s->kind) {
    case StmtKind::Let: return expr(s->as<LetStmt>()->value.get());
    case StmtKind::Var: return expr(s->as<VarStmt>()->value.get());
    case StmtKind::Assign: return expr(s->as<AssignStmt>()->value.get());
    case StmtKind::Fn: return expr(s->as<FnStmt>()->fn.get());
    case StmtKind::For: {
      auto *f = s->as<ForStmt>();
      expr(f->iter.get());
      return expr(f->body.get());
    }
    case StmtKind::Expr: return expr(s->as<ExprStmt>()->expr.get());
    }
  }
};
}  // namespace

std::set<std::string> argNamesInSource(const Program &p) {
  ArgNameWalk w;
  for (auto &s : p.stmts) w.stmt(s.get());
  return std::move(w.names);
}

}  // namespace spmd::sema
