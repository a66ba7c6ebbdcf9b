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
//  - A buffer is freed after its last use in the jaxpr that defines it; a jaxpr's
//    outvars live on.
//  - A for_loop that runs at least once: its body's first iteration is followed, and
//    the plan ends there (later iterations reuse what the first freed). One that never
//    runs is skipped.
//  - The plan ends at anything else the emitter may give a large buffer or not (a host
//    equation with a result of 64 KiB or more: fused or not, a reshape taking its
//    operand's buffer over) and at a cond (which branch runs is not known).
// Small results are listed too; the runtime decides which sizes are worth faulting in.
#include "codegen/Codegen.h"

#include <cstdint>
#include <unordered_map>

namespace spmd::codegen {

namespace {

/// Results of this many bytes or more, computed on the host, end the plan.
constexpr int64_t kUncertainBytes = int64_t(64) << 10;

struct Planner {
  std::vector<spmd_buffer_hint> plan;
  /// Planned buffers still live: var id -> index in `plan`.
  std::unordered_map<int, size_t> live;

  /// Follows `j` from its first equation; false once the plan has ended.
  bool walk(const ir::Jaxpr &j) {
    std::unordered_map<int, size_t> lastUse;
    for (size_t k = 0; k < j.eqns.size(); ++k)
      for (const ir::Atom &a : j.eqns[k].in)
        if (!a.isLit) lastUse[a.var.id] = k;
    for (const ir::Atom &a : j.outvars)
      if (!a.isLit) lastUse[a.var.id] = j.eqns.size();
    for (size_t k = 0; k < j.eqns.size(); ++k) {
      const ir::Eqn &e = j.eqns[k];
      if (e.op == ir::Op::Pmap) {
        for (const ir::Atom &a : e.in) {
          if (a.isLit || lastUse[a.var.id] != k) continue;
          auto it = live.find(a.var.id);
          if (it == live.end()) continue;
          plan[it->second].freed_before = int64_t(plan.size());
          live.erase(it);
        }
        for (const ir::Var &v : e.out) {
          if (lastUse.count(v.id)) live[v.id] = plan.size();
          // A result nobody uses is freed at once; it still takes its buffer first.
          plan.push_back({v.type.bytes(), lastUse.count(v.id) ? INT64_MAX : int64_t(plan.size()) + 1});
        }
        continue;
      }
      if (e.op == ir::Op::ForLoop) {
        if (e.intParam("trip_count") < 1) continue;
        walk(e.regions.at(0));
        return false;
      }
      if (!e.regions.empty()) return false;
      for (const ir::Var &v : e.out)
        if (v.type.bytes() >= kUncertainBytes) return false;
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
