// ===- Lower.cpp - statements, scopes, functions, blocks, maps and loops -------===//
//
// The entry point lowerProgram() and the parts of the Lowering that give the program its
// structure. Arithmetic and indexing live in LowerOps.cpp, builtins in Builtins.cpp.
#include "sema/Lowering.h"

#include "sema/AxisCheck.h"

#include <algorithm>
#include <functional>
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
ValueP Value::array(Atom a, bool weak) { auto v = std::make_shared<Value>(); v->kind = Array; v->atom = a; v->weak = weak; return v; }
ValueP Value::integer(int64_t x) { auto v = std::make_shared<Value>(); v->kind = Int; v->i = x; return v; }
ValueP Value::floating(double x) { auto v = std::make_shared<Value>(); v->kind = Float; v->f = x; return v; }
ValueP Value::boolean(bool x) { auto v = std::make_shared<Value>(); v->kind = Bool; v->i = x; return v; }
ValueP Value::string(std::string x) { auto v = std::make_shared<Value>(); v->kind = Str; v->s = std::move(x); return v; }
ValueP Value::tuple(std::vector<ValueP> e, bool isList) {
  auto v = std::make_shared<Value>(); v->kind = Tuple; v->elems = std::move(e); v->isList = isList; return v;
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

Lowering::Lowering(const SourceManager &sm_, const LowerOptions &o) : sm(sm_), opts(o) {
  auto f = std::make_unique<Frame>();
  f->b = std::make_unique<ir::Builder>(module, f->jaxpr);
  frames.push_back(std::move(f));
  scope = makeScope();
}

Lowering::~Lowering() {
  for (auto &w : scopes)
    if (ScopeP s = w.lock()) s->vars.clear();
}

ScopeP Lowering::makeScope() {
  if (scopes.size() >= 1024 && scopes.size() == scopes.capacity())  // the REPL: drop dead ones
    std::erase_if(scopes, [](const std::weak_ptr<Scope> &w) { return w.expired(); });
  auto s = std::make_shared<Scope>();
  scopes.push_back(s);
  return s;
}

Frame &Lowering::pushFrame(bool mapBody) {
  auto f = std::make_unique<Frame>();
  f->level = int(frames.size());
  f->isMapBody = mapBody;
  f->b = std::make_unique<ir::Builder>(module, f->jaxpr);
  f->b->setLoc(b().loc());
  frames.push_back(std::move(f));
  return *frames.back();
}

std::unique_ptr<Frame> Lowering::popFrame() {
  auto f = std::move(frames.back());
  frames.pop_back();
  return f;
}

bool Lowering::inMapBody() const {
  for (auto &f : frames)
    if (f->isMapBody) return true;
  return false;
}

ir::Var Lowering::newInvar(ir::Type t) {
  ir::Var v = module.newVar(std::move(t));
  varLevel[v.id] = top().level;
  top().jaxpr.invars.push_back(v);
  return v;
}

Atom Lowering::local(Atom a) {
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
    if (c != f.captureMap.end()) { outer = c->second; continue; }
    ir::Var v = module.newVar(a.var.type);
    varLevel[v.id] = k;
    f.captured.push_back(outer);
    f.captureVars.push_back(v);
    f.captureMap[a.var.id] = v;
    outer = v;
  }
  return outer;
}

std::vector<ir::Var> Lowering::emit(Op op, std::vector<Atom> ins, ir::Params params, std::vector<ir::Jaxpr> regions) {
  for (auto &a : ins) a = local(a);
  auto outs = b().emit(op, std::move(ins), std::move(params), std::move(regions));
  for (auto &v : outs) varLevel[v.id] = top().level;
  return outs;
}

std::vector<Atom> Lowering::inlineJaxpr(const ir::Jaxpr &j, const std::vector<Atom> &args) {
  internal_assert(args.size() == j.invars.size(), "inlining with the wrong number of arguments");
  std::unordered_map<int, Atom> sub;
  for (size_t k = 0; k < args.size(); ++k) sub[j.invars[k].id] = local(args[k]);
  auto map = [&](Atom a) {
    if (a.isLit) return a;
    auto it = sub.find(a.var.id);
    return it == sub.end() ? a : it->second;
  };
  for (auto &e : j.eqns) {
    ir::Eqn c = e;
    for (auto &a : c.in) a = map(a);
    for (auto &v : c.out) varLevel[v.id] = top().level;
    top().jaxpr.eqns.push_back(std::move(c));
  }
  std::vector<Atom> outs;
  for (auto &a : j.outvars) outs.push_back(map(a));
  return outs;
}

// ---- program and statements ------------------------------------------------------------

ir::Module Lowering::run(const Program &p) {
  for (auto &s : p.stmts) stmt(*s);
  module.main = std::move(frames[0]->jaxpr);
  return std::move(module);
}

void Lowering::bindPattern(const Pattern &p, ValueP v, bool mutable_, SrcRange loc) {
  switch (p.kind) {
  case Pattern::Wildcard: return;
  case Pattern::Name:
    scope->vars[p.name.name] = Scope::Binding{v, mutable_, p.loc};
    return;
  case Pattern::Tuple:
    if (v->kind != Value::Tuple)
      userError(p.loc, "cannot destructure a " + describe(*v) + " into a tuple of " + std::to_string(p.elems.size()));
    if (v->elems.size() != p.elems.size())
      userError(p.loc, "this pattern has " + std::to_string(p.elems.size()) + " elements but the value has " +
                           std::to_string(v->elems.size()));
    for (size_t k = 0; k < p.elems.size(); ++k) bindPattern(p.elems[k], v->elems[k], mutable_, loc);
    return;
  }
}

ValueP Lowering::stmt(const Stmt &s) {
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
    if (!bd) userError(a->name.loc, "assignment to '" + a->name.name + "', which is not declared (use 'var " + a->name.name + " = ...')");
    if (!bd->mutable_)
      userError(a->name.loc, "cannot assign to '" + a->name.name + "': it was bound with 'let'",
                {{bd->loc, "declare it with 'var' to make it mutable"}});
    ValueP nv = expr(*a->value);
    bd = scope->lookup(a->name.name);
    // The type of a var is fixed by its declaration (so loops can carry it).
    std::vector<ValueP> oldL, newL;
    leaves(bd->value, oldL);
    leaves(nv, newL);
    bool same = oldL.size() == newL.size();
    for (size_t k = 0; same && k < oldL.size(); ++k) {
      bool oa = oldL[k]->kind == Value::Array, na = newL[k]->kind == Value::Array;
      if (oa && na) same = oldL[k]->type() == newL[k]->type();
    }
    if (!same)
      userError(a->value->range.valid() ? a->value->range : a->loc,
                "cannot assign a value of type " + describe(*nv) + " to '" + a->name.name + "' of type " +
                    describe(*bd->value));
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

ValueP Lowering::block(const BlockExpr &bl, bool newScope) {
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

AxisP Lowering::axis(const std::string &name, SrcRange loc) {
  AxisP a = scope->lookupAxis(name);
  if (!a) userError(loc, "axis '" + name + "' is not bound here");
  return a;
}

std::vector<AxisP> Lowering::axesOf(const Expr &e) {
  if (auto *n = e.as<NameExpr>()) return {axis(n->name, n->loc)};
  std::vector<AxisP> r;
  const std::vector<ExprP> *elems = nullptr;
  if (auto *t = e.as<TupleLitExpr>()) elems = &t->elems;
  else if (auto *t = e.as<ArrayLitExpr>()) elems = &t->elems;
  if (!elems) userError(e.loc, "expected an axis name or a tuple of axis names");
  for (auto &x : *elems)
    for (auto &a : axesOf(*x)) r.push_back(a);
  return r;
}

// ---- calls -----------------------------------------------------------------------------

ValueP Lowering::call(const CallExpr &c) {
  std::vector<AxisP> axes;
  for (auto &a : c.axes) axes.push_back(axis(a.name, a.loc));
  // Builtins that take axis arguments see them unevaluated.
  if (auto *n = c.callee->as<NameExpr>()) {
    Scope::Binding *bd = scope->lookup(n->name);
    if (!bd && isBuiltin(n->name)) {
      int axisArg = axisArgumentIndex(n->name);
      std::vector<ArgV> args;
      int pos = 0;
      for (auto &a : c.args) {
        ArgV av;
        av.expr = a.value.get();
        av.loc = a.value->loc;
        if (a.keyword) av.keyword = a.keyword->name, av.keywordLoc = a.keyword->loc;
        bool isAxis = a.keyword ? (axisArg >= 0 && (av.keyword == "axis_name" || av.keyword == "axes"))
                                : pos++ == axisArg;
        if (isAxis) {
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

ValueP Lowering::callValue(ValueP f, std::vector<ArgV> args, const std::vector<AxisP> &axes, SrcRange loc) {
  if (f->kind != Value::Func) userError(loc, "a " + describe(*f) + " is not a function and cannot be called");
  switch (f->fkind) {
  case Value::Closure: return callClosure(*f, std::move(args), axes, loc);
  case Value::Builtin: return builtin(f->fname, args, axes, loc);
  case Value::Grad: return gradCall(*f, std::move(args), loc);
  }
  return nullptr;
}

ValueP Lowering::callClosure(const Value &f, std::vector<ArgV> args, const std::vector<AxisP> &axes, SrcRange loc) {
  const LambdaExpr &l = *f.lambda;
  std::string fname = f.fname.empty() ? "the anonymous function" : "'" + f.fname + "'";
  if (std::find(callStack.begin(), callStack.end(), &l) != callStack.end())
    userError(loc, "recursive call of " + fname + ": functions may not call themselves");
  for (auto &a : args)
    if (!a.keyword.empty()) userError(a.keywordLoc, "keyword arguments are not supported in calls of user functions");
  if (args.size() != l.params.size())
    userError(loc, fname + " takes " + std::to_string(l.params.size()) + " argument" +
                       (l.params.size() == 1 ? "" : "s") + " but " + std::to_string(args.size()) +
                       (args.size() == 1 ? " was given" : " were given"));
  if (axes.size() != l.axisParams.size()) {
    if (l.axisParams.empty()) userError(loc, fname + " takes no axis arguments");
    userError(loc, fname + " takes " + std::to_string(l.axisParams.size()) + " axis argument" +
                       (l.axisParams.size() == 1 ? "" : "s") + " ([" + l.axisParams[0].name + "...]) but " +
                       std::to_string(axes.size()) + (axes.size() == 1 ? " was given" : " were given"));
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
  for (size_t k = 0; k < args.size(); ++k) {
    const ast::Param &p = l.params[k];
    if (p.type) {
      const TypeAnn &t = *p.type;
      ValueP v = args[k].value;
      if (v->kind != Value::Array) v = toArray(v, args[k].loc);
      ir::Type ty = v->type();
      if (std::string(ir::name(ty.dtype)) != t.dtype.name)
        userError(args[k].loc, "argument '" + p.name.name + "' of " + fname + " must be " + t.dtype.name +
                                   " but is " + ty.str(), {{t.loc, "declared here"}});
      if (t.hasShape) {
        if (int(t.dims.size()) != ty.rank())
          userError(args[k].loc, "argument '" + p.name.name + "' of " + fname + " must have rank " +
                                     std::to_string(t.dims.size()) + " but is " + ty.str(), {{t.loc, "declared here"}});
        for (size_t d = 0; d < t.dims.size(); ++d) {
          auto &dim = t.dims[d];
          if (!dim.isName) {
            if (dim.value != ty.shape[d])
              userError(args[k].loc, "argument '" + p.name.name + "' of " + fname + " has size " +
                                         std::to_string(ty.shape[d]) + " in dimension " + std::to_string(d) +
                                         " but " + std::to_string(dim.value) + " is declared", {{t.loc, "declared here"}});
          } else if (auto it = sc->vars.find(dim.name.name); it != sc->vars.end()) {
            if (it->second.value->i != ty.shape[d])
              userError(args[k].loc, "size '" + dim.name.name + "' is " + std::to_string(it->second.value->i) +
                                         " from an earlier argument but " + std::to_string(ty.shape[d]) + " here",
                        {{t.loc, "declared here"}});
          } else {
            sc->vars[dim.name.name] = Scope::Binding{Value::integer(ty.shape[d]), false, dim.name.loc};
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
    if (auto *bl = l.body->as<BlockExpr>()) r = block(*bl, false);
    else r = expr(*l.body);
  } catch (...) {
    scope = saved;
    callStack.pop_back();
    throw;
  }
  scope = saved;
  callStack.pop_back();
  if (l.result) {
    ValueP v = r->kind == Value::Array ? r : toArray(r, l.body->loc);
    if (std::string(ir::name(v->type().dtype)) != l.result->dtype.name)
      userError(l.result->loc, fname + " returns " + v->type().str() + ", not " + l.result->dtype.name);
  }
  return r;
}

// ---- pmap and vmap ------------------------------------------------------------------

ValueP Lowering::mapExpr(const MapExpr &m) {
  const char *kw = m.isPmap ? "pmap" : "vmap";
  std::vector<ValueP> mappedLeaves;   // per binding leaves
  std::vector<int64_t> leafAxis;
  std::vector<std::pair<ValueP, int64_t>> bindingVals;  // (value, along)
  int64_t size = -1;
  SrcRange firstLoc;
  for (auto &bd : m.bindings) {
    ValueP v = expr(*bd.source);
    // A static list is an array here; a tuple maps each of its leaves.
    std::function<ValueP(ValueP)> lists = [&](ValueP x) -> ValueP {
      if (x->kind != Value::Tuple) return x;
      if (x->isList) return toArray(x, bd.source->loc);
      std::vector<ValueP> e;
      for (auto &y : x->elems) e.push_back(lists(y));
      return Value::tuple(e);
    };
    v = lists(v);
    int64_t along = bd.along ? staticInt(expr(*bd.along), bd.along->loc, "an 'along' axis") : 0;
    std::vector<ValueP> ls;
    leaves(v, ls);
    std::vector<ValueP> arrs;
    for (auto &l : ls) {
      ValueP a = l->kind == Value::Array ? l : toArray(l, bd.source->loc);
      int64_t r = a->type().rank();
      int64_t ax = along < 0 ? along + r : along;
      if (ax < 0 || ax >= r)
        userError(bd.source->loc, std::string("cannot map over axis ") + std::to_string(along) + " of a value of type " +
                                      a->type().str());
      int64_t n = a->type().shape[ax];
      if (size < 0) { size = n; firstLoc = bd.source->loc; }
      else if (n != size)
        userError(bd.source->loc, std::string("mapped inputs disagree on the size of the mapped axis: ") +
                                      std::to_string(size) + " and " + std::to_string(n),
                  {{firstLoc, "the first mapped input has size " + std::to_string(size)}});
      mappedLeaves.push_back(a);
      leafAxis.push_back(ax);
      arrs.push_back(a);
    }
    size_t pos = 0;
    bindingVals.push_back({fromLeaves(*v, arrs, pos), along});
  }
  if (size < 0) userError(m.loc, std::string(kw) + " needs at least one mapped input");
  if (m.isPmap && pmapStack.size() >= 8)  // a launch's mesh has at most 8 axes (runtime/Device.h)
    userError(m.loc, "pmap nested too deeply: at most 8 pmaps may nest");
  if (m.isPmap && size == 0)  // as jax.pmap: no devices to run on
    userError(m.loc, "pmap over axis '" + m.axis->name + "' of size 0", {{SrcRange{}, "a pmap needs at least one device; vmap maps over an empty axis"}});
  if (m.isPmap) {
    int64_t need = size;
    for (auto &a : pmapStack) need *= a->size;
    if (need > opts.deviceCount)
      userError(m.loc, "pmap over axis '" + m.axis->name + "' needs " + std::to_string(need) + " devices, but only " +
                           std::to_string(opts.deviceCount) + " are available",
                {{SrcRange{}, "run with " + opts.devicesFlagHint + " (N >= " + std::to_string(need) +
                                  ") to use more logical devices"}});
  }
  auto ax = std::make_shared<AxisInfo>();
  ax->name = m.axis ? m.axis->name : "_";
  ax->anonymous = !m.axis;
  ax->size = size;
  ax->isPmap = m.isPmap;

  // The body: a new frame whose invars are the per-replica slices.
  std::vector<Atom> ins;
  for (auto &l : mappedLeaves) ins.push_back(local(l->atom));
  pushFrame(true);
  std::vector<ir::Var> sliceVars;
  std::vector<ValueP> sliceVals;
  for (size_t k = 0; k < mappedLeaves.size(); ++k) {
    ir::Type t = mappedLeaves[k]->type();
    t.shape.erase(t.shape.begin() + leafAxis[k]);
    sliceVals.push_back(Value::array(newInvar(t), mappedLeaves[k]->weak));
  }
  ScopeP saved = scope;
  scope = makeScope();
  scope->parent = saved;
  if (m.axis) scope->axes[m.axis->name] = ax;
  size_t pos = 0;
  for (size_t k = 0; k < m.bindings.size(); ++k) {
    ValueP v = fromLeaves(*bindingVals[k].first, sliceVals, pos);
    bindPattern(m.bindings[k].pattern, v, false, m.bindings[k].pattern.loc);
  }
  if (m.isPmap) pmapStack.push_back(ax);
  if (m.axis) axisStack.push_back(ax);
  ValueP result;
  try {
    result = block(*m.body->as<BlockExpr>(), false);
  } catch (...) {
    scope = saved;
    if (m.isPmap) pmapStack.pop_back();
    if (m.axis) axisStack.pop_back();
    popFrame();
    throw;
  }
  if (m.isPmap) pmapStack.pop_back();
  if (m.axis) axisStack.pop_back();
  scope = saved;
  std::vector<ValueP> outLeaves;
  leaves(result, outLeaves);
  auto &fr = top();
  std::vector<ValueP> outArrs;
  for (auto &l : outLeaves) {
    ValueP a = l->kind == Value::Array ? l : toArray(l, m.body->loc);
    fr.jaxpr.outvars.push_back(local(a->atom));
    outArrs.push_back(a);
  }
  auto f = popFrame();
  // Captured values are broadcast inputs (in_axes None), after the mapped ones.
  f->jaxpr.invars.insert(f->jaxpr.invars.end(), f->captureVars.begin(), f->captureVars.end());
  for (auto &c : f->captured) ins.push_back(c);
  std::vector<Param> inAxes;
  for (auto a : leafAxis) inAxes.push_back(Param::of(a));
  for (size_t k = 0; k < f->captured.size(); ++k) inAxes.push_back(Param::none());
  std::vector<int64_t> outAxes(outArrs.size(), 0);
  if (m.outAlong) {
    ValueP oa = expr(*m.outAlong);
    if (oa->kind == Value::Tuple) {
      if (oa->elems.size() != outArrs.size())
        userError(m.outAlong->loc, "'-> along' names " + std::to_string(oa->elems.size()) + " axes for " +
                                       std::to_string(outArrs.size()) + " results");
      for (size_t k = 0; k < outArrs.size(); ++k) outAxes[k] = staticInt(oa->elems[k], m.outAlong->loc, "an output axis");
    } else {
      int64_t a = staticInt(oa, m.outAlong->loc, "an output axis");
      std::fill(outAxes.begin(), outAxes.end(), a);
    }
    for (size_t k = 0; k < outArrs.size(); ++k) {
      int64_t r = outArrs[k]->type().rank() + 1;
      if (outAxes[k] < 0) outAxes[k] += r;
      if (outAxes[k] < 0 || outAxes[k] >= r)
        userError(m.outAlong->loc, "output axis out of range for a result of type " + outArrs[k]->type().str());
    }
  }
  ir::Params params{{"axis_name", m.axis ? Param::ofStr(m.axis->name) : Param::none()},
                    {"axis_size", Param::of(size)},
                    {"in_axes", Param::tuple(inAxes)},
                    {"out_axes", Param::ints(outAxes)}};
  b().setLoc(m.loc);
  std::vector<ir::Jaxpr> regions;
  regions.push_back(std::move(f->jaxpr));
  auto outs = emit(m.isPmap ? Op::Pmap : Op::Vmap, ins, params, std::move(regions));
  std::vector<ValueP> res;
  for (size_t k = 0; k < outs.size(); ++k) res.push_back(Value::array(outs[k], outArrs[k]->weak));
  pos = 0;
  return fromLeaves(*result, res, pos);
}

// ---- loops -------------------------------------------------------------------------------

/// The names assigned anywhere in `e` (not inside nested functions).
static void assignedNames(const Expr &e, std::set<std::string> &out);
static void assignedNames(const Stmt &s, std::set<std::string> &out) {
  switch (s.kind) {
  case StmtKind::Assign: out.insert(s.as<AssignStmt>()->name.name); assignedNames(*s.as<AssignStmt>()->value, out); break;
  case StmtKind::Let: assignedNames(*s.as<LetStmt>()->value, out); break;
  case StmtKind::Var: assignedNames(*s.as<VarStmt>()->value, out); break;
  case StmtKind::For: assignedNames(*s.as<ForStmt>()->body, out); break;
  case StmtKind::Expr: assignedNames(*s.as<ExprStmt>()->expr, out); break;
  case StmtKind::Fn: break;
  }
}
static void assignedNames(const Expr &e, std::set<std::string> &out) {
  if (auto *b = e.as<BlockExpr>())
    for (auto &s : b->stmts) assignedNames(*s, out);
  if (auto *i = e.as<IfExpr>()) {
    assignedNames(*i->then, out);
    if (i->otherwise) assignedNames(*i->otherwise, out);
  }
}

void Lowering::forStmt(const ForStmt &f) {
  // A static list (or a range over a list) is unrolled; a range becomes a for_loop, its
  // bounds evaluated here without building the list of its elements.
  const RangeExpr *range = f.iter->as<RangeExpr>();
  if (!range) {
    ValueP it = expr(*f.iter);
    if (it->kind != Value::Tuple) userError(f.iter->loc, "a for loop iterates over a range 'a..b' or a static list");
    for (auto &v : it->elems) {
      ScopeP saved = scope;
      scope = makeScope();
      scope->parent = saved;
      bindPattern(f.var, v, false, f.var.loc);
      block(*f.body->as<BlockExpr>(), false);
      scope = saved;
    }
    return;
  }
  int64_t lo = staticInt(expr(*range->lo), range->lo->loc, "a range bound");
  int64_t hi = staticInt(expr(*range->hi), range->hi->loc, "a range bound");
  // The loop index is an i32 (as in JAX's fori_loop with x64 off).
  for (auto [v, e] : {std::pair{lo, range->lo.get()}, std::pair{hi, range->hi.get()}})
    if (v < INT32_MIN || v > INT32_MAX)
      userError(e->loc, "a loop bound must fit in i32, not " + std::to_string(v));
  int64_t n = std::max<int64_t>(0, hi - lo);
  if (n == 0) lo = 0;
  if (f.var.kind != Pattern::Name && f.var.kind != Pattern::Wildcard)
    userError(f.var.loc, "the variable of a loop over a range is a single name");
  // Carried variables: vars assigned in the body that live outside it.
  std::set<std::string> names;
  assignedNames(*f.body, names);
  std::vector<std::string> carried;
  std::vector<ValueP> initLeaves, initVals;
  for (auto &nm : names) {
    Scope::Binding *bd = scope->lookup(nm);
    if (!bd || !bd->mutable_) continue;
    carried.push_back(nm);
    std::vector<ValueP> ls;
    leaves(bd->value, ls);
    std::vector<ValueP> arrs;
    for (auto &l : ls) arrs.push_back(l->kind == Value::Array ? l : toArray(l, bd->loc));
    size_t pos = 0;
    initVals.push_back(fromLeaves(*bd->value, arrs, pos));
    for (auto &a : arrs) initLeaves.push_back(a);
  }
  std::vector<Atom> initAtoms;
  for (auto &l : initLeaves) initAtoms.push_back(local(l->atom));
  pushFrame(false);
  ir::Var iv = newInvar(ir::Type{ir::DType::I32, {}});
  std::vector<ValueP> carryVals;
  for (auto &l : initLeaves) carryVals.push_back(Value::array(newInvar(l->type()), l->weak));
  ScopeP saved = scope;
  // Rebind each carried var (in its own scope) to the loop's carry invars.
  std::vector<Scope::Binding *> bds;
  std::vector<ValueP> savedVals;
  size_t pos = 0;
  for (size_t k = 0; k < carried.size(); ++k) {
    Scope::Binding *bd = scope->lookup(carried[k]);
    bds.push_back(bd);
    savedVals.push_back(bd->value);
    bd->value = fromLeaves(*initVals[k], carryVals, pos);
  }
  scope = makeScope();
  scope->parent = saved;
  ValueP idx = Value::array(lo == 0 ? Atom(iv) : Atom(emit1(Op::Add, {iv, b().lit(ir::DType::I32, double(lo))})), false);
  bindPattern(f.var, idx, false, f.var.loc);
  std::vector<ValueP> endLeaves;
  try {
    block(*f.body->as<BlockExpr>(), false);
    for (auto *bd : bds) leaves(bd->value, endLeaves);
  } catch (...) {
    scope = saved;
    for (size_t k = 0; k < bds.size(); ++k) bds[k]->value = savedVals[k];
    popFrame();
    throw;
  }
  scope = saved;
  for (size_t k = 0; k < endLeaves.size(); ++k) {
    ValueP a = endLeaves[k]->kind == Value::Array ? endLeaves[k] : toArray(endLeaves[k], f.body->loc);
    Atom at = a->atom;
    if (a->type() != initLeaves[k]->type()) {
      if (a->type().shape == initLeaves[k]->type().shape) at = castTo(at, initLeaves[k]->type().dtype);
      else internal_assert(false, "carried type changed in a loop");
    }
    top().jaxpr.outvars.push_back(local(at));
  }
  auto fr = popFrame();
  // Body invars: (i, consts..., carries...).
  auto &inv = fr->jaxpr.invars;
  inv.insert(inv.begin() + 1, fr->captureVars.begin(), fr->captureVars.end());
  std::vector<Atom> ins = fr->captured;
  ins.insert(ins.end(), initAtoms.begin(), initAtoms.end());
  ir::Params params{{"trip_count", Param::of(n)}, {"num_consts", Param::of(int64_t(fr->captured.size()))}};
  b().setLoc(f.loc);
  std::vector<ir::Jaxpr> regions;
  regions.push_back(std::move(fr->jaxpr));
  auto outs = emit(Op::ForLoop, ins, params, std::move(regions));
  std::vector<ValueP> outVals;
  for (size_t k = 0; k < outs.size(); ++k) outVals.push_back(Value::array(outs[k], initLeaves[k]->weak));
  pos = 0;
  for (size_t k = 0; k < carried.size(); ++k) bds[k]->value = fromLeaves(*initVals[k], outVals, pos);
}

// ---- if -----------------------------------------------------------------------------------

ValueP Lowering::ifExpr(const IfExpr &e) {
  ValueP c = expr(*e.cond);
  if (c->kind == Value::Bool || c->kind == Value::Int) {
    if (c->i) return block(*e.then->as<BlockExpr>());
    if (!e.otherwise) return Value::tuple({});
    if (auto *bl = e.otherwise->as<BlockExpr>()) return block(*bl);
    return expr(*e.otherwise);
  }
  if (c->kind != Value::Array || c->type() != ir::Type{ir::DType::Bool, {}})
    userError(e.cond->loc, "the condition of 'if' must be a bool scalar, not " + describe(*c));
  if (inMapBody())
    userError(e.cond->loc, "inside pmap and vmap the condition of 'if' must be known at compile time",
              {{SrcRange{}, "use where(cond, a, b) to select between values per replica"}});
  // A run-time condition at host level: a cond with the assigned vars as results.
  std::set<std::string> names;
  assignedNames(*e.then, names);
  if (e.otherwise) assignedNames(*e.otherwise, names);
  std::vector<std::string> carried;
  std::vector<ValueP> initVals, initLeaves;
  for (auto &nm : names) {
    Scope::Binding *bd = scope->lookup(nm);
    if (!bd || !bd->mutable_) continue;
    carried.push_back(nm);
    std::vector<ValueP> ls, arrs;
    leaves(bd->value, ls);
    for (auto &l : ls) arrs.push_back(l->kind == Value::Array ? l : toArray(l, bd->loc));
    size_t pos = 0;
    initVals.push_back(fromLeaves(*bd->value, arrs, pos));
    for (auto &a : arrs) initLeaves.push_back(a);
  }
  // Each branch is lowered into a frame of its own; the frames are kept until both
  // branch values are known, then their value leaves (unified to one type) are appended
  // to the results after the carried vars: the cond gives (carried..., value...).
  std::unique_ptr<Frame> brFrame[2];
  ValueP brValue[2];
  // Where each branch's value comes from: a block's last expression, for carets.
  auto valueLoc = [](const Expr &x) {
    if (auto *bl = x.as<BlockExpr>())
      if (!bl->stmts.empty() && bl->stmts.back()->kind == StmtKind::Expr)
        return bl->stmts.back()->as<ExprStmt>()->expr->loc;
    return x.loc;
  };
  SrcRange brLoc[2] = {e.otherwise ? valueLoc(*e.otherwise) : e.loc, valueLoc(*e.then)};
  for (int br = 1; br >= 0; --br) {  // true branch first (regions[1]), then false
    pushFrame(false);
    std::vector<Scope::Binding *> bds;
    std::vector<ValueP> saved;
    for (size_t k = 0; k < carried.size(); ++k) {
      Scope::Binding *bd = scope->lookup(carried[k]);
      bds.push_back(bd);
      saved.push_back(bd->value);
      bd->value = initVals[k];
    }
    try {
      const Expr *body = br ? e.then.get() : e.otherwise.get();
      brValue[br] = Value::tuple({});
      if (body) {
        if (auto *bl = body->as<BlockExpr>()) brValue[br] = block(*bl);
        else brValue[br] = expr(*body);
      }
      std::vector<ValueP> endLeaves;
      for (auto *bd : bds) leaves(bd->value, endLeaves);
      for (size_t k = 0; k < endLeaves.size(); ++k) {
        ValueP a = endLeaves[k]->kind == Value::Array ? endLeaves[k] : toArray(endLeaves[k], e.loc);
        Atom at = a->atom;
        if (a->type() != initLeaves[k]->type()) at = castTo(at, initLeaves[k]->type().dtype);
        top().jaxpr.outvars.push_back(local(at));
      }
    } catch (...) {
      for (size_t k = 0; k < bds.size(); ++k) bds[k]->value = saved[k];
      popFrame();
      throw;
    }
    for (size_t k = 0; k < bds.size(); ++k) bds[k]->value = saved[k];
    brFrame[br] = popFrame();
  }
  // The value: without 'else' it is (), as with a static condition.
  if (!e.otherwise) brValue[1] = Value::tuple({});
  std::vector<ValueP> valLeaves[2];
  for (int br : {1, 0}) {
    frames.push_back(std::move(brFrame[br]));
    try {
      for (auto &l : [&] { std::vector<ValueP> ls; leaves(brValue[br], ls); return ls; }()) {
        if (l->kind != Value::Array && !l->isNumber())
          userError(brLoc[br], "a branch of an 'if' with a run-time condition gives " + describe(*l) +
                                   ", which has no run-time value");
        valLeaves[br].push_back(l->kind == Value::Array ? l : toArray(l, brLoc[br]));
      }
    } catch (...) {
      popFrame();
      throw;
    }
    brFrame[br] = popFrame();
  }
  auto structure = [&](auto &&self, const Value &a, const Value &b) -> bool {
    if ((a.kind == Value::Tuple) != (b.kind == Value::Tuple)) return false;
    if (a.kind != Value::Tuple) return true;
    if (a.elems.size() != b.elems.size()) return false;
    for (size_t k = 0; k < a.elems.size(); ++k)
      if (!self(self, *a.elems[k], *b.elems[k])) return false;
    return true;
  };
  auto mismatch = [&](const std::string &what, const std::string &t, const std::string &f) {
    userError(brLoc[0], "the branches of 'if' give values of different " + what + ": " + t + " and " + f,
              {{brLoc[1], "the other branch's value"}});
  };
  if (!structure(structure, *brValue[1], *brValue[0]))
    mismatch("structures", describe(*brValue[1]), describe(*brValue[0]));
  // As lax.cond: leaf types must agree (shape and dtype); a weakly typed leaf (a literal)
  // takes the other branch's dtype, as it would in arithmetic.
  std::vector<ir::Type> valTypes;
  std::vector<bool> valWeak;
  for (size_t k = 0; k < valLeaves[1].size(); ++k) {
    const ValueP &t = valLeaves[1][k], &f = valLeaves[0][k];
    std::string ts = t->type().str(), fs = f->type().str();
    if (t->type().shape != f->type().shape) mismatch("shapes", ts, fs);
    ir::DType d = t->type().dtype;
    if (d != f->type().dtype) {
      bool keys = d == ir::DType::Key || f->type().dtype == ir::DType::Key;
      if (keys || t->weak == f->weak) mismatch("dtypes", ts, fs);
      if (t->weak) d = f->type().dtype;
    }
    valTypes.push_back(ir::Type{d, t->type().shape});
    valWeak.push_back(t->weak && f->weak);
  }
  std::vector<ir::Jaxpr> branches;
  std::vector<std::vector<Atom>> captured(2);
  std::vector<std::vector<ir::Var>> captureVars(2);
  for (int br : {1, 0}) {
    frames.push_back(std::move(brFrame[br]));
    for (size_t k = 0; k < valLeaves[br].size(); ++k) {
      Atom at = valLeaves[br][k]->atom;
      if (at.type().dtype != valTypes[k].dtype) at = castTo(at, valTypes[k].dtype);
      top().jaxpr.outvars.push_back(local(at));
    }
    auto fr = popFrame();
    captured[br] = fr->captured;
    captureVars[br] = fr->captureVars;
    branches.insert(branches.begin(), std::move(fr->jaxpr));
  }
  // Both branches take the union of captures as operands: (true caps..., false caps...).
  std::vector<Atom> ins{c->atom};
  for (int br : {1, 0})
    for (auto &a : captured[br]) ins.push_back(a);
  for (int br : {0, 1}) {
    std::vector<ir::Var> inv;
    for (int ob : {1, 0}) {
      if (ob == br) inv.insert(inv.end(), captureVars[br].begin(), captureVars[br].end());
      else for (auto &a : captured[ob]) inv.push_back(module.newVar(a.type()));
    }
    branches[br].invars = inv;
  }
  b().setLoc(e.loc);
  auto outs = emit(Op::Cond, ins, {}, std::move(branches));
  std::vector<ValueP> outVals;
  for (size_t k = 0; k < initLeaves.size(); ++k) outVals.push_back(Value::array(outs[k], initLeaves[k]->weak));
  size_t pos = 0;
  for (size_t k = 0; k < carried.size(); ++k) scope->lookup(carried[k])->value = fromLeaves(*initVals[k], outVals, pos);
  std::vector<ValueP> resLeaves;
  for (size_t k = 0; k < valTypes.size(); ++k)
    resLeaves.push_back(Value::array(outs[initLeaves.size() + k], valWeak[k]));
  pos = 0;
  return fromLeaves(*brValue[1], resLeaves, pos);
}

// ---- entry ---------------------------------------------------------------------------------

ir::Module lowerProgram(const SourceManager &sm, const Program &p, const LowerOptions &o) {
  Lowering l(sm, o);
  ir::Module m = l.run(p);
  for (int f = 0; sm.valid(f); ++f) m.fileNames.push_back(sm.name(f));
  return m;
}

} // namespace spmd::sema
