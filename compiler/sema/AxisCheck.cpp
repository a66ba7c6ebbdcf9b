// ===- AxisCheck.cpp - lexical scoping of axis names ---------------------------===//
//
// Walks the AST with the set of axis names in scope (see Note [Axis scoping] in
// AxisCheck.h). Variables are not tracked here: only the axis namespace.
#include "sema/AxisCheck.h"

#include <algorithm>
#include <optional>

namespace spmd::sema {
using namespace ast;

namespace {

class Checker {
public:
  explicit Checker(std::vector<Diagnostic> &errors) : errors_(errors) {}

  void program(const Program &p, MeshNames *top) {
    if (top) meshes_ = top->bound;
    for (auto &s : p.stmts) stmt(*s);
    if (top) top->bound = std::move(meshes_);
  }

private:
  std::vector<Diagnostic> &errors_;
  std::vector<Ident> scope_;  // axis binders in scope, outermost first
  MeshNames::Bound meshes_;   // meshes bound by `let`, innermost last

  /// The axes of the mesh `e` evaluates to, when it is a `mesh(...)` call or names one.
  std::optional<std::vector<Ident>> meshOf(const Expr &e) const {
    if (auto *c = e.as<CallExpr>()) {
      auto *n = c->callee->as<NameExpr>();
      if (!n || n->name != "mesh") return std::nullopt;
      std::vector<Ident> axes;
      for (auto &a : c->args)
        if (a.keyword) axes.push_back(*a.keyword);
      return axes;
    }
    if (auto *n = e.as<NameExpr>()) return lookupMesh(n->name);
    return std::nullopt;
  }
  std::optional<std::vector<Ident>> lookupMesh(const std::string &name) const {
    for (auto it = meshes_.rbegin(); it != meshes_.rend(); ++it)
      if (it->first == name) {
        if (it->second.empty()) return std::nullopt;
        return it->second;
      }
    return std::nullopt;
  }
  /// Records what a `let` binds: a mesh, or (hiding any outer mesh) something else.
  void bindNames(const Pattern &p, const Expr *value) {
    if (p.kind == Pattern::Tuple) {
      for (auto &e : p.elems) bindNames(e, nullptr);
      return;
    }
    if (p.kind != Pattern::Name) return;
    auto axes = value ? meshOf(*value) : std::nullopt;
    bool known = std::any_of(meshes_.begin(), meshes_.end(),
                             [&](auto &m) { return m.first == p.name.name; });
    if (axes || known) meshes_.push_back({p.name.name, axes ? *axes : std::vector<Ident>{}});
  }

  void error(SrcRange loc, std::string msg,
             std::vector<std::pair<SrcRange, std::string>> notes = {}) {
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
    if (scope_.empty())
      return "no axes are in scope here (axes are bound by pmap/vmap blocks and by a function's "
             "[axis] parameters)";
    std::string s = "axes in scope: ";  // the spec's wording, for one axis too
    for (size_t k = 0; k < scope_.size(); ++k) s += (k ? ", " : "") + scope_[k].name;
    return s;
  }

  void useAxis(const Ident &a) {
    if (!find(a.name))
      error(a.loc, "axis '" + a.name + "' is not bound here", {{SrcRange{}, inScope()}});
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
    case StmtKind::Let: {
      auto *l = s.as<LetStmt>();
      expr(*l->value);
      return bindNames(l->pattern, l->value.get());
    }
    case StmtKind::Var: {
      auto *v = s.as<VarStmt>();
      expr(*v->value);
      Pattern p;
      p.name = v->name;
      return bindNames(p, v->value.get());
    }
    case StmtKind::Assign: return expr(*s.as<AssignStmt>()->value);
    case StmtKind::Fn: return expr(*s.as<FnStmt>()->fn);
    case StmtKind::For: {
      auto *f = s.as<ForStmt>();
      expr(*f->iter);
      size_t meshMark = meshes_.size();
      bindNames(f->var, nullptr);
      expr(*f->body);
      meshes_.resize(meshMark);
      return;
    }
    case StmtKind::Expr: return expr(*s.as<ExprStmt>()->expr);
    }
  }

  void expr(const Expr &e) {
    switch (e.kind) {
    case ExprKind::IntLit:
    case ExprKind::FloatLit:
    case ExprKind::BoolLit:
    case ExprKind::StringLit:
    case ExprKind::Name: return;
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
      auto *callee = c->callee->as<NameExpr>();
      int pos = 0;
      for (auto &a : c->args) {
        BuiltinArg kind = callee ? builtinArgKind(callee->name, a.keyword ? -1 : pos,
                                                  a.keyword ? a.keyword->name : "")
                                 : BuiltinArg::Value;
        if (!a.keyword) ++pos;
        if (kind == BuiltinArg::Axes)
          axisExpr(*a.value);
        else
          expr(*a.value);
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
      size_t mark = scope_.size(), meshMark = meshes_.size();
      for (auto &a : l->axisParams) bind(a);
      for (auto &p : l->params) {  // a parameter hides a mesh of the same name
        Pattern name;
        name.name = p.name;
        bindNames(name, nullptr);
      }
      expr(*l->body);
      scope_.resize(mark);
      meshes_.resize(meshMark);
      return;
    }
    case ExprKind::Block: {
      size_t mark = meshes_.size();
      for (auto &s : e.as<BlockExpr>()->stmts) stmt(*s);
      meshes_.resize(mark);
      return;
    }
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
      if (m->meshName) {
        if (auto axes = lookupMesh(m->meshName->name)) {
          for (auto &a : *axes) bind(a);
        } else {
          error(m->meshName->loc,
                "'" + m->meshName->name + "' does not name a mesh bound by `let` here",
                {{SrcRange{}, "a shard_map's mesh is written in place, `shard_map (rows=4, cols=2) "
                              "(...)`, or bound "
                              "before it in an enclosing scope, `let " +
                                  m->meshName->name +
                                  " = mesh(rows=4, cols=2)`, "
                                  "so that its axis names are known where the body is written"}});
        }
      }
      expr(*m->body);
      scope_.resize(mark);
      return;
    }
    }
  }
};

}  // namespace

void checkAxes(const Program &p, std::vector<Diagnostic> &errors, MeshNames *meshes) {
  Checker(errors).program(p, meshes);
}

}  // namespace spmd::sema
