// ===- AxisCheck.cpp - lexical scoping of axis names ---------------------------===//
//
// Walks the AST with the set of axis names in scope (see Note [Axis scoping] in
// AxisCheck.h). Variables are not tracked here: only the axis namespace.
#include "sema/AxisCheck.h"

#include <algorithm>

namespace spmd::sema {
using namespace ast;

int axisArgumentIndex(const std::string &c) {
  if (c == "psum" || c == "pmean" || c == "pmax" || c == "pmin" || c == "all_gather" ||
      c == "ppermute" || c == "all_to_all" || c == "psum_scatter")
    return 1;
  if (c == "axis_index" || c == "axis_size") return 0;
  return -1;
}

namespace {

class Checker {
public:
  explicit Checker(std::vector<Diagnostic> &errors) : errors_(errors) {}

  void program(const Program &p) {
    for (auto &s : p.stmts) stmt(*s);
  }

private:
  std::vector<Diagnostic> &errors_;
  std::vector<Ident> scope_;  // axis binders in scope, outermost first

  void error(SrcRange loc, std::string msg, std::vector<std::pair<SrcRange, std::string>> notes = {}) {
    Diagnostic d;
    d.loc = loc;
    d.message = std::move(msg);
    d.notes = std::move(notes);
    errors_.push_back(std::move(d));
  }

  const Ident *find(const std::string &n) const {
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
      if (it->name == n) return &*it;
    return nullptr;
  }

  std::string inScope() const {
    if (scope_.empty()) return "no axes are in scope here (axes are bound by pmap/vmap blocks and by a function's [axis] parameters)";
    std::string s = "axes in scope: ";  // the spec's wording, for one axis too
    for (size_t k = 0; k < scope_.size(); ++k) s += (k ? ", " : "") + scope_[k].name;
    return s;
  }

  void useAxis(const Ident &a) {
    if (!find(a.name)) error(a.loc, "axis '" + a.name + "' is not bound here", {{SrcRange{}, inScope()}});
  }

  /// Binds `a`; returns false (after an error) when the name is already in scope.
  bool bind(const Ident &a) {
    if (const Ident *prev = find(a.name)) {
      error(a.loc, "axis '" + a.name + "' is already bound by an enclosing block",
            {{prev->loc, "the enclosing binding is here"}});
      return false;
    }
    scope_.push_back(a);
    return true;
  }

  /// An expression in axis position: a name or a tuple of names.
  void axisExpr(const Expr &e) {
    if (auto *n = e.as<NameExpr>()) return useAxis(Ident{n->name, n->loc});
    if (auto *t = e.as<TupleLitExpr>()) {
      for (auto &x : t->elems) axisExpr(*x);
      return;
    }
    if (auto *t = e.as<ArrayLitExpr>()) {  // `[i, j]` is accepted like a tuple
      for (auto &x : t->elems) axisExpr(*x);
      return;
    }
    error(e.loc, "expected an axis name or a tuple of axis names");
  }

  void stmt(const Stmt &s) {
    switch (s.kind) {
    case StmtKind::Let: return expr(*s.as<LetStmt>()->value);
    case StmtKind::Var: return expr(*s.as<VarStmt>()->value);
    case StmtKind::Assign: return expr(*s.as<AssignStmt>()->value);
    case StmtKind::Fn: return expr(*s.as<FnStmt>()->fn);
    case StmtKind::For: {
      auto *f = s.as<ForStmt>();
      expr(*f->iter);
      return expr(*f->body);
    }
    case StmtKind::Expr: return expr(*s.as<ExprStmt>()->expr);
    }
  }

  void expr(const Expr &e) {
    switch (e.kind) {
    case ExprKind::IntLit: case ExprKind::FloatLit: case ExprKind::BoolLit:
    case ExprKind::StringLit: case ExprKind::Name:
      return;
    case ExprKind::Unary: return expr(*e.as<UnaryExpr>()->operand);
    case ExprKind::Binary: {
      auto *b = e.as<BinaryExpr>();
      expr(*b->lhs);
      return expr(*b->rhs);
    }
    case ExprKind::Call: {
      auto *c = e.as<CallExpr>();
      for (auto &a : c->axes) useAxis(a);
      expr(*c->callee);
      int axisArg = -1;
      if (auto *n = c->callee->as<NameExpr>()) axisArg = axisArgumentIndex(n->name);
      int pos = 0;
      for (auto &a : c->args) {
        bool isAxis = false;
        if (a.keyword) isAxis = axisArg >= 0 && (a.keyword->name == "axis_name" || a.keyword->name == "axes");
        else isAxis = pos++ == axisArg;
        if (isAxis) axisExpr(*a.value);
        else expr(*a.value);
      }
      return;
    }
    case ExprKind::Index: {
      auto *i = e.as<IndexExpr>();
      expr(*i->base);
      for (auto &it : i->items) {
        for (auto *p : {&it.index, &it.lo, &it.hi, &it.step})
          if (*p) expr(**p);
      }
      return;
    }
    case ExprKind::ArrayLit:
      for (auto &x : e.as<ArrayLitExpr>()->elems) expr(*x);
      return;
    case ExprKind::Comprehension: {
      auto *c = e.as<ComprehensionExpr>();
      expr(*c->iter);
      return expr(*c->elem);
    }
    case ExprKind::Range: {
      auto *r = e.as<RangeExpr>();
      expr(*r->lo);
      return expr(*r->hi);
    }
    case ExprKind::TupleLit:
      for (auto &x : e.as<TupleLitExpr>()->elems) expr(*x);
      return;
    case ExprKind::Lambda: {
      auto *l = e.as<LambdaExpr>();
      size_t mark = scope_.size();
      for (auto &a : l->axisParams) bind(a);
      expr(*l->body);
      scope_.resize(mark);
      return;
    }
    case ExprKind::Block:
      for (auto &s : e.as<BlockExpr>()->stmts) stmt(*s);
      return;
    case ExprKind::If: {
      auto *i = e.as<IfExpr>();
      expr(*i->cond);
      expr(*i->then);
      if (i->otherwise) expr(*i->otherwise);
      return;
    }
    case ExprKind::Map: {
      auto *m = e.as<MapExpr>();
      for (auto &b : m->bindings) {
        expr(*b.source);
        if (b.along) expr(*b.along);
      }
      if (m->outAlong) expr(*m->outAlong);
      size_t mark = scope_.size();
      if (m->axis) bind(*m->axis);
      expr(*m->body);
      scope_.resize(mark);
      return;
    }
    case ExprKind::ShardMap: {
      auto *m = e.as<ShardMapExpr>();
      for (auto &a : m->mesh) expr(*a.size);
      for (auto &b : m->bindings) expr(*b.source);
      size_t mark = scope_.size();
      for (auto &a : m->mesh) bind(a.name);
      expr(*m->body);
      scope_.resize(mark);
      return;
    }
    }
  }
};

} // namespace

void checkAxes(const Program &p, std::vector<Diagnostic> &errors) { Checker(errors).program(p); }

} // namespace spmd::sema
