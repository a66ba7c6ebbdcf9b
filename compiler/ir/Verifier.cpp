// ===- Verifier.cpp - the IR's invariants, checked after every pass ----------===//
//
// A jaxpr is well formed when every variable is defined once before it is used, every
// equation has its table's arity, its output types are what inferTypes says, and every
// region is closed: it uses only its own invars and what it defines (Note [Regions]).
#include "ir/IR.h"

#include <unordered_set>

namespace spmd::ir {
namespace {

struct Verifier {
  void jaxpr(const Jaxpr &j) {
    std::unordered_set<int> defined;
    for (auto &v : j.invars) define(defined, v);
    for (auto &e : j.eqns) {
      for (auto &a : e.in) use(defined, a, e);
      std::vector<Type> ins;
      for (auto &a : e.in) ins.push_back(a.type());
      auto outs = inferTypes(e.op, ins, e.params, e.regions);
      internal_assert(outs.size() == e.out.size(),
                      std::string("wrong number of results of ") + name(e.op));
      for (size_t k = 0; k < outs.size(); ++k)
        internal_assert(outs[k] == e.out[k].type, std::string("result type of ") + name(e.op) +
                                                      " is " + e.out[k].type.str() + ", inferred " +
                                                      outs[k].str());
      for (auto &r : e.regions) jaxpr(r);
      for (auto &v : e.out) define(defined, v);
    }
    for (auto &a : j.outvars) use(defined, a, {});
  }
  void define(std::unordered_set<int> &d, const Var &v) {
    internal_assert(v.valid(), "invalid variable");
    internal_assert(seen_.insert(v.id).second,
                    "variable defined twice: id " + std::to_string(v.id));
    d.insert(v.id);
  }
  void use(const std::unordered_set<int> &d, const Atom &a, const Eqn &e) {
    if (a.isLit) return;
    internal_assert(d.count(a.var.id),
                    std::string("use of a variable not defined in this region by ") + name(e.op) +
                        " (id " + std::to_string(a.var.id) + ")");
  }
  std::unordered_set<int> seen_;
};

}  // namespace

void verify(const Module &m) { Verifier().jaxpr(m.main); }

}  // namespace spmd::ir
