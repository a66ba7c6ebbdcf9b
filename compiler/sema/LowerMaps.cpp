// ===- LowerMaps.cpp - pmap and vmap blocks ----------------------------------------===//
//
// A map block lowers to one pmap or vmap equation whose body is the block, traced over
// the per-device (or per-element) shapes; the results are stacked along `out_axes`.
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

// ---- pmap and vmap ------------------------------------------------------------------

ValueP AstLowering::mapExpr(const MapExpr &m) {
  const char *kw = m.isPmap ? "pmap" : "vmap";
  std::vector<ValueP> mappedLeaves;  // per binding leaves
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
        userError(bd.source->loc, std::string("cannot map over axis ") + std::to_string(along) +
                                      " of a value of type " + a->type().str());
      int64_t n = a->type().shape[ax];
      if (size < 0) {
        size = n;
        firstLoc = bd.source->loc;
      } else if (n != size)
        userError(bd.source->loc,
                  std::string("mapped inputs disagree on the size of the mapped axis: ") +
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
    userError(m.loc, "pmap over axis '" + m.axis->name + "' of size 0",
              {{SrcRange{}, "a pmap needs at least one device; vmap maps over an empty axis"}});
  if (m.isPmap) {
    int64_t need = size;
    for (auto &a : pmapStack) need *= a->size;
    if (need > opts.deviceCount)
      userError(m.loc,
                "pmap over axis '" + m.axis->name + "' needs " + std::to_string(need) +
                    " devices, but only " + std::to_string(opts.deviceCount) + " are available",
                {{SrcRange{}, "run with " + opts.devicesFlagHint + " (N >= " +
                                  std::to_string(need) + ") to use more logical devices"}});
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
        userError(m.outAlong->loc, "'-> along' names " + std::to_string(oa->elems.size()) +
                                       " axes for " + std::to_string(outArrs.size()) + " results");
      for (size_t k = 0; k < outArrs.size(); ++k)
        outAxes[k] = staticInt(oa->elems[k], m.outAlong->loc, "an output axis");
    } else {
      int64_t a = staticInt(oa, m.outAlong->loc, "an output axis");
      std::fill(outAxes.begin(), outAxes.end(), a);
    }
    for (size_t k = 0; k < outArrs.size(); ++k) {
      int64_t r = outArrs[k]->type().rank() + 1;
      if (outAxes[k] < 0) outAxes[k] += r;
      if (outAxes[k] < 0 || outAxes[k] >= r)
        userError(m.outAlong->loc,
                  "output axis out of range for a result of type " + outArrs[k]->type().str());
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

}  // namespace spmd::sema
