// ===- BufferPlan.cpp - which host buffers a run takes first --------------------===//
//
// Note [Buffer plan]
// ~~~~~~~~~~~~~~~~~~
// A program's first launches write fresh host buffers, whose pages the kernel clears at
// first touch inside the launch: 32 MB for random_matmul's m @ m.T, 128 MiB for
// micro_psum's first psum (bench/notes.md, mm14 and perf11). The driver asks for the plan
// below before LLVM compiles the program, and the runtime faults those buffers in
// meanwhile (Note [Pre-faulting] in runtime/BufferPool.h). The plan must not promise
// more than the run takes, so it follows the host code as the emitter will (Note
// [Buffers] in LlvmEmitter.cpp) only as far as that is certain, and errs on the side of
// fewer buffers:
//  - A host-level pmap allocates one buffer per result (the stacked results of a launch).
//    Its operands that die at it are counted as freed before its results are allocated,
//    which is what buffer donation does (Note [Buffer donation] in ir/InPlace.cpp) and,
//    without donation, only makes the plan expect a reused block where the run takes a
//    new one.
//  - A buffer is freed after its last use in the jaxpr that defines it, at whichever
//    equation that is (a pmap or not); a jaxpr's outvars live on. The emitter reads a
//    fused equation's operands where the fused value is used, not at the equation (Note
//    [Buffers]), so a buffer that an equation the emitter may fuse reads (an elementwise
//    one, a slice, a concatenate) has no certain last use: the plan ends where it would
//    be freed. A reshape it dies at passes its buffer on to the result.
//  - A for_loop allocates its carries (and, when the body returns one of its own
//    operands, as many temporaries) before its first iteration, as the emitter does
//    (emitForLoop); the loop's operands are read through the body's invars and are
//    never freed inside it. A loop that runs at least once: its body's first iteration
//    is followed, and the plan ends there (later iterations reuse what the first freed).
//  - The plan ends at anything else the emitter may give a large buffer or not (a host
//    equation with a result of 64 KiB or more: fused or not, a reshape taking its
//    operand's buffer over) and at a cond (which branch runs is not known).
// Small results are listed too; the runtime decides which sizes are worth faulting in.
#include "codegen/Codegen.h"
#include "codegen/LlvmEmitter.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>

namespace spmd::codegen {

namespace {

/// Results of this many bytes or more, computed on the host, end the plan.
constexpr int64_t kUncertainBytes = int64_t(64) << 10;

/// Whether the emitter may fuse `e` into its users, reading `e`'s operands there
/// (LlvmEmitter::planFusion).
bool mayFuse(const ir::Eqn &e) {
  return e.op == ir::Op::Concatenate || LlvmEmitter::indexable(e);
}

struct Planner {
  std::vector<spmd_buffer_hint> plan;
  /// Planned buffers still live: var id -> index in `plan`.
  std::unordered_map<int, size_t> live;

  /// Plans a buffer for `v`, whose last use in its jaxpr is `lastUse` (none: unused).
  void define(const ir::Var &v, const std::unordered_map<int, size_t> &lastUse) {
    bool used = lastUse.count(v.id) != 0;
    if (used) live[v.id] = plan.size();
    // A result nobody uses is freed at once; it still takes its buffer first.
    plan.push_back({v.type.bytes(), used ? INT64_MAX : int64_t(plan.size()) + 1});
  }

  /// Marks the live planned buffer of `id` as freed before the next planned one.
  void release(int id) {
    auto it = live.find(id);
    if (it == live.end()) return;
    plan[it->second].freed_before = int64_t(plan.size());
    live.erase(it);
  }

  /// Follows `j` from its first equation; false once the plan has ended.
  bool walk(const ir::Jaxpr &j) {
    std::unordered_map<int, size_t> lastUse;
    std::unordered_set<int> uncertain;  // read by an equation the emitter may fuse
    for (size_t k = 0; k < j.eqns.size(); ++k)
      for (const ir::Atom &a : j.eqns[k].in) {
        if (a.isLit) continue;
        lastUse[a.var.id] = k;
        if (mayFuse(j.eqns[k])) uncertain.insert(a.var.id);
      }
    for (const ir::Atom &a : j.outvars)
      if (!a.isLit) lastUse[a.var.id] = j.eqns.size();
    for (size_t k = 0; k < j.eqns.size(); ++k) {
      const ir::Eqn &e = j.eqns[k];
      // The planned buffers that die here; the plan ends if it cannot tell when.
      std::vector<int> dying;
      for (const ir::Atom &a : e.in) {
        if (a.isLit || lastUse[a.var.id] != k || !live.count(a.var.id)) continue;
        if (uncertain.count(a.var.id)) return false;
        if (std::find(dying.begin(), dying.end(), a.var.id) == dying.end())
          dying.push_back(a.var.id);
      }
      if (e.op == ir::Op::Pmap) {
        for (int id : dying) release(id);
        for (const ir::Var &v : e.out) define(v, lastUse);
        continue;
      }
      if (e.op == ir::Op::ForLoop) {
        const ir::Jaxpr &body = e.regions.at(0);
        size_t nc = size_t(e.intParam("num_consts"));
        // The carries are the loop's results; one nobody uses is freed after the loop.
        std::vector<size_t> unused;
        for (size_t c = nc; c < e.in.size(); ++c) {
          const ir::Var &v = e.out[c - nc];
          (lastUse.count(v.id) ? live[v.id] : unused.emplace_back()) = plan.size();
          plan.push_back({v.type.bytes(), INT64_MAX});
        }
        // emitForLoop's temporaries, freed after the loop.
        std::unordered_set<int> inv;
        for (const ir::Var &v : body.invars) inv.insert(v.id);
        bool viaTemp = false;
        for (const ir::Atom &a : body.outvars) viaTemp |= !a.isLit && inv.count(a.var.id);
        std::vector<size_t> tmp;
        if (viaTemp)
          for (size_t c = nc; c < e.in.size(); ++c) {
            tmp.push_back(plan.size());
            plan.push_back({e.out[c - nc].type.bytes(), INT64_MAX});
          }
        if (e.intParam("trip_count") >= 1) {
          walk(body);
          return false;
        }
        for (size_t t : tmp) plan[t].freed_before = int64_t(plan.size());
        for (size_t u : unused) plan[u].freed_before = int64_t(plan.size());
        for (int id : dying) release(id);
        continue;
      }
      if (!e.regions.empty()) return false;
      for (const ir::Var &v : e.out)
        if (v.type.bytes() >= kUncertainBytes) return false;
      if (e.op == ir::Op::Reshape && !e.in[0].isLit && !dying.empty()) {
        // The result takes the dying operand's buffer over (EmitArrays.cpp).
        size_t at = live.at(e.in[0].var.id);
        live.erase(e.in[0].var.id);
        if (lastUse.count(e.out[0].id))
          live[e.out[0].id] = at;
        else
          plan[at].freed_before = int64_t(plan.size());
        continue;
      }
      for (int id : dying) release(id);
    }
    return true;
  }
};

}  // namespace

std::vector<spmd_buffer_hint> planHostBuffers(const ir::Module &m, const Options &o) {
  if (o.backend == Backend::Cuda) return {};
  Planner p;
  p.walk(m.main);
  return std::move(p.plan);
}

}  // namespace spmd::codegen
