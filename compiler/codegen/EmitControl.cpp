// ===- EmitControl.cpp - for loops, cond and poll points ---------------------===//
//
// The control-flow regions: a for_loop as an LLVM loop with its carries (and a poll point
// per iteration, Note [Poll points]), a cond as a branch on its predicate.
#include "codegen/LlvmEmitter.h"

#include <llvm/IR/MDBuilder.h>

#include <unordered_set>

namespace spmd::codegen {

using namespace llvm;
using ir::DType;
using ir::Op;

/// After a region's outvars were copied out: frees those the region defined (host).
static void freeRegionOuts(LlvmEmitter &L, const ir::Jaxpr &r) {
  std::unordered_set<int> inv, done;
  for (auto &v : r.invars) inv.insert(v.id);
  for (auto &a : r.outvars) {
    if (a.isLit || inv.count(a.var.id) || !done.insert(a.var.id).second) continue;
    auto it = L.fs->buf.find(a.var.id);
    if (it == L.fs->buf.end()) continue;
    L.freeBuffer(it->second);
    L.fs->buf.erase(it);
  }
}

// Note [Poll points]
// ~~~~~~~~~~~~~~~~~~
// A run must stop soon after it is asked to (Note [Interrupts] in runtime/Runtime.h; who
// asks, and how, is no business of the compiler), and the language's only
// unbounded-looking construct is a for loop with a large trip count: at
// host level, in a function, in a pmap or vmap body. So each iteration of a for loop
// starts with a poll point: an atomic (monotonic) load of the runtime's
// spmd_interrupt_requested and a branch, weighted as never taken, to spmd_poll, which
// unwinds the host program or the device's launch as spmd_fail does. On x86 that is one
// mov and one predicted branch per iteration, next to a body that does at least one
// array operation. The loops of a single operation (the elements of an add, a dot)
// carry none: an operation runs to its end. GPU kernels carry none either (they cannot
// call the runtime); their device program polls between the kernels it launches.
void LlvmEmitter::emitPollPoint() {
  if (fs->gpuKernel) return;
  GlobalVariable *flag = mod->getGlobalVariable("spmd_interrupt_requested");
  if (!flag)
    flag = new GlobalVariable(*mod, i32(), false, GlobalValue::ExternalLinkage, nullptr,
                              "spmd_interrupt_requested");
  LoadInst *v = b.CreateLoad(i32(), flag, "interrupt");
  v->setAtomic(AtomicOrdering::Monotonic);
  v->setAlignment(Align(4));
  Function *f = b.GetInsertBlock()->getParent();
  BasicBlock *stop = BasicBlock::Create(ctx, "poll", f),
             *go = BasicBlock::Create(ctx, "poll.end", f);
  MDBuilder md(ctx);
  b.CreateCondBr(b.CreateICmpNE(v, c32(0)), stop, go, md.createBranchWeights(1, 1 << 20));
  b.SetInsertPoint(stop);
  b.CreateCall(rt("spmd_poll"),
               {fs->kernel ? nullPtr() : fs->host, fs->kernel ? fs->dev : nullPtr()});
  b.CreateBr(go);
  b.SetInsertPoint(go);
}

void LlvmEmitter::emitForLoop(const ir::Eqn &e) {
  const ir::Jaxpr &body = e.regions.at(0);
  size_t nc = size_t(e.intParam("num_consts")), ncar = e.in.size() - nc;
  std::vector<Value *> carry, tmp;
  for (size_t k = 0; k < ncar; ++k) {
    carry.push_back(defBuffer(e.out[k]));
    copyKeepingShards(e.in[nc + k], carry[k]);
  }
  // Note [Sharded arrays] (runtime/HostState.h): a carry may be a pmap result that stays on
  // the devices from one iteration to the next, so every host read of it syncs first (a
  // no-op at run time when it is already on the host).
  if (!fs->kernel) {
    for (size_t k = 0; k < ncar; ++k) {
      fs->unsynced.insert(e.out[k].id);
      fs->unsynced.insert(body.invars[1 + nc + k].id);
    }
    for (size_t k = 0; k < nc; ++k)
      if (!e.in[k].isLit && fs->unsynced.count(e.in[k].var.id))
        fs->unsynced.insert(body.invars[1 + k].id);
  }
  std::unordered_set<int> inv;
  for (auto &v : body.invars) inv.insert(v.id);
  bool viaTemp = false;
  for (auto &a : body.outvars) viaTemp |= !a.isLit && inv.count(a.var.id);
  if (viaTemp)
    for (size_t k = 0; k < ncar; ++k) tmp.push_back(allocBytes(e.out[k].type.bytes()));
  // The counter: a buffer on CPU devices, a host scalar in a device program.
  Value *ibuf = entryAlloca(i32());
  int counter = body.invars[0].id;
  if (!fs->deviceProgram) fs->buf[counter] = ibuf;
  for (size_t k = 0; k < nc; ++k) fs->buf[body.invars[1 + k].id] = bufferOf(e.in[k]);
  for (size_t k = 0; k < ncar; ++k) fs->buf[body.invars[1 + nc + k].id] = carry[k];
  loop(e.intParam("trip_count"), [&](Value *i) {
    emitPollPoint();
    if (fs->deviceProgram)
      fs->scalars[counter] = b.CreateTrunc(i, i32());
    else
      b.CreateStore(b.CreateTrunc(i, i32()), ibuf);
    emitJaxpr(body);
    for (size_t k = 0; k < ncar; ++k)
      copyKeepingShards(body.outvars[k], viaTemp ? tmp[k] : carry[k]);
    for (size_t k = 0; k < tmp.size(); ++k) {
      if (fs->kernel)
        memcpy(carry[k], tmp[k], e.out[k].type.bytes());
      else
        b.CreateCall(rt("spmd_host_copy"),
                     {fs->host, carry[k], tmp[k], c64(e.out[k].type.bytes())});
    }
    freeRegionOuts(*this, body);
  });
  for (auto *t : tmp) freeBuffer(t);
}

void LlvmEmitter::emitCond(const ir::Eqn &e) {
  std::vector<Value *> outs;
  for (auto &v : e.out) outs.push_back(defBuffer(v));
  std::vector<Value *> operands;
  for (size_t k = 1; k < e.in.size(); ++k) operands.push_back(bufferOf(e.in[k]));
  // A device program reads a predicate that lives on the device back (one sync).
  Value *p = fs->deviceProgram ? hostScalar(e.in[0]) : elemAt(e.in[0], {});
  if (!p->getType()->isIntegerTy(1)) p = b.CreateICmpNE(p, ConstantInt::get(p->getType(), 0));
  BasicBlock *tb = BasicBlock::Create(ctx, "cond.true", fs->fn),
             *fb = BasicBlock::Create(ctx, "cond.false", fs->fn),
             *cont = BasicBlock::Create(ctx, "cond.end", fs->fn);
  b.CreateCondBr(p, tb, fb);
  for (int r = 0; r < 2; ++r) {
    const ir::Jaxpr &region = e.regions.at(r);
    b.SetInsertPoint(r == 0 ? fb : tb);
    for (size_t k = 0; k < operands.size(); ++k) fs->buf[region.invars[k].id] = operands[k];
    emitJaxpr(region);
    for (size_t k = 0; k < outs.size(); ++k) copyAtom(region.outvars[k], outs[k]);
    freeRegionOuts(*this, region);
    b.CreateBr(cont);
  }
  b.SetInsertPoint(cont);
}

/// [.., G, n/G, ..] with G moved to the front: the chunk-major copy of `x` split in G
/// along `axis`, as all_to_all and reduce_scatter send it.

}  // namespace spmd::codegen
