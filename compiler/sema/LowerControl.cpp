// ===- LowerControl.cpp - for loops and if -----------------------------------------===//
//
// A for loop lowers to a for_loop equation whose carries are the vars the body assigns;
// an if with a static condition picks a branch, one with a run-time condition is a cond.
#include "sema/AstLowering.h"

#include "sema/AxisCheck.h"

#include <algorithm>
#include <functional>
#include <set>

namespace spmd::sema {
using namespace ast;
using ir::Atom;
using ir::Op;
using ir::Param;

// ---- loops -------------------------------------------------------------------------------

/// The names assigned anywhere in `e` (not inside nested functions).
static void assignedNames(const Expr &e, std::set<std::string> &out);
static void assignedNames(const Stmt &s, std::set<std::string> &out) {
  switch (s.kind) {
  case StmtKind::Assign:
    out.insert(s.as<AssignStmt>()->name.name);
    assignedNames(*s.as<AssignStmt>()->value, out);
    break;
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

// Note [Peeled loop iterations]
// JAX's twin of a loop is a Python loop whose ops run eagerly, so each iteration sees its
// carries laid out over the devices as the iteration before left them (Note [Sharded host
// values], HostShards.cpp); a for_loop has one body for every iteration. So the layouts
// are iterated to a fixed point: L0 is the initial values' layouts, L1 those the body
// lowered for L0 gives back, and so on; while L(k+1) differs from L(k), iteration k is
// peeled off as a for_loop of trip count 1 (its body lowered for L(k)), and the remaining
// iterations are one for_loop whose body is lowered for the layouts that repeat.
// `var w = z0; for t in 0..2 { w = reshape(reshape(w, [4, 24]) * 0.5, [8, 3, 4]) +
// mean(w) }` with z0 a pmap's result: the reshape to [4, 24] gathers w, so mean(w) is
// partitioned in the first iteration only (JAX: sum(w) -0.023099966; with the loop
// lowered unsharded -0.02309875). A carry starting as an ordinary array that the body
// makes sharded (`acc = acc + pmap ...`) is peeled likewise. The layouts are finitely
// many, so the sequence L0, L1, ... ends in a cycle: where the layouts an iteration leaves
// are those an earlier one started with (L(k+1) = L(j), period p = k + 1 - j; a transpose
// per iteration alternates the split dimension, p = 2), iteration k is peeled and the
// next ones are one for_loop whose body is p copies of the body, lowered for L(j), ...,
// L(k) (the index base + p i + q in copy q), for as many whole cycles as are left; the
// iterations after them (fewer than p) are peeled. Each peel is one more copy of the body
// in the program; after kMaxPeeled without a fixed point or a cycle, a carry the body
// gives back laid out otherwise is taken as an ordinary array in every remaining
// iteration (its initial layout dropped and the body lowered again).
// The peeled bodies take the same index variable (base lo + k), so what a body may do
// with it and the errors it gives are those of the loop.
void AstLowering::forStmt(const ForStmt &f) {
  // A static list (or a range over a list) is unrolled; a range becomes a for_loop, its
  // bounds evaluated here without building the list of its elements.
  const RangeExpr *range = f.iter->as<RangeExpr>();
  if (!range) {
    ValueP it = expr(*f.iter);
    if (it->kind != Value::Tuple)
      userError(f.iter->loc, "a for loop iterates over a range 'a..b' or a static list");
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
  // The loop index is an i32 (as in JAX's fori_loop with x64 off), weakly typed (below).
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
    bd->value = listAsArray(bd->value, bd->loc);  // Note [Vars of lists]
    std::vector<ValueP> ls;
    leaves(bd->value, ls);
    std::vector<ValueP> arrs;
    for (auto &l : ls) arrs.push_back(l->kind == Value::Array ? l : toArray(l, bd->loc));
    size_t pos = 0;
    initVals.push_back(fromLeaves(*bd->value, arrs, pos));
    for (auto &a : arrs) initLeaves.push_back(a);
  }
  std::vector<Atom> cur;
  for (auto &l : initLeaves) cur.push_back(local(l->atom));
  // Note [Peeled loop iterations]: the body is lowered for the carries' layouts (Note
  // [Sharded host values], HostShards.cpp) at the start of a run of iterations; where it
  // gives them back laid out otherwise, that iteration alone is one for_loop of trip
  // count 1 and the next is lowered for the layouts it left.
  std::vector<std::optional<Shard>> layout;
  for (auto &a : cur)
    layout.push_back(shardOf(a) && !inMapBody() ? std::optional<Shard>(*shardOf(a)) : std::nullopt);
  constexpr int kMaxPeeled = 4;
  int peeled = 0;
  bool fallback = false;
  int64_t done = 0;
  // The layouts each peeled iteration started with; `copies` > 1: a cycle of that period
  // found, the body lowered that many times in one for_loop body.
  std::vector<std::vector<std::optional<Shard>>> seen;
  int64_t copies = 1;
  bool cycled = false;
  for (;;) {
    if (copies == 1) seen.push_back(layout);
    pushFrame(false);
    ir::Var iv = newInvar(ir::Type{ir::DType::I32, {}});
    // Note [Loop variables are not static] in LowerOps.cpp; popped below (or on error).
    loopIndices.push_back({iv.id, &f.var.name});
    struct PopIndex {
      std::vector<std::pair<int, const ast::Ident *>> &v;
      ~PopIndex() { v.pop_back(); }
    } popIndex{loopIndices};
    std::vector<ValueP> carryVals;
    for (size_t k = 0; k < initLeaves.size(); ++k) {
      auto &l = initLeaves[k];
      carryVals.push_back(Value::array(newInvar(l->type()), l->weak));
      if (layout[k]) shards[carryVals.back()->atom.var.id] = *layout[k];
    }
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
    // Each copy of the body (one but in a cycle) in its own scope, the carried vars
    // rebound to what the copy before left; the last copy's values are the body's results.
    const int64_t base = lo + done;
    std::vector<Atom> ends;
    for (int64_t q = 0; q < copies; ++q) {
      scope = makeScope();
      scope->parent = saved;
      // Weakly typed, as the Python int of the JAX twin's `for t in range(lo, hi)` (host
      // code and pmap bodies alike are written as Python loops): `u32(5) + t` stays u32.
      Atom i = copies == 1 ? Atom(iv) : Atom(emit1(Op::Mul, {iv, b().lit(ir::DType::I32, double(copies))}));
      const int64_t off = base + q;
      ValueP idx = Value::array(
          off == 0 ? i : Atom(emit1(Op::Add, {i, b().lit(ir::DType::I32, double(off))})), true);
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
      ends.clear();
      for (size_t k = 0; k < endLeaves.size(); ++k) {
        ValueP a = endLeaves[k]->kind == Value::Array ? endLeaves[k]
                                                      : toArray(endLeaves[k], f.body->loc);
        Atom at = a->atom;
        if (a->type() != initLeaves[k]->type()) {
          if (a->type().shape == initLeaves[k]->type().shape)
            at = castTo(at, initLeaves[k]->type().dtype);
          else
            internal_assert(false, "carried type changed in a loop");
        }
        ends.push_back(local(at));
      }
      if (q + 1 < copies) {
        std::vector<ValueP> next;
        for (size_t k = 0; k < ends.size(); ++k)
          next.push_back(Value::array(ends[k], initLeaves[k]->weak));
        size_t at = 0;
        for (size_t k = 0; k < carried.size(); ++k)
          bds[k]->value = fromLeaves(*initVals[k], next, at);
      }
    }
    for (auto &at : ends) top().jaxpr.outvars.push_back(at);
    for (size_t k = 0; k < bds.size(); ++k) bds[k]->value = savedVals[k];
    // The layouts the body leaves (none inside a map body, where nothing is laid out).
    std::vector<std::optional<Shard>> outLayout;
    for (auto &o : top().jaxpr.outvars) {
      const Shard *s = inMapBody() ? nullptr : shardOf(o);
      outLayout.push_back(s ? std::optional<Shard>(*s) : std::nullopt);
    }
    const int64_t rest = n - done;
    bool same = rest == 0 || outLayout == layout;
    if (copies > 1 && !same) {
      // (Not expected: the cycle's copies lowered for its first layouts gave others.)
      popFrame();
      copies = 1, cycled = true, fallback = true;
      continue;
    }
    // The layouts this iteration leaves, seen at the start of an earlier one: a cycle of
    // period p, whose iterations after this one are lowered p at a time.
    int64_t period = 0;
    for (size_t j = 0; !same && !cycled && !fallback && j < seen.size(); ++j)
      if (seen[j] == outLayout) period = int64_t(seen.size() - j);
    if (period > 1 && rest - 1 < period) period = 0;  // no whole cycle left after this one
    if (!same && !period && !cycled && rest >= 2 && peeled == kMaxPeeled) fallback = true;
    if (!same && fallback) {
      // No fixed point in kMaxPeeled iterations: a carry the body gives back laid out
      // otherwise is taken as an ordinary array in every remaining iteration.
      bool again = false;
      for (size_t k = 0; k < layout.size(); ++k)
        if (layout[k] && !(outLayout[k] == layout[k])) layout[k].reset(), again = true;
      if (again) {
        popFrame();
        continue;
      }
      same = true;
    }
    auto fr = popFrame();
    // Body invars: (i, consts..., carries...).
    auto &inv = fr->jaxpr.invars;
    inv.insert(inv.begin() + 1, fr->captureVars.begin(), fr->captureVars.end());
    std::vector<Atom> ins = fr->captured;
    ins.insert(ins.end(), cur.begin(), cur.end());
    const int64_t trip = copies > 1 ? rest / copies : same ? rest : 1;
    ir::Params params{{"trip_count", Param::of(trip)},
                      {"num_consts", Param::of(int64_t(fr->captured.size()))}};
    b().setLoc(f.loc);
    std::vector<ir::Jaxpr> regions;
    regions.push_back(std::move(fr->jaxpr));
    auto outs = emit(Op::ForLoop, ins, params, std::move(regions));
    const auto &marks = same ? layout : outLayout;
    cur.clear();
    for (size_t k = 0; k < outs.size(); ++k) {
      if (marks[k]) shards[outs[k].id] = *marks[k];
      cur.push_back(outs[k]);
    }
    std::vector<ValueP> outVals;
    for (size_t k = 0; k < outs.size(); ++k)
      outVals.push_back(Value::array(outs[k], initLeaves[k]->weak));
    pos = 0;
    for (size_t k = 0; k < carried.size(); ++k)
      bds[k]->value = fromLeaves(*initVals[k], outVals, pos);
    done += trip * copies;
    if (done >= n || (same && copies == 1)) break;
    if (copies > 1) {
      // The cycle's iterations are lowered; those left (fewer than a period) are peeled.
      copies = 1, cycled = true;
      continue;
    }
    layout = outLayout;
    ++peeled;
    if (period > 1) copies = period;
  }
}

// ---- if -----------------------------------------------------------------------------------

ValueP AstLowering::ifExpr(const IfExpr &e) {
  ValueP c = expr(*e.cond);
  if (c->kind == Value::Bool || c->kind == Value::Int) {
    if (c->i) return block(*e.then->as<BlockExpr>());
    if (!e.otherwise) return Value::tuple({});
    if (auto *bl = e.otherwise->as<BlockExpr>()) return block(*bl);
    return expr(*e.otherwise);
  }
  if (c->kind != Value::Array || c->type() != ir::Type{ir::DType::Bool, {}})
    userError(e.cond->loc, "the condition of 'if' must be a bool scalar, not " + describe(*c));
  if (inMapBody()) {
    auto notes = loopVariableNote(c->atom);
    notes.push_back({SrcRange{}, "use where(cond, a, b) to select between values per replica"});
    userError(e.cond->loc,
              "inside pmap and vmap the condition of 'if' must be known at compile time",
              notes);
  }
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
    bd->value = listAsArray(bd->value, bd->loc);  // Note [Vars of lists]
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
        if (auto *bl = body->as<BlockExpr>())
          brValue[br] = block(*bl);
        else
          brValue[br] = expr(*body);
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
      for (auto &l : [&] {
             std::vector<ValueP> ls;
             leaves(brValue[br], ls);
             return ls;
           }()) {
        if (l->kind != Value::Array && !l->isNumber())
          userError(brLoc[br], "a branch of an 'if' with a run-time condition gives " +
                                   describe(*l) + ", which has no run-time value");
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
    userError(brLoc[0],
              "the branches of 'if' give values of different " + what + ": " + t + " and " + f,
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
      if (ob == br)
        inv.insert(inv.end(), captureVars[br].begin(), captureVars[br].end());
      else
        for (auto &a : captured[ob]) inv.push_back(module.newVar(a.type()));
    }
    branches[br].invars = inv;
  }
  // Note [Sharded host values] (HostShards.cpp): JAX's twin runs one branch eagerly, so a
  // result is laid out as that branch leaves it; where both branches leave it laid out
  // the same, so is the cond's result (where they differ the run-time condition decides,
  // which a compiled cond cannot say: the result is taken as an ordinary array).
  std::vector<std::optional<Shard>> resLayout;
  for (size_t k = 0; k < branches[0].outvars.size(); ++k) {
    const Shard *s0 = shardOf(branches[0].outvars[k]), *s1 = shardOf(branches[1].outvars[k]);
    resLayout.push_back(s0 && s1 && *s0 == *s1 ? std::optional<Shard>(*s0) : std::nullopt);
  }
  b().setLoc(e.loc);
  auto outs = emit(Op::Cond, ins, {}, std::move(branches));
  for (size_t k = 0; k < outs.size() && k < resLayout.size(); ++k)
    if (resLayout[k]) shards[outs[k].id] = *resLayout[k];
  std::vector<ValueP> outVals;
  for (size_t k = 0; k < initLeaves.size(); ++k)
    outVals.push_back(Value::array(outs[k], initLeaves[k]->weak));
  size_t pos = 0;
  for (size_t k = 0; k < carried.size(); ++k)
    scope->lookup(carried[k])->value = fromLeaves(*initVals[k], outVals, pos);
  std::vector<ValueP> resLeaves;
  for (size_t k = 0; k < valTypes.size(); ++k)
    resLeaves.push_back(Value::array(outs[initLeaves.size() + k], valWeak[k]));
  pos = 0;
  return fromLeaves(*brValue[1], resLeaves, pos);
}

}  // namespace spmd::sema
