// ===- AstDump.cpp - the AST as an indented tree (--dump=ast) --------------===//
//
// One node per line, children indented by two spaces, each line ending in the node's
// `@line:col` (its caret position: the operator of a binary expression, the callee of a
// call). A child that plays a named role is prefixed with it (`lo=`, `along=`, `then=`,
// keyword arguments as `axis=`). Patterns, parameters and type annotations are short,
// so they print inline: `Pattern (a, (b, _))`, `Fn affine(w: f32[n, m]) -> f32[n]`.
//
//   Let @2:1
//     Pattern result @2:5
//     Map pmap axis=i @2:14
//       Binding
//         Pattern x @2:17
//         Call @2:22
//           Name arange @2:22
//           Float 4.0 @2:29
//       Block @2:35
//         ...
#include "ast/Ast.h"

#include <sstream>

namespace spmd::ast {
namespace {

std::string where(const SrcRange &r) {
  if (!r.valid()) return "";
  return " @" + std::to_string(r.line) + ":" + std::to_string(r.col);
}

std::string quoted(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
    case '\n': out += "\\n"; break;
    case '\t': out += "\\t"; break;
    case '\r': out += "\\r"; break;
    case '\0': out += "\\0"; break;
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    default: out += c;
    }
  }
  return out + "\"";
}

std::string patternText(const Pattern &p) {
  switch (p.kind) {
  case Pattern::Name: return p.name.name;
  case Pattern::Wildcard: return "_";
  case Pattern::Tuple: break;
  }
  std::string s = "(";
  for (size_t i = 0; i < p.elems.size(); ++i) s += (i ? ", " : "") + patternText(p.elems[i]);
  return s + (p.elems.size() == 1 ? ",)" : ")");
}

std::string typeText(const TypeAnn &t) {
  std::string s = t.dtype.name;
  if (!t.hasShape) return s;
  s += "[";
  for (size_t i = 0; i < t.dims.size(); ++i)
    s += (i ? ", " : "") +
         (t.dims[i].isName ? t.dims[i].name.name : std::to_string(t.dims[i].value));
  return s + "]";
}

std::string names(const std::vector<Ident> &ids) {
  std::string s;
  for (size_t i = 0; i < ids.size(); ++i) s += (i ? ", " : "") + ids[i].name;
  return s;
}

/// `[i, j](x, w: f32[n]) -> f32[]`: a function's signature.
std::string signature(const LambdaExpr &l) {
  std::string s;
  if (!l.axisParams.empty()) s += "[" + names(l.axisParams) + "]";
  s += "(";
  for (size_t i = 0; i < l.params.size(); ++i) {
    s += (i ? ", " : "") + l.params[i].name.name;
    if (l.params[i].type) s += ": " + typeText(*l.params[i].type);
  }
  s += ")";
  if (l.result) s += " -> " + typeText(*l.result);
  return s;
}

class Dumper {
public:
  std::string run(const Program &p) {
    os_ << "Program\n";
    for (auto &s : p.stmts) stmt(*s, 1);
    return os_.str();
  }

private:
  std::ostringstream os_;

  void line(int depth, const std::string &label, const std::string &text, const SrcRange &loc) {
    // Two spaces a level; past kDeep levels (a chain of 10,000 operators is a tree that
    // deep) the indent stops growing and the level is written out, so the dump stays
    // linear in the size of the program.
    constexpr int kDeep = 64;
    if (depth <= kDeep)
      os_ << std::string(2 * depth, ' ');
    else
      os_ << std::string(2 * kDeep, ' ') << '[' << depth << "] ";
    os_ << label << text << where(loc) << '\n';
  }

  void pattern(const Pattern &p, int depth) { line(depth, "", "Pattern " + patternText(p), p.loc); }

  void stmt(const Stmt &s, int d) {
    if (auto *l = s.as<LetStmt>()) {
      line(d, "", "Let", s.loc);
      pattern(l->pattern, d + 1);
      expr(*l->value, d + 1);
    } else if (auto *v = s.as<VarStmt>()) {
      line(d, "", "Var " + v->name.name, s.loc);
      expr(*v->value, d + 1);
    } else if (auto *a = s.as<AssignStmt>()) {
      line(d, "", "Assign " + a->name.name, s.loc);
      expr(*a->value, d + 1);
    } else if (auto *f = s.as<FnStmt>()) {
      line(d, "", "Fn " + f->name.name + signature(*f->fn), s.loc);
      expr(*f->fn->body, d + 1);
    } else if (auto *f = s.as<ForStmt>()) {
      line(d, "", "For", s.loc);
      pattern(f->var, d + 1);
      expr(*f->iter, d + 1, "in=");
      expr(*f->body, d + 1);
    } else if (auto *e = s.as<ExprStmt>()) {
      line(d, "", "ExprStmt", s.loc);
      expr(*e->expr, d + 1);
    }
  }

  void expr(const Expr &e, int d, const std::string &label = "") {
    switch (e.kind) {
    case ExprKind::IntLit:
      return line(d, label, "Int " + std::to_string(e.as<IntLitExpr>()->value), e.loc);
    case ExprKind::FloatLit: return line(d, label, "Float " + e.as<FloatLitExpr>()->text, e.loc);
    case ExprKind::BoolLit:
      return line(d, label, e.as<BoolLitExpr>()->value ? "Bool true" : "Bool false", e.loc);
    case ExprKind::StringLit:
      return line(d, label, "String " + quoted(e.as<StringLitExpr>()->value), e.loc);
    case ExprKind::Name: return line(d, label, "Name " + e.as<NameExpr>()->name, e.loc);
    case ExprKind::Unary: {
      auto *u = e.as<UnaryExpr>();
      line(d, label, std::string("Unary ") + spelling(u->op), e.loc);
      return expr(*u->operand, d + 1);
    }
    case ExprKind::Binary: {
      auto *b = e.as<BinaryExpr>();
      line(d, label, std::string("Binary ") + spelling(b->op), e.loc);
      expr(*b->lhs, d + 1);
      return expr(*b->rhs, d + 1);
    }
    case ExprKind::Call: {
      auto *c = e.as<CallExpr>();
      line(d, label, c->hasAxisList ? "Call axes=[" + names(c->axes) + "]" : "Call", e.loc);
      expr(*c->callee, d + 1);
      for (auto &a : c->args) expr(*a.value, d + 1, a.keyword ? a.keyword->name + "=" : "");
      return;
    }
    case ExprKind::Index: {
      auto *ix = e.as<IndexExpr>();
      line(d, label, "Index", e.loc);
      expr(*ix->base, d + 1);
      for (auto &item : ix->items) {
        if (!item.isSlice) {
          expr(*item.index, d + 1);
          continue;
        }
        line(d + 1, "", "Slice", item.loc);
        if (item.lo) expr(*item.lo, d + 2, "lo=");
        if (item.hi) expr(*item.hi, d + 2, "hi=");
        if (item.step) expr(*item.step, d + 2, "step=");
      }
      return;
    }
    case ExprKind::ArrayLit:
      line(d, label, "Array", e.loc);
      for (auto &x : e.as<ArrayLitExpr>()->elems) expr(*x, d + 1);
      return;
    case ExprKind::TupleLit:
      line(d, label, "Tuple", e.loc);
      for (auto &x : e.as<TupleLitExpr>()->elems) expr(*x, d + 1);
      return;
    case ExprKind::Comprehension: {
      auto *c = e.as<ComprehensionExpr>();
      line(d, label, "Comprehension", e.loc);
      expr(*c->elem, d + 1);
      pattern(c->var, d + 1);
      return expr(*c->iter, d + 1, "in=");
    }
    case ExprKind::Range: {
      auto *r = e.as<RangeExpr>();
      line(d, label, "Range", e.loc);
      expr(*r->lo, d + 1);
      return expr(*r->hi, d + 1);
    }
    case ExprKind::Lambda: {
      auto *l = e.as<LambdaExpr>();
      line(d, label, "Lambda " + signature(*l), e.loc);
      return expr(*l->body, d + 1);
    }
    case ExprKind::Block:
      line(d, label, "Block", e.loc);
      for (auto &s : e.as<BlockExpr>()->stmts) stmt(*s, d + 1);
      return;
    case ExprKind::If: {
      auto *i = e.as<IfExpr>();
      line(d, label, "If", e.loc);
      expr(*i->cond, d + 1, "cond=");
      expr(*i->then, d + 1, "then=");
      if (i->otherwise) expr(*i->otherwise, d + 1, "else=");
      return;
    }
    case ExprKind::Map: return map(*e.as<MapExpr>(), d, label);
    case ExprKind::ShardMap: return shardMap(*e.as<ShardMapExpr>(), d, label);
    }
  }

  void shardMap(const ShardMapExpr &m, int d, const std::string &label) {
    std::string head = "ShardMap mesh=";
    if (m.meshName) {
      head += m.meshName->name;
    } else {
      head += "(";
      for (size_t k = 0; k < m.mesh.size(); ++k) head += (k ? ", " : "") + m.mesh[k].name.name;
      head += ")";
    }
    line(d, label, head, m.loc);
    for (auto &a : m.mesh) expr(*a.size, d + 1, a.name.name + "=");
    for (auto &b : m.bindings) {
      line(d + 1, "", "Binding spec=" + specText(b.spec), SrcRange{});
      pattern(b.pattern, d + 2);
      expr(*b.source, d + 2);
    }
    std::string out;
    for (auto &s : m.outSpecs) out += (out.empty() ? "" : ", ") + specText(s);
    line(d + 1, "", "Out " + (m.outTuple ? "(" + out + ")" : out), m.outLoc);
    expr(*m.body, d + 1);
  }

  void map(const MapExpr &m, int d, const std::string &label) {
    std::string head = m.isPmap ? "Map pmap" : "Map vmap";
    if (m.axis) head += " axis=" + m.axis->name;
    line(d, label, head, m.loc);
    for (auto &b : m.bindings) {
      line(d + 1, "", "Binding", SrcRange{});
      pattern(b.pattern, d + 2);
      expr(*b.source, d + 2);
      if (b.along) expr(*b.along, d + 2, "along=");
    }
    if (m.outAlong) expr(*m.outAlong, d + 1, "out_along=");
    expr(*m.body, d + 1);
  }
};

}  // namespace

std::string dumpAst(const Program &p) { return Dumper().run(p); }

std::string specText(const PartitionSpec &s) {
  std::string out = "[";
  for (size_t k = 0; k < s.dims.size(); ++k) {
    auto &a = s.dims[k].axes;
    out += k ? ", " : "";
    if (a.empty())
      out += "_";
    else if (a.size() == 1)
      out += a[0].name;
    else {
      out += "(";
      for (size_t j = 0; j < a.size(); ++j) out += (j ? ", " : "") + a[j].name;
      out += ")";
    }
  }
  return out + "]";
}

}  // namespace spmd::ast
