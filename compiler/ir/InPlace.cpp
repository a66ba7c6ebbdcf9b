// ===- InPlace.cpp - may a jaxpr write an output over one of its inputs? --------===//
#include "ir/InPlace.h"

#include <unordered_map>
#include <unordered_set>

namespace spmd::ir {

// Note [Buffer donation]
// ~~~~~~~~~~~~~~~~~~~~~~
// `ys = pmap i (x in xs) { x / psum(sum(x), i) }` with xs dead after it needs two
// arrays of the same size at once unless ys is written over xs. The code generator
// gives a host-level pmap's output the buffer of an input (the launch passes one
// pointer as both) when all of these hold:
//
//  Host side (codegen, emitPmapLaunch; only for CPU devices, Split::None):
//   1. the input is a var defined in the jaxpr being emitted (not an invar: a loop's
//      carry or const, a region operand, a REPL input may be shared with a live host
//      variable) whose last use is this launch (FnState::dying, the same last-use
//      computation that frees buffers, Note [Buffers]), that appears once among the
//      launch's operands and has a buffer of its own (not a constant global);
//   2. same type (dtype and shape) as the output, both mapped on axis 0 (no transposed
//      copy), and both split over every axis of the launch's mesh (in and out masks
//      full): each device then reads and writes exactly its own slice, and no device
//      reads a slice another one writes. (An output stacked over fewer axes is written
//      by one replica while the others still read the same slice.)
//   The input's buffer then becomes the output's and is no longer freed at the input's
//   last use; the runtime sees one buffer in two roles and needs no change.
//
//  Body side (here, canWriteOver): y is written by its defining equation E, directly
//  into the launch's output (a CPU kernel writes a direct output in place). Let D be x
//  and every value computed from it before E (through operands, or referenced inside a
//  region). Then:
//   3. E is elementwise (unary, binary, compare, select, ternary) with y's and x's type,
//      so element i of y is written right after element i of E's operands is read;
//   4. no equation after E reads a value of D, and no other outvar is in D: a value of
//      D may be a fused expression that reads x when it is used, not when it is defined;
//   5. each operand of E in D reads x at element i only, or not at all: x itself, an
//      elementwise value of x's shape whose own operands do the same, or a value that
//      reaches x only through values materialised at their own equation, before E (a
//      reduction, a dot, a collective: `broadcast(psum(sum(x)))` reads the psum's
//      buffer, not x). A transpose, slice, broadcast or reverse of x itself could be
//      fused into E and read element j != i after y[j] was written; those refuse.
//   Collectives: a peer reads this device's x only inside a collective that this
//   device is in too, and a collective returns only when no member reads another's
//   input any more (Note [Collective protocol], runtime/cpu/CpuCommunicator.cpp); by 4
//   every collective on D is before E, so no peer reads x after E writes it.
// Anything else keeps a fresh output buffer: donation is an optimisation, never needed
// for correctness, and tests/golden/donate_*.spmd check both sides.

namespace {

bool materialised(Op op) {
  switch (info(op).category) {
  case OpCategory::Reduce:
  case OpCategory::Dot:
  case OpCategory::Collective: return true;
  default: return false;
  }
}

/// Whether `j` (a region, at any depth) reads a var of `ids`.
bool refersTo(const Jaxpr &j, const std::unordered_set<int> &ids) {
  for (auto &e : j.eqns) {
    for (auto &a : e.in)
      if (!a.isLit && ids.count(a.var.id)) return true;
    for (auto &r : e.regions)
      if (refersTo(r, ids)) return true;
  }
  for (auto &a : j.outvars)
    if (!a.isLit && ids.count(a.var.id)) return true;
  return false;
}

}  // namespace

bool canWriteOver(const Jaxpr &body, const Var &x, const Atom &y) {
  if (y.isLit || y.var.id == x.id || !(y.var.type == x.type)) return false;
  std::unordered_map<int, const Eqn *> def;
  size_t at = body.eqns.size();
  for (size_t k = 0; k < body.eqns.size(); ++k)
    for (auto &v : body.eqns[k].out) {
      def[v.id] = &body.eqns[k];
      if (v.id == y.var.id) at = k;
    }
  if (at == body.eqns.size()) return false;
  const Eqn &E = body.eqns[at];
  if (!isElementwise(E.op) || E.out.size() != 1) return false;  // 3
  std::unordered_set<int> D{x.id};
  for (size_t k = 0; k < body.eqns.size(); ++k) {
    const Eqn &e = body.eqns[k];
    bool reads = false;
    for (auto &a : e.in) reads |= !a.isLit && D.count(a.var.id);
    for (auto &r : e.regions) reads = reads || refersTo(r, D);
    if (!reads || k == at) continue;
    if (k > at) return false;  // 4
    for (auto &v : e.out) D.insert(v.id);
  }
  for (auto &a : body.outvars)
    if (!a.isLit && a.var.id != y.var.id && D.count(a.var.id)) return false;  // 4
  // 5: the operands of E read x at the element E writes, or not at all.
  std::unordered_map<int, bool> opaque, same;
  // Whether `a` does not read x when used: it is not computed from x, or only through
  // values materialised at their own equation (before E).
  auto noX = [&](auto &self, const Atom &a) -> bool {
    if (a.isLit || !D.count(a.var.id)) return true;
    if (a.var.id == x.id) return false;
    if (auto m = opaque.find(a.var.id); m != opaque.end()) return m->second;
    const Eqn *d = def.at(a.var.id);
    bool ok = materialised(d->op);
    if (!ok && d->regions.empty()) {
      ok = true;
      for (auto &b : d->in) ok = ok && self(self, b);
    }
    return opaque[a.var.id] = ok;
  };
  // Whether `a`, used at element i of x's shape, reads x at element i only (or not at all).
  auto sameElement = [&](auto &self, const Atom &a) -> bool {
    if (a.isLit || !D.count(a.var.id) || a.var.id == x.id) return true;
    if (auto m = same.find(a.var.id); m != same.end()) return m->second;
    const Eqn *d = def.at(a.var.id);
    bool ok = noX(noX, a);
    if (!ok && isElementwise(d->op) && d->out.size() == 1 && d->out[0].type.shape == x.type.shape) {
      ok = true;
      for (auto &b : d->in) ok = ok && self(self, b);
    }
    return same[a.var.id] = ok;
  };
  for (auto &a : E.in)
    if (!sameElement(sameElement, a)) return false;
  return true;
}

}  // namespace spmd::ir
