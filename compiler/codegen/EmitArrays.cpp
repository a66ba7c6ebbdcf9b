// ===- EmitArrays.cpp - reductions, data movement, dynamic slices, dot ------===//
//
// The non-elementwise array primitives, each a loop nest with constant bounds:
// reductions accumulate in a register when the reduced axes are a contiguous suffix
// (the inner loop then vectorises) and into the output otherwise (walking the input
// row-major); dot_general is brought to a batched [B,M,K] x [B,K,N] product by
// transposes when needed and runs as a cache-blocked i-k-j loop (Note [Dot]).
#include "codegen/LlvmEmitter.h"
#include "spmdrt.h"  // SPMD_INDEX_ERROR
#include "codegen/XlaSum.h"

#include <llvm/IR/Intrinsics.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace spmd::codegen {

using namespace llvm;
using ir::DType;
using ir::Op;

void loopRange(LlvmEmitter &L, Value *lo, Value *hi, const std::function<void(Value *)> &body,
               Value *step) {
  auto &b = L.b;
  Function *f = b.GetInsertBlock()->getParent();
  BasicBlock *pre = b.GetInsertBlock();
  BasicBlock *head = BasicBlock::Create(L.ctx, "r.head", f),
             *bodyB = BasicBlock::Create(L.ctx, "r.body", f),
             *exit = BasicBlock::Create(L.ctx, "r.end", f);
  b.CreateBr(head);
  b.SetInsertPoint(head);
  PHINode *i = b.CreatePHI(L.i64(), 2, "i");
  i->addIncoming(lo, pre);
  b.CreateCondBr(b.CreateICmpSLT(i, hi), bodyB, exit);
  b.SetInsertPoint(bodyB);
  body(i);
  i->addIncoming(b.CreateAdd(i, step ? step : L.c64(1), "", true, true), b.GetInsertBlock());
  b.CreateBr(head);
  b.SetInsertPoint(exit);
}

/// Runs `then` only when `cond` holds.
void ifThen(LlvmEmitter &L, Value *cond, const std::function<void()> &then) {
  Function *f = L.b.GetInsertBlock()->getParent();
  BasicBlock *t = BasicBlock::Create(L.ctx, "then", f),
             *cont = BasicBlock::Create(L.ctx, "endif", f);
  L.b.CreateCondBr(cond, t, cont);
  L.b.SetInsertPoint(t);
  then();
  L.b.CreateBr(cont);
  L.b.SetInsertPoint(cont);
}

/// Note [Cascade]: a float sum or product of elements 0 <= r < n of one output, with an
/// error that grows with log n, not n: blocks of kBlock consecutive elements are folded
/// by foldRange (16 interleaved lanes, then pairwise: Note [Fold order]), and the block
/// results are combined as a binary counter combines carries, so that block sums of equal
/// weight meet (pairwise summation, as XLA's tree reductions and NumPy's pairwise sums
/// do). Fixed order: the same bits on every run.
Value *foldCascade(LlvmEmitter &L, Op comb, DType d, Value *ident, int64_t n,
                   const std::function<Value *(Value *)> &elem) {
  constexpr int64_t kBlock = 256;
  auto &b = L.b;
  Type *t = L.regTy(d);
  int64_t blocks = n / kBlock;
  Value *tail = nullptr;
  if (blocks == 0) return L.foldRange(comb, d, ident, L.c64(0), L.c64(n), L.c64(1), elem);
  // stack[k]: the sum of the 2^k blocks before the last carry into level k
  Value *stack = L.entryAlloca(ArrayType::get(t, 64));
  Value *level = L.entryAlloca(L.i64()), *carry = L.entryAlloca(t), *count = L.entryAlloca(L.i64());
  auto at = [&](Value *k) {
    return b.CreateInBoundsGEP(ArrayType::get(t, 64), stack, {L.c64(0), k});
  };
  loopRange(L, L.c64(0), L.c64(blocks), [&](Value *blk) {
    Value *lo = b.CreateMul(blk, L.c64(kBlock));
    b.CreateStore(L.foldRange(comb, d, ident, lo, b.CreateAdd(lo, L.c64(kBlock)), L.c64(1), elem),
                  carry);
    b.CreateStore(L.c64(0), level);
    b.CreateStore(b.CreateAdd(blk, L.c64(1)), count);
    // while the count's low bit is 0: fold the level's sum in and move up a level
    Function *f = b.GetInsertBlock()->getParent();
    BasicBlock *head = BasicBlock::Create(L.ctx, "carry.head", f),
               *body = BasicBlock::Create(L.ctx, "carry", f),
               *done = BasicBlock::Create(L.ctx, "carry.end", f);
    b.CreateBr(head);
    b.SetInsertPoint(head);
    Value *c = b.CreateLoad(L.i64(), count);
    b.CreateCondBr(b.CreateICmpEQ(b.CreateAnd(c, L.c64(1)), L.c64(0)), body, done);
    b.SetInsertPoint(body);
    Value *k = b.CreateLoad(L.i64(), level);
    b.CreateStore(L.binaryOp(comb, d, b.CreateLoad(t, at(k)), b.CreateLoad(t, carry)), carry);
    b.CreateStore(b.CreateAdd(k, L.c64(1)), level);
    b.CreateStore(b.CreateLShr(c, L.c64(1)), count);
    b.CreateBr(head);
    b.SetInsertPoint(done);
    b.CreateStore(b.CreateLoad(t, carry), at(b.CreateLoad(L.i64(), level)));
  });
  tail = L.foldRange(comb, d, ident, L.c64(blocks * kBlock), L.c64(n), L.c64(1), elem);
  // The levels whose bit is set in `blocks` hold the block sums, lowest level first.
  for (int64_t k = 0; k < 63 && (blocks >> k) != 0; ++k)
    if ((blocks >> k) & 1) tail = L.binaryOp(comb, d, b.CreateLoad(t, at(L.c64(k))), tail);
  return tail;
}

double reduceIdentity(Op op, DType d) {
  double inf = std::numeric_limits<double>::infinity();
  switch (op) {
  case Op::ReduceSum:
  case Op::ReduceOr: return 0;
  case Op::ReduceProd:
  case Op::ReduceAnd: return 1;
  case Op::ReduceMax: return ir::isFloat(d) ? -inf : d == DType::I32 ? double(INT32_MIN) : 0;
  case Op::ReduceMin:
    return ir::isFloat(d)    ? inf
           : d == DType::I32 ? double(INT32_MAX)
           : d == DType::U32 ? double(UINT32_MAX)
                             : 1;
  default: internal_assert(false, "not a reduction");
  }
}

Op reduceCombiner(Op op) {
  switch (op) {
  case Op::ReduceSum: return Op::Add;
  case Op::ReduceProd: return Op::Mul;
  case Op::ReduceMax: return Op::Max;
  case Op::ReduceMin: return Op::Min;
  case Op::ReduceAnd: return Op::And;
  default: return Op::Or;
  }
}

void LlvmEmitter::emitReduce(const ir::Eqn &e) {
  // f32 sums and products in XLA:CPU's order where it is known (Note [XLA sum order]).
  if (emitXlaOrderReduce(*this, e)) return;
  const ir::Atom &x = e.in[0];
  const ir::Shape &in = x.type().shape;
  const ir::Type &ot = e.out[0].type;
  DType d = ot.dtype;
  auto axes = e.intsParam("axes");
  std::vector<bool> red(in.size(), false);
  for (auto a : axes) red[a] = true;
  size_t nKept = in.size() - axes.size();
  bool suffix = true;
  for (size_t k = 0; k < in.size(); ++k) suffix &= red[k] == (k >= nKept);
  Value *dst = defBuffer(e.out[0]);
  Value *ident = constOf(d, reduceIdentity(e.op, d));
  Op comb = reduceCombiner(e.op);
  // Float sums and products may be reassociated so the inner loop vectorises.
  FastMathFlags fm;
  fm.setAllowReassoc();
  auto combine = [&](Value *acc, Value *v) {
    IRBuilder<>::FastMathFlagGuard g(b);
    if (ir::isFloat(d)) b.setFastMathFlags(fm);
    return binaryOp(comb, d, acc, v);
  };
  // A float sum or product of more than 16 elements per output never keeps one running
  // sum over a long axis (its error would grow with the length; XLA's and NumPy's grow
  // with its log): contiguous runs fold by Note [Cascade], other layouts by chunks and
  // a tree. Each order is fixed: the same bits on every run.
  bool lanes = ir::isFloat(d) && (comb == Op::Add || comb == Op::Mul);
  ir::Shape redShape;
  for (size_t k = 0; k < in.size(); ++k)
    if (red[k]) redShape.push_back(in[k]);
  int64_t n = ir::Type{d, redShape}.numel(), outN = ot.numel();
  if (suffix) {
    ir::Shape kept(in.begin(), in.begin() + nKept), rest(in.begin() + nKept, in.end());
    if (lanes && n > 16) {
      loopNest(kept, [&](const std::vector<Value *> &ki) {
        Value *v = foldCascade(*this, comb, d, ident, n, [&](Value *r) {
          std::vector<Value *> idx = ki, ri(rest.size());
          for (size_t k = rest.size(); k-- > 0;) {  // r as an index into `rest`
            ri[k] = k == 0 ? r : b.CreateURem(r, c64(rest[k]));
            if (k) r = b.CreateUDiv(r, c64(rest[k]));
          }
          idx.insert(idx.end(), ri.begin(), ri.end());
          return elemAt(x, idx);
        });
        store(d, v, dst, linearIndex(ki, kept));
      });
      return;
    }
    Value *slot = entryAlloca(regTy(d));
    loopNest(kept, [&](const std::vector<Value *> &ki) {
      b.CreateStore(ident, slot);
      loopNest(rest, [&](const std::vector<Value *> &ri) {
        std::vector<Value *> idx = ki;
        idx.insert(idx.end(), ri.begin(), ri.end());
        b.CreateStore(combine(b.CreateLoad(regTy(d), slot), elemAt(x, idx)), slot);
      });
      store(d, b.CreateLoad(regTy(d), slot), dst, linearIndex(ki, kept));
    });
    return;
  }
  // Reduced axes elsewhere.
  int64_t elt = int64_t(ir::byteSize(d));
  bool heap = !fs->kernel;
  if (lanes && n > 16) {
    // The row-major walk folds each run of kChunk consecutive elements of an output into
    // its own partial, partials[chunk][output] (a kChunk-th of the input: at host level a
    // heap buffer freed at once, in a device program scratch that the launch allocates
    // once), then the chunks are combined pairwise in place, a tree over the chunk index
    // whose inner loop runs along the outputs. The error grows with kChunk + log(n /
    // kChunk) (XLA's tree reductions likewise).
    constexpr int64_t kChunk = 16;
    int64_t nc = (n + kChunk - 1) / kChunk;
    Value *part = !heap ? allocBytes(nc * outN * elt) : hostAlloc(nc * outN * elt);
    loopRange(*this, c64(0), c64(nc * outN), [&](Value *i) { store(d, ident, part, i); });
    loopNest(in, [&](const std::vector<Value *> &idx) {
      std::vector<Value *> oi, ri;
      for (size_t k = 0; k < in.size(); ++k) (red[k] ? ri : oi).push_back(idx[k]);
      Value *chunk = b.CreateUDiv(linearIndex(ri, redShape), c64(kChunk));
      Value *lin = b.CreateAdd(b.CreateMul(chunk, c64(outN)), linearIndex(oi, ot.shape));
      store(d, binaryOp(comb, d, load(d, part, lin), elemAt(x, idx)), part, lin);
    });
    for (int64_t step = 1; step < nc; step *= 2) {
      int64_t pairs = (nc - step + 2 * step - 1) / (2 * step);  // c = 2*step*p with c + step < nc
      loopRange(*this, c64(0), c64(pairs), [&](Value *p) {
        Value *lo = b.CreateMul(b.CreateMul(p, c64(2 * step)), c64(outN));
        Value *hi = b.CreateAdd(lo, c64(step * outN));
        loopRange(*this, c64(0), c64(outN), [&](Value *o) {
          Value *a = b.CreateAdd(lo, o), *bb = b.CreateAdd(hi, o);
          store(d, binaryOp(comb, d, load(d, part, a), load(d, part, bb)), part, a);
        });
      });
    }
    loopRange(*this, c64(0), c64(outN), [&](Value *o) { store(d, load(d, part, o), dst, o); });
    if (heap) b.CreateCall(rt("spmd_host_free"), {fs->host, part});
    return;
  }
  loopNest(ot.shape, [&](const std::vector<Value *> &oi) {
    store(d, ident, dst, linearIndex(oi, ot.shape));
  });
  loopNest(in, [&](const std::vector<Value *> &idx) {
    std::vector<Value *> oi;
    for (size_t k = 0; k < in.size(); ++k)
      if (!red[k]) oi.push_back(idx[k]);
    Value *lin = linearIndex(oi, ot.shape);
    store(d, combine(load(d, dst, lin), elemAt(x, idx)), dst, lin);
  });
}

void LlvmEmitter::emitArgReduce(const ir::Eqn &e) {
  const ir::Atom &x = e.in[0];
  const ir::Shape &in = x.type().shape;
  DType d = x.type().dtype;
  const ir::Type &ot = e.out[0].type;
  int64_t axis = e.intsParam("axes").at(0);
  bool isMax = e.op == Op::Argmax;
  Value *dst = defBuffer(e.out[0]);
  Value *best = entryAlloca(regTy(d)), *bestI = entryAlloca(i64());
  loopNest(ot.shape, [&](const std::vector<Value *> &oi) {
    b.CreateStore(constOf(d, reduceIdentity(isMax ? Op::ReduceMax : Op::ReduceMin, d)), best);
    b.CreateStore(c64(0), bestI);
    loop(in[axis], [&](Value *i) {
      std::vector<Value *> idx = oi;
      idx.insert(idx.begin() + axis, i);
      Value *v = elemAt(x, idx), *cur = b.CreateLoad(regTy(d), best);
      Value *better = argBetter(isMax, d, v, cur);
      b.CreateStore(b.CreateSelect(better, v, cur), best);
      b.CreateStore(b.CreateSelect(better, i, b.CreateLoad(i64(), bestI)), bestI);
    });
    Value *r = convertOp(DType::I32, ot.dtype, b.CreateTrunc(b.CreateLoad(i64(), bestI), i32()));
    store(ot.dtype, r, dst, linearIndex(oi, ot.shape));
  });
}

void LlvmEmitter::emitReshape(const ir::Eqn &e) {
  const ir::Atom &x = e.in[0];
  const ir::Var &out = e.out[0];
  // The operand's last use: its buffer becomes the result's (Note [Buffers]).
  bool dies = !x.isLit && fs->dying &&
              std::find(fs->dying->begin(), fs->dying->end(), x.var.id) != fs->dying->end();
  if (dies && !fs->buf.count(out.id) && !fs->direct.count(out.id)) {
    auto it = fs->buf.find(x.var.id);
    if (it != fs->buf.end() && !isa<GlobalVariable>(it->second)) {
      syncForRead(x);
      fs->buf[out.id] = it->second;
      fs->buf.erase(it);
      return;
    }
  }
  copyAtom(x, defBuffer(out));
}

void LlvmEmitter::emitConstant(const ir::Eqn &e) {
  const ir::Type &t = e.out[0].type;
  const ir::Param &v = e.param("value");
  std::vector<Constant *> elems;
  int64_t n = t.numel();
  for (int64_t k = 0; k < n; ++k) {
    const ir::Param &p = v.kind == ir::Param::Tuple || v.kind == ir::Param::List
                             ? v.elems.at(v.elems.size() == 1 ? 0 : size_t(k))
                             : v;
    double x = p.kind == ir::Param::Float ? p.f : double(p.i);
    Constant *c = cast<Constant>(constOf(t.dtype, x));
    if (t.dtype == DType::Bool) c = ConstantInt::get(i8(), x != 0);
    elems.push_back(c);
  }
  auto *aty = ArrayType::get(memTy(t.dtype), uint64_t(n));
  auto *g = new GlobalVariable(*mod, aty, true, GlobalValue::PrivateLinkage,
                               ConstantArray::get(aty, elems), "const");
  escapeGlobal(g);  // Note [Folding literals]
  auto it = fs->buf.find(e.out[0].id);
  if (it != fs->buf.end())
    memcpy(it->second, g, t.bytes());
  else
    fs->buf[e.out[0].id] = g;
}

void LlvmEmitter::emitConcatenate(const ir::Eqn &e) {
  const ir::Type &ot = e.out[0].type;
  int64_t dim = e.intParam("dimension"), off = 0;
  Value *dst = defBuffer(e.out[0]);
  for (auto &a : e.in) {
    loopNest(a.type().shape, [&](const std::vector<Value *> &idx) {
      std::vector<Value *> oi = idx;
      oi[dim] = b.CreateAdd(idx[dim], c64(off));
      store(ot.dtype, elemAt(a, idx), dst, linearIndex(oi, ot.shape));
    });
    off += a.type().shape[dim];
  }
}

void LlvmEmitter::emitPad(const ir::Eqn &e) {
  const ir::Type &ot = e.out[0].type;
  const ir::Shape &in = e.in[0].type().shape;
  Value *dst = defBuffer(e.out[0]);
  Value *pv = elemAt(e.in[1], {});
  loopNest(ot.shape, [&](const std::vector<Value *> &oi) {
    store(ot.dtype, pv, dst, linearIndex(oi, ot.shape));
  });
  const ir::Param &cfg = e.param("padding_config");
  loopNest(in, [&](const std::vector<Value *> &idx) {
    std::vector<Value *> oi;
    Value *ok = nullptr;
    for (size_t k = 0; k < in.size(); ++k) {
      auto c = cfg.elems[k].toInts();  // (lo, hi, interior)
      Value *pos = b.CreateAdd(c64(c[0]), b.CreateMul(idx[k], c64(c[2] + 1)));
      oi.push_back(pos);
      if (c[0] < 0 || c[1] < 0) {
        Value *in_ = b.CreateICmpULT(pos, c64(ot.shape[k]));  // also rejects negatives
        ok = ok ? b.CreateAnd(ok, in_) : in_;
      }
    }
    auto put = [&] { store(ot.dtype, elemAt(e.in[0], idx), dst, linearIndex(oi, ot.shape)); };
    if (ok)
      ifThen(*this, ok, put);
    else
      put();
  });
}

std::string LlvmEmitter::where(const ir::Eqn &e) {
  if (!e.loc.valid()) return "<unknown>";
  if (renderLoc) return renderLoc(e.loc);
  return std::to_string(e.loc.line) + ":" + std::to_string(e.loc.col);
}

// Note [Run-time checks]
// A program can fail at run time with an error at a source location: a dynamic index out
// of range (Note [Index errors]) and, in eager host code, an integer raised to a negative
// run-time power (Note [Eager integer_pow] in sema/LowerArith.cpp). Each is one
// condition and a message; failIf emits the test and the report, wherever the code runs:
// on the host and in CPU kernels the call spmd_check_error(message, a0, a1, where) (the
// runtime fills "{0}" and "{1}" of the message with a0 and a1 and stops the run or the
// launch); in a GPU kernel the kernel's error record, which carries an index and a size,
// so only SPMD_INDEX_ERROR there (the other checks are host code). In the IR a check is
// the equation check(bad, a0, a1)[message where?]: it fails at the first element of
// `bad` that is true, reporting a0 and a1 there (scalars, or bad's shape). The index
// checks of dynamic_slice are made by codegen itself (dynamicStarts); vmap turns them
// into check equations when the index is batched (BatchRules.cpp).
void LlvmEmitter::failIf(Value *bad, const char *message, Value *a0, Value *a1,
                         const std::string &w) {
  if (fs->gpuKernel) {
    internal_assert(std::string(message) == SPMD_INDEX_ERROR,
                    "a GPU kernel reports index errors only (its error record)");
    // The first failing thread fills the kernel's error record (spmdrt.h); the runtime
    // reports it after the kernel. The caller clamps the index.
    ifThen(*this, bad, [&] {
      Value *won = b.CreateExtractValue(
          b.CreateAtomicCmpXchg(fs->errRec, b.getInt32(0), b.getInt32(1), MaybeAlign(4),
                                AtomicOrdering::Monotonic, AtomicOrdering::Monotonic),
          1);
      ifThen(*this, won, [&] {
        b.CreateStore(a0, b.CreateConstInBoundsGEP1_64(i8(), fs->errRec, 8));
        b.CreateStore(a1, b.CreateConstInBoundsGEP1_64(i8(), fs->errRec, 16));
        b.CreateStore(b.CreatePtrToInt(cstr(w), i64()),
                      b.CreateConstInBoundsGEP1_64(i8(), fs->errRec, 24));
      });
    });
    return;
  }
  ifThen(*this, bad, [&] {
    b.CreateCall(rt("spmd_check_error"), {fs->kernel ? nullPtr() : fs->host,
                                          fs->kernel ? fs->dev : nullPtr(), cstr(message), a0,
                                          a1, cstr(w)});
  });
}

// Note [Index errors]: a dynamic index reaches dynamic_slice and dynamic_update_slice
// already wrapped as NumPy wraps negative indices (sema adds the dimension's size n to a
// negative index; LowerOps.cpp, `set` in Builtins.cpp), so an index that is still
// negative there was written as index - n: the error reports that (the user's -11 for
// size 10, not the wrapped -1). A slice larger than its dimension (any index into a
// dimension of size 0) leaves no valid start at all (limit = size - slice_size < 0):
// every index is out of range, and nothing may be read or written.
void LlvmEmitter::checkIndex(Value *index, int64_t limit, int64_t size, const std::string &w,
                             int64_t wrap) {
  // Negative indices are huge unsigned.
  Value *bad = limit < 0 ? (Value *)b.getTrue() : b.CreateICmpUGT(index, c64(limit));
  Value *reported =
      wrap <= 0 ? index
                : b.CreateSelect(b.CreateICmpSLT(index, c64(0)), b.CreateSub(index, c64(wrap)),
                                 index);
  failIf(bad, SPMD_INDEX_ERROR, reported, c64(size), w);
}

bool LlvmEmitter::sliceHasNoStart(const ir::Eqn &e) {
  bool update = e.op == Op::DynamicUpdateSlice;
  const ir::Type &xt = e.in[0].type();
  ir::Shape sizes = update ? e.in[1].type().shape : ir::Shape(e.intsParam("slice_sizes"));
  for (size_t k = 0; k < sizes.size(); ++k)
    if (xt.shape[k] - sizes[k] < 0) return true;
  return false;
}

std::vector<Value *> LlvmEmitter::dynamicStarts(const ir::Eqn &e) {
  bool update = e.op == Op::DynamicUpdateSlice;
  const ir::Type &xt = e.in[0].type();
  size_t first = update ? 2 : 1;
  ir::Shape sizes = update ? e.in[1].type().shape : ir::Shape(e.intsParam("slice_sizes"));
  std::vector<Value *> start;
  for (size_t k = 0; k < sizes.size(); ++k) {
    Value *i = elemAt(e.in[first + k], {});
    i = e.in[first + k].type().dtype == DType::U32 ? b.CreateZExt(i, i64())
                                                   : b.CreateSExt(i, i64());
    int64_t limit = xt.shape[k] - sizes[k];
    // Note [Index errors]: a window of one element is an index the user wrote.
    checkIndex(i, limit, limit < 0 ? xt.shape[k] : limit + 1, where(e),
               sizes[k] == 1 ? xt.shape[k] : 0);
    // After a reported error the index is clamped, so memory stays safe.
    start.push_back(b.CreateIntrinsic(Intrinsic::smin, {i64()},
                                      {b.CreateIntrinsic(Intrinsic::smax, {i64()}, {i, c64(0)}),
                                       c64(std::max<int64_t>(limit, 0))}));
  }
  return start;
}

void LlvmEmitter::emitDynamicSlice(const ir::Eqn &e, bool update) {
  const ir::Type &xt = e.in[0].type();
  const ir::Type &ot = e.out[0].type;
  ir::Shape sizes = update ? e.in[1].type().shape : ir::Shape(e.intsParam("slice_sizes"));
  Value *dst = defBuffer(e.out[0]);
  if (update) copyAtom(e.in[0], dst);
  std::vector<Value *> start = dynamicStarts(e);
  // No valid start: the check above always fails (and unwinds); nothing to move.
  if (sliceHasNoStart(e)) return;
  loopNest(sizes, [&](const std::vector<Value *> &idx) {
    std::vector<Value *> xi;
    for (size_t k = 0; k < idx.size(); ++k) xi.push_back(b.CreateAdd(idx[k], start[k]));
    if (update)
      store(ot.dtype, elemAt(e.in[1], idx), dst, linearIndex(xi, xt.shape));
    else
      store(ot.dtype, elemAt(e.in[0], xi), dst, linearIndex(idx, ot.shape));
  });
}

/// check(bad, a0?, a1?)[message where?] (Note [Run-time checks]), element by element
/// (host, CPU kernel or device kernel).
void LlvmEmitter::checkElements(const ir::Eqn &e) {
  std::string message = e.param("message").s;
  std::string w = e.has("where") ? e.param("where").s : where(e);
  const ir::Shape &sh = e.in[0].type().shape;
  loopNest(sh, [&](const std::vector<Value *> &idx) {
    auto arg = [&](size_t k) -> Value * {
      if (k >= e.in.size()) return c64(0);
      const ir::Atom &a = e.in[k];
      Value *v = elemAt(a, a.type().rank() == 0 ? std::vector<Value *>{} : idx);
      DType d = a.type().dtype;
      return d == DType::U32 || d == DType::Bool ? b.CreateZExt(v, i64()) : b.CreateSExtOrTrunc(v, i64());
    };
    Value *bad = elemAt(e.in[0], idx);
    if (bad->getType() != b.getInt1Ty()) bad = b.CreateICmpNE(bad, ConstantInt::get(bad->getType(), 0));
    failIf(bad, message.c_str(), arg(1), arg(2), w);
  });
}

void LlvmEmitter::emitCheck(const ir::Eqn &e) { checkElements(e); }

void LlvmEmitter::emitTransposeCopy(DType d, Value *src, const ir::Shape &srcShape,
                                    const std::vector<int64_t> &perm, Value *dst) {
  ir::Shape o;
  for (auto p : perm) o.push_back(srcShape[p]);
  if (fs->deviceProgram) {
    ir::Type ot{d, o};
    int64_t n = ot.numel();
    launchKernel("transpose", n, {}, {src, dst}, [&](Value *i, const std::vector<Value *> &kx) {
      std::vector<Value *> idx = delinearize(i, o), si(perm.size());
      for (size_t k = 0; k < perm.size(); ++k) si[perm[k]] = idx[k];
      store(d, load(d, kx[0], linearIndex(si, srcShape)), kx[1], i);
    });
    return;
  }
  loopNest(o, [&](const std::vector<Value *> &idx) {
    std::vector<Value *> si(perm.size());
    for (size_t k = 0; k < perm.size(); ++k) si[perm[k]] = idx[k];
    store(d, load(d, src, linearIndex(si, srcShape)), dst, linearIndex(idx, o));
  });
}

}  // namespace spmd::codegen
