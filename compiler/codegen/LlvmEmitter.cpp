// ===- LlvmEmitter.cpp - module set-up, buffers, loops and the jaxpr walk --===//
//
// The skeleton of the emitter: runtime declarations (from spmdrt.def), buffer
// allocation and freeing, loop nests with constant bounds, and the walk over a jaxpr
// that dispatches each equation to its emitter.
//
// Note [Buffers]: every materialised value has one buffer. On the host, buffers come
// from spmd_host_alloc when defined and are freed right after their last use in the
// jaxpr that defines them. In kernels, every allocation is hoisted to the entry block
// (small ones as allocas, large ones from spmd_dev_alloc), so a loop body reuses its
// buffers on every iteration. Literals used as buffers and `constant` data are private
// constant globals, never freed. A buffer is never written after its value is defined,
// so a reshape whose operand dies at it takes the operand's buffer over instead of
// copying it (FnState::dying); the buffer is then freed at the last use of the result.
#include "codegen/LlvmEmitter.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

#include <algorithm>
#include <type_traits>

namespace spmd::codegen {

using namespace llvm;
using ir::DType;

// ir::DType's values are spmdrt.def's codes (ir/IR.h); check them against spmd_dtype.
#define SPMD_RT_DTYPE(Cxx, C, code, bytes, text)                                                   \
  static_assert(int32_t(DType::Cxx) == SPMD_DTYPE_##C,                                             \
                "ir::DType::" #Cxx " is not spmd_dtype's code");
#include "spmdrt.def"

int32_t dtypeCode(DType d) { return int32_t(d); }

LlvmEmitter::LlvmEmitter(LLVMContext &c, Target t,
                         std::function<std::string(const SrcRange &)> where, Split s)
    : ctx(c), target(t), b(c), renderLoc(std::move(where)), split(s) {}

Type *LlvmEmitter::regTy(DType d) {
  switch (d) {
  case DType::Bool: return b.getInt1Ty();
  case DType::I32:
  case DType::U32: return b.getInt32Ty();
  case DType::F32: return b.getFloatTy();
  case DType::F64: return b.getDoubleTy();
  case DType::Key: return b.getInt64Ty();
  }
  return nullptr;
}

Type *LlvmEmitter::memTy(DType d) { return d == DType::Bool ? b.getInt8Ty() : regTy(d); }

/// The runtime entry points, with their C signatures (spmdrt.h).
namespace {

/// The LLVM type of a parameter or result of C type T (spmdrt.def's types only).
template <typename T>
Type *llvmTypeOf(LLVMContext &c) {
  if constexpr (std::is_void_v<T>)
    return Type::getVoidTy(c);
  else if constexpr (std::is_pointer_v<T>)
    return PointerType::get(c, 0);
  else if constexpr (std::is_same_v<T, double>)
    return Type::getDoubleTy(c);
  else {
    static_assert(std::is_integral_v<T>, "a runtime parameter type codegen cannot declare");
    return IntegerType::get(c, 8 * sizeof(T));
  }
}

template <typename F>
struct LlvmFnType;
template <typename R, typename... A>
struct LlvmFnType<R(A...)> {
  static FunctionType *get(LLVMContext &c) {
    return FunctionType::get(llvmTypeOf<R>(c), {llvmTypeOf<A>(c)...}, false);
  }
};

/// Every entry point of spmdrt.def: its name and how to build its LLVM type, derived
/// from the C declaration in spmdrt.h (so the two cannot disagree).
using FnTypeOf = FunctionType *(*)(LLVMContext &);
const std::unordered_map<std::string, FnTypeOf> &runtimeFunctions() {
  static const std::unordered_map<std::string, FnTypeOf> fns = {
// clang-format off
#define SPMD_RT_FN(ret, name, params) {#name, &LlvmFnType<decltype(name)>::get},
#include "spmdrt.def"
      // clang-format on
  };
  return fns;
}

}  // namespace

FunctionCallee LlvmEmitter::rt(const std::string &name) {
  auto it = runtimeFunctions().find(name);
  internal_assert(it != runtimeFunctions().end(), "unknown runtime function " + name);
  internal_assert(!fs || !fs->gpuKernel, "a kernel cannot call the runtime (" + name + ")");
  return mod->getOrInsertFunction(name, it->second(ctx));
}

Value *LlvmEmitter::cstr(const std::string &s) {
  return b.CreateGlobalStringPtr(s, "str", 0, mod.get());
}

Value *LlvmEmitter::constI64s(const std::vector<int64_t> &v) {
  std::vector<uint64_t> u(v.begin(), v.end());
  if (u.empty()) u.push_back(0);
  auto *init = ConstantDataArray::get(ctx, u);
  return new GlobalVariable(*mod, init->getType(), true, GlobalValue::PrivateLinkage, init, "i64s");
}

Value *LlvmEmitter::constI32s(const std::vector<int32_t> &v) {
  std::vector<uint32_t> u(v.begin(), v.end());
  if (u.empty()) u.push_back(0);
  auto *init = ConstantDataArray::get(ctx, u);
  return new GlobalVariable(*mod, init->getType(), true, GlobalValue::PrivateLinkage, init, "i32s");
}

// ---- memory ------------------------------------------------------------------------

Value *LlvmEmitter::load(DType d, Value *base, Value *linear) {
  Value *p = b.CreateInBoundsGEP(memTy(d), base, linear);
  Value *v = b.CreateLoad(memTy(d), p);
  return d == DType::Bool ? b.CreateICmpNE(v, b.getInt8(0)) : v;
}

void LlvmEmitter::store(DType d, Value *v, Value *base, Value *linear) {
  if (d == DType::Bool) v = b.CreateZExt(v, i8());
  b.CreateStore(v, b.CreateInBoundsGEP(memTy(d), base, linear));
}

Value *LlvmEmitter::linearIndex(const std::vector<Value *> &idx, const ir::Shape &shape) {
  if (shape.empty() || idx.empty()) return c64(0);
  internal_assert(idx.size() == shape.size(), "index rank differs from the shape's");
  Value *lin = idx[0];
  for (size_t k = 1; k < shape.size(); ++k)
    lin = b.CreateAdd(b.CreateMul(lin, c64(shape[k]), "", true, true), idx[k], "", true, true);
  return lin;
}

std::vector<Value *> LlvmEmitter::delinearize(Value *lin, const ir::Shape &shape) {
  std::vector<Value *> idx(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    if (k == 0) {
      idx[k] = lin;
      break;
    }
    idx[k] = b.CreateURem(lin, c64(shape[k]));
    lin = b.CreateUDiv(lin, c64(shape[k]));
  }
  return idx;
}

void LlvmEmitter::loop(int64_t n, const std::function<void(Value *)> &body) {
  if (n <= 0) return;
  if (n == 1) {
    body(c64(0));
    return;
  }
  Function *f = b.GetInsertBlock()->getParent();
  BasicBlock *pre = b.GetInsertBlock();
  BasicBlock *head = BasicBlock::Create(ctx, "loop", f);
  BasicBlock *exit = BasicBlock::Create(ctx, "loop.end", f);
  b.CreateBr(head);
  b.SetInsertPoint(head);
  PHINode *i = b.CreatePHI(i64(), 2, "i");
  i->addIncoming(c64(0), pre);
  body(i);
  Value *next = b.CreateAdd(i, c64(1), "", true, true);
  i->addIncoming(next, b.GetInsertBlock());
  b.CreateCondBr(b.CreateICmpULT(next, c64(n)), head, exit);
  b.SetInsertPoint(exit);
}

void LlvmEmitter::loopNest(const ir::Shape &shape, const IndexFn &body) {
  std::vector<Value *> idx;
  std::function<void(size_t)> rec = [&](size_t k) {
    if (k == shape.size()) {
      body(idx);
      return;
    }
    loop(shape[k], [&](Value *i) {
      idx.push_back(i);
      rec(k + 1);
      idx.pop_back();
    });
  };
  rec(0);
}

void LlvmEmitter::memcpy(Value *dst, Value *src, int64_t bytes) {
  if (bytes <= 0) return;
  if (fs->deviceProgram) {
    b.CreateCall(rt("spmd_dev_copy"), {fs->dev, dst, src, c64(bytes)});
    return;
  }
  b.CreateMemCpy(dst, MaybeAlign(1), src, MaybeAlign(1), bytes);
}

Value *LlvmEmitter::entryAlloca(Type *t) {
  BasicBlock &entry = fs->fn->getEntryBlock();
  IRBuilder<> eb(&entry, entry.getFirstInsertionPt());
  return eb.CreateAlloca(t);
}

Value *LlvmEmitter::hostAlloc(int64_t bytes) {
  int64_t n = std::max<int64_t>(bytes, 1);
  if (curEqn && curEqn->loc.valid()) {
    // A failure names the equation's source location and, when the buffer is one of its
    // results, that array's type (Note [Memory limits] in runtime/BufferPool.h).
    std::string what;
    for (const ir::Var &v : curEqn->out)
      if (v.type.bytes() == bytes) what = v.type.str();
    return b.CreateCall(rt("spmd_host_alloc_at"),
                        {fs->host, c64(n), cstr(where(*curEqn)), cstr(what)});
  }
  return b.CreateCall(rt("spmd_host_alloc"), {fs->host, c64(n)});
}

Value *LlvmEmitter::allocBytes(int64_t bytes) {
  int64_t n = std::max<int64_t>(bytes, 1);
  if (!fs->kernel) return hostAlloc(n);
  IRBuilder<> ab(fs->allocs);
  if (n <= 16384 && !fs->deviceProgram && !fs->inSegment) {  // a segment's buffers outlive it
    auto *a = ab.CreateAlloca(ArrayType::get(i8(), uint64_t(n)));
    a->setAlignment(Align(64));
    return a;
  }
  return ab.CreateCall(rt("spmd_dev_alloc"), {fs->dev, c64(n)});
}

Value *LlvmEmitter::defBuffer(const ir::Var &v) {
  auto it = fs->buf.find(v.id);
  if (it != fs->buf.end()) return it->second;
  Value *p = allocBytes(v.type.bytes());
  fs->buf[v.id] = p;
  return p;
}

Value *LlvmEmitter::bufferOf(const ir::Atom &a) {
  if (fs->deviceProgram && (a.isLit || fs->scalars.count(a.var.id)) &&
      !(!a.isLit && fs->buf.count(a.var.id))) {
    // A literal or a host scalar needed in device memory: a one-element kernel writes it.
    ir::Type t = a.type();
    Value *p = allocBytes(t.bytes());
    storeKernel("scalar", t, p, {a}, [&](const std::vector<Value *> &) { return elemAt(a, {}); });
    if (!a.isLit) fs->buf[a.var.id] = p;
    return p;
  }
  if (!a.isLit) {
    auto it = fs->buf.find(a.var.id);
    if (it != fs->buf.end()) return it->second;
    // A fused value needed as a whole: materialise it now.
    auto f = fs->fused.find(a.var.id);
    internal_assert(f != fs->fused.end(), "use of a var with no buffer");
    const ir::Eqn *e = f->second;
    fs->fused.erase(f);
    emitIndexable(*e);
    return fs->buf.at(a.var.id);
  }
  Constant *c = cast<Constant>(literal(a.lit, a.lit.dtype));
  if (a.lit.dtype == DType::Bool) c = ConstantInt::get(i8(), a.lit.i != 0);
  auto *g = new GlobalVariable(*mod, c->getType(), true, GlobalValue::PrivateLinkage, c, "lit");
  escapeGlobal(g);  // Note [Folding literals]
  return g;
}

void LlvmEmitter::freeBuffer(Value *p) {
  if (!fs->kernel && !isa<GlobalVariable>(p)) b.CreateCall(rt("spmd_host_free"), {fs->host, p});
}

void LlvmEmitter::syncForRead(const ir::Atom &a) {
  if (fs->kernel || a.isLit || !fs->unsynced.count(a.var.id)) return;
  fs->unsynced.erase(a.var.id);
  b.CreateCall(rt("spmd_host_sync"), {fs->host, fs->buf.at(a.var.id), c64(a.var.type.bytes())});
}

void LlvmEmitter::copyKeepingShards(const ir::Atom &a, Value *dst) {
  if (fs->kernel || a.isLit || !fs->unsynced.count(a.var.id) || fs->fused.count(a.var.id))
    return copyAtom(a, dst);
  Value *src = bufferOf(a);
  b.CreateCall(rt("spmd_host_copy"), {fs->host, dst, src, c64(a.type().bytes())});
}

void LlvmEmitter::copyAtom(const ir::Atom &a, Value *dst) {
  syncForRead(a);
  if (fs->deviceProgram && (a.isLit || fs->fused.count(a.var.id) || fs->scalars.count(a.var.id))) {
    ir::Type t = a.type();
    storeKernel("copy", t, dst, {a},
                [&](const std::vector<Value *> &idx) { return elemAt(a, idx); });
    return;
  }
  if (!a.isLit && fs->fused.count(a.var.id)) {
    const ir::Type &t = a.var.type;
    loopNest(t.shape, [&](const std::vector<Value *> &idx) {
      store(t.dtype, elemAt(a, idx), dst, linearIndex(idx, t.shape));
    });
    return;
  }
  Value *src = bufferOf(a);
  if (src != dst) memcpy(dst, src, a.type().bytes());
}

// ---- the walk ------------------------------------------------------------------------

void LlvmEmitter::emitJaxpr(const ir::Jaxpr &j) {
  planFusion(j);
  // Last use of each var defined here (Note [Buffers]); outvars live past the jaxpr.
  std::unordered_map<int, size_t> lastUse;
  std::unordered_set<int> defined, outs;
  for (auto &a : j.outvars)
    if (!a.isLit) outs.insert(a.var.id);
  // A fused equation reads its inputs where its output is materialised: at the last use
  // of its output. Walking backwards, that position is known before it is needed.
  for (size_t k = j.eqns.size(); k-- > 0;) {
    const ir::Eqn &e = j.eqns[k];
    for (auto &v : e.out) lastUse.emplace(v.id, k);
    size_t at = e.out.size() == 1 && fs->fused.count(e.out[0].id) ? lastUse[e.out[0].id] : k;
    for (auto &a : e.in)
      if (!a.isLit) lastUse[a.var.id] = std::max(lastUse[a.var.id], at);
  }
  std::vector<std::vector<int>> dieAt(j.eqns.size());
  for (auto &e : j.eqns)
    for (auto &v : e.out) defined.insert(v.id);
  for (auto &[id, k] : lastUse)
    if (defined.count(id) && !outs.count(id)) dieAt[k].push_back(id);
  const std::vector<int> *outer = fs->dying;
  for (size_t k = 0; k < j.eqns.size(); ++k) {
    if (&j == fs->segRoot && k % kSegmentEqns == 0 && k > 0) switchSegment(false);
    fs->dying = &dieAt[k];
    emitEqn(j.eqns[k]);
    fs->dying = outer;
    if (fs->kernel) continue;  // kernel buffers live until the launch ends
    for (int id : dieAt[k]) {
      auto it = fs->buf.find(id);
      if (it == fs->buf.end()) continue;  // fused, never materialised
      freeBuffer(it->second);
      fs->buf.erase(it);
    }
  }
  if (&j == fs->segRoot && fs->inSegment) switchSegment(true);
}

// Note [Segments]
// ~~~~~~~~~~~~~~~
// A long straight-line program (30,000 lines of `x = x + 1.0`) would be one huge
// function, and LLVM's register allocator and scheduler are quadratic in the size of a
// basic block: 60,000 lines compiled for 14 seconds. So the top-level equations of main,
// and those of a CPU kernel's body, are emitted in segments of kSegmentEqns, each a
// function `segN(spmd_host* or spmd_dev*, void** in, void** out)` (never inlined) that
// the caller (spmd_main, the kernel) calls in order. A host segment returns false when a
// launch failed, and spmd_main then returns; a kernel unwinds on its own (Note
// [Unwinding kernels] in runtime/Device.cpp). The buffers still live at a boundary
// (FnState::buf, and a kernel's direct outputs) go from one segment to the next through
// a table of pointers in the caller's frame (`out` of one segment, `in` of the next); the
// last segment hands them back to the caller, which finishes as usual. A kernel segment
// allocates from the device's arena (spmd_dev_alloc), never on its own stack, since its
// buffers outlive it. Short programs (most of them) are one function, as before. Device
// programs are not split: their code is launches, the element loops are in the kernels.
void LlvmEmitter::emitJaxprInSegments(const ir::Jaxpr &j) {
  bool split = j.eqns.size() > kSegmentEqns && (!fs->kernel || !fs->deviceProgram);
  const ir::Jaxpr *saved = fs->segRoot;
  if (split) {
    fs->segRoot = &j;
    fs->segCaller = fs->fn;
    fs->callerFail = fs->failBlock;
    fs->callerAllocs = fs->allocs;
  }
  emitJaxpr(j);
  fs->segRoot = saved;
}

void LlvmEmitter::switchSegment(bool back) {
  bool host = !fs->kernel;
  Function *caller = fs->segCaller;
  internal_assert(fs->scalars.empty(), "values in registers cannot cross a segment boundary");
  std::vector<int> ids, directs;
  for (auto &[id, v] : fs->buf)
    if (!isa<Constant>(v)) ids.push_back(id);
  for (auto &[id, d] : fs->direct)
    if (d.ptr && !isa<Constant>(d.ptr)) directs.push_back(id);
  std::sort(ids.begin(), ids.end());
  std::sort(directs.begin(), directs.end());
  size_t n = ids.size() + directs.size();
  BasicBlock &entry = caller->getEntryBlock();
  IRBuilder<> eb(&entry, entry.getFirstInsertionPt());
  Value *table = eb.CreateAlloca(ArrayType::get(ptr(), std::max<size_t>(n, 1)), nullptr, "live");
  // A segment writes the table its caller passes it as the third argument.
  Value *to = fs->inSegment ? fs->fn->getArg(2) : table;
  auto slot = [&](Value *t, size_t k) { return b.CreateConstInBoundsGEP1_64(ptr(), t, k); };
  for (size_t k = 0; k < ids.size(); ++k) b.CreateStore(fs->buf[ids[k]], slot(to, k));
  for (size_t k = 0; k < directs.size(); ++k)
    b.CreateStore(fs->direct[directs[k]].ptr, slot(to, ids.size() + k));
  if (fs->inSegment) {
    fs->pendingSegment->setArgOperand(2, table);
    if (host)
      b.CreateRet(b.getTrue());
    else {
      b.CreateRetVoid();
      IRBuilder<>(fs->allocs).CreateBr(fs->segBody);
    }
    b.restoreIP(fs->callerIP);
  }
  Value *from = table;
  if (!back) {
    auto *ft = FunctionType::get(host ? i1() : b.getVoidTy(), {ptr(), ptr(), ptr()}, false);
    Function *seg =
        Function::Create(ft, GlobalValue::InternalLinkage,
                         caller->getName() + ".seg" + std::to_string(segmentCount++), mod.get());
    seg->addFnAttr(Attribute::NoInline);
    fs->pendingSegment = b.CreateCall(seg, {caller->getArg(0), table, nullPtr()});
    if (host) {
      BasicBlock *next = BasicBlock::Create(ctx, "seg.done", caller);
      b.CreateCondBr(fs->pendingSegment, next, fs->callerFail);
      fs->callerIP = IRBuilderBase::InsertPoint(next, next->end());
      BasicBlock *failed = BasicBlock::Create(ctx, "seg.failed", seg);
      IRBuilder<>(failed).CreateRet(b.getFalse());
      b.SetInsertPoint(BasicBlock::Create(ctx, "entry", seg, failed));
      fs->host = seg->getArg(0);
      fs->failBlock = failed;
    } else {
      fs->callerIP = b.saveIP();
      fs->allocs = BasicBlock::Create(ctx, "allocs", seg);
      fs->segBody = BasicBlock::Create(ctx, "body", seg);
      b.SetInsertPoint(fs->segBody);
      fs->dev = seg->getArg(0);
    }
    fs->fn = seg;
    from = seg->getArg(1);
  } else {
    fs->fn = caller;
    if (host) {
      fs->host = caller->getArg(0);
      fs->failBlock = fs->callerFail;
    } else {
      fs->dev = caller->getArg(0);
      fs->allocs = fs->callerAllocs;
    }
  }
  fs->inSegment = !back;
  for (size_t k = 0; k < n; ++k) {
    Value *v = b.CreateLoad(ptr(), slot(from, k));
    Value *&ref = k < ids.size() ? fs->buf[ids[k]] : fs->direct[directs[k - ids.size()]].ptr;
    auto o = segmentOrigin.find(ref);
    segmentOrigin[v] = o != segmentOrigin.end() ? o->second : ref;
    ref = v;
  }
}

void LlvmEmitter::emitEqn(const ir::Eqn &e) {
  using ir::Op;
  using ir::OpCategory;
  const ir::Eqn *outerEqn = curEqn;
  curEqn = &e;
  struct Restore {
    const ir::Eqn *&p, *v;
    ~Restore() { p = v; }
  } restore{curEqn, outerEqn};
  // The host reads what an equation reads (a fused one through its consumer, later):
  // gather sharded inputs first. A pmap reads them on the devices; a loop passes them
  // on to its body, which syncs where it reads them (emitForLoop).
  if (e.op != Op::Pmap && e.op != Op::ForLoop)
    for (auto &a : e.in) syncForRead(a);
  // A fused value is emitted by its consumers.
  if (fs->deviceProgram) return emitDeviceEqn(e);
  if (e.out.size() == 1 && fs->fused.count(e.out[0].id)) return;
  EqnEmitter emit = hostEmitters()[size_t(e.op)];
  internal_assert(emit, std::string("codegen does not support primitive ") + ir::name(e.op));
  emit(*this, e);
}

// Note [REPL entry]: a module whose main has invars or outvars (a REPL input, see
// sema/Session.h) gets the entry `void spmd_main(spmd_host*, void** ins, void** outs)`:
// ins[k] is the buffer of invar k (kept from an earlier input, possibly still sharded,
// so it is synced before the host reads it), and outs[k] receives a buffer for outvar k
// that the caller owns from then on (freed with spmd_host_free). An outvar whose buffer
// is not a fresh host allocation of its own (a constant, a literal, an input, or a
// buffer already handed out) is copied into a new one. Other modules keep the plain
// `void spmd_main(spmd_host*)`.
std::unique_ptr<Module> LlvmEmitter::run(const ir::Module &m) {
  mod = std::make_unique<Module>("spmd", ctx);
  if (split != Split::None) kmod = std::make_unique<Module>("spmd_kernels", ctx);
  bool io = !m.main.invars.empty() || !m.main.outvars.empty();
  FunctionType *ft = io ? FunctionType::get(b.getVoidTy(), {ptr(), ptr(), ptr()}, false)
                        : FunctionType::get(b.getVoidTy(), {ptr()}, false);
  Function *f = Function::Create(ft, GlobalValue::ExternalLinkage, "spmd_main", mod.get());
  FnState st;
  st.fn = f;
  st.host = f->getArg(0);
  st.dev = nullPtr();
  fs = &st;
  b.SetInsertPoint(BasicBlock::Create(ctx, "entry", f));
  st.failBlock = BasicBlock::Create(ctx, "launch.failed", f);
  std::unordered_set<Value *> notOwned;
  for (size_t k = 0; k < m.main.invars.size(); ++k) {
    Value *p = b.CreateLoad(ptr(), b.CreateConstInBoundsGEP1_64(ptr(), f->getArg(1), k));
    st.buf[m.main.invars[k].id] = p;
    st.unsynced.insert(m.main.invars[k].id);
    notOwned.insert(p);
  }
  emitJaxprInSegments(m.main);
  for (size_t k = 0; k < m.main.outvars.size(); ++k) {
    const ir::Atom &a = m.main.outvars[k];
    Value *p = a.isLit ? nullptr : bufferOf(a);
    Value *def = segmentOrigin.count(p) ? segmentOrigin[p] : p;  // Note [Segments]
    auto *call = dyn_cast_or_null<CallInst>(def);
    bool owned = call && call->getCalledFunction() &&
                 call->getCalledFunction()->getName().starts_with("spmd_host_alloc") &&
                 !notOwned.count(def);
    if (!owned) {
      p = allocBytes(a.type().bytes());
      copyAtom(a, p);
    }
    notOwned.insert(p);
    notOwned.insert(def);
    b.CreateStore(p, b.CreateConstInBoundsGEP1_64(ptr(), f->getArg(2), k));
  }
  b.CreateRetVoid();
  IRBuilder<> fb(st.failBlock);
  fb.CreateRetVoid();
  fs = nullptr;
  return std::move(mod);
}

}  // namespace spmd::codegen
