// ===- EmitDevice.cpp - pmap bodies as device programs plus data-parallel kernels ===//
//
// Note [Device programs]
// ~~~~~~~~~~~~~~~~~~~~~~
// With a split (LlvmEmitter::split != Split::None), a pmap body is not one function that
// computes everything on its device: it becomes a *device program*, host code with the
// usual kernel signature `void k(spmd_dev*, void** ins, void** outs)` whose buffers are
// the device's memory, plus one *kernel* per materialised value. The device program
// keeps the control flow (for loops, cond, nested pmaps), the collectives (runtime calls)
// and the buffers (spmd_dev_alloc); it never reads an element itself. Every value that
// the CPU path computes with a loop nest is computed by a kernel instead: a grid-stride
// loop over the flat index of the output, whose body is the same element emitter as on
// the CPU (computeElem and fusion: a fused chain is one kernel), launched with
// spmd_kernel_launch. A kernel's parameters are the buffers of the non-fused values its
// element reads (its "leaves"), and the rank-0 values the device program knows as host
// scalars (a loop counter, an axis index), passed by value.
//
// Kernels are emitted into a separate module (`kmod`) in one of two flavours:
//   Split::NVPTX  the kernel indexes by %ctaid/%ntid/%tid and strides by the grid; the
//                 module is compiled to PTX and loaded by the CUDA runtime;
//   Split::Host   the kernel is a plain loop over [0, n) plus an entry
//                 `void name(err, n, void** params)` that unpacks its parameters; the
//                 module is linked into the host code and the CPU runtime calls the entry
//                 in place. This runs the device programs of GPUs on CPU devices, so that
//                 the split is tested everywhere (--split-kernels).
//
// What a kernel cannot do (call the runtime) it does through its error record, the first
// parameter of every kernel (spmd_kernel_error in spmdrt.h): a dynamic index out of range
// is recorded there and clamped, and the runtime reports it after the kernel.
//
// Reductions inside the device program: a small reduction runs one output element per
// thread; a long one (many elements into few outputs) runs in passes over a fixed
// partition (thread p of an output folds elements p, p+P, p+2P, ... in order; further
// kernels fold the P partials the same way until few are left, then in order), so the
// bits never depend on scheduling.
// Collectives that reduce (psum, pmax, pmin, psum_scatter) are all_gather / all_to_all
// (bytes only) followed by a kernel that folds the G received blocks in group order:
// the same order, and so the same bits, as the CPU communicator.
#include "codegen/LlvmEmitter.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include <cmath>

#include <algorithm>
#include <set>

namespace spmd::codegen {

using namespace llvm;
using ir::DType;
using ir::Op;

// ---- kernels ------------------------------------------------------------------------

void LlvmEmitter::collectLeaves(const ir::Atom &a, std::vector<int> &out,
                                std::unordered_set<int> &seen) {
  if (a.isLit || !seen.insert(a.var.id).second) return;
  auto f = fs->fused.find(a.var.id);
  if (f != fs->fused.end()) {
    for (auto &x : f->second->in) collectLeaves(x, out, seen);
    return;
  }
  if (!fs->scalars.count(a.var.id)) bufferOf(a);  // materialised before the launch
  out.push_back(a.var.id);
}

std::vector<int> LlvmEmitter::leavesOf(const std::vector<ir::Atom> &atoms) {
  std::vector<int> out;
  std::unordered_set<int> seen;
  for (auto &a : atoms) collectLeaves(a, out, seen);
  return out;
}

/// The nvvm special register `id` as an i64.
static Value *sreg(IRBuilder<> &b, Intrinsic::ID id) {
  return b.CreateZExt(b.CreateIntrinsic(id, {}, {}), b.getInt64Ty());
}

void LlvmEmitter::launchKernel(const std::string &tag, int64_t n, const std::vector<int> &vars,
                               const std::vector<Value *> &extra, const KernelBody &body) {
  internal_assert(fs->deviceProgram, "kernels are launched from device programs only");
  if (n <= 0) return;
  // The device program's side: the argument values, in order.
  std::vector<Value *> args;
  for (int id : vars) {
    auto s = fs->scalars.find(id);
    args.push_back(s != fs->scalars.end() ? s->second : fs->buf.at(id));
  }
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<Type *> tys{ptr(), i64()};
  for (Value *v : args) tys.push_back(v->getType());

  std::string name = "k" + std::to_string(kmodCount++) + "_" + tag;
  FunctionType *kt = FunctionType::get(b.getVoidTy(), tys, false);
  bool nvptx = split == Split::NVPTX;
  Function *kf =
      Function::Create(kt, nvptx ? GlobalValue::ExternalLinkage : GlobalValue::InternalLinkage,
                       nvptx ? name : name + ".body", kmod.get());
  kf->addFnAttr(Attribute::NoUnwind);
  if (nvptx) {
    NamedMDNode *ann = kmod->getOrInsertNamedMetadata("nvvm.annotations");
    Metadata *md[] = {ValueAsMetadata::get(kf), MDString::get(ctx, "kernel"),
                      ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(ctx), 1))};
    ann->addOperand(MDNode::get(ctx, md));
  }
  kernelNames.push_back(name);

  // The kernel's side: a fresh function state whose buffers are its parameters.
  FnState *dp = fs;
  auto ip = b.saveIP();
  FnState ks;
  ks.fn = kf;
  ks.kernel = true;
  ks.gpuKernel = true;
  ks.dev = nullPtr();
  ks.host = nullPtr();
  ks.mesh = dp->mesh;
  // The kernel reads the device program's fused values (it never changes them): moved
  // in and back out rather than copied, which cost a copy of the whole map per kernel.
  ks.fused.swap(dp->fused);
  ks.errRec = kf->getArg(0);
  for (size_t k = 0; k < vars.size(); ++k) {
    Value *arg = kf->getArg(unsigned(2 + k));
    if (dp->scalars.count(vars[k]))
      ks.scalars[vars[k]] = arg;
    else
      ks.buf[vars[k]] = arg;
  }
  std::vector<Value *> kextra;
  for (size_t k = 0; k < extra.size(); ++k)
    kextra.push_back(kf->getArg(unsigned(2 + vars.size() + k)));
  fs = &ks;
  std::swap(mod, kmod);
  Target savedTarget = target;
  if (nvptx) target = Target::NVPTX;
  {
    BasicBlock *entry = BasicBlock::Create(ctx, "entry", kf);
    BasicBlock *head = BasicBlock::Create(ctx, "grid", kf),
               *bodyB = BasicBlock::Create(ctx, "elem", kf),
               *exit = BasicBlock::Create(ctx, "done", kf);
    b.SetInsertPoint(entry);
    Value *start = c64(0), *stride = c64(1);
    if (nvptx) {
      start = b.CreateAdd(b.CreateMul(sreg(b, Intrinsic::nvvm_read_ptx_sreg_ctaid_x),
                                      sreg(b, Intrinsic::nvvm_read_ptx_sreg_ntid_x)),
                          sreg(b, Intrinsic::nvvm_read_ptx_sreg_tid_x));
      stride = b.CreateMul(sreg(b, Intrinsic::nvvm_read_ptx_sreg_nctaid_x),
                           sreg(b, Intrinsic::nvvm_read_ptx_sreg_ntid_x));
    }
    Value *count = kf->getArg(1);
    b.CreateBr(head);
    b.SetInsertPoint(head);
    PHINode *i = b.CreatePHI(i64(), 2, "i");
    i->addIncoming(start, entry);
    b.CreateCondBr(b.CreateICmpSLT(i, count), bodyB, exit);
    b.SetInsertPoint(bodyB);
    body(i, kextra);
    i->addIncoming(b.CreateAdd(i, stride, "", true, true), b.GetInsertBlock());
    b.CreateBr(head);
    b.SetInsertPoint(exit);
    b.CreateRetVoid();
  }
  if (!nvptx) {
    // The entry the CPU runtime calls: void name(err, n, void **params).
    FunctionType *et = FunctionType::get(b.getVoidTy(), {ptr(), i64(), ptr()}, false);
    Function *ef = Function::Create(et, GlobalValue::ExternalLinkage, name, mod.get());
    b.SetInsertPoint(BasicBlock::Create(ctx, "entry", ef));
    std::vector<Value *> callArgs{ef->getArg(0), ef->getArg(1)};
    for (size_t k = 2; k < tys.size(); ++k) {
      Value *slot = b.CreateLoad(ptr(), b.CreateConstInBoundsGEP1_64(ptr(), ef->getArg(2), k - 2));
      callArgs.push_back(b.CreateLoad(tys[k], slot));
    }
    b.CreateCall(kf, callArgs);
    b.CreateRetVoid();
  }
  target = savedTarget;
  std::swap(mod, kmod);
  fs = dp;
  dp->fused.swap(ks.fused);
  b.restoreIP(ip);

  // The launch: params[k] points at a slot holding argument k.
  Value *params = entryAlloca(ArrayType::get(ptr(), std::max<size_t>(args.size(), 1)));
  for (size_t k = 0; k < args.size(); ++k) {
    Value *slot = entryAlloca(args[k]->getType());
    b.CreateStore(args[k], slot);
    b.CreateStore(slot, b.CreateConstInBoundsGEP1_64(ptr(), params, k));
  }
  b.CreateCall(rt("spmd_kernel_launch"),
               {fs->dev, cstr(name), c64(n), c32(int32_t(args.size())), params});
}

Value *LlvmEmitter::hostScalar(const ir::Atom &a) {
  if (a.isLit) return literal(a.lit, a.lit.dtype);
  auto s = fs->scalars.find(a.var.id);
  if (s != fs->scalars.end()) return s->second;
  DType d = a.var.type.dtype;
  int bytes = ir::byteSize(d);
  Value *bits = b.CreateCall(rt("spmd_dev_read"), {fs->dev, bufferOf(a), c32(bytes)});
  if (d == DType::Bool) return b.CreateICmpNE(bits, c64(0));
  Value *v = b.CreateTrunc(bits, b.getIntNTy(unsigned(8 * bytes)));
  return v->getType() == regTy(d) ? v : b.CreateBitCast(v, regTy(d));
}

void LlvmEmitter::storeKernel(const std::string &tag, const ir::Type &t, Value *dst,
                              const std::vector<ir::Atom> &reads,
                              const std::function<Value *(const std::vector<Value *> &)> &elem) {
  launchKernel(tag, t.numel(), leavesOf(reads), {dst},
               [&](Value *i, const std::vector<Value *> &kx) {
                 store(t.dtype, elem(delinearize(i, t.shape)), kx[0], i);
               });
}

// ---- element emitters for kernels (gather form: the output element at idx) ---------------

/// if (cond) then() else otherwise(), as a value.
static Value *ifElse(LlvmEmitter &L, Value *cond, const std::function<Value *()> &then,
                     const std::function<Value *()> &otherwise) {
  auto &b = L.b;
  Function *f = b.GetInsertBlock()->getParent();
  BasicBlock *tb = BasicBlock::Create(L.ctx, "then", f), *eb = BasicBlock::Create(L.ctx, "else", f),
             *cont = BasicBlock::Create(L.ctx, "endif", f);
  b.CreateCondBr(cond, tb, eb);
  b.SetInsertPoint(tb);
  Value *tv = then();
  BasicBlock *tEnd = b.GetInsertBlock();
  b.CreateBr(cont);
  b.SetInsertPoint(eb);
  Value *ev = otherwise();
  BasicBlock *eEnd = b.GetInsertBlock();
  b.CreateBr(cont);
  b.SetInsertPoint(cont);
  PHINode *phi = b.CreatePHI(tv->getType(), 2);
  phi->addIncoming(tv, tEnd);
  phi->addIncoming(ev, eEnd);
  return phi;
}

Value *LlvmEmitter::concatElem(const ir::Eqn &e, const std::vector<Value *> &idx) {
  int64_t dim = e.intParam("dimension");
  // Inputs in order: the first whose end lies past idx[dim] holds the element.
  std::function<Value *(size_t, int64_t)> pick = [&](size_t k, int64_t off) -> Value * {
    const ir::Atom &a = e.in[k];
    auto at = [&] {
      std::vector<Value *> xi = idx;
      xi[dim] = b.CreateSub(idx[dim], c64(off));
      return elemAt(a, xi);
    };
    int64_t end = off + a.type().shape[dim];
    if (k + 1 == e.in.size()) return at();
    if (a.type().shape[dim] == 0) return pick(k + 1, end);
    return ifElse(*this, b.CreateICmpSLT(idx[dim], c64(end)), at,
                  [&] { return pick(k + 1, end); });
  };
  return pick(0, 0);
}

Value *LlvmEmitter::kernelElem(const ir::Eqn &e, const std::vector<Value *> &idx) {
  if (indexable(e)) return computeElem(e, idx);
  const ir::Type &ot = e.out[0].type;
  switch (e.op) {
  case Op::Argmax:
  case Op::Argmin: {
    const ir::Atom &x = e.in[0];
    DType d = x.type().dtype;
    int64_t axis = e.intsParam("axes").at(0);
    bool isMax = e.op == Op::Argmax;
    Value *best = entryAlloca(regTy(d)), *bestI = entryAlloca(i64());
    b.CreateStore(constOf(d, reduceIdentity(isMax ? Op::ReduceMax : Op::ReduceMin, d)), best);
    b.CreateStore(c64(0), bestI);
    loop(x.type().shape[axis], [&](Value *i) {
      std::vector<Value *> xi = idx;
      xi.insert(xi.begin() + axis, i);
      Value *v = elemAt(x, xi), *cur = b.CreateLoad(regTy(d), best);
      Value *better = argBetter(isMax, d, v, cur);
      b.CreateStore(b.CreateSelect(better, v, cur), best);
      b.CreateStore(b.CreateSelect(better, i, b.CreateLoad(i64(), bestI)), bestI);
    });
    return convertOp(DType::I32, ot.dtype, b.CreateTrunc(b.CreateLoad(i64(), bestI), i32()));
  }
  case Op::Concatenate: return concatElem(e, idx);
  case Op::Pad: {
    const ir::Shape &in = e.in[0].type().shape;
    const ir::Param &cfg = e.param("padding_config");
    Value *ok = b.getTrue();
    std::vector<Value *> xi;
    for (size_t k = 0; k < in.size(); ++k) {
      auto c = cfg.elems[k].toInts();  // (lo, hi, interior)
      Value *pos = b.CreateSub(idx[k], c64(c[0]));
      Value *q = b.CreateSDiv(pos, c64(c[2] + 1));
      ok = b.CreateAnd(ok, b.CreateICmpSGE(pos, c64(0)));
      ok = b.CreateAnd(ok, b.CreateICmpEQ(b.CreateSRem(pos, c64(c[2] + 1)), c64(0)));
      ok = b.CreateAnd(ok, b.CreateICmpSLT(q, c64(in[k])));
      xi.push_back(q);
    }
    return ifElse(
        *this, ok, [&] { return elemAt(e.in[0], xi); }, [&] { return elemAt(e.in[1], {}); });
  }
  case Op::DynamicSlice:
  case Op::DynamicUpdateSlice: {
    bool update = e.op == Op::DynamicUpdateSlice;
    ir::Shape sizes = update ? e.in[1].type().shape : ir::Shape(e.intsParam("slice_sizes"));
    std::vector<Value *> start = dynamicStarts(e);  // checked (the error record) and clamped
    // Note [Index errors]: no valid start; the error is recorded, nothing is read.
    if (sliceHasNoStart(e)) return update ? elemAt(e.in[0], idx) : constOf(ot.dtype, 0);
    if (!update) {
      std::vector<Value *> xi;
      for (size_t k = 0; k < idx.size(); ++k) xi.push_back(b.CreateAdd(idx[k], start[k]));
      return elemAt(e.in[0], xi);
    }
    Value *inside = b.getTrue();
    std::vector<Value *> ui;
    for (size_t k = 0; k < idx.size(); ++k) {
      Value *u = b.CreateSub(idx[k], start[k]);
      inside = b.CreateAnd(
          inside, b.CreateAnd(b.CreateICmpSGE(u, c64(0)), b.CreateICmpSLT(u, c64(sizes[k]))));
      ui.push_back(u);
    }
    return ifElse(
        *this, inside, [&] { return elemAt(e.in[1], ui); }, [&] { return elemAt(e.in[0], idx); });
  }
  case Op::Constant: {
    // The data as a constant array of the kernel module.
    const ir::Param &v = e.param("value");
    std::vector<Constant *> elems;
    for (int64_t k = 0; k < ot.numel(); ++k) {
      const ir::Param &p = v.kind == ir::Param::Tuple || v.kind == ir::Param::List
                               ? v.elems.at(v.elems.size() == 1 ? 0 : size_t(k))
                               : v;
      double x = p.kind == ir::Param::Float ? p.f : double(p.i);
      Constant *c = cast<Constant>(constOf(ot.dtype, x));
      if (ot.dtype == DType::Bool) c = ConstantInt::get(i8(), x != 0);
      elems.push_back(c);
    }
    auto *aty = ArrayType::get(memTy(ot.dtype), uint64_t(elems.size()));
    auto *g = new GlobalVariable(*mod, aty, true, GlobalValue::PrivateLinkage,
                                 ConstantArray::get(aty, elems), "const");
    return load(ot.dtype, opaque(g), linearIndex(idx, ot.shape));  // Note [Folding literals]
  }
  default: break;
  }
  internal_assert(false, std::string("no kernel element for ") + ir::name(e.op));
}

// ---- the device program's equations ------------------------------------------------------

void LlvmEmitter::deviceMaterialize(const ir::Eqn &e) {
  const ir::Var &out = e.out[0];
  storeKernel(ir::name(e.op), out.type, defBuffer(out), e.in,
              [&](const std::vector<Value *> &idx) { return kernelElem(e, idx); });
}

void LlvmEmitter::deviceReduce(const ir::Eqn &e) {
  const ir::Atom &x = e.in[0];
  const ir::Shape &in = x.type().shape;
  const ir::Type &ot = e.out[0].type;
  std::vector<bool> red(in.size(), false);
  for (auto a : e.intsParam("axes")) red[a] = true;
  ir::Shape kept, rest;
  for (size_t k = 0; k < in.size(); ++k) (red[k] ? rest : kept).push_back(in[k]);
  int64_t R = 1;
  for (auto s : rest) R *= s;
  deviceFold(ir::name(e.op), ot.numel(), R, e.op, ot.dtype, leavesOf(e.in), {},
             defBuffer(e.out[0]), [&](Value *k, Value *r, const std::vector<Value *> &) {
               std::vector<Value *> ki = delinearize(k, kept), ri = delinearize(r, rest), full;
               size_t a = 0, c = 0;
               for (size_t j = 0; j < in.size(); ++j) full.push_back(red[j] ? ri[c++] : ki[a++]);
               return elemAt(x, full);
             });
}

void LlvmEmitter::deviceFold(
    const std::string &tag, int64_t K, int64_t R, Op reduce, DType d, const std::vector<int> &vars,
    const std::vector<Value *> &inputs, Value *dst,
    const std::function<Value *(Value *, Value *, const std::vector<Value *> &)> &elem) {
  Op comb = reduceCombiner(reduce);
  Value *ident = constOf(d, reduceIdentity(reduce, d));
  // Note [Device programs]: P threads per output, each folding a fixed strided subset.
  int64_t P = 1;
  if (R >= 4096)
    P = std::max<int64_t>(1, std::min<int64_t>(R / 256, 131072 / std::max<int64_t>(K, 1)));
  // Folds elements lo, lo+step, ... < R of output k's reduced range.
  auto fold = [&](Value *k, Value *lo, Value *step, const std::vector<Value *> &kx) {
    std::vector<Value *> in(kx.begin(), kx.begin() + long(inputs.size()));
    return foldRange(comb, d, ident, lo, c64(R), step, [&](Value *r) { return elem(k, r, in); });
  };
  std::vector<Value *> extra = inputs;
  if (P == 1) {
    extra.push_back(dst);
    launchKernel(tag, K, vars, extra, [&](Value *k, const std::vector<Value *> &kx) {
      store(d, fold(k, c64(0), c64(1), kx), kx.back(), k);
    });
    return;
  }
  Value *partial = allocBytes(K * P * ir::byteSize(d));
  extra.push_back(partial);
  launchKernel(tag + "_part", K * P, vars, extra, [&](Value *i, const std::vector<Value *> &kx) {
    Value *k = b.CreateUDiv(i, c64(P)), *p = b.CreateURem(i, c64(P));
    store(d, fold(k, p, c64(P), kx), kx.back(), i);
  });
  // Fold the P partials of each output: again over a fixed partition while there are
  // many (a single thread folding 100k partials would be latency-bound), then in order.
  while (P > 1024) {
    int64_t Q = (P + 255) / 256;  // threads per output, each folding about 256 partials
    Value *next = allocBytes(K * Q * ir::byteSize(d));
    launchKernel(
        tag + "_fold", K * Q, {}, {partial, next}, [&](Value *i, const std::vector<Value *> &kx) {
          Value *k = b.CreateUDiv(i, c64(Q)), *q = b.CreateURem(i, c64(Q));
          Value *base = b.CreateMul(k, c64(P));
          Value *v = foldRange(comb, d, ident, q, c64(P), c64(Q),
                               [&](Value *p) { return load(d, kx[0], b.CreateAdd(base, p)); });
          store(d, v, kx[1], i);
        });
    partial = next;
    P = Q;
  }
  launchKernel(tag + "_fold", K, {}, {partial, dst}, [&](Value *k, const std::vector<Value *> &kx) {
    Value *base = b.CreateMul(k, c64(P));
    Value *v = foldRange(comb, d, ident, c64(0), c64(P), c64(1),
                         [&](Value *p) { return load(d, kx[0], b.CreateAdd(base, p)); });
    store(d, v, kx[1], k);
  });
}

// Note [Fold order]: a float sum or product folds its elements into kLanes interleaved
// partial accumulators (element j into lane j mod kLanes, as a CPU's vector loop does),
// then combines the lanes pairwise. Far more accurate than one running sum, and still a
// fixed order: the same bits on every run.
Value *LlvmEmitter::foldRange(Op comb, DType d, Value *ident, Value *lo, Value *hi, Value *step,
                              const std::function<Value *(Value *)> &elem) {
  constexpr int kLanes = 16;
  bool lanes = ir::isFloat(d) && (comb == Op::Add || comb == Op::Mul);
  if (!lanes) {
    Value *acc = entryAlloca(regTy(d));
    b.CreateStore(ident, acc);
    auto fold = [&](Value *r) {
      b.CreateStore(binaryOp(comb, d, b.CreateLoad(regTy(d), acc), elem(r)), acc);
    };
    loopRange(*this, lo, hi, fold, step);
    return b.CreateLoad(regTy(d), acc);
  }
  std::vector<Value *> acc(kLanes);
  for (auto &a : acc) {
    a = entryAlloca(regTy(d));
    b.CreateStore(ident, a);
  }
  // Blocks of kLanes consecutive elements (of the strided sequence), then the rest.
  Value *count = b.CreateSDiv(b.CreateAdd(b.CreateSub(hi, lo), b.CreateSub(step, c64(1))), step);
  count = b.CreateIntrinsic(Intrinsic::smax, {i64()}, {count, c64(0)});
  Value *blocks = b.CreateSDiv(count, c64(kLanes));
  Value *blockStep = b.CreateMul(step, c64(kLanes));
  loopRange(*this, c64(0), blocks, [&](Value *blk) {
    Value *r0 = b.CreateAdd(lo, b.CreateMul(blk, blockStep));
    for (int q = 0; q < kLanes; ++q) {
      Value *r = b.CreateAdd(r0, b.CreateMul(step, c64(q)));
      b.CreateStore(binaryOp(comb, d, b.CreateLoad(regTy(d), acc[q]), elem(r)), acc[q]);
    }
  });
  Value *tail0 = b.CreateAdd(lo, b.CreateMul(blocks, blockStep));
  for (int q = 0; q < kLanes - 1; ++q) {
    Value *r = b.CreateAdd(tail0, b.CreateMul(step, c64(q)));
    Function *f = b.GetInsertBlock()->getParent();
    BasicBlock *t = BasicBlock::Create(ctx, "tail", f),
               *cont = BasicBlock::Create(ctx, "tail.end", f);
    b.CreateCondBr(b.CreateICmpSLT(r, hi), t, cont);
    b.SetInsertPoint(t);
    b.CreateStore(binaryOp(comb, d, b.CreateLoad(regTy(d), acc[q]), elem(r)), acc[q]);
    b.CreateBr(cont);
    b.SetInsertPoint(cont);
  }
  std::vector<Value *> v;
  for (auto *a : acc) v.push_back(b.CreateLoad(regTy(d), a));
  for (size_t w = v.size() / 2; w >= 1; w /= 2)
    for (size_t q = 0; q < w; ++q) v[q] = binaryOp(comb, d, v[q], v[q + w]);
  return v[0];
}

void LlvmEmitter::deviceCheck(const ir::Eqn &e) {
  // One thread checks every element (the indices are scalars or a vmap's few).
  launchKernel("check", 1, leavesOf(e.in), {},
               [&](Value *, const std::vector<Value *> &) { checkElements(e); });
}

void LlvmEmitter::deviceCollective(const ir::Eqn &e) {
  const ir::Var &out = e.out[0];
  DType d = out.type.dtype;
  if (e.op == Op::AxisIndex) {
    Value *v = tupleAxisIndex(e.param("axis_name"));
    auto it = fs->buf.find(out.id);  // a launch output: write it there too
    fs->scalars[out.id] = v;
    if (it != fs->buf.end())
      launchKernel("axis_index", 1, {out.id}, {it->second},
                   [&](Value *, const std::vector<Value *> &kx) {
                     store(DType::I32, fs->scalars.at(out.id), kx[0], c64(0));
                   });
    return;
  }
  auto groupSize = [&](uint32_t m) {
    int64_t g = 1;
    for (size_t k = 0; k < fs->mesh.size(); ++k)
      if (m >> k & 1) g *= fs->mesh[k].size;
    return g;
  };
  // dst[i] = fold over j < G of blocks[j * n + i], in group order.
  auto foldBlocks = [&](Op comb, Value *blocks, int64_t G, int64_t n, Value *dst) {
    launchKernel(std::string(ir::name(e.op)) + "_fold", n, {}, {blocks, dst},
                 [&](Value *i, const std::vector<Value *> &kx) {
                   Value *acc = load(d, kx[0], i);
                   bool xlaMax = ir::isFloat(d) && (comb == Op::Max || comb == Op::Min);
                   if (xlaMax) {
                     // Note [Collective max] (runtime/cpu/Reduce.h): NaN skipped, the
                     // earlier member wins ties, denormals flushed (x * 1.0, on CPUs).
                     Value *one = opaque(constOf(d, 1.0));
                     Value *idn = constOf(d, comb == Op::Max ? -INFINITY : INFINITY);
                     acc = b.CreateFMul(acc, one);
                     acc = b.CreateSelect(b.CreateFCmpUNO(acc, acc), idn, acc);
                     for (int64_t j = 1; j < G; ++j) {
                       Value *x = b.CreateFMul(load(d, kx[0], b.CreateAdd(i, c64(j * n))), one);
                       Value *better = comb == Op::Max ? b.CreateFCmpOGT(x, acc)
                                                       : b.CreateFCmpOLT(x, acc);
                       acc = b.CreateSelect(better, x, acc);
                     }
                   }
                   if (ir::isFloat(d) && comb == Op::Add)  // Note [Fold from the identity]
                     acc = b.CreateFAdd(constOf(d, 0.0), acc);  // (Reduce.h): -0 is +0
                   for (int64_t j = 1; j < G && !xlaMax; ++j)
                     acc = binaryOp(comb, d, acc, load(d, kx[0], b.CreateAdd(i, c64(j * n))));
                   store(d, acc, kx[1], i);
                 });
  };
  switch (e.op) {
  case Op::Psum:
  case Op::Pmax:
  case Op::Pmin: {
    uint32_t m = axisMask(e.param("axes"));
    int64_t G = groupSize(m), bytes = out.type.bytes();
    Value *dst = defBuffer(out);
    int64_t devices = 1;
    for (auto &ax : fs->mesh) devices *= ax.size;
    if (G == 1 && devices == 1) return copyAtom(e.in[0], dst);  // as CpuCommunicator::allreduce
    Value *blocks = allocBytes(G * bytes);
    b.CreateCall(rt("spmd_all_gather"),
                 {fs->dev, bufferOf(e.in[0]), blocks, c64(bytes), c32(int32_t(m))});
    foldBlocks(collectiveCombiner(e.op, d), blocks, G, out.type.numel(), dst);
    return;
  }
  case Op::ReduceScatter: {
    uint32_t m = axisMask(e.param("axis_name"));
    int64_t G = groupSize(m);
    const ir::Atom &x = e.in[0];
    Value *in =
        reorderGroup(e.param("axis_name"), d, chunkMajor(x, e.intParam("scatter_dimension"), G),
                     x.type().numel() / G, true);
    Value *blocks = allocBytes(x.type().bytes());
    b.CreateCall(rt("spmd_all_to_all"),
                 {fs->dev, in, blocks, c64(x.type().bytes() / G), c32(int32_t(m))});
    foldBlocks(collectiveCombiner(e.op, d), blocks, G, x.type().numel() / G, defBuffer(out));
    return;
  }
  default: return emitCollective(e);  // all_gather, ppermute, all_to_all: bytes only
  }
}

void LlvmEmitter::emitDeviceEqn(const ir::Eqn &e) {
  if (e.out.size() == 1 && fs->fused.count(e.out[0].id)) return;
  EqnEmitter emit = deviceEmitters()[size_t(e.op)];
  internal_assert(emit, std::string("device programs do not support primitive ") + ir::name(e.op));
  emit(*this, e);
}

}  // namespace spmd::codegen
