// ===- AstBuilder.cpp - the ANTLR parse tree turned into the AST -----------===//
//
// Walks the parse tree of grammar/Spmd.g4 (one function per rule) and builds the plain
// structs of Ast.h, giving every node its source location:
//  - a binary or unary expression's `loc` is its operator, `range` the whole expression;
//  - a call's `loc` is its callee's (the name in `f(x)`, `grad` in `grad(f)(x)`);
//  - an index expression's `loc` is its '[', an array literal's its '[', a tuple's '(';
//  - a block, lambda, if or pmap/vmap points at its first token ('{', 'fn', 'if', 'pmap').
// Parentheses around an expression leave no node: `(a + b)` is the BinaryExpr itself.
#include "ast/AstBuilder.h"

#include "SpmdParser.h"

#include <charconv>
#include <cstdlib>

namespace spmd::front {

using namespace ast;
using P = spmdgen::SpmdParser;
using antlr4::ParserRuleContext;
using antlr4::Token;
using antlr4::tree::ParseTree;
using antlr4::tree::TerminalNode;

SrcRange tokenRange(const Token *t, int file) {
  SrcRange r;
  r.file = file;
  r.line = int(t->getLine());
  r.col = int(t->getCharPositionInLine()) + 1;
  r.endLine = r.line;
  bool oneChar = t->getType() == Token::EOF || t->getType() == P::NEWLINE ||
                 t->getStopIndex() < t->getStartIndex();
  r.endCol = r.col + (oneChar ? 1 : int(t->getStopIndex() - t->getStartIndex() + 1));
  return r;
}

std::string tokenText(const Token *t, const std::string &src) {
  size_t b = t->getStartIndex(), e = t->getStopIndex();
  if (t->getType() == Token::EOF || e < b || b >= src.size()) return "";
  return src.substr(b, e - b + 1);
}

namespace {

/// From the start of `a` to the end of `b`.
SrcRange join(const SrcRange &a, const SrcRange &b) {
  SrcRange r = a;
  r.endLine = b.endLine;
  r.endCol = b.endCol;
  return r;
}

BinOp binOpOf(size_t tokenType) {
  switch (tokenType) {
  case P::PLUS: return BinOp::Add;
  case P::MINUS: return BinOp::Sub;
  case P::STAR: return BinOp::Mul;
  case P::SLASH: return BinOp::Div;
  case P::DSLASH: return BinOp::FloorDiv;
  case P::PERCENT: return BinOp::Mod;
  case P::POW: return BinOp::Pow;
  case P::AT: return BinOp::MatMul;
  case P::EQ: return BinOp::Eq;
  case P::NE: return BinOp::Ne;
  case P::LT: return BinOp::Lt;
  case P::LE: return BinOp::Le;
  case P::GT: return BinOp::Gt;
  case P::GE: return BinOp::Ge;
  case P::AMP: return BinOp::BitAnd;
  case P::PIPE: return BinOp::BitOr;
  case P::CARET: return BinOp::BitXor;
  case P::AND: return BinOp::And;
  case P::OR: return BinOp::Or;
  }
  internalError(__FILE__, __LINE__,
                "no binary operator for token type " + std::to_string(tokenType));
}

class Builder {
public:
  Builder(const std::string &src, int file) : src_(src), file_(file) {}

  Program program(P::ProgramContext *c) {
    Program p;
    p.file = file_;
    p.stmts = stmtList(c->stmtList());
    return p;
  }

  StmtP topStmt(P::StmtContext *c) { return stmt(c); }

private:
  const std::string &src_;
  int file_;

  SrcRange at(const Token *t) const { return tokenRange(t, file_); }
  SrcRange at(TerminalNode *n) const { return at(n->getSymbol()); }
  SrcRange span(ParserRuleContext *c) const { return join(at(c->getStart()), at(c->getStop())); }
  std::string text(TerminalNode *n) const { return tokenText(n->getSymbol(), src_); }
  Ident ident(TerminalNode *n) const { return Ident{text(n), at(n)}; }

  template <class T>
  std::unique_ptr<T> node(const SrcRange &loc, const SrcRange &range) {
    auto e = std::make_unique<T>();
    e->loc = loc;
    e->range = range;
    return e;
  }

  // ---- statements -------------------------------------------------------------------
  std::vector<StmtP> stmtList(P::StmtListContext *c) {
    std::vector<StmtP> out;
    for (auto *s : c->stmt()) out.push_back(stmt(s));
    return out;
  }

  StmtP stmt(P::StmtContext *c) {
    StmtP s;
    if (auto *l = dynamic_cast<P::LetStmtContext *>(c)) {
      auto n = std::make_unique<LetStmt>();
      n->pattern = pattern(l->pattern());
      n->value = expr(l->expr());
      s = std::move(n);
    } else if (auto *v = dynamic_cast<P::VarStmtContext *>(c)) {
      auto n = std::make_unique<VarStmt>();
      n->name = ident(v->NAME());
      n->value = expr(v->expr());
      s = std::move(n);
    } else if (auto *a = dynamic_cast<P::AssignStmtContext *>(c)) {
      auto n = std::make_unique<AssignStmt>();
      n->name = ident(a->NAME());
      n->value = expr(a->expr());
      s = std::move(n);
    } else if (auto *f = dynamic_cast<P::FnStmtContext *>(c)) {
      auto n = std::make_unique<FnStmt>();
      n->name = ident(f->NAME());
      n->fn = lambda(f->FN(), f->axisParams(), f->paramList(), f->typeAnn(), f->fnBody(), span(f));
      s = std::move(n);
    } else if (auto *l = dynamic_cast<P::ForStmtContext *>(c)) {
      auto n = std::make_unique<ForStmt>();
      n->var = pattern(l->pattern());
      n->iter = expr(l->expr());
      n->body = block(l->block());
      s = std::move(n);
    } else {
      auto *e = dynamic_cast<P::ExprStmtContext *>(c);
      internal_assert(e, "unknown statement alternative");
      auto n = std::make_unique<ExprStmt>();
      n->expr = expr(e->expr());
      s = std::move(n);
    }
    s->loc = span(c);
    return s;
  }

  Pattern pattern(P::PatternContext *c) {
    Pattern p;
    p.loc = span(c);
    if (auto *n = dynamic_cast<P::NamePatternContext *>(c)) {
      p.name = ident(n->NAME());
      p.kind = p.name.name == "_" ? Pattern::Wildcard : Pattern::Name;
      return p;
    }
    auto *t = dynamic_cast<P::TuplePatternContext *>(c);
    internal_assert(t, "unknown pattern alternative");
    // `(a)` is just `a` in parentheses; `(a,)` is a one-element tuple.
    if (t->pattern().size() == 1 && t->COMMA().empty()) return pattern(t->pattern(0));
    p.kind = Pattern::Tuple;
    for (auto *e : t->pattern()) p.elems.push_back(pattern(e));
    return p;
  }

  TypeAnn typeAnn(P::TypeAnnContext *c) {
    TypeAnn t;
    t.loc = span(c);
    t.dtype = ident(c->NAME());
    t.hasShape = c->LBRACK() != nullptr;
    for (auto *d : c->dim()) {
      TypeAnn::Dim dim;
      if (d->NAME()) {
        dim.isName = true;
        dim.name = ident(d->NAME());
      } else {
        dim.value = intValue(d->INT());
      }
      t.dims.push_back(std::move(dim));
    }
    return t;
  }

  std::unique_ptr<LambdaExpr> lambda(TerminalNode *fn, P::AxisParamsContext *axes,
                                     P::ParamListContext *params, P::TypeAnnContext *result,
                                     P::FnBodyContext *body, const SrcRange &range) {
    auto l = node<LambdaExpr>(at(fn), range);
    // Each name once, as Python's "duplicate argument 'x' in function definition" (`fn
    // f(x, x)` bound the last x); `_` may repeat, as it discards.
    auto once = [](const std::vector<Ident> &seen, const Ident &n, const char *what) {
      if (n.name == "_") return;
      for (auto &o : seen)
        if (o.name == n.name)
          userError(n.loc, std::string("duplicate ") + what + " '" + n.name +
                               "' in function definition",
                    {{o.loc, "first declared here"}});
    };
    std::vector<Ident> seen;
    if (axes)
      for (auto *a : axes->NAME()) {
        l->axisParams.push_back(ident(a));
        once(seen, l->axisParams.back(), "axis parameter");
        seen.push_back(l->axisParams.back());
      }
    seen.clear();
    for (auto *p : params->param()) {
      Param param;
      param.name = ident(p->NAME());
      once(seen, param.name, "argument");
      seen.push_back(param.name);
      if (p->typeAnn()) param.type = typeAnn(p->typeAnn());
      l->params.push_back(std::move(param));
    }
    if (result) l->result = typeAnn(result);
    l->body = body->block() ? block(body->block()) : expr(body->expr());
    return l;
  }

  std::unique_ptr<BlockExpr> block(P::BlockContext *c) {
    auto b = node<BlockExpr>(at(c->LBRACE()), span(c));
    b->stmts = stmtList(c->stmtList());
    b->close = at(c->RBRACE());
    return b;
  }

  // ---- expressions ------------------------------------------------------------------
  /// Any expression rule: one function per precedence level, dispatched on the rule.
  ExprP expr(ParseTree *t) {
    auto *c = dynamic_cast<ParserRuleContext *>(t);
    internal_assert(c, "an expression is a rule context");
    switch (c->getRuleIndex()) {
    case P::RuleExpr: {
      auto *e = static_cast<P::ExprContext *>(c);
      if (!e->DOTDOT()) return expr(e->orExpr(0));
      auto r = node<RangeExpr>(at(e->DOTDOT()), span(e));
      r->lo = expr(e->orExpr(0));
      r->hi = expr(e->orExpr(1));
      return r;
    }
    case P::RuleOrExpr:
    case P::RuleAndExpr:
    case P::RuleCmpExpr:
    case P::RuleBitOrExpr:
    case P::RuleBitXorExpr:
    case P::RuleBitAndExpr:
    case P::RuleAddExpr:
    case P::RuleMulExpr: return leftChain(c);
    case P::RuleNotExpr: {
      auto *n = static_cast<P::NotExprContext *>(c);
      if (!n->NOT()) return expr(n->cmpExpr());
      return unary(UnOp::Not, n->NOT(), expr(n->notExpr()), c);
    }
    case P::RuleUnaryExpr: {
      auto *u = static_cast<P::UnaryExprContext *>(c);
      if (u->powExpr()) return expr(u->powExpr());
      auto *op = static_cast<TerminalNode *>(u->children[0]);
      UnOp k = u->MINUS() ? UnOp::Neg : u->PLUS() ? UnOp::Plus : UnOp::BitNot;
      return unary(k, op, expr(u->unaryExpr()), c);
    }
    case P::RulePowExpr: {
      auto *p = static_cast<P::PowExprContext *>(c);
      if (!p->POW()) return expr(p->postfixExpr());
      return binary(BinOp::Pow, p->POW(), expr(p->postfixExpr()), expr(p->unaryExpr()));
    }
    case P::RulePostfixExpr: return postfix(static_cast<P::PostfixExprContext *>(c));
    case P::RulePrimary: return primary(static_cast<P::PrimaryContext *>(c));
    case P::RuleIfExpr: return ifExpr(static_cast<P::IfExprContext *>(c));
    }
    internalError(__FILE__, __LINE__,
                  "not an expression rule: " + std::to_string(c->getRuleIndex()));
  }

  ExprP unary(UnOp op, TerminalNode *tok, ExprP operand, ParserRuleContext *c) {
    auto u = node<UnaryExpr>(at(tok), span(c));
    u->op = op;
    u->operand = std::move(operand);
    return u;
  }

  ExprP binary(BinOp op, TerminalNode *tok, ExprP lhs, ExprP rhs) {
    auto b = node<BinaryExpr>(at(tok), join(lhs->range, rhs->range));
    b->op = op;
    b->lhs = std::move(lhs);
    b->rhs = std::move(rhs);
    return b;
  }

  /// `a op b op c ...`: the children alternate operand, operator token, operand.
  ExprP leftChain(ParserRuleContext *c) {
    ExprP lhs = expr(c->children[0]);
    for (size_t i = 1; i + 1 < c->children.size(); i += 2) {
      auto *op = static_cast<TerminalNode *>(c->children[i]);
      lhs =
          binary(binOpOf(op->getSymbol()->getType()), op, std::move(lhs), expr(c->children[i + 1]));
    }
    return lhs;
  }

  /// The caret position of a call: its callee's when that is a name or a call.
  static SrcRange calleeLoc(const Expr &callee) {
    if (callee.kind == ExprKind::Name || callee.kind == ExprKind::Call) return callee.loc;
    SrcRange r = callee.range;
    r.endLine = r.line;
    r.endCol = r.col + 1;
    return r;
  }

  ExprP postfix(P::PostfixExprContext *c) {
    ExprP e = expr(c->primary());
    for (auto *op : c->postfixOp()) {
      SrcRange range = join(e->range, at(op->getStop()));
      if (auto *idx = dynamic_cast<P::IndexOpContext *>(op)) {
        auto ix = node<IndexExpr>(at(idx->LBRACK()), range);
        ix->base = std::move(e);
        for (auto *item : idx->indexItem()) ix->items.push_back(indexItem(item));
        e = std::move(ix);
        continue;
      }
      auto call = node<CallExpr>(calleeLoc(*e), range);
      P::ArgListContext *args = nullptr;
      if (auto *ac = dynamic_cast<P::AxisCallOpContext *>(op)) {
        call->hasAxisList = true;
        for (auto *a : ac->NAME()) call->axes.push_back(ident(a));
        args = ac->argList();
      } else {
        args = static_cast<P::CallOpContext *>(op)->argList();
      }
      call->callee = std::move(e);
      if (args)
        for (auto *a : args->arg()) {
          Arg arg;
          if (a->ASSIGN()) arg.keyword = ident(a->NAME());
          arg.value = expr(a->expr());
          call->args.push_back(std::move(arg));
        }
      e = std::move(call);
    }
    return e;
  }

  IndexItem indexItem(P::IndexItemContext *c) {
    IndexItem item;
    item.loc = span(c);
    if (auto *s = dynamic_cast<P::SliceItemContext *>(c)) {
      item.isSlice = true;
      if (s->lo) item.lo = expr(s->lo);
      if (s->hi) item.hi = expr(s->hi);
      if (s->step) item.step = expr(s->step);
    } else {
      item.index = expr(static_cast<P::ExprItemContext *>(c)->expr());
    }
    return item;
  }

  ExprP ifExpr(P::IfExprContext *c) {
    auto e = node<IfExpr>(at(c->IF()), span(c));
    e->cond = expr(c->expr());
    e->then = block(c->block(0));
    if (c->ifExpr())
      e->otherwise = ifExpr(c->ifExpr());
    else if (c->ELSE())
      e->otherwise = block(c->block(1));
    return e;
  }

  ExprP primary(P::PrimaryContext *c) {
    SrcRange range = span(c);
    if (auto *i = dynamic_cast<P::IntLitContext *>(c)) {
      auto e = node<IntLitExpr>(range, range);
      e->value = intValue(i->INT());
      return e;
    }
    if (auto *f = dynamic_cast<P::FloatLitContext *>(c)) {
      auto e = node<FloatLitExpr>(range, range);
      e->text = text(f->FLOAT());
      e->value = std::strtod(e->text.c_str(), nullptr);
      return e;
    }
    if (auto *b = dynamic_cast<P::BoolLitContext *>(c)) {
      auto e = node<BoolLitExpr>(range, range);
      e->value = b->TRUE() != nullptr;
      return e;
    }
    if (auto *s = dynamic_cast<P::StringLitContext *>(c)) {
      auto e = node<StringLitExpr>(range, range);
      e->value = unescape(s->STRING());
      return e;
    }
    if (auto *n = dynamic_cast<P::NameExprContext *>(c)) {
      auto e = node<NameExpr>(range, range);
      e->name = text(n->NAME());
      return e;
    }
    // Note [Factored brackets] (grammar/Spmd.g4): `(e)` is e itself; with a comma, or
    // empty, it is a tuple. `[e for p in xs]` is a comprehension, else an array literal.
    if (auto *t = dynamic_cast<P::ParenOrTupleContext *>(c)) {
      if (t->COMMA().empty() && t->expr().size() == 1) return expr(t->expr(0));
      auto e = node<TupleLitExpr>(at(t->LPAREN()), range);
      for (auto *x : t->expr()) e->elems.push_back(expr(x));
      return e;
    }
    if (auto *k = dynamic_cast<P::ListOrComprehensionContext *>(c)) {
      if (k->FOR()) {
        auto e = node<ComprehensionExpr>(at(k->LBRACK()), range);
        e->elem = expr(k->expr(0));
        e->var = pattern(k->pattern());
        e->iter = expr(k->expr(1));
        return e;
      }
      auto e = node<ArrayLitExpr>(at(k->LBRACK()), range);
      for (auto *x : k->expr()) e->elems.push_back(expr(x));
      return e;
    }
    if (auto *l = dynamic_cast<P::LambdaContext *>(c))
      return lambda(l->FN(), nullptr, l->paramList(), l->typeAnn(), l->fnBody(), range);
    if (auto *b = dynamic_cast<P::BlockExprContext *>(c)) return block(b->block());
    if (auto *i = dynamic_cast<P::IfExpressionContext *>(c)) return ifExpr(i->ifExpr());
    if (auto *sm = dynamic_cast<P::ShardMapExprContext *>(c)) return shardMapExpr(sm, range);
    auto *m = dynamic_cast<P::MapExprContext *>(c);
    internal_assert(m, "unknown primary alternative");
    return mapExpr(m, range);
  }

  // ---- shard_map ----------------------------------------------------------------------
  /// A partition spec entry: `_`, an axis name, or a tuple of axis names.
  SpecEntry specEntry(const Expr &e) {
    SpecEntry s;
    s.loc = e.range.valid() ? e.range : e.loc;
    if (auto *n = e.as<NameExpr>()) {
      if (n->name != "_") s.axes.push_back(Ident{n->name, e.loc});
      return s;
    }
    if (auto *t = e.as<TupleLitExpr>()) {
      for (auto &x : t->elems) {
        auto *n = x->as<NameExpr>();
        if (!n || n->name == "_")
          userError(x->loc, "a tuple in a partition spec holds mesh axis names");
        s.axes.push_back(Ident{n->name, x->loc});
      }
      return s;
    }
    userError(e.loc, "a partition spec entry is a mesh axis name, a tuple of them, or _");
  }

  ExprP shardMapExpr(P::ShardMapExprContext *c, const SrcRange &range) {
    auto m = node<ShardMapExpr>(at(c->SHARD_MAP()), range);
    for (auto *a : c->meshAxis()) m->mesh.push_back(MeshAxis{ident(a->NAME()), expr(a->expr())});
    if (c->NAME()) m->meshName = ident(c->NAME());
    for (auto *b : c->mapBinding()) {
      ShardBinding binding;
      binding.pattern = pattern(b->pattern());
      if (b->ALONG())
        userError(at(b->ALONG()), "a shard_map input is placed by its partition spec, not 'along'");
      ExprP src = expr(b->expr(0));
      auto *ix = src->as<IndexExpr>();
      if (!ix)
        userError(src->loc,
                  "a shard_map input needs a partition spec after it, one entry per dimension: "
                  "`a in x [rows, _]`");
      binding.spec.loc = ix->items.front().loc;
      for (auto &it : ix->items) {
        if (it.isSlice)
          userError(it.loc, "a partition spec entry is a mesh axis name, a tuple of them, or _");
        binding.spec.dims.push_back(specEntry(*it.index));
      }
      binding.source = std::move(ix->base);
      m->bindings.push_back(std::move(binding));
    }
    ExprP out = expr(c->expr());
    m->outLoc = out->loc;
    auto spec = [&](const Expr &e) {
      auto *l = e.as<ArrayLitExpr>();
      if (!l)
        userError(
            e.loc,
            "a shard_map's result is placed by a partition spec `[rows, _]` (or a tuple of them)");
      PartitionSpec ps;
      ps.loc = e.loc;
      for (auto &x : l->elems) ps.dims.push_back(specEntry(*x));
      return ps;
    };
    if (auto *t = out->as<TupleLitExpr>()) {
      m->outTuple = true;
      for (auto &x : t->elems) m->outSpecs.push_back(spec(*x));
    } else {
      m->outSpecs.push_back(spec(*out));
    }
    m->body = block(c->block());
    return m;
  }

  ExprP mapExpr(P::MapExprContext *c, const SrcRange &range) {
    auto m = node<MapExpr>(at(c->PMAP() ? c->PMAP() : c->VMAP()), range);
    m->isPmap = c->PMAP() != nullptr;
    if (c->NAME()) m->axis = ident(c->NAME());
    for (auto *b : c->mapBinding()) {
      MapBinding binding;
      binding.pattern = pattern(b->pattern());
      binding.source = expr(b->expr(0));
      if (b->ALONG()) binding.along = expr(b->expr(1));
      m->bindings.push_back(std::move(binding));
    }
    if (c->ALONG()) m->outAlong = expr(c->expr());
    m->body = block(c->block());
    return m;
  }

  // ---- literals ---------------------------------------------------------------------
  int64_t intValue(TerminalNode *n) {
    std::string s = text(n);
    int64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size())
      userError(at(n), "integer literal '" + s + "' is too large");
    return v;
  }

  std::string unescape(TerminalNode *n) {
    std::string s = text(n), out;
    SrcRange loc = at(n);
    for (size_t i = 1; i + 1 < s.size(); ++i) {
      if (s[i] != '\\') {
        out += s[i];
        continue;
      }
      char c = s[++i];
      switch (c) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case '0': out += '\0'; break;
      case '\\':
      case '"':
      case '\'': out += c; break;
      default: {
        SrcRange r = loc;
        r.col += int(i) - 1;
        r.endCol = r.col + 2;
        userError(r, std::string("unknown escape sequence '\\") + c + "'",
                  {{SrcRange{}, "the escapes are \\n \\t \\r \\0 \\\\ \\\" and \\'"}});
      }
      }
    }
    return out;
  }
};

}  // namespace

Program buildAst(ParserRuleContext *program, const std::string &src, int file) {
  auto *p = dynamic_cast<P::ProgramContext *>(program);
  internal_assert(p, "buildAst expects a program context");
  return Builder(src, file).program(p);
}

StmtP buildStmt(ParserRuleContext *stmt, const std::string &src, int file) {
  auto *s = dynamic_cast<P::StmtContext *>(stmt);
  internal_assert(s, "buildStmt expects a stmt context");
  return Builder(src, file).topStmt(s);
}

}  // namespace spmd::front
