// ===- Session.cpp - lowering REPL inputs one at a time over a kept scope -------===//
//
// See Note [Persistent values] in Session.h. Each input gets a fresh Module and host
// frame in the same AstLowering; after its statements are lowered, the Vars of main that no
// equation of main defines are the kept values it reads (they become invars), and the
// arrays the scope reaches that main defines are the values to keep (outvars).
#include "sema/Session.h"

#include "sema/AstLowering.h"

#include <unordered_set>

namespace spmd::sema {

namespace {

/// Calls `f` on every array Var reachable from `s` (and its parents), through tuples
/// and closures' defining scopes.
struct Reach {
  std::unordered_set<const Scope *> seenScopes;
  std::unordered_set<const Value *> seenValues;
  std::function<void(const ir::Var &)> f;

  void value(const ValueP &v) {
    if (!v || !seenValues.insert(v.get()).second) return;
    if ((v->kind == Value::Array || v->kind == Value::Rendered) && !v->atom.isLit) f(v->atom.var);
    for (auto &e : v->elems) value(e);
    if (v->kind == Value::Func) {
      scope(v->env.get());
      value(v->inner);
    }
  }
  void scope(const Scope *s) {
    for (; s && seenScopes.insert(s).second; s = s->parent.get())
      for (auto &[name, b] : s->vars) value(b.value);
  }
};

bool isUnit(const Value &v) { return v.kind == Value::Tuple && v.elems.empty() && !v.isList; }

}  // namespace

Session::Session(const SourceManager &sm, const LowerOptions &o)
    : l_(std::make_unique<AstLowering>(sm, o)) {}
Session::~Session() = default;

void Session::begin() {
  AstLowering &L = *l_;
  savedScope_ = L.scope;
  savedVars_.clear();
  // Note [REPL snapshots]: an input binds names in the current scope (and in scopes it
  // creates, dropped on rollback with it), but can change an enclosing scope only by
  // assigning one of its vars. So the current scope is saved whole and an enclosing one
  // only when it holds a var: every `fn` opens a scope, and copying all of them made
  // each input cost as much as all the definitions before it (4,000 `fn` lines: 89 s).
  for (ScopeP s = L.scope; s; s = s->parent) {
    bool hasVar = s == L.scope;
    for (auto it = s->vars.begin(); !hasVar && it != s->vars.end(); ++it)
      hasVar = it->second.mutable_;
    if (hasVar) savedVars_.push_back({s, s->vars});
  }
  // A rolled-back input's Var ids are given out again: its sharded values are no more
  // (Note [Sharded host values]).
  for (auto it = L.shards.begin(); it != L.shards.end();)
    it = it->first >= nextId_ ? L.shards.erase(it) : std::next(it);
  // A shard_map's blocks are an intermediate of the input that made it, which a later
  // input cannot read: its reductions then reshape the result instead.
  L.shardBlocks.clear();
  L.module = ir::Module();
  L.module.nextId = nextId_;
  L.frames.clear();
  auto f = std::make_unique<Frame>();
  f->b = std::make_unique<ir::Builder>(L.module, f->jaxpr);
  L.frames.push_back(std::move(f));
  L.pmapStack.clear();
  L.axisStack.clear();
  L.callStack.clear();
}

void Session::rollback() {
  if (!savedScope_) return;
  l_->scope = savedScope_;
  for (auto &[s, vars] : savedVars_) s->vars = vars;
  savedScope_.reset();
  savedVars_.clear();
}

void Session::commit(int nextId) {
  nextId_ = std::max(nextId_, nextId);
  savedScope_.reset();
  savedVars_.clear();
}

/// Finishes main: invars for the kept Vars it reads, in order of first use.
static void addInvars(ir::Jaxpr &main) {
  std::unordered_set<int> defined, seen;
  auto use = [&](const ir::Atom &a) {
    if (a.isLit || defined.count(a.var.id) || !seen.insert(a.var.id).second) return;
    main.invars.push_back(a.var);
  };
  for (auto &e : main.eqns) {
    for (auto &a : e.in) use(a);
    for (auto &v : e.out) defined.insert(v.id);
  }
  for (auto &a : main.outvars) use(a);
}

LoweredInput Session::lower(const ast::Program &p, bool echo, bool lastAsOutput) {
  begin();
  AstLowering &L = *l_;
  LoweredInput r;
  try {
    for (auto &s : p.stmts) {
      ValueP v = L.stmt(*s);
      if (s->kind != ast::StmtKind::Expr) continue;
      r.last = v;
      if (!echo || !v || isUnit(*v)) continue;
      L.b().setLoc(s->loc);
      ValueP shown = v;
      if (v->kind == Value::Func)
        shown = Value::string("<function " + (v->fname.empty() ? std::string("lambda") : v->fname) +
                              ">");
      std::vector<ArgV> args{ArgV{"", shown, nullptr, s->loc, {}}};
      L.builtin("print", args, {}, s->loc);
    }
    // The arrays this input binds (or rebinds) are kept: outvars of main. (An input that
    // computes nothing, such as a definition, binds none: no need to look.)
    ir::Jaxpr &main = L.frames.at(0)->jaxpr;
    std::unordered_set<int> defined, done;
    for (auto &e : main.eqns)
      for (auto &v : e.out) defined.insert(v.id);
    Reach reach;
    reach.f = [&](const ir::Var &v) {
      if (!defined.count(v.id) || !done.insert(v.id).second) return;
      main.outvars.push_back(ir::Atom(v));
      r.outIds.push_back(v.id);
    };
    if (!defined.empty()) reach.scope(L.scope.get());
    if (lastAsOutput && r.last) {
      std::vector<ValueP> ls;
      L.leaves(r.last, ls);
      for (auto &x : ls)
        if (x->kind == Value::Array) {
          main.outvars.push_back(x->atom);
          r.outIds.push_back(-1);
        }
    }
    addInvars(main);
    L.module.main = std::move(main);
    r.module = std::move(L.module);
    if (!r.module.main.eqns.empty())  // names for run-time messages; nothing runs otherwise
      for (int f = 0; L.sm.valid(f); ++f) r.module.fileNames.push_back(L.sm.name(f));
  } catch (...) {
    rollback();
    throw;
  }
  return r;
}

LoweredInput Session::lowerLastCall(const std::string &name, SrcRange loc) {
  ValueP f = lookup(name);
  if (!f) userError(loc, "'" + name + "' is not defined");
  if (f->kind != Value::Func || f->fkind != Value::Closure || !f->lambda)
    userError(loc, "'" + name + "' is a " + describe(*f) + ", not a function of yours");
  if (!f->lambda->axisParams.empty())
    userError(loc, "'" + name + "' takes axis arguments, so it only exists inside a block",
              {{SrcRange{}, "show the IR of a call in one instead, e.g. :ir pmap " +
                                f->lambda->axisParams[0].name + " (x in xs) { " + name + "[" +
                                f->lambda->axisParams[0].name + "](x) }"}});
  auto it = l_->lastCallArgs.find(f->lambda);
  if (it == l_->lastCallArgs.end())
    userError(loc, "'" + name + "' has not been called yet, so its argument types are unknown",
              {{SrcRange{}, "show the IR of a call instead, e.g. :ir " + name + "(x)"}});
  std::vector<ValueP> recorded = it->second;
  begin();
  AstLowering &L = *l_;
  LoweredInput r;
  try {
    // Array arguments become inputs of main, of the types they had.
    std::vector<ArgV> args;
    for (auto &v : recorded) {
      std::vector<ValueP> ls;
      L.leaves(v, ls);
      for (auto &x : ls)
        if (x->kind == Value::Array) x = Value::array(L.newInvar(x->type()), x->weak);
      size_t pos = 0;
      args.push_back(ArgV{"", L.fromLeaves(*v, ls, pos), nullptr, loc, {}});
    }
    ValueP out = L.callValue(f, std::move(args), {}, loc);
    std::vector<ValueP> ls;
    L.leaves(out, ls);
    ir::Jaxpr &main = L.frames.at(0)->jaxpr;
    for (auto &x : ls)
      if (x->kind == Value::Array) main.outvars.push_back(x->atom);
    L.module.main = std::move(main);
    r.module = std::move(L.module);
    for (int k = 0; L.sm.valid(k); ++k) r.module.fileNames.push_back(L.sm.name(k));
    r.last = out;
  } catch (...) {
    rollback();
    throw;
  }
  rollback();
  return r;
}

std::set<int> Session::liveIds() const {
  std::set<int> ids;
  Reach reach;
  reach.f = [&](const ir::Var &v) { ids.insert(v.id); };
  reach.scope(l_->scope.get());
  return ids;
}

ValueP Session::lookup(const std::string &name) const {
  Scope::Binding *b = l_->scope->lookup(name);
  return b ? b->value : nullptr;
}

}  // namespace spmd::sema
