// ===- Lower.cpp - values, scopes, statements, blocks and calls ------------------===//
//
// The entry point lowerProgram() and the parts of the AstLowering that give the program its
// structure. Maps live in LowerMaps.cpp, loops and if in LowerControl.cpp, arithmetic and
// indexing in LowerOps.cpp, builtins in Builtins*.cpp, shard_map in ShardMap.cpp.
#include "diag/StackGuard.h"
#include "sema/AstLowering.h"

#include "sema/AxisCheck.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace spmd::sema {
using namespace ast;
using ir::Atom;
using ir::Op;
using ir::Param;

std::string locationText(const SourceManager &sm, SrcRange loc) {
  if (!loc.valid() || loc.file < 0) return "<unknown>";
  return sm.name(loc.file) + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col);
}

// ---- Value ---------------------------------------------------------------------------

bool Value::isStatic() const {
  if (kind == Array || kind == Rendered) return false;
  for (auto &e : elems)
    if (!e->isStatic()) return false;
  return true;
}
ValueP Value::array(Atom a, bool weak) {
  auto v = std::make_shared<Value>();
  v->kind = Array;
  v->atom = a;
  v->weak = weak;
  return v;
}
ValueP Value::integer(int64_t x) {
  auto v = std::make_shared<Value>();
  v->kind = Int;
  v->i = x;
  return v;
}
ValueP Value::floating(double x) {
  auto v = std::make_shared<Value>();
  v->kind = Float;
  v->f = x;
  return v;
}
ValueP Value::boolean(bool x) {
  auto v = std::make_shared<Value>();
  v->kind = Bool;
  v->i = x;
  return v;
}
ValueP Value::string(std::string x) {
  auto v = std::make_shared<Value>();
  v->kind = Str;
  v->s = std::move(x);
  return v;
}
ValueP Value::tuple(std::vector<ValueP> e, bool isList) {
  auto v = std::make_shared<Value>();
  v->kind = Tuple;
  v->elems = std::move(e);
  v->isList = isList;
  return v;
}

std::string describe(const Value &v) {
  switch (v.kind) {
  case Value::Array: return v.type().str();
  case Value::Int: return "static int";
  case Value::Float: return "static float";
  case Value::Bool: return "static bool";
  case Value::Str: return "string";
  case Value::DTypeV: return "dtype";
  case Value::Tuple: return (v.isList ? "list of " : "tuple of ") + std::to_string(v.elems.size());
  case Value::Func: return "function";
  case Value::Rendered: return "rendered string";
  case Value::Mesh: return "mesh";
  }
  return "?";
}

/// A value's type for messages, through tuples: `(f32[2], static float)`.
static std::string typeText(const Value &v) {
  if (v.kind != Value::Tuple) return describe(v);
  std::string s = v.isList ? "[" : "(";
  size_t n = v.elems.size(), shown = v.isList ? std::min<size_t>(n, 4) : n;
  for (size_t k = 0; k < shown; ++k) s += (k ? ", " : "") + typeText(*v.elems[k]);
  if (shown < n) s += ", ... (" + std::to_string(n) + " elements)";
  if (!v.isList && n == 1) s += ",";
  return s + (v.isList ? "]" : ")");
}

/// Whether two values have the same tree of tuples (lists of the same length included).
static bool sameStructure(const Value &a, const Value &b) {
  if ((a.kind == Value::Tuple) != (b.kind == Value::Tuple)) return false;
  if (a.kind != Value::Tuple) return true;
  if (a.elems.size() != b.elems.size()) return false;
  for (size_t k = 0; k < a.elems.size(); ++k)
    if (!sameStructure(*a.elems[k], *b.elems[k])) return false;
  return true;
}

void AstLowering::alignLists(ValueP &old, ValueP &nv, SrcRange oldLoc, SrcRange newLoc) {
  if (old->kind == Value::Array) {
    nv = listAsArray(nv, newLoc);
  } else if (nv->kind == Value::Array) {
    old = listAsArray(old, oldLoc);
  } else if (old->kind == Value::Tuple && nv->kind == Value::Tuple &&
             old->elems.size() == nv->elems.size()) {
    std::vector<ValueP> o = old->elems, n = nv->elems;
    bool changed = false;
    for (size_t k = 0; k < o.size(); ++k) {
      ValueP o0 = o[k], n0 = n[k];
      alignLists(o[k], n[k], oldLoc, newLoc);
      changed |= o[k] != o0 || n[k] != n0;
    }
    if (changed) {
      old = Value::tuple(std::move(o), old->isList);
      nv = Value::tuple(std::move(n), nv->isList);
    }
  }
}

Scope::Binding *Scope::lookup(const std::string &n) {
  for (Scope *s = this; s; s = s->parent.get()) {
    auto it = s->vars.find(n);
    if (it != s->vars.end()) return &it->second;
  }
  return nullptr;
}
AxisP Scope::lookupAxis(const std::string &n) {
  for (Scope *s = this; s; s = s->parent.get()) {
    auto it = s->axes.find(n);
    if (it != s->axes.end()) return it->second;
  }
  return nullptr;
}

// ---- frames -----------------------------------------------------------------------------

AstLowering::AstLowering(const SourceManager &sm_, const LowerOptions &o) : sm(sm_), opts(o) {
  auto f = std::make_unique<Frame>();
  f->b = std::make_unique<ir::Builder>(module, f->jaxpr);
  frames.push_back(std::move(f));
  scope = makeScope();
}

AstLowering::~AstLowering() {
  for (auto &w : scopes)
    if (ScopeP s = w.lock()) s->vars.clear();
}

ScopeP AstLowering::makeScope() {
  if (scopes.size() >= 1024 && scopes.size() == scopes.capacity())  // the REPL: drop dead ones
    std::erase_if(scopes, [](const std::weak_ptr<Scope> &w) { return w.expired(); });
  auto s = std::make_shared<Scope>();
  scopes.push_back(s);
  return s;
}

Frame &AstLowering::pushFrame(bool mapBody) {
  auto f = std::make_unique<Frame>();
  f->level = int(frames.size());
  f->isMapBody = mapBody;
  f->b = std::make_unique<ir::Builder>(module, f->jaxpr);
  f->b->setLoc(b().loc());
  frames.push_back(std::move(f));
  return *frames.back();
}

std::unique_ptr<Frame> AstLowering::popFrame() {
  auto f = std::move(frames.back());
  frames.pop_back();
  return f;
}

bool AstLowering::inMapBody() const {
  for (auto &f : frames)
    if (f->isMapBody) return true;
  return false;
}

bool AstLowering::hostLevel(Atom a) const {
  if (a.isLit) return !inMapBody();
  auto it = varLevel.find(a.var.id);
  if (it == varLevel.end()) return false;
  for (auto &f : frames)
    if (f->isMapBody) return it->second < f->level;
  return true;
}

ir::Var AstLowering::newInvar(ir::Type t) {
  ir::Var v = module.newVar(std::move(t));
  varLevel[v.id] = top().level;
  top().jaxpr.invars.push_back(v);
  return v;
}

Atom AstLowering::local(Atom a) {
  if (a.isLit) return a;
  auto it = varLevel.find(a.var.id);
  internal_assert(it != varLevel.end(), "a variable with no defining frame");
  int lvl = it->second;
  int cur = top().level;
  if (lvl >= cur) return a;
  // Thread the value through every frame between its definition and here.
  Atom outer = a;
  for (int k = lvl + 1; k <= cur; ++k) {
    Frame &f = *frames[k];
    auto c = f.captureMap.find(a.var.id);
    if (c != f.captureMap.end()) {
      outer = c->second;
      continue;
    }
    ir::Var v = module.newVar(a.var.type);
    varLevel[v.id] = k;
    f.captured.push_back(outer);
    f.captureVars.push_back(v);
    f.captureMap[a.var.id] = v;
    if (auto s = shards.find(a.var.id); s != shards.end() && !f.isMapBody) shards[v.id] = s->second;
    outer = v;
  }
  return outer;
}

std::vector<ir::Var> AstLowering::emit(Op op, std::vector<Atom> ins, ir::Params params,
                                       std::vector<ir::Jaxpr> regions) {
  if (!shards.empty() && ins.size() == 1 && regions.empty())
    if (auto r = shardedReduce(op, ins[0], params)) return {r->var};
  if (!shards.empty() && op == Op::DotGeneral && ins.size() == 2 && regions.empty())
    if (auto r = shardedDot(ins[0], ins[1], params)) return {r->var};
  for (auto &a : ins) a = local(a);
  // Note [Sharded host values]: which results stay laid out over devices.
  bool track = (op == Op::Pmap || !shards.empty()) && !inMapBody();
  std::vector<ir::Atom> insCopy;
  ir::Params paramsCopy;
  if (track) insCopy = ins, paramsCopy = params;
  auto outs = b().emit(op, std::move(ins), std::move(params), std::move(regions));
  if (track) trackShards(op, insCopy, paramsCopy, outs);
  for (auto &v : outs) varLevel[v.id] = top().level;
  return outs;
}

std::vector<Atom> AstLowering::inlineJaxpr(const ir::Jaxpr &j, const std::vector<Atom> &args) {
  internal_assert(args.size() == j.invars.size(), "inlining with the wrong number of arguments");
  std::unordered_map<int, Atom> sub;
  for (size_t k = 0; k < args.size(); ++k) sub[j.invars[k].id] = local(args[k]);
  auto map = [&](Atom a) {
    if (a.isLit) return a;
    auto it = sub.find(a.var.id);
    return it == sub.end() ? a : it->second;
  };
  // Note [Sharded host values]: at host level the inlined equations (a gradient's
  // backward pass) are tracked as emitted ones are, and a division of a sharded array in
  // one-element blocks divides exactly: the transpose of `v / s` is `g / s`,
  // exact in JAX where the cotangent g is sharded (sum(v / s * (w * mv))), through the
  // reciprocal where it is not (sum(v / s * w)).
  bool host = !inMapBody() && pmapStack.empty();
  for (auto &e : j.eqns) {
    ir::Eqn c = e;
    for (auto &a : c.in) a = map(a);
    for (auto &v : c.out) varLevel[v.id] = top().level;
    // Its reductions and products of sharded values are partitioned too (the sum over
    // the batch that gives the gradient of a broadcast w in sum(tanh(xs * w))).
    if (host && !shards.empty() && c.regions.empty() && c.out.size() == 1) {
      std::optional<Atom> r;
      if (c.in.size() == 1) r = shardedReduce(c.op, c.in[0], c.params);
      if (c.in.size() == 2 && c.op == Op::DotGeneral) r = shardedDot(c.in[0], c.in[1], c.params);
      if (r) {
        sub[e.out[0].id] = *r;
        continue;
      }
    }
    if (host && !shards.empty() && c.op == Op::Div && c.in.size() == 2 && !c.has("_exact")) {
      const Shard *sh = shardOf(c.in[0]) ? shardOf(c.in[0]) : shardOf(c.in[1]);
      if (sh && ir::isFloat(c.out[0].type.dtype) && c.in[0].type().numel() == sh->devices())
        c.params["_exact"] = Param::of(int64_t(1));
    }
    std::vector<Atom> ins = c.in;
    ir::Params ps = c.params;
    std::vector<ir::Var> outs = c.out;
    top().jaxpr.eqns.push_back(std::move(c));
    // Not the backward pass's pmaps: a transposed pmap's stacked cotangents for a
    // broadcast input are summed here, where JAX psums them inside it.
    if (host && !shards.empty() && e.op != Op::Pmap) trackShards(e.op, ins, ps, outs);
  }
  std::vector<Atom> outs;
  for (auto &a : j.outvars) outs.push_back(map(a));
  return outs;
}

// ---- program and statements ------------------------------------------------------------

ir::Module AstLowering::run(const Program &p) {
  for (auto &s : p.stmts) stmt(*s);
  module.main = std::move(frames[0]->jaxpr);
  return std::move(module);
}

void AstLowering::bindPattern(const Pattern &p, ValueP v, bool mutable_, SrcRange loc) {
  switch (p.kind) {
  case Pattern::Wildcard: return;
  case Pattern::Name: scope->vars[p.name.name] = Scope::Binding{v, mutable_, p.loc}; return;
  case Pattern::Tuple:
    if (v->kind != Value::Tuple)
      userError(p.loc, "cannot destructure a " + describe(*v) + " into a tuple of " +
                           std::to_string(p.elems.size()));
    if (v->elems.size() != p.elems.size())
      userError(p.loc, "this pattern has " + std::to_string(p.elems.size()) +
                           " elements but the value has " + std::to_string(v->elems.size()));
    for (size_t k = 0; k < p.elems.size(); ++k) bindPattern(p.elems[k], v->elems[k], mutable_, loc);
    return;
  }
}

ValueP AstLowering::stmt(const Stmt &s) {
  checkStack(s.loc, "statements and calls");  // Note [Stack guard]
  b().setLoc(s.loc);
  switch (s.kind) {
  case StmtKind::Let: {
    auto *l = s.as<LetStmt>();
    bindPattern(l->pattern, expr(*l->value), false, l->loc);
    return nullptr;
  }
  case StmtKind::Var: {
    auto *v = s.as<VarStmt>();
    scope->vars[v->name.name] = Scope::Binding{expr(*v->value), true, v->name.loc};
    return nullptr;
  }
  case StmtKind::Assign: {
    auto *a = s.as<AssignStmt>();
    Scope::Binding *bd = scope->lookup(a->name.name);
    if (!bd)
      userError(a->name.loc, "assignment to '" + a->name.name +
                                 "', which is not declared (use 'var " + a->name.name + " = ...')");
    if (!bd->mutable_)
      userError(a->name.loc, "cannot assign to '" + a->name.name + "': it was bound with 'let'",
                {{bd->loc, "declare it with 'var' to make it mutable"}});
    ValueP nv = expr(*a->value);
    bd = scope->lookup(a->name.name);
    // Note [Vars of lists]: a list of numbers meeting an array is that array, leaf by
    // leaf of a tuple.
    ValueP old = bd->value;
    alignLists(old, nv, bd->loc, a->value->loc);
    // The type of a var is fixed by its declaration (so loops can carry it).
    std::vector<ValueP> oldL, newL;
    leaves(old, oldL);
    leaves(nv, newL);
    bool same = oldL.size() == newL.size() && sameStructure(*old, *nv);
    for (size_t k = 0; same && k < oldL.size(); ++k) {
      bool oa = oldL[k]->kind == Value::Array, na = newL[k]->kind == Value::Array;
      if (oa && na) same = oldL[k]->type() == newL[k]->type();
    }
    if (!same)
      userError(a->value->range.valid() ? a->value->range : a->loc,
                "cannot assign a value of type " + typeText(*nv) + " to '" + a->name.name +
                    "', a var of type " + typeText(*old),
                {{bd->loc, "declared here; a var keeps the type it was declared with"}});
    bd->value = old;
    bd->value = nv;
    return nullptr;
  }
  case StmtKind::Fn: {
    auto *f = s.as<FnStmt>();
    auto v = std::make_shared<Value>();
    v->kind = Value::Func;
    v->fkind = Value::Closure;
    v->lambda = f->fn.get();
    v->fname = f->name.name;
    // A function sees itself only through its defining scope; recursion is rejected at the call.
    auto sc = makeScope();
    sc->parent = scope;
    scope = sc;
    v->env = scope;
    scope->vars[f->name.name] = Scope::Binding{v, false, f->name.loc};
    return nullptr;
  }
  case StmtKind::For: forStmt(*s.as<ForStmt>()); return nullptr;
  case StmtKind::Expr: return expr(*s.as<ExprStmt>()->expr);
  }
  return nullptr;
}

ValueP AstLowering::block(const BlockExpr &bl, bool newScope) {
  ScopeP saved = scope;
  if (newScope) {
    auto sc = makeScope();
    sc->parent = scope;
    scope = sc;
  }
  ValueP last;
  for (size_t k = 0; k < bl.stmts.size(); ++k) {
    ValueP v = stmt(*bl.stmts[k]);
    last = bl.stmts[k]->kind == StmtKind::Expr ? v : nullptr;
  }
  scope = saved;
  return last ? last : Value::tuple({});
}

// ---- axes -----------------------------------------------------------------------------

AxisP AstLowering::axis(const std::string &name, SrcRange loc) {
  AxisP a = scope->lookupAxis(name);
  if (!a) userError(loc, "axis '" + name + "' is not bound here");
  return a;
}

// Note [Repeated collective axes]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A collective's axes name each axis once: `psum(x, (i, i))` is a ValueError in JAX
// ("repeated axis in `source` argument" under pmap, "duplicate value in 'axes'" under
// vmap), and spmdrun summed over i once. An error at the second mention, which also
// catches an axis passed twice under two names (`f[i, i]` of `fn f[a, b]` whose body
// sums over `(a, b)`): the note then says which axis it is.
std::vector<AxisP> AstLowering::axesOf(const Expr &e) {
  std::vector<AxisP> r;
  std::vector<const NameExpr *> at;
  std::function<void(const Expr &)> collect = [&](const Expr &x) {
    if (auto *n = x.as<NameExpr>()) {
      AxisP a = axis(n->name, n->loc);
      for (size_t k = 0; k < r.size(); ++k)
        if (r[k] == a)
          userError(n->loc, "axis '" + a->name + "' is named twice in this collective's axes",
                    {{at[k]->loc, at[k]->name == n->name
                                      ? "first named here"
                                      : "first named here: '" + at[k]->name + "' and '" +
                                            n->name + "' are both axis '" + a->name + "'"}});
      r.push_back(a);
      at.push_back(n);
      return;
    }
    const std::vector<ExprP> *elems = nullptr;
    if (auto *t = x.as<TupleLitExpr>())
      elems = &t->elems;
    else if (auto *t = x.as<ArrayLitExpr>())
      elems = &t->elems;
    if (!elems) userError(x.loc, "expected an axis name or a tuple of axis names");
    for (auto &y : *elems) collect(*y);
  };
  collect(e);
  return r;
}

// ---- calls -----------------------------------------------------------------------------

ValueP AstLowering::call(const CallExpr &c) {
  std::vector<AxisP> axes;
  for (auto &a : c.axes) axes.push_back(axis(a.name, a.loc));
  // Builtins that take axis arguments see them unevaluated.
  if (auto *n = c.callee->as<NameExpr>()) {
    Scope::Binding *bd = scope->lookup(n->name);
    if (!bd && isBuiltin(n->name)) {
      std::vector<ArgV> args;
      int pos = 0;
      for (auto &a : c.args) {
        ArgV av;
        av.expr = a.value.get();
        av.loc = a.value->loc;
        if (a.keyword) av.keyword = a.keyword->name, av.keywordLoc = a.keyword->loc;
        BuiltinArg kind = builtinArgKind(n->name, a.keyword ? -1 : pos, av.keyword);
        if (!a.keyword) ++pos;
        if (kind == BuiltinArg::Unknown) {
          av.value = Value::tuple({});  // never read: binding the call reports the keyword
        } else if (kind == BuiltinArg::Axes) {
          // Axis arguments become a tuple of axis names (Str values).
          std::vector<ValueP> names;
          for (auto &ax : axesOf(*a.value)) {
            auto s = std::make_shared<Value>();
            s->kind = Value::Str;
            s->s = ax->name;
            s->i = ax->size;
            names.push_back(s);
          }
          av.value = Value::tuple(names);
          auto mark = std::make_shared<Value>(*av.value);
          mark->s2 = "axes";
          av.value = mark;
        } else {
          av.value = expr(*a.value);
        }
        args.push_back(std::move(av));
      }
      b().setLoc(c.loc);
      return builtin(n->name, args, axes, c.loc);
    }
    if (!bd) userError(n->loc, "unknown name '" + n->name + "'");
  }
  ValueP f = expr(*c.callee);
  std::vector<ArgV> args;
  for (auto &a : c.args) {
    ArgV av;
    av.expr = a.value.get();
    av.loc = a.value->loc;
    if (a.keyword) av.keyword = a.keyword->name, av.keywordLoc = a.keyword->loc;
    av.value = expr(*a.value);
    args.push_back(std::move(av));
  }
  b().setLoc(c.loc);
  return callValue(f, std::move(args), axes, c.loc);
}

ValueP AstLowering::callValue(ValueP f, std::vector<ArgV> args, const std::vector<AxisP> &axes,
                              SrcRange loc) {
  if (f->kind != Value::Func)
    userError(loc, "a " + describe(*f) + " is not a function and cannot be called");
  switch (f->fkind) {
  case Value::Closure: return callClosure(*f, std::move(args), axes, loc);
  case Value::Builtin: return builtin(f->fname, args, axes, loc);
  case Value::Grad: return gradCall(*f, std::move(args), loc);
  }
  return nullptr;
}

/// A type annotation as written: `f32[n, 2]`, `f32`.
static std::string annText(const TypeAnn &t) {
  std::string s = t.dtype.name;
  if (!t.hasShape) return s;
  s += "[";
  for (size_t d = 0; d < t.dims.size(); ++d) {
    const TypeAnn::Dim &dim = t.dims[d];
    s += (d ? ", " : "") + (dim.isName ? dim.name.name : std::to_string(dim.value));
  }
  return s + "]";
}

/// An array, a static number or bool, or a static list (an array literal): what a typed
/// parameter or result can be.
static bool isArrayLike(const Value &v) {
  return v.kind == Value::Array || v.kind == Value::Int || v.kind == Value::Float ||
         v.kind == Value::Bool || (v.kind == Value::Tuple && v.isList);
}

ValueP AstLowering::callClosure(const Value &f, std::vector<ArgV> args,
                                const std::vector<AxisP> &axes, SrcRange loc) {
  const LambdaExpr &l = *f.lambda;
  std::string fname = f.fname.empty() ? "the anonymous function" : "'" + f.fname + "'";
  if (std::find(callStack.begin(), callStack.end(), &l) != callStack.end())
    userError(loc, "recursive call of " + fname + ": functions may not call themselves");
  checkStack(loc, "function calls");  // Note [Stack guard]
  // Note [Keyword arguments of user functions]: as in Python, `f(3.0, y=1.0)` and
  // `f(y=1.0, x=3.0)` bind by parameter name after the positional arguments (a
  // positional one after a keyword is an error, as Python's SyntaxError); a name that is
  // no parameter, one given twice and one left out are errors with Python's words.
  if (std::any_of(args.begin(), args.end(), [](const ArgV &a) { return !a.keyword.empty(); })) {
    std::vector<ArgV> byParam(l.params.size());
    for (size_t k = 1; k < args.size(); ++k)
      if (args[k].keyword.empty() && !args[k - 1].keyword.empty())
        userError(args[k].loc, "positional argument follows keyword argument",
                  {{args[k - 1].keywordLoc, "the keyword argument"}});
    size_t pos = 0;
    for (size_t k = 0; k < args.size(); ++k) {
      ArgV &a = args[k];
      if (a.keyword.empty()) {
        if (pos >= l.params.size()) break;  // too many: the count below says so
        byParam[pos++] = std::move(a);
        continue;
      }
      size_t p = 0;
      while (p < l.params.size() && l.params[p].name.name != a.keyword) ++p;
      if (p == l.params.size() || a.keyword == "_") {
        std::string ps;
        for (auto &q : l.params) ps += (ps.empty() ? "" : ", ") + q.name.name;
        userError(a.keywordLoc, fname + " has no parameter named '" + a.keyword + "'",
                  {{l.loc, "its parameters are: " + (ps.empty() ? "none" : ps)}});
      }
      if (byParam[p].value)
        userError(a.keywordLoc,
                  fname + " got multiple values for argument '" + a.keyword + "'");
      byParam[p] = std::move(a);
      byParam[p].keyword.clear();
    }
    if (pos + std::count_if(byParam.begin() + pos, byParam.end(),
                            [](const ArgV &a) { return bool(a.value); }) ==
        args.size())
      for (size_t p = 0; p < byParam.size(); ++p)
        if (!byParam[p].value)
          userError(loc, fname + " is missing its argument '" + l.params[p].name.name + "'");
    if (byParam.size() == args.size()) args = std::move(byParam);
  }
  if (args.size() != l.params.size())
    userError(loc, fname + " takes " + std::to_string(l.params.size()) + " argument" +
                       (l.params.size() == 1 ? "" : "s") + " but " + std::to_string(args.size()) +
                       (args.size() == 1 ? " was given" : " were given"));
  if (axes.size() != l.axisParams.size()) {
    if (l.axisParams.empty()) userError(loc, fname + " takes no axis arguments");
    userError(loc, fname + " takes " + std::to_string(l.axisParams.size()) + " axis argument" +
                       (l.axisParams.size() == 1 ? "" : "s") + " ([" + l.axisParams[0].name +
                       "...]) but " + std::to_string(axes.size()) +
                       (axes.size() == 1 ? " was given" : " were given"));
  }
  if (axes.empty()) {
    auto &rec = lastCallArgs[&l];
    rec.clear();
    for (auto &a : args) rec.push_back(a.value);
  }
  auto sc = makeScope();
  sc->parent = f.env;
  sc->isFunctionBoundary = true;
  for (size_t k = 0; k < axes.size(); ++k) sc->axes[l.axisParams[k].name] = axes[k];
  // The sizes the parameters' types bind (`fn f(w: f32[n, m])`): names of their own, not
  // parameters (`fn f(n, x: f32[n])` would read the parameter as a size).
  std::map<std::string, int64_t> sizes;
  auto checkSizeName = [&](const TypeAnn::Dim &dim) {
    for (const ast::Param &q : l.params)
      if (q.name.name == dim.name.name)
        userError(dim.name.loc, "size '" + dim.name.name + "' has the name of a parameter of " +
                                    fname + "; a size needs a name of its own");
  };
  for (size_t k = 0; k < args.size(); ++k) {
    const ast::Param &p = l.params[k];
    if (p.type) {
      const TypeAnn &t = *p.type;
      ValueP v = args[k].value;
      if (!isArrayLike(*v))
        userError(args[k].loc,
                  "argument '" + p.name.name + "' of " + fname + " must be " + annText(t) +
                      " but is " + typeText(*v),
                  {{t.loc, "declared here"}});
      if (v->kind != Value::Array) v = toArray(v, args[k].loc);
      ir::Type ty = v->type();
      if (std::string(ir::name(ty.dtype)) != t.dtype.name)
        userError(args[k].loc,
                  "argument '" + p.name.name + "' of " + fname + " must be " + t.dtype.name +
                      " but is " + ty.str(),
                  {{t.loc, "declared here"}});
      if (t.hasShape) {
        if (int(t.dims.size()) != ty.rank())
          userError(args[k].loc,
                    "argument '" + p.name.name + "' of " + fname + " must have rank " +
                        std::to_string(t.dims.size()) + " but is " + ty.str(),
                    {{t.loc, "declared here"}});
        for (size_t d = 0; d < t.dims.size(); ++d) {
          auto &dim = t.dims[d];
          if (!dim.isName) {
            if (dim.value != ty.shape[d])
              userError(args[k].loc,
                        "argument '" + p.name.name + "' of " + fname + " has size " +
                            std::to_string(ty.shape[d]) + " in dimension " + std::to_string(d) +
                            " but " + std::to_string(dim.value) + " is declared",
                        {{t.loc, "declared here"}});
          } else if (checkSizeName(dim); sizes.count(dim.name.name)) {
            if (sizes[dim.name.name] != ty.shape[d])
              userError(args[k].loc,
                        "size '" + dim.name.name + "' is " + std::to_string(sizes[dim.name.name]) +
                            " from an earlier argument but " + std::to_string(ty.shape[d]) +
                            " here",
                        {{t.loc, "declared here"}});
          } else {
            sizes[dim.name.name] = ty.shape[d];
            sc->vars[dim.name.name] =
                Scope::Binding{Value::integer(ty.shape[d]), false, dim.name.loc};
          }
        }
      }
    }
    sc->vars[p.name.name] = Scope::Binding{args[k].value, false, p.name.loc};
  }
  ScopeP saved = scope;
  scope = sc;
  callStack.push_back(&l);
  ValueP r;
  try {
    if (auto *bl = l.body->as<BlockExpr>())
      r = block(*bl, false);
    else
      r = expr(*l.body);
  } catch (...) {
    scope = saved;
    callStack.pop_back();
    throw;
  }
  scope = saved;
  callStack.pop_back();
  if (l.result) {
    if (!isArrayLike(*r))
      userError(loc, fname + " returns " + typeText(*r) + ", not " + annText(*l.result),
                {{l.result->loc, "declared here"}});
    ValueP v = r->kind == Value::Array ? r : toArray(r, l.body->loc);
    const TypeAnn &t = *l.result;
    ir::Type ty = v->type();
    auto wrong = [&](const std::string &why) {
      userError(loc, fname + " returns " + ty.str() + ", " + why, {{t.loc, "declared here"}});
    };
    if (std::string(ir::name(ty.dtype)) != t.dtype.name)
      userError(t.loc, fname + " returns " + ty.str() + ", not " + t.dtype.name);
    if (t.hasShape) {
      // The result's shape is checked as the arguments' are; its size names must be bound
      // by the parameters' types.
      if (int(t.dims.size()) != ty.rank()) wrong("not of rank " + std::to_string(t.dims.size()));
      for (size_t d = 0; d < t.dims.size(); ++d) {
        auto &dim = t.dims[d];
        int64_t want = dim.value;
        if (dim.isName) {
          auto it = sizes.find(dim.name.name);
          if (it == sizes.end())
            userError(dim.name.loc, "size '" + dim.name.name + "' in the result type of " + fname +
                                        " is not bound by a parameter's type");
          want = it->second;
        }
        if (want != ty.shape[d])
          wrong("which has size " + std::to_string(ty.shape[d]) + " in dimension " +
                std::to_string(d) + " where the declared type has " +
                (dim.isName ? "'" + dim.name.name + "' = " : "") + std::to_string(want));
      }
    }
  }
  return r;
}

// ---- entry ---------------------------------------------------------------------------------

ir::Module lowerProgram(const SourceManager &sm, const Program &p, const LowerOptions &o) {
  AstLowering l(sm, o);
  ir::Module m = l.run(p);
  for (int f = 0; sm.valid(f); ++f) m.fileNames.push_back(sm.name(f));
  return m;
}

}  // namespace spmd::sema
