// ===- GradRegions.cpp - VJP rules for pmap, for_loop and cond -----------------===//
//
// A region equation on the gradient's path is split (Note [Splitting a jaxpr] in
// Grad.cpp) into a forward equation that also returns the residuals its backward half
// needs, and a backward equation of the same kind:
//  - pmap: the forward pmap returns its residuals stacked (out_axes 0); the backward pmap
//    runs on the same axis (same axis_name/axis_size) and takes the output cotangents, the
//    residual inputs (with their original in_axes) and the stacked residuals. A captured
//    input (in_axes None) gets a per-replica cotangent from the backward pmap, stacked
//    along axis 0 and summed on the host with reduce_sum: the sum over replicas.
//  - for_loop: body invars are (i, consts..., carries...), or (consts..., carries...)
//    when lowering drops an unused index; outvars the new carries (JAX's fori_loop). The forward
//    loop writes each iteration's residuals into [trip_count, ...] buffers carried along
//    (dynamic_update_slice at i); the backward loop runs i from trip_count-1 down to 0, reading
//    them back with dynamic_slice, carrying the carries' cotangents and accumulating the consts'.
//  - cond: both branches are split; the forward cond returns the residuals of both
//    branches (zeros for the branch not taken); the backward cond picks the same branch
//    and starts from the cotangents its operands already have (Note [Cotangents into a
//    cond]).
#include "transforms/GradInternal.h"

#include <algorithm>
#include <optional>

namespace spmd::transforms::grad {
using namespace ir;

namespace {

/// A region list that takes the jaxprs by move: `{std::move(j)}` is an initializer_list,
/// whose elements are const, so the vector built from it deep-copied every nested region
/// (Note [Splitting nested regions] in Grad.cpp).
template <typename... J>
std::vector<Jaxpr> movedRegions(J &&...js) {
  std::vector<Jaxpr> r;
  (r.push_back(std::move(js)), ...);
  return r;
}

using Axes = std::vector<std::optional<int64_t>>;

Axes readAxes(const Param &p) {
  Axes r;
  if (p.kind == Param::Int) return {p.i};
  for (auto &e : p.elems)
    r.push_back(e.kind == Param::None ? std::nullopt : std::optional<int64_t>(e.i));
  return r;
}

Param axesParam(const Axes &a) {
  std::vector<Param> e;
  for (auto &x : a) e.push_back(x ? Param::of(*x) : Param::none());
  return Param::tuple(e);
}

std::vector<Var> pmapForward(Builder &fb, const Eqn &e, const std::vector<Atom> &ins,
                             RegionTape &t, SrcRange loc) {
  Split s = splitVjp(fb.module(), e.regions[0], t.inActive, t.outCt, loc);
  Params p = e.params;
  Axes outAxes = readAxes(p.at("out_axes"));
  for (int k = 0; k < s.numResOut; ++k) outAxes.push_back(0);
  p["out_axes"] = axesParam(outAxes);
  Jaxpr fwd = s.fwd;
  auto outs = fb.emit(Op::Pmap, ins, p, movedRegions(std::move(fwd)));
  t.splits.push_back(std::move(s));
  return outs;
}

/// Whether a for_loop body takes the iteration index first: (i, consts..., carries...).
/// Lowering may leave it out, (consts..., carries...), when the body does not use it.
int indexArity(const Eqn &e) { return e.regions[0].invars.size() == e.in.size() + 1 ? 1 : 0; }

std::vector<Var> forLoopForward(Builder &fb, const Eqn &e, const std::vector<Atom> &eIns,
                                RegionTape &t, SrcRange loc) {
  Module &m = fb.module();
  const Jaxpr &body = e.regions[0];
  int64_t nc = e.intParam("num_consts"), T = e.intParam("trip_count");
  int ix = indexArity(e);
  size_t nk = e.in.size() - nc;
  // A carry is active when its initial value is, or when the body makes it so: iterate.
  std::vector<bool> inAct(ix, false);
  inAct.insert(inAct.end(), t.inActive.begin(), t.inActive.end());
  for (bool changed = true; changed;) {
    changed = false;
    auto outs = activeOutputs(body, inAct);
    for (size_t k = 0; k < nk; ++k)
      if (outs[k] && !inAct[ix + nc + k] && isFloat(body.invars[ix + nc + k].type.dtype))
        inAct[ix + nc + k] = changed = true;
  }
  std::vector<bool> outCt(inAct.begin() + ix + nc, inAct.end());
  Split s = splitVjp(m, body, inAct, outCt, loc, /*hoist=*/false);  // Note [Primal-only equations]

  // Residuals that vary per iteration (carries and computed values) go into buffers.
  std::vector<Type> bufTypes;
  for (int r : s.resInvars)
    if (r >= ix + nc) bufTypes.push_back(body.invars[r].type);
  for (int j = 0; j < s.numResOut; ++j) bufTypes.push_back(s.fwd.outvars[nk + j].type());

  // The new body always takes the index: the buffers are written at it.
  Jaxpr nb;
  Var i = m.newVar(Type{DType::I32, {}});
  nb.invars.push_back(i);
  for (size_t k = ix; k < body.invars.size(); ++k)
    nb.invars.push_back(m.newVar(body.invars[k].type));
  std::vector<Atom> args(nb.invars.begin() + 1 - ix, nb.invars.end());
  std::vector<Var> bufIn;
  for (auto &bt : bufTypes) {
    Type full = bt;
    full.shape.insert(full.shape.begin(), T);
    bufIn.push_back(m.newVar(full));
    nb.invars.push_back(bufIn.back());
  }
  Builder b(m, nb);
  b.setLoc(e.loc);
  auto fo = inlineJaxpr(b, std::move(s.fwd), args);  // Note [Splitting nested regions]
  nb.outvars.assign(fo.begin(), fo.begin() + nk);
  size_t bi = 0;
  auto store = [&](Atom val) {
    Shape one = val.type().shape;
    one.insert(one.begin(), 1);
    std::vector<Atom> ins{bufIn[bi], b.reshape(val, one), i};
    for (size_t d = 1; d < one.size(); ++d) ins.push_back(b.lit(DType::I32, 0));
    nb.outvars.push_back(b.emit1(Op::DynamicUpdateSlice, ins));
    ++bi;
  };
  for (int r : s.resInvars)
    if (r >= ix + nc) store(args[r]);
  for (int j = 0; j < s.numResOut; ++j) store(fo[nk + j]);

  std::vector<Atom> ins = eIns;
  for (auto &v : bufIn) ins.push_back(zeros(fb, v.type));
  auto outs = fb.emit(Op::ForLoop, ins, e.params, movedRegions(std::move(nb)));
  t.splits.push_back(std::move(s));
  return outs;
}

std::vector<Var> condForward(Builder &fb, const Eqn &e, const std::vector<Atom> &ins,
                             RegionTape &t, SrcRange loc) {
  Module &m = fb.module();
  std::vector<bool> inAct(t.inActive.begin() + 1, t.inActive.end());
  Split s[2] = {splitVjp(m, e.regions[0], inAct, t.outCt, loc),
                splitVjp(m, e.regions[1], inAct, t.outCt, loc)};
  size_t nOut = e.out.size();
  std::vector<Type> resTypes[2];  // each branch's residuals (its fwd is moved below)
  for (int br = 0; br < 2; ++br)
    for (int j = 0; j < s[br].numResOut; ++j)
      resTypes[br].push_back(s[br].fwd.outvars[nOut + j].type());
  std::vector<Jaxpr> branches(2);
  for (int br = 0; br < 2; ++br) {
    Jaxpr &nb = branches[br];
    for (auto &v : e.regions[br].invars) nb.invars.push_back(m.newVar(v.type));
    Builder b(m, nb);
    b.setLoc(e.loc);
    auto fo = inlineJaxpr(b, std::move(s[br].fwd),
                          std::vector<Atom>(nb.invars.begin(), nb.invars.end()));
    nb.outvars.assign(fo.begin(), fo.begin() + nOut);
    for (int other = 0; other < 2; ++other)
      for (int j = 0; j < s[other].numResOut; ++j)
        nb.outvars.push_back(other == br ? fo[nOut + j] : zeros(b, resTypes[other][j]));
  }
  auto outs = fb.emit(Op::Cond, ins, e.params, std::move(branches));
  t.bodies.push_back(cloneJaxpr(m, e.regions[0]));
  t.bodies.push_back(cloneJaxpr(m, e.regions[1]));
  t.splits.push_back(std::move(s[0]));
  t.splits.push_back(std::move(s[1]));
  return outs;
}

}  // namespace

RegionForward regionForward(Op op) {
  switch (op) {
  case Op::Pmap: return pmapForward;
  case Op::ForLoop: return forLoopForward;
  case Op::Cond: return condForward;
  default: return nullptr;
  }
}

// ---- backward halves ------------------------------------------------------------------------

std::vector<Ct> pmapVjp(RuleCtx &c) {
  const Split &s = c.tape->splits.at(0);
  const Eqn &e = c.e;
  Axes inAxes = readAxes(e.param("in_axes")), outAxes = readAxes(e.param("out_axes"));
  std::vector<Atom> ins;
  Axes inAx, outAx;
  for (int k = 0; k < c.tape->numOrigOuts; ++k) {
    if (!s.outCt[k]) continue;
    ins.push_back(materialize(c.b, c.cts[k], e.out[k].type));
    inAx.push_back(outAxes[k]);
  }
  for (int r : s.resInvars) {
    ins.push_back(e.in[r]);
    inAx.push_back(inAxes[r]);
  }
  for (int j = 0; j < s.numResOut; ++j) {
    ins.push_back(e.out[c.tape->numOrigOuts + j]);
    inAx.push_back(0);
  }
  for (size_t k = 0; k < e.in.size(); ++k)
    if (s.inActive[k]) outAx.push_back(inAxes[k] ? inAxes[k] : 0);
  Params p = e.params;
  p["in_axes"] = axesParam(inAx);
  p["out_axes"] = axesParam(outAx);
  auto outs = c.b.emit(Op::Pmap, ins, p, {cloneJaxpr(c.b.module(), s.bwd)});
  std::vector<Ct> r(e.in.size());
  size_t j = 0;
  for (size_t k = 0; k < e.in.size(); ++k) {
    if (!s.inActive[k]) continue;
    Atom ct = outs[j++];
    // A captured input's cotangent: the sum over replicas of the stacked per-replica ones
    // (over a nest's replicas at once: Note [Replica sums of a nest] in Grad.cpp).
    if (!inAxes[k])
      ct = c.b.emit1(Op::ReduceSum, {ct},
                     {{"axes", Param::ints({0})}, {"_replica_sum", Param::of(int64_t(1))}});
    r[k] = ct;
  }
  return r;
}

std::vector<Ct> forLoopVjp(RuleCtx &c) {
  Module &m = c.b.module();
  Split &s = c.tape->splits.at(0);
  const Eqn &e = c.e;
  int64_t nc = e.intParam("num_consts"), T = e.intParam("trip_count");
  size_t nk = size_t(c.tape->numOrigOuts), nbuf = e.out.size() - nk;
  int ix = int(s.inActive.size() - nk - nc);  // the original body's index arity

  // Backward loop operands: consts (residual consts, buffers), carries (cts, accumulators).
  std::vector<Atom> consts, carries;
  for (int r : s.resInvars)
    if (r >= ix && r < ix + nc) consts.push_back(e.in[r - ix]);
  size_t nConstRes = consts.size();
  for (size_t j = 0; j < nbuf; ++j) consts.push_back(e.out[nk + j]);
  for (size_t k = 0; k < nk; ++k)
    if (s.inActive[ix + nc + k]) carries.push_back(materialize(c.b, c.cts[k], e.out[k].type));
  size_t nCarryCt = carries.size();
  for (int64_t j = 0; j < nc; ++j)
    if (s.inActive[ix + j]) carries.push_back(zeros(c.b, e.in[j].type()));

  Jaxpr body;
  Var kk = m.newVar(Type{DType::I32, {}});
  body.invars.push_back(kk);
  auto fresh = [&](const std::vector<Atom> &as) {
    std::vector<Var> vs;
    for (auto &a : as) {
      vs.push_back(m.newVar(a.type()));
      body.invars.push_back(vs.back());
    }
    return vs;
  };
  auto constV = fresh(consts), carryV = fresh(carries);
  Builder b(m, body);
  b.setLoc(e.loc);
  Var i = b.binary(Op::Sub, b.lit(DType::I32, double(T - 1)), kk);
  size_t bi = nConstRes;
  auto load = [&]() -> Atom {
    Var buf = constV[bi++];
    Shape one = buf.type.shape;
    one[0] = 1;
    std::vector<Atom> ins{buf, i};
    for (size_t d = 1; d < one.size(); ++d) ins.push_back(b.lit(DType::I32, 0));
    Var slice = b.emit1(Op::DynamicSlice, ins, {{"slice_sizes", Param::ints(one)}});
    return b.reshape(slice, Shape(one.begin() + 1, one.end()));
  };
  std::vector<Atom> args(carryV.begin(), carryV.begin() + nCarryCt);
  size_t ci = 0;
  for (int r : s.resInvars) {
    if (r < ix)
      args.push_back(i);
    else if (r < ix + nc)
      args.push_back(constV[ci++]);
    else
      args.push_back(load());
  }
  for (int j = 0; j < s.numResOut; ++j) args.push_back(load());
  auto bo = inlineJaxpr(b, std::move(s.bwd), args);  // used once: Note [Splitting nested regions]
  // bo: cotangents of the active consts, then of the active carries.
  size_t nConstCt = carries.size() - nCarryCt;
  body.outvars.assign(bo.begin() + nConstCt, bo.end());
  for (size_t j = 0; j < nConstCt; ++j)
    body.outvars.push_back(b.binary(Op::Add, carryV[nCarryCt + j], bo[j]));

  std::vector<Atom> ins = consts;
  ins.insert(ins.end(), carries.begin(), carries.end());
  Params p = e.params;
  p["num_consts"] = Param::of(int64_t(consts.size()));
  auto outs = c.b.emit(Op::ForLoop, ins, p, movedRegions(std::move(body)));
  std::vector<Ct> r(e.in.size());
  size_t o = 0;
  for (size_t k = 0; k < nk; ++k)
    if (s.inActive[ix + nc + k]) r[nc + k] = outs[o++];
  for (int64_t j = 0; j < nc; ++j)
    if (s.inActive[ix + j]) r[j] = outs[o++];
  return r;
}

// Note [Cotangents into a cond]
// A run-time `if` at host level is JAX's Python `if` (Note [Eager division] in
// sema/LowerArith.cpp: host code is eager JAX), and jax.grad differentiates the taken
// branch as if it were written in place: an operand's cotangent is one running total,
// the uses after the `if` first, then the branch's own uses, last first, each added to
// the total in turn. A backward cond that returned the branch's contributions summed on
// their own, to be added to the total outside, groups them the other way:
// t + (c1 + c2), not (t + c1) + c2. So condVjp passes each active operand's cotangent so
// far (RuleCtx::prior) into the backward cond, the branches' backward jaxprs start that
// operand's total from it (splitVjp's `seed`), and the total the cond returns replaces
// the one outside (RuleCtx::replaces). Which operands have a total is known only when
// the sweep reaches the cond, so condVjp splits the original branches again with those
// seeds (the residuals are the same: seeds are cotangents, never primal values).
// Operands that share one total outside (one var passed twice, or `a = v + c` and v: Note
// [Tangent aliases] in Grad.cpp) share it inside too (Seeds::shares), as in the Python
// `if`, where the branch adds to that one total; the first of them carries it. Measured (conf18): `grad(fn (v) =
// sum(grad(f)(v)))(u)` for `f(v) = if sum(v) > 3.0 { sum(sin(v) * v) * v[0] } else {
// sum(v) }` differed from JAX's Python `if` in 3 of 7 elements, and 6 second-order
// prints of 8 (golden grad2_cond_seed) in 4; all agree now. JAX's `lax.cond` differs
// from both: eager JAX runs it as one jitted computation (jit_cond), whose branches XLA
// fuses and contracts (a multiply_add_fusion in the last digits); spmdrun's host code is
// eager, so its `if` follows the Python `if` (conf18's README).
std::vector<Ct> condVjp(RuleCtx &c) {
  Module &m = c.b.module();
  const Split *s = &c.tape->splits.at(0);
  const Eqn &e = c.e;
  size_t nOut = size_t(c.tape->numOrigOuts), nIn = e.in.size() - 1;
  std::vector<int> used;  // operands either backward branch reads
  for (int br = 0; br < 2; ++br)
    used.insert(used.end(), s[br].resInvars.begin(), s[br].resInvars.end());
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());

  // Note [Cotangents into a cond]: operands that already have a cotangent start the
  // branches' totals from it (an operand passed twice: at its first place).
  Seeds sd{std::vector<bool>(nIn, false), std::vector<int>(nIn, -1)};
  bool any = false;
  for (size_t r = 0; r < nIn; ++r) {
    sd.seed[r] = s[0].inActive[r] && c.prior.at(1 + r);
    if (c.shares.at(1 + r) > 0) sd.shares[r] = c.shares[1 + r] - 1;
    any |= sd.seed[r] || sd.shares[r] >= 0;
  }
  std::vector<Split> reSplit;
  if (any)
    for (int br = 0; br < 2; ++br) {
      reSplit.push_back(splitVjp(m, c.tape->bodies.at(br), s[br].inActive, s[br].outCt, c.loc,
                                 true, &sd));
      internal_assert(reSplit[br].resInvars == s[br].resInvars &&
                          reSplit[br].numResOut == s[br].numResOut,
                      "cond VJP: the seeded split reads other residuals");
    }

  std::vector<Atom> ins{e.in[0]};
  for (size_t k = 0; k < nOut; ++k)
    if (s[0].outCt[k]) ins.push_back(materialize(c.b, c.cts[k], e.out[k].type));
  size_t nCt = ins.size() - 1;
  for (size_t r = 0; r < nIn; ++r)
    if (sd.seed[r]) ins.push_back(*c.prior[1 + r]);
  size_t nSeed = ins.size() - 1 - nCt;
  for (int u : used) ins.push_back(e.in[1 + u]);
  for (size_t j = nOut; j < e.out.size(); ++j) ins.push_back(e.out[j]);

  std::vector<Jaxpr> branches(2);
  for (int br = 0; br < 2; ++br) {
    Jaxpr &nb = branches[br];
    for (size_t k = 1; k < ins.size(); ++k) nb.invars.push_back(m.newVar(ins[k].type()));
    Builder b(m, nb);
    b.setLoc(e.loc);
    std::vector<Atom> args(nb.invars.begin(), nb.invars.begin() + nCt + nSeed);
    size_t base = nCt + nSeed, res = base + used.size();
    for (int r : s[br].resInvars)
      args.push_back(nb.invars[base + (std::find(used.begin(), used.end(), r) - used.begin())]);
    size_t off = res + (br == 1 ? s[0].numResOut : 0);
    for (int j = 0; j < s[br].numResOut; ++j) args.push_back(nb.invars[off + j]);
    nb.outvars = inlineJaxpr(b, reSplit.empty() ? s[br].bwd : reSplit[br].bwd, args);
  }
  auto outs = c.b.emit(Op::Cond, ins, e.params, std::move(branches));
  std::vector<Ct> r(e.in.size());
  c.replaces.assign(e.in.size(), false);
  size_t o = 0;
  for (size_t k = 1; k < e.in.size(); ++k)
    if (s[0].inActive[k - 1]) {
      Atom ct = outs[o++];
      if (sd.shares[k - 1] >= 0) continue;  // in the total of the input it shares
      r[k] = ct;
      c.replaces[k] = sd.seed[k - 1];
    }
  return r;
}

}  // namespace spmd::transforms::grad
