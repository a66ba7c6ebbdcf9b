// ===- GradCall.cpp - lowering a call of grad(f) / value_and_grad(f) ------------===//
//
// `grad(f)(x)` traces f into a closed jaxpr of its own (one invar per array leaf of each
// argument, plus the values it captures), expands it with transforms::valueAndGrad, and
// inlines the result. Because the expansion happens here, a grad of a grad differentiates
// ordinary primitives.
#include "sema/AstLowering.h"

#include "transforms/Grad.h"

#include <algorithm>

namespace spmd::sema {
using ir::Atom;
using ir::DType;

ValueP AstLowering::gradCall(const Value &g, std::vector<ArgV> args, SrcRange loc) {
  // argnums count positional arguments, as in JAX (where keyword arguments pass through
  // undifferentiated); spmdrun takes positional ones only.
  for (auto &a : args)
    if (!a.keyword.empty())
      userError(a.keywordLoc, g.fname + "(f)(...) takes positional arguments only",
                {{SrcRange{}, "argnums number the positional arguments"}});
  for (int k : g.argnums)
    if (k < 0 || k >= int(args.size()))
      userError(loc, g.fname + "(): argnums " + std::to_string(k) +
                         " is out of range for a call with " + std::to_string(args.size()) +
                         " argument" + (args.size() == 1 ? "" : "s"));
  // Trace f in a frame of its own, with one invar per array leaf of each argument.
  std::vector<std::vector<ValueP>> argLeaves(args.size());
  std::vector<Atom> outerAtoms;
  std::vector<int> leafArg;
  // A list of numbers is the array it spells (`grad(f)([1.0, 2.0])` differentiates with
  // respect to an f32[2] and returns one), also inside a tuple argument.
  auto lists = [&](auto &&self, ValueP v, SrcRange at) -> ValueP {
    if (v->kind != Value::Tuple) return v;
    if (v->isList) {
      ValueP a = listAsArray(v, at);
      if (a != v) return a;
    }
    std::vector<ValueP> e;
    for (auto &x : v->elems) e.push_back(self(self, x, at));
    return Value::tuple(e, v->isList);
  };
  for (auto &a : args) a.value = lists(lists, a.value, a.loc);
  for (size_t k = 0; k < args.size(); ++k) {
    std::vector<ValueP> ls;
    leaves(args[k].value, ls);
    for (auto &l : ls) {
      ValueP a = l->kind == Value::Array ? l : toArray(l, args[k].loc);
      argLeaves[k].push_back(a);
      outerAtoms.push_back(a->atom);
      leafArg.push_back(int(k));
    }
  }
  // The leaves of the differentiated arguments, checked before f is called, as jax.grad
  // checks its inputs' dtypes before tracing (an int argument of a function that returns
  // an int is reported as the argument).
  std::vector<int> leafNums;
  for (size_t i = 0; i < leafArg.size(); ++i)
    if (std::find(g.argnums.begin(), g.argnums.end(), leafArg[i]) != g.argnums.end()) {
      ir::DType d = outerAtoms[i].type().dtype;
      if (!ir::isFloat(d))
        userError(args[leafArg[i]].loc,
                  g.fname +
                      "() can only differentiate with respect to float arrays, but argument " +
                      std::to_string(leafArg[i]) + " has a leaf of dtype " + ir::name(d));
      leafNums.push_back(int(i));
    }
  for (auto &a : outerAtoms) a = local(a);
  pushFrame(false);
  top().isMapBody = false;
  std::vector<ArgV> inner = args;
  std::vector<ValueP> leafVals;
  size_t leaf = 0;
  for (size_t k = 0; k < args.size(); ++k) {
    std::vector<ValueP> vs;
    for (auto &l : argLeaves[k]) {
      ir::Type t = l->type();
      vs.push_back(Value::array(newInvar(t), l->weak));
      // Note [Sharded host values]: jax.grad passes a sharded argument on as it is.
      if (const Shard *s = shardOf(outerAtoms[leaf++]); s && !inMapBody())
        shards[vs.back()->atom.var.id] = *s;
    }
    size_t pos = 0;
    inner[k].value = fromLeaves(*args[k].value, vs, pos);
  }
  ValueP out;
  try {
    out = callValue(g.inner, inner, {}, loc);
  } catch (...) {
    popFrame();
    throw;
  }
  ValueP value = out;
  if (out->kind != Value::Array || out->type() != ir::Type{DType::F32, {}})
    userError(loc, g.fname + "() needs a function that returns an f32 scalar, but it returns " +
                       describe(*out));
  top().jaxpr.outvars.push_back(local(out->atom));
  auto fr = popFrame();
  fr->jaxpr.invars.insert(fr->jaxpr.invars.end(), fr->captureVars.begin(), fr->captureVars.end());
  std::vector<Atom> ins = outerAtoms;
  for (auto &c : fr->captured) ins.push_back(c);
  transforms::AxisSizes
      outer;  // the axes around this call, which vmaps in f may name with their own
  for (auto &a : axisStack) outer[a->name] = a->size;
  ir::Jaxpr vg = transforms::valueAndGrad(module, fr->jaxpr, leafNums, loc, outer);
  auto outs = inlineJaxpr(vg, ins);
  std::vector<ValueP> gradsPerArg;
  for (int k : g.argnums) {
    std::vector<ValueP> gl;
    for (size_t j = 0; j < leafNums.size(); ++j)
      if (leafArg[leafNums[j]] == k) gl.push_back(Value::array(outs[1 + j]));
    size_t p2 = 0;
    gradsPerArg.push_back(fromLeaves(*args[k].value, gl, p2));
  }
  ValueP grads = g.argnumsTuple ? Value::tuple(gradsPerArg) : gradsPerArg[0];
  if (g.withValue) return Value::tuple({Value::array(outs[0]), grads});
  return grads;
}

}  // namespace spmd::sema
