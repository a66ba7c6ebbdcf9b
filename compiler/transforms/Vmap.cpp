// ===- Vmap.cpp - vmap as a batching transform over the IR ---------------------===//
//
// eliminateVmaps replaces every `vmap` equation by its body, batched: each primitive of
// the body is emitted once, on the whole batch, by its rule in the table below (JAX's
// `batching.primitive_batchers`). No loop is ever introduced.
//
// Note [Innermost first]: vmaps are removed innermost first. When the outer vmap is
// batched, its body holds no vmap any more; collectives that named the outer axis from
// inside an inner vmap now sit in the outer body on values carrying the inner batch
// dimension, which the collective rules treat like any other batched operand over an
// axis that is not the one being batched. So the table needs no rule for vmap itself.
//
// Note [Unbatched values]: a value that is the same for every example stays unbatched
// (kNotMapped) until it meets a batched one, and then is broadcast. Equations whose
// operands are all unbatched are copied as they are, except collectives (psum over the
// vmap's axis of an unbatched value still depends on the axis size, axis_index is
// batched by nature) and region ops (their bodies may name the axis).
#include "transforms/Vmap.h"

#include "transforms/BatchRules.h"

#include <array>
#include <unordered_map>

namespace spmd::transforms {
namespace batching {
using namespace ir;

/// A region list that takes the jaxprs by move (`{std::move(j)}` is an initializer_list,
/// whose const elements the vector copies: every nested region, deeply).
template <typename... J>
static std::vector<Jaxpr> movedRegions(J &&...js) {
  std::vector<Jaxpr> r;
  (r.push_back(std::move(js)), ...);
  return r;
}

// ---- helpers --------------------------------------------------------------------------

std::vector<int64_t> shifted(std::vector<int64_t> ints, int64_t k) {
  for (auto &i : ints) i += k;
  return ints;
}

Shape prepend(int64_t n, const Shape &s) {
  Shape r{n};
  r.insert(r.end(), s.begin(), s.end());
  return r;
}

Type Batcher::exampleType(const BVal &v) const {
  Type t = v.a.type();
  if (v.batched()) t.shape.erase(t.shape.begin() + v.bdim);
  return t;
}

int64_t Batcher::sizeOf(const std::string &name) const {
  auto it = sizes.find(name);
  internal_assert(it != sizes.end(),
                  "the size of axis '" + name + "' is not known to the vmap pass");
  return it->second;
}

Type Batcher::batchedType(const Type &example) const {
  return Type{example.dtype, prepend(size, example.shape)};
}

Atom Batcher::moveTo(const BVal &v, int d) {
  Type t = v.a.type();
  if (!v.batched()) {
    Shape s = t.shape;
    s.insert(s.begin() + d, size);
    std::vector<int64_t> dims;
    for (int k = 0; k < int(s.size()); ++k)
      if (k != d) dims.push_back(k);
    return b.broadcastInDim(v.a, s, dims);
  }
  if (v.bdim == d) return v.a;
  std::vector<int64_t> perm;
  for (int k = 0; k < t.rank(); ++k)
    if (k != v.bdim) perm.push_back(k);
  perm.insert(perm.begin() + d, v.bdim);
  return b.transpose(v.a, perm);
}

/// A copy of `j` whose every variable is renamed to a fresh one (so a region can be
/// emitted again without defining a variable twice).
static Jaxpr cloneFresh(Module &m, const Jaxpr &j, std::unordered_map<int, Var> &ren) {
  auto def = [&](const Var &v) { return ren[v.id] = m.newVar(v.type); };
  auto use = [&](Atom a) {
    if (!a.isLit) {
      auto it = ren.find(a.var.id);
      if (it != ren.end()) a.var = it->second;
    }
    return a;
  };
  Jaxpr r;
  for (auto &v : j.invars) r.invars.push_back(def(v));
  for (auto &e : j.eqns) {
    Eqn c;
    c.op = e.op;
    c.params = e.params;
    c.loc = e.loc;
    for (auto &a : e.in) c.in.push_back(use(a));
    for (auto &reg : e.regions) c.regions.push_back(cloneFresh(m, reg, ren));
    for (auto &v : e.out) c.out.push_back(def(v));
    r.eqns.push_back(std::move(c));
  }
  for (auto &a : j.outvars) r.outvars.push_back(use(a));
  return r;
}

std::vector<BVal> Batcher::copy(const Eqn &e, const std::vector<BVal> &ins) {
  std::vector<Atom> as;
  for (auto &v : ins) as.push_back(v.a);
  std::vector<Jaxpr> regions;
  for (auto &r : e.regions) {
    std::unordered_map<int, Var> ren;
    regions.push_back(cloneFresh(b.module(), r, ren));
  }
  std::vector<BVal> outs;
  for (auto &v : b.emit(e.op, as, e.params, std::move(regions))) outs.push_back({v, kNotMapped});
  return outs;
}

// ---- region rules ---------------------------------------------------------------------

/// Starts a region body: fresh invars of the given example types, batched at 0 where
/// `batched` says so.
static std::vector<BVal> regionInputs(Batcher &bt, Jaxpr &body, const std::vector<Type> &types,
                                      const std::vector<bool> &batched) {
  std::vector<BVal> ins;
  for (size_t k = 0; k < types.size(); ++k) {
    Var v = bt.newVar(batched[k] ? bt.batchedType(types[k]) : types[k]);
    body.invars.push_back(v);
    ins.push_back({v, batched[k] ? 0 : kNotMapped});
  }
  return ins;
}

/// pmap inside a vmap: the batch dimension becomes dimension 0 of the pmap's operands
/// and results, its in/out axes shift by one, and the body is batched with the same axis
/// (collectives in it may name the vmap's axis).
static std::vector<BVal> batchPmap(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins) {
  const Jaxpr &body = e.regions[0];
  Params p = e.params;
  auto &inAxes = p["in_axes"].elems;
  std::vector<Atom> operands;
  std::vector<Type> types;
  std::vector<bool> batched;
  for (size_t k = 0; k < ins.size(); ++k) {
    batched.push_back(ins[k].batched());
    types.push_back(body.invars[k].type);
    operands.push_back(ins[k].batched() ? bt.at0(ins[k]) : ins[k].a);
    if (ins[k].batched() && inAxes[k].kind == Param::Int) inAxes[k].i += 1;
  }
  Jaxpr nb;
  Builder bb(bt.b.module(), nb);
  bb.setLoc(e.loc);
  Batcher inner = bt.into(bb);
  inner.sizes[e.param("axis_name").s] =
      e.intParam("axis_size");  // collectives in the body may name it
  auto outs = inner.jaxpr(body, regionInputs(inner, nb, types, batched));
  auto &outAxes = p["out_axes"].elems;
  std::vector<int> bdims;
  for (size_t k = 0; k < outs.size(); ++k) {
    nb.outvars.push_back(outs[k].batched() ? inner.at0(outs[k]) : outs[k].a);
    bdims.push_back(outs[k].batched() ? 0 : kNotMapped);
    if (outs[k].batched()) outAxes[k].i += 1;
  }
  std::vector<BVal> r;
  auto vs = bt.b.emit(Op::Pmap, operands, p, movedRegions(std::move(nb)));
  for (size_t k = 0; k < vs.size(); ++k) r.push_back({vs[k], bdims[k]});
  return r;
}

/// for_loop: consts and carries keep their batching, except that a carry becomes
/// batched when the body makes it so; the body is re-batched until that is stable.
static std::vector<BVal> batchForLoop(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins) {
  const Jaxpr &body = e.regions[0];
  size_t nc = size_t(e.intParam("num_consts"));
  size_t extra = body.invars.size() - ins.size();  // 1 when the body takes the index first
  internal_assert(extra <= 1, "for_loop body invars: [index,] consts, carries");
  std::vector<bool> batched;
  for (auto &v : ins) batched.push_back(v.batched());
  for (;;) {
    Jaxpr nb;
    Builder bb(bt.b.module(), nb);
    bb.setLoc(e.loc);
    Batcher inner = bt.into(bb);
    std::vector<Type> types;
    std::vector<bool> flags(extra, false);
    for (auto &v : body.invars) types.push_back(v.type);
    flags.insert(flags.end(), batched.begin(), batched.end());
    auto outs = inner.jaxpr(body, regionInputs(inner, nb, types, flags));
    bool changed = false;
    for (size_t k = 0; k < outs.size(); ++k)
      if (outs[k].batched() && !batched[nc + k]) batched[nc + k] = changed = true;
    if (changed) continue;
    for (size_t k = 0; k < outs.size(); ++k)
      nb.outvars.push_back(batched[nc + k] ? inner.at0(outs[k]) : outs[k].a);
    std::vector<Atom> operands;
    for (size_t k = 0; k < ins.size(); ++k)
      operands.push_back(batched[k] ? bt.at0(ins[k]) : ins[k].a);
    auto vs = bt.b.emit(Op::ForLoop, operands, e.params, movedRegions(std::move(nb)));
    std::vector<BVal> r;
    for (size_t k = 0; k < vs.size(); ++k) r.push_back({vs[k], batched[nc + k] ? 0 : kNotMapped});
    return r;
  }
}

/// cond: with an unbatched predicate both branches are batched (an output batched in
/// either branch is batched in both); with a batched predicate both branches run on the
/// whole batch and select_n picks per example (JAX's rule: cond becomes select).
static std::vector<BVal> batchCond(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins) {
  std::vector<BVal> operands(ins.begin() + 1, ins.end());
  if (ins[0].batched()) {
    auto f = bt.jaxpr(e.regions[0], operands), t = bt.jaxpr(e.regions[1], operands);
    BVal pred = ins[0];
    if (bt.exampleType(pred).dtype != DType::Bool) {
      Eqn ne;
      ne.op = Op::Ne;
      pred = batchElementwise(bt, ne, {pred, {bt.b.lit(pred.a.type().dtype, 0), kNotMapped}})[0];
    }
    Eqn sel;
    sel.op = Op::Select;
    std::vector<BVal> r;
    for (size_t k = 0; k < f.size(); ++k)
      r.push_back(batchElementwise(bt, sel, {pred, f[k], t[k]})[0]);
    return r;
  }
  std::vector<Type> types;
  std::vector<bool> batched;
  for (auto &v : operands) {
    types.push_back(bt.exampleType(v));
    batched.push_back(v.batched());
  }
  Jaxpr nj[2];
  std::vector<BVal> outs[2];
  std::vector<Builder> builders;
  builders.reserve(2);
  for (int k = 0; k < 2; ++k) {
    builders.emplace_back(bt.b.module(), nj[k]);
    builders[k].setLoc(e.loc);
    Batcher inner = bt.into(builders[k]);
    outs[k] = inner.jaxpr(e.regions[k], regionInputs(inner, nj[k], types, batched));
  }
  std::vector<bool> outB;
  for (size_t i = 0; i < outs[0].size(); ++i)
    outB.push_back(outs[0][i].batched() || outs[1][i].batched());
  for (int k = 0; k < 2; ++k) {
    Batcher inner = bt.into(builders[k]);
    for (size_t i = 0; i < outs[k].size(); ++i)
      nj[k].outvars.push_back(outB[i] ? inner.at0(outs[k][i]) : outs[k][i].a);
  }
  std::vector<Atom> as{ins[0].a};
  for (auto &v : operands) as.push_back(v.batched() ? bt.at0(v) : v.a);
  auto vs = bt.b.emit(Op::Cond, as, e.params, movedRegions(std::move(nj[0]), std::move(nj[1])));
  std::vector<BVal> r;
  for (size_t k = 0; k < vs.size(); ++k) r.push_back({vs[k], outB[k] ? 0 : kNotMapped});
  return r;
}

static std::vector<BVal> noNestedVmap(Batcher &, const Eqn &, const std::vector<BVal> &) {
  internal_assert(false, "vmaps are batched innermost first (Note [Innermost first])");
  return {};
}

// ---- the rule table -------------------------------------------------------------------

/// One rule per primitive; elementwise categories share one rule. Every op has an
/// entry (the op-coverage test checks it): host effects and ops without operands have
/// explicit ones that say why they are never batched.
static const std::array<BatchRule, kNumOps> &ruleTable() {
  static const std::array<BatchRule, kNumOps> table = [] {
    std::array<BatchRule, kNumOps> t{};
    for (int k = 0; k < kNumOps; ++k) {
      if (isElementwise(Op(k))) t[k] = batchElementwise;
      if (info(Op(k)).category == OpCategory::Reduce) t[k] = batchReduce;
    }
    auto set = [&](Op op, BatchRule r) { t[size_t(op)] = r; };
    set(Op::BroadcastInDim, batchBroadcastInDim);
    set(Op::Reshape, batchReshape);
    set(Op::Transpose, batchTranspose);
    set(Op::Concatenate, batchConcatenate);
    set(Op::Slice, batchSlice);
    set(Op::Pad, batchPad);
    set(Op::Rev, batchRev);
    set(Op::DynamicSlice, batchDynamicSlice);
    set(Op::DynamicUpdateSlice, batchDynamicUpdateSlice);
    set(Op::Check, batchCheck);
    set(Op::DotGeneral, batchDotGeneral);
    set(Op::Psum, batchAllReduce);
    set(Op::Pmax, batchAllReduce);
    set(Op::Pmin, batchAllReduce);
    set(Op::AllGather, batchAllGather);
    set(Op::Ppermute, batchPpermute);
    set(Op::AllToAll, batchAllToAll);
    set(Op::ReduceScatter, batchReduceScatter);
    set(Op::AxisIndex, batchAxisIndex);
    set(Op::RandomSeed, batchRandomSeed);
    set(Op::RandomSplit, batchLeadingKeyDims);
    set(Op::RandomFoldIn, batchElementwise);
    set(Op::RandomBits, batchLeadingKeyDims);
    set(Op::RandomWrap, batchLeadingKeyDims);
    set(Op::RandomUnwrap, batchLeadingKeyDims);
    set(Op::Pmap, batchPmap);
    set(Op::Vmap, noNestedVmap);
    set(Op::ForLoop, batchForLoop);
    set(Op::Cond, batchCond);
    // Iota and Constant have no operands, so they are never batched: Batcher::eqn copies
    // them before it looks here.
    for (Op op : {Op::Iota, Op::Constant})
      set(op,
          [](Batcher &bt, const Eqn &e, const std::vector<BVal> &ins) { return bt.copy(e, ins); });
    // Host effects never occur inside a vmap (sema refuses them there).
    for (Op op : {Op::Print, Op::AssertClose})
      set(op, [](Batcher &, const Eqn &e, const std::vector<BVal> &) -> std::vector<BVal> {
        internalError(__FILE__, __LINE__,
                      std::string(name(e.op)) + " inside a vmap (a host effect)");
      });
    return t;
  }();
  return table;
}

std::vector<BVal> Batcher::eqn(const Eqn &e, const std::vector<BVal> &ins) {
  auto cat = info(e.op).category;
  bool any = false;
  for (auto &v : ins) any |= v.batched();
  if (!any && cat != OpCategory::Collective && cat != OpCategory::Region) return copy(e, ins);
  BatchRule rule = ruleTable()[size_t(e.op)];
  internal_assert(rule != nullptr, std::string("no batching rule for ") + name(e.op));
  return rule(*this, e, ins);
}

std::vector<BVal> Batcher::jaxpr(const Jaxpr &body, const std::vector<BVal> &ins) {
  internal_assert(body.invars.size() == ins.size(), "batched region arity");
  std::unordered_map<int, BVal> env;
  for (size_t k = 0; k < ins.size(); ++k) env[body.invars[k].id] = ins[k];
  auto read = [&](const Atom &a) -> BVal {
    if (a.isLit) return {a, kNotMapped};
    auto it = env.find(a.var.id);
    internal_assert(it != env.end(), "vmap body uses a variable it does not define");
    return it->second;
  };
  SrcRange saved = b.loc();
  for (auto &e : body.eqns) {
    std::vector<BVal> in;
    for (auto &a : e.in) in.push_back(read(a));
    b.setLoc(e.loc);
    auto outs = eqn(e, in);
    internal_assert(outs.size() == e.out.size(),
                    std::string("batching rule arity of ") + name(e.op));
    for (size_t k = 0; k < outs.size(); ++k) env[e.out[k].id] = outs[k];
  }
  b.setLoc(saved);
  std::vector<BVal> r;
  for (auto &a : body.outvars) r.push_back(read(a));
  return r;
}

}  // namespace batching

bool hasBatchRule(ir::Op op) { return batching::ruleTable()[size_t(op)] != nullptr; }

// ---- the pass -----------------------------------------------------------------------------

/// eliminateVmaps, knowing which of the axes bound around `j` are vmaps' (`vmaps`).
static void eliminate(ir::Module &m, ir::Jaxpr &j, const AxisSizes &outer,
                      const std::set<std::string> &vmaps) {
  using namespace ir;
  using batching::BVal;
  std::vector<Eqn> old = std::move(j.eqns);
  j.eqns.clear();
  std::unordered_map<int, Atom> subst;  // vmap results -> the batched values replacing them
  auto fix = [&](Atom &a) {
    if (a.isLit) return;
    auto it = subst.find(a.var.id);
    if (it != subst.end()) a = it->second;
  };
  Builder b(m, j);
  for (auto &e : old) {
    for (auto &a : e.in) fix(a);
    AxisSizes inner = outer;  // the axis this equation binds, if any, is in scope in its regions
    std::set<std::string> innerVmaps = vmaps;
    if (e.op == Op::Pmap || e.op == Op::Vmap) {
      const Param &n = e.param("axis_name");
      if (n.kind == Param::Str) inner[n.s] = e.intParam("axis_size");
      if (n.kind == Param::Str && e.op == Op::Vmap) innerVmaps.insert(n.s);
    }
    for (auto &r : e.regions) eliminate(m, r, inner, innerVmaps);  // Note [Innermost first]
    if (e.op != Op::Vmap) {
      j.eqns.push_back(std::move(e));
      continue;
    }
    b.setLoc(e.loc);
    const Param &name = e.param("axis_name");
    batching::Batcher bt(b, name.kind == Param::Str ? name.s : std::string(),
                         e.intParam("axis_size"), inner, vmaps);
    auto &inAxes = e.param("in_axes").elems;
    internal_assert(inAxes.size() == e.in.size(), "vmap in_axes arity");
    std::vector<BVal> ins;
    for (size_t k = 0; k < e.in.size(); ++k)
      ins.push_back(
          {e.in[k], inAxes[k].kind == Param::Int ? int(inAxes[k].i) : batching::kNotMapped});
    auto outs = bt.jaxpr(e.regions[0], ins);
    auto outAxes = e.intsParam("out_axes");
    for (size_t k = 0; k < outs.size(); ++k) {
      Atom r = bt.moveTo(outs[k], int(outAxes[k]));
      internal_assert(r.type() == e.out[k].type, "batched vmap result type " + r.type().str() +
                                                     " differs from " + e.out[k].type.str());
      subst[e.out[k].id] = r;
    }
  }
  for (auto &a : j.outvars) fix(a);
}

void eliminateVmaps(ir::Module &m, ir::Jaxpr &j, const AxisSizes &outer) {
  eliminate(m, j, outer, {});
}

}  // namespace spmd::transforms
