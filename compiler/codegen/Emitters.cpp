// ===- Emitters.cpp - the per-primitive code tables: host and device programs ---===//
//
// Which emitter of LlvmEmitter produces each primitive of ir/Ops.def, one table per
// target: hostEmitters (host code and CPU kernels, LlvmEmitter::emitEqn) and
// deviceEmitters (device programs: PTX kernels, and CPU ones with --split-kernels,
// LlvmEmitter::emitDeviceEqn). Every op has an entry in both, an explicit refusal where it
// cannot occur (tests/unit/codegen/test_op_coverage.cpp checks it). Elementwise ops and
// collectives get theirs from their category.
#include "codegen/LlvmEmitter.h"

namespace spmd::codegen {

using namespace llvm;
using ir::Op;

const std::array<EqnEmitter, ir::kNumOps> &hostEmitters() {
  using ir::Op;
  using ir::OpCategory;
  static const std::array<EqnEmitter, ir::kNumOps> table = [] {
    std::array<EqnEmitter, ir::kNumOps> t{};
    auto set = [&](Op op, EqnEmitter f) { t[size_t(op)] = f; };
    for (int k = 0; k < ir::kNumOps; ++k) {
      Op op = Op(k);
      // Elementwise and cheap shape ops: one element at a time, fusable (Note [Fusion]).
      if (LlvmEmitter::indexableOp(op))
        set(op, [](LlvmEmitter &l, const ir::Eqn &e) { l.emitIndexable(e); });
      if (ir::info(op).category == OpCategory::Collective)
        set(op, [](LlvmEmitter &l, const ir::Eqn &e) { l.emitCollective(e); });
    }
    for (Op op :
         {Op::ReduceSum, Op::ReduceMax, Op::ReduceMin, Op::ReduceProd, Op::ReduceAnd, Op::ReduceOr})
      set(op, [](LlvmEmitter &l, const ir::Eqn &e) { l.emitReduce(e); });
    for (Op op : {Op::Argmax, Op::Argmin})
      set(op, [](LlvmEmitter &l, const ir::Eqn &e) { l.emitArgReduce(e); });
    for (Op op : {Op::Reshape, Op::RandomWrap, Op::RandomUnwrap})
      set(op, [](LlvmEmitter &l, const ir::Eqn &e) { l.emitReshape(e); });
    set(Op::Concatenate, [](LlvmEmitter &l, const ir::Eqn &e) { l.emitConcatenate(e); });
    set(Op::Pad, [](LlvmEmitter &l, const ir::Eqn &e) { l.emitPad(e); });
    set(Op::Constant, [](LlvmEmitter &l, const ir::Eqn &e) { l.emitConstant(e); });
    set(Op::DynamicSlice, [](LlvmEmitter &l, const ir::Eqn &e) { l.emitDynamicSlice(e, false); });
    set(Op::DynamicUpdateSlice,
        [](LlvmEmitter &l, const ir::Eqn &e) { l.emitDynamicSlice(e, true); });
    set(Op::DotGeneral, [](LlvmEmitter &l, const ir::Eqn &e) { l.emitDot(e); });
    set(Op::Pmap, [](LlvmEmitter &l, const ir::Eqn &e) {
      l.fs->kernel ? l.emitInnerPmap(e) : l.emitPmapLaunch(e);
    });
    set(Op::ForLoop, [](LlvmEmitter &l, const ir::Eqn &e) { l.emitForLoop(e); });
    set(Op::Cond, [](LlvmEmitter &l, const ir::Eqn &e) { l.emitCond(e); });
    set(Op::Print, [](LlvmEmitter &l, const ir::Eqn &e) { l.emitPrint(e); });
    set(Op::AssertClose, [](LlvmEmitter &l, const ir::Eqn &e) { l.emitAssertClose(e); });
    set(Op::Check, [](LlvmEmitter &l, const ir::Eqn &e) { l.emitCheck(e); });
    set(Op::Vmap, [](LlvmEmitter &, const ir::Eqn &) {
      internal_assert(false, "vmap reached codegen: eliminateVmaps runs first");
    });
    return t;
  }();
  return table;
}

const std::array<EqnEmitter, ir::kNumOps> &deviceEmitters() {
  static const std::array<EqnEmitter, ir::kNumOps> table = [] {
    std::array<EqnEmitter, ir::kNumOps> t{};
    auto set = [&](Op op, EqnEmitter f) { t[size_t(op)] = f; };
    // What the host computes element by element (fused) becomes one kernel here.
    for (int k = 0; k < ir::kNumOps; ++k) {
      Op op = Op(k);
      if (ir::info(op).category == ir::OpCategory::Collective)
        set(op, [](LlvmEmitter &l, const ir::Eqn &e) { l.deviceCollective(e); });
      else if (LlvmEmitter::indexableOp(op))
        set(op, [](LlvmEmitter &l, const ir::Eqn &e) { l.deviceMaterialize(e); });
    }
    set(Op::Pmap, [](LlvmEmitter &l, const ir::Eqn &e) { l.emitInnerPmap(e); });
    set(Op::ForLoop, [](LlvmEmitter &l, const ir::Eqn &e) { l.emitForLoop(e); });
    set(Op::Cond, [](LlvmEmitter &l, const ir::Eqn &e) { l.emitCond(e); });
    for (Op op : {Op::Reshape, Op::RandomWrap, Op::RandomUnwrap})
      set(op, [](LlvmEmitter &l, const ir::Eqn &e) { l.emitReshape(e); });
    set(Op::DotGeneral, [](LlvmEmitter &l, const ir::Eqn &e) { l.deviceDot(e); });
    for (Op op :
         {Op::ReduceSum, Op::ReduceMax, Op::ReduceMin, Op::ReduceProd, Op::ReduceAnd, Op::ReduceOr})
      set(op, [](LlvmEmitter &l, const ir::Eqn &e) { l.deviceReduce(e); });
    set(Op::Check, [](LlvmEmitter &l, const ir::Eqn &e) { l.deviceCheck(e); });
    for (Op op : {Op::DynamicSlice, Op::DynamicUpdateSlice})
      set(op, [](LlvmEmitter &l, const ir::Eqn &e) {
        // Note [Index errors]: with no valid start every index fails, even where the result
        // has no elements (so no thread of the kernel below would see the index).
        if (l.sliceHasNoStart(e)) {
          size_t first = e.op == Op::DynamicUpdateSlice ? 2 : 1;
          std::vector<ir::Atom> idx(e.in.begin() + first, e.in.end());
          l.launchKernel("index_error", 1, l.leavesOf(idx), {},
                         [&](Value *, const std::vector<Value *> &) { l.dynamicStarts(e); });
        }
        l.deviceMaterialize(e);
      });
    for (Op op : {Op::Argmax, Op::Argmin, Op::Concatenate, Op::Pad, Op::Constant})
      set(op, [](LlvmEmitter &l, const ir::Eqn &e) { l.deviceMaterialize(e); });
    // Explicitly not here: host effects run on the host, never inside a pmap body (sema
    // refuses them there), and vmaps are gone before codegen.
    for (Op op : {Op::Print, Op::AssertClose})
      set(op, [](LlvmEmitter &, const ir::Eqn &e) {
        internal_assert(false,
                        std::string(ir::name(e.op)) + " inside a device program (a host effect)");
      });
    set(Op::Vmap, [](LlvmEmitter &, const ir::Eqn &) {
      internal_assert(false, "vmap reached codegen: eliminateVmaps runs first");
    });
    return t;
  }();
  return table;
}

}  // namespace spmd::codegen
