// ===- Simplify.cpp - fold chains of reshapes and transposes ---------------------===//
//
// Note [Layout chains]: lowering emits data movement one construct at a time, so a
// value often passes through a reshape or transpose that a later one undoes. The main
// case is a shard_map's result read by a following shard_map over the same mesh and
// spec: the first merges its device blocks back into the array (transpose, reshape),
// the second splits them out again (reshape, transpose). Folding the chain lets the
// second pmap read the first one's result directly: its shards stay on the devices
// (Note [Sharded arrays] in the runtime), and the host copies nothing.
//
// The rules, applied to each equation's operands in every jaxpr and region:
//   reshape(reshape(x))      -> reshape(x)     (both row-major, without `dimensions`)
//   reshape(x) to x's shape  -> x
//   transpose(transpose(x))  -> transpose(x) with the composed permutation
//   transpose(x) by identity -> x
//   a reduction over axes of size 1 (as many elements out as in) -> reshape(x), as XLA's
//     simplifier does: so the sum of one denormal keeps its bits (XLA:CPU flushes the
//     result of an addition, Note [Denormals]), as in JAX, where `0 + x` would not
// A folded equation whose result is no longer used is removed. Results of a jaxpr
// (its outvars) are never replaced by another variable: the REPL keeps the variables
// it names, and each must stay a buffer of its own.
#include "transforms/Pipeline.h"

#include <map>
#include <set>

namespace spmd::transforms {
using ir::Atom;
using ir::Eqn;
using ir::Jaxpr;
using ir::Op;
using ir::Param;

namespace {

bool plainReshape(const Eqn &e) {
  return e.op == Op::Reshape && e.param("dimensions").kind == Param::None;
}

bool identity(const std::vector<int64_t> &perm) {
  for (size_t k = 0; k < perm.size(); ++k)
    if (perm[k] != int64_t(k)) return false;
  return true;
}

void simplify(Jaxpr &j) {
  for (auto &e : j.eqns)
    for (auto &r : e.regions) simplify(r);

  std::map<int, const Eqn *> def;  // var id -> its defining reshape or transpose
  std::map<int, Atom> same;        // var id -> the atom it equals
  auto resolve = [&](Atom a) {
    while (!a.isLit) {
      auto it = same.find(a.var.id);
      if (it == same.end()) break;
      a = it->second;
    }
    return a;
  };
  for (auto &e : j.eqns) {
    for (auto &a : e.in) a = resolve(a);
    bool reduce = e.op == Op::ReduceSum || e.op == Op::ReduceProd || e.op == Op::ReduceMax ||
                  e.op == Op::ReduceMin || e.op == Op::ReduceAnd || e.op == Op::ReduceOr;
    if (reduce && e.out.size() == 1 && e.in[0].type().numel() == e.out[0].type.numel() &&
        e.in[0].type().dtype == e.out[0].type.dtype) {
      e.op = Op::Reshape;
      e.params.clear();
      const ir::Shape &os = e.out[0].type.shape;
      e.params["new_sizes"] = os.empty() ? Param::tuple({}) : Param::ints(os);
      e.params["dimensions"] = Param::none();
    }
    if (plainReshape(e) && !e.in[0].isLit) {
      auto d = def.find(e.in[0].var.id);
      if (d != def.end() && plainReshape(*d->second)) e.in[0] = d->second->in[0];
      if (!e.in[0].isLit && e.in[0].var.type.shape == e.out[0].type.shape)
        same[e.out[0].id] = e.in[0];
    } else if (e.op == Op::Transpose && !e.in[0].isLit) {
      auto d = def.find(e.in[0].var.id);
      if (d != def.end() && d->second->op == Op::Transpose) {
        // out[i] = mid[q[i]] and mid[k] = x[p[k]], so out[i] = x[p[q[i]]].
        std::vector<int64_t> p = d->second->intsParam("permutation"),
                             q = e.intsParam("permutation"), r(q.size());
        for (size_t i = 0; i < q.size(); ++i) r[i] = p[size_t(q[i])];
        e.in[0] = d->second->in[0];
        e.params["permutation"] = Param::ints(r);
      }
      if (identity(e.intsParam("permutation"))) same[e.out[0].id] = e.in[0];
    }
    if (plainReshape(e) || e.op == Op::Transpose) def[e.out[0].id] = &e;
  }

  // Remove the folded equations nobody reads any more (outvars count as reads).
  std::set<int> used;
  for (auto &a : j.outvars)
    if (!a.isLit) used.insert(a.var.id);
  std::vector<bool> keep(j.eqns.size(), true);
  for (size_t k = j.eqns.size(); k-- > 0;) {
    const Eqn &e = j.eqns[k];
    if (plainReshape(e) || e.op == Op::Transpose) {
      if (!used.count(e.out[0].id)) {
        keep[k] = false;
        continue;
      }
    }
    for (auto &a : e.in)
      if (!a.isLit) used.insert(a.var.id);
  }
  std::vector<Eqn> kept;
  kept.reserve(j.eqns.size());
  for (size_t k = 0; k < j.eqns.size(); ++k)
    if (keep[k]) kept.push_back(std::move(j.eqns[k]));
  j.eqns = std::move(kept);
}

}  // namespace

void simplifyPass(ir::Module &m) { simplify(m.main); }

}  // namespace spmd::transforms
