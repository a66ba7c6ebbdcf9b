// ===- Jit.cpp - optimising, JIT compiling (ORC) and emitting PTX -----------===//
//
// The back half of code generation: the module from LlvmEmitter is verified, optimised
// with the new pass manager at -O0..3 for the target machine (the host CPU, with its
// own features and its loops left rolled, Note [Rolled loops]; or nvptx64 sm_90), then
// either JIT compiled with ORC LLJIT (runtime functions are resolved from the running
// process, which links with -rdynamic) or printed as PTX. Kernels that call libdevice
// math functions get libdevice linked in.
#include "codegen/Codegen.h"
#include "codegen/LlvmEmitter.h"
#include "codegen/ObjectCache.h"
#include "codegen/VecMath.h"
#include "codegen/XlaSumEmit.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/ThreadPool.h>
#include <llvm/Support/Threading.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <exception>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

namespace spmd::codegen {

using namespace llvm;

Executable::~Executable() = default;

static void initTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
    InitializeNativeTargetAsmParser();
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

template <typename T>
static T check(Expected<T> v, const char *what) {
  if (!v) internal_assert(false, std::string(what) + ": " + toString(v.takeError()));
  return std::move(*v);
}

static CodeGenOptLevel cgLevel(int o) {
  return o <= 0   ? CodeGenOptLevel::None
         : o == 1 ? CodeGenOptLevel::Less
         : o == 2 ? CodeGenOptLevel::Default
                  : CodeGenOptLevel::Aggressive;
}

/// The JIT's description of this machine: its CPU and features, at level `o`. Code is
/// position independent, small code model: what LLJIT asks for when it links with JITLink,
/// so an object compiled here (and perhaps cached) links as LLJIT's own would.
static orc::JITTargetMachineBuilder hostBuilder(int o) {
  auto jtmb = check(orc::JITTargetMachineBuilder::detectHost(), "detecting the host");
  jtmb.setCPU(sys::getHostCPUName().str());
  SubtargetFeatures f;
  for (auto &[name, on] : sys::getHostCPUFeatures()) f.AddFeature(name, on);
  jtmb.getFeatures() = f;
  jtmb.setCodeGenOptLevel(cgLevel(o));
  jtmb.setRelocationModel(Reloc::PIC_);
  jtmb.setCodeModel(CodeModel::Small);
  return jtmb;
}

// Note [Rolled loops]: host code is optimised without LLVM's loop unrolling (full,
// partial and runtime) and without interleaving in the loop vectoriser. The emitter's
// loops have constant trip counts, so at O2/O3 LLVM unrolled every short one in full
// and then vectorised and interleaved the rest: train_mlp_wide's IR grew 4.5x through
// the pipeline (4,939 lines in, 17,558 out with opt-19 -O3) and LLVM's optimisation and
// machine code generation spent about twice as long on it as on the rolled loops, with
// no run time gained (bench/notes.md, 2026-11-23, compile time). Vectorisation (loop
// and SLP) is kept. Float sums keep their bits: the emitter writes them in a fixed order
// of its own (Note [XLA sum order], Note [Cascade]); only emitReduce's combines allow
// reassociation, where the lanes LLVM picks could matter, and every golden test
// (xla_sum_order among them) and the spec examples print the same with or without
// these options. GPU kernels keep LLVM's default pipeline (not measured here).
/// LLVM's analyses, registered with a pass builder.
struct Analyses {
  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  explicit Analyses(PassBuilder &pb) {
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
  }
};

/// Runs LLVM's default pipeline at level `o` for `tm`; `host`: Note [Rolled loops];
/// `slowApart`: Note [Slow paths apart].
static void optimize(Module &m, TargetMachine *tm, int o, bool host, bool slowApart = false) {
  PipelineTuningOptions pto;
  pto.LoopVectorization = o >= 2;
  pto.SLPVectorization = o >= 2;
  if (host) {
    pto.LoopUnrolling = false;
    pto.LoopInterleaving = false;
  }
  PassBuilder pb(tm, pto);
  registerVecMathPasses(pb, slowApart);
  Analyses a(pb);
  OptimizationLevel lvl = o <= 0   ? OptimizationLevel::O0
                          : o == 1 ? OptimizationLevel::O1
                          : o == 2 ? OptimizationLevel::O2
                                   : OptimizationLevel::O3;
  ModulePassManager mpm =
      o <= 0 ? pb.buildO0DefaultPipeline(lvl) : pb.buildPerModuleDefaultPipeline(lvl);
  mpm.run(m, a.mam);
}

static void verifyOrDie(const Module &m) {
  std::string err;
  raw_string_ostream os(err);
  if (verifyModule(m, &os)) internal_assert(false, "codegen produced invalid LLVM IR: " + os.str());
}

static Split splitOf(Backend b) {
  return b == Backend::Cpu ? Split::None : b == Backend::CpuSplit ? Split::Host : Split::NVPTX;
}

static std::string ptxOf(Module &kernels, int optLevel);

/// What lowering made besides the host code: the kernels' names and, for CUDA, their PTX.
struct Kernels {
  std::vector<std::string> names;
  std::string ptx;
};

/// Lowers `m` for the host, unoptimised; `tm` receives the target machine. With a split,
/// the CPU kernels are linked into the module and the GPU kernels compiled to PTX.
static std::unique_ptr<Module> emitHost(LLVMContext &ctx, const ir::Module &m, const Options &o,
                                        std::unique_ptr<TargetMachine> &tm,
                                        Kernels *kernels = nullptr) {
  initTargets();
  tm = check(hostBuilder(o.optLevel).createTargetMachine(), "creating the host target machine");
  LlvmEmitter L(ctx, Target::Host, o.where, splitOf(o.backend));
  auto mod = L.run(m);
  mod->setDataLayout(tm->createDataLayout());
  mod->setTargetTriple(tm->getTargetTriple().str());
  if (auto kmod = L.takeKernels()) {
    if (kernels) kernels->names = L.kernelNames;
    if (o.backend == Backend::CpuSplit) {
      kmod->setDataLayout(tm->createDataLayout());
      kmod->setTargetTriple(tm->getTargetTriple().str());
      internal_assert(!Linker::linkModules(*mod, std::move(kmod)), "linking the CPU kernels");
    } else if (kernels && !L.kernelNames.empty()) {
      kernels->ptx = ptxOf(*kmod, o.optLevel);
    }
  }
  verifyOrDie(*mod);
  return mod;
}

/// Lowers `m` and optimises it for the host as one module (the REPL's Jit::add).
static std::unique_ptr<Module> hostModule(LLVMContext &ctx, const ir::Module &m, const Options &o,
                                          std::unique_ptr<TargetMachine> &tm) {
  auto mod = emitHost(ctx, m, o, tm);
  optimize(*mod, tm.get(), o.optLevel, true);
  return mod;
}

/// The machine code of an optimised host module, as an ELF relocatable object.
static std::string objectOf(Module &mod, TargetMachine &tm) {
  SmallString<0> out;
  raw_svector_ostream os(out);
  legacy::PassManager pm;
  internal_assert(!tm.addPassesToEmitFile(pm, os, nullptr, CodeGenFileType::ObjectFile),
                  "the host target cannot emit an object file");
  pm.run(mod);
  return std::string(out.str());
}

// Note [Parallel compilation]: a program's host module is optimised and compiled to
// machine code as up to kMaxParts modules at once, each in an LLVM context of its own, on
// LLVM's thread pool. The module's external functions (spmd_main, each pmap body, each
// CPU kernel entry) are the roots; they are dealt to the parts by size, counting the
// internal functions each reaches (largest first, each to the lightest part), and each
// part is a copy of the whole module (through bitcode, as contexts cannot share IR) in
// which the other parts' roots are declarations. Internal functions and constants go
// with every part that uses them (the pipeline deletes the rest), so no part calls into
// another: spmd_main only hands the pmap bodies' addresses to the runtime, and ORC links
// the objects together. LLVM's passes here look at one function at a time, apart from
// inlining and attributes of the internal helpers, which every part has whole: each
// function's optimised IR is the same as from the one-module compile (`llvm-diff` on
// every spec example's functions, bench/notes.md 2026-11-24), and so is what it computes.
// What a user waits for is wall time, and the wall time of LLVM's work is about that of
// the largest part when the cores are free (train_mlp: the pmap body holding the forward
// and backward pass, 0.13 s of 0.26 s CPU). CPU time grows by what the parts repeat:
// reading the bitcode and setting up the pipelines (about 1 ms a part) and, mostly, the
// helpers several parts use (a trig function's polynomial and slow path, compiled once
// per part that calls it: about 20 ms more for spec pool_map, 40 ms for grad_nested).
// On a machine whose cores are all busy the split costs that much wall time too. The
// split depends on the module alone, never on the core count, so that the code (and
// `--dump=llvm`, which prints the parts one after the other) is the same everywhere;
// modules of under kMinPartInstrs instructions a part are not split. The threads are
// LLVM's, for LLVM's work, and end with the compile: the runtime never sees them.
//
// Note [Slow paths apart]: the trig functions' out-of-line slow paths (Payne-Hanek for
// |x| >= 120, `spmd.vecmath.sin.slow` and its vector forms such as `sin.v8.slow`, Note
// [Trig vector variants] in VecMathTrig.cpp) are the one large piece of code several
// parts would each compile: in spec pool_map both parts called sin.slow and sin.v8.slow,
// about 10 ms of machine code generation per part (the vector form's 64-bit lane
// arithmetic is scalarised without AVX-512) and a fifth of each part's CPU time
// (bench/notes.md, 2026-11-24, compile11). So in a split compile every part has them as
// external declarations (the scalar one's body is dropped before the pipeline, the
// vector ones are never given one, DefineTrigVariants' `slowApart`), and the first part
// whose optimised IR calls one queues its compile, in a module of its own, on the same
// thread pool. A slow path is a function of its name alone (trig function and width),
// made by the same code and put through the same passes as in a one-module compile (the
// scalar one the whole pipeline, as when it came with the emitted module; a vector one
// what tidies the bodies made after the vectorisers), so its optimised IR is the same,
// and so is every part's but for the calling convention of the call (no `fastcc`, which
// LLVM gives only to internal functions): `--dump=llvm` of every golden, spec and bench
// program that uses sin, cos or tan, compared function by function with the one-part
// code, shows no other difference. Which part asks first depends on timing, but not
// what is compiled: the slow paths' objects follow the parts' in order of name. That is
// `--dump=llvm`'s output; compiled to machine code, a slow path waits for its first
// call (Note [Slow paths on first call]). The declarations carry the attributes LLVM
// infers for the bodies (no memory effects, no recursion, always returns), so the
// callers are optimised as before. Unsplit modules keep their slow paths internal.
//
// Note [Slow paths on first call]: most programs never take a slow path (spec pool_map's
// arguments stay under 100; the path is for |x| >= 120), yet compiling sin's two slow
// paths was a fifth of pool_map's LLVM CPU time (the 8-wide one's scalarised 64-bit
// lanes alone about 10 ms of machine code). So in a split compile's machine code each part
// that calls slow path S gets, after its pipeline, a small internal function of that name
// and type in place of the declaration: it loads S's address from a slot of the part's,
// and while the slot is empty asks resolveSlowPath (through the JIT symbol
// `spmd.jit.slow_path`, with the JitExecutable's LazySlowPaths as `spmd.jit.lazy`), which
// compiles S as Note [Slow paths apart] says, adds its object to the JIT, and returns its
// address, once per program under a lock (device threads may ask at once; a fiber never
// switches inside the compile, so the lock cannot wait on itself); then it calls S with
// its arguments. The callers are not touched (their IR was final), the slow path's code is
// the same as when compiled ahead, and the call costs a load and a branch more on a path
// that runs Payne-Hanek. A JIT's lazy call-through stubs are not used: ORC's x86-64
// resolver saves the vector registers with fxsave, only their low 128 bits, and the
// 8-wide slow path takes its arguments in ymm registers. A slow path compiled in a run is
// counted by `--stats` ("+ 1 slow path on first call"), its time in the run phase; it is
// not put in the object cache (each run that needs it compiles it again). `--dump=llvm`
// shows the slow paths, not the stubs.
constexpr size_t kMaxParts = 4;
constexpr size_t kMinPartInstrs = 250;

/// `f` and the internal functions it reaches.
static std::set<Function *> reachedFrom(Function &f) {
  std::vector<Function *> todo{&f};
  std::set<Function *> seen{&f};
  while (!todo.empty()) {
    Function *g = todo.back();
    todo.pop_back();
    for (auto &bb : *g)
      for (auto &in : bb)
        for (auto &op : in.operands())
          if (auto *h = dyn_cast<Function>(op))
            if (h->hasLocalLinkage() && !h->isDeclaration() && seen.insert(h).second)
              todo.push_back(h);
  }
  return seen;
}

/// Instructions in `f` and in the internal functions it reaches.
static size_t weightOf(Function &f) {
  size_t n = 0;
  for (Function *g : reachedFrom(f)) n += g->getInstructionCount();
  return n;
}

/// The roots (external definitions) of each part of `mod` (Note [Parallel compilation]).
static std::vector<std::vector<std::string>> partsOf(Module &mod) {
  std::vector<std::pair<size_t, std::string>> roots;
  size_t total = 0;
  for (auto &f : mod)
    if (!f.isDeclaration() && !f.hasLocalLinkage()) {
      roots.emplace_back(weightOf(f), f.getName().str());
      total += roots.back().first;
    }
  size_t n = std::min({kMaxParts, roots.size(), std::max<size_t>(1, total / kMinPartInstrs)});
  if (n <= 1) return {};
  std::stable_sort(roots.begin(), roots.end(),
                   [](auto &a, auto &b) { return a.first > b.first; });
  std::vector<std::vector<std::string>> parts(n);
  std::vector<size_t> load(n, 0);
  for (auto &[w, name] : roots) {
    size_t k = std::min_element(load.begin(), load.end()) - load.begin();
    parts[k].push_back(name);
    load[k] += w;
  }
  return parts;
}

/// What compiling one part, or one slow path (Note [Slow paths apart]), produced.
struct PartOut {
  std::string object;  ///< its machine code
  std::string ir;      ///< its optimised IR, when asked for
  std::string slowPath;  ///< the slow path's name; empty for a part
  double optSecs = 0, objSecs = 0;  ///< thread CPU seconds
};

static double threadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

/// The machine code (or with `irOnly` the IR) of `mod`, optimised since CPU time `c0`.
static PartOut finishObject(Module &mod, TargetMachine &tm, bool irOnly, double c0) {
  PartOut out;
  double c1 = threadCpuSeconds();
  out.optSecs = c1 - c0;
  if (irOnly) {
    raw_string_ostream os(out.ir);
    mod.print(os, nullptr);
  } else {
    out.object = objectOf(mod, tm);
    out.objSecs = threadCpuSeconds() - c1;
  }
  return out;
}

constexpr const char *kLazyResolve = "spmd.jit.slow_path";
constexpr const char *kLazyContext = "spmd.jit.lazy";

/// Gives the declaration of slow path `f` (a part's, optimised) the body that compiles it
/// on first call and calls it (Note [Slow paths on first call]).
static void defineOnFirstCall(Function &f) {
  Module &m = *f.getParent();
  LLVMContext &c = m.getContext();
  auto *ptr = PointerType::getUnqual(c);
  auto *slot = new GlobalVariable(m, ptr, false, GlobalValue::PrivateLinkage,
                                  ConstantPointerNull::get(ptr), f.getName() + ".addr");
  auto *text = ConstantDataArray::getString(c, f.getName());
  auto *name = new GlobalVariable(m, text->getType(), true, GlobalValue::PrivateLinkage, text,
                                  f.getName() + ".name");
  GlobalVariable *lazy = m.getNamedGlobal(kLazyContext);
  if (!lazy)
    lazy = new GlobalVariable(m, Type::getInt8Ty(c), false, GlobalValue::ExternalLinkage,
                              nullptr, kLazyContext);
  FunctionCallee resolve =
      m.getOrInsertFunction(kLazyResolve, FunctionType::get(ptr, {ptr, ptr}, false));
  f.setLinkage(GlobalValue::InternalLinkage);
  f.setMemoryEffects(MemoryEffects::unknown());  // it writes its slot and compiles
  auto *entry = BasicBlock::Create(c, "entry", &f);
  auto *compile = BasicBlock::Create(c, "compile", &f);
  auto *call = BasicBlock::Create(c, "call", &f);
  IRBuilder<> b(entry);
  LoadInst *known = b.CreateAlignedLoad(ptr, slot, Align(8));
  known->setAtomic(AtomicOrdering::Acquire);
  b.CreateCondBr(b.CreateIsNull(known), compile, call);
  b.SetInsertPoint(compile);
  Value *made = b.CreateCall(resolve, {lazy, name});
  b.CreateAlignedStore(made, slot, Align(8))->setAtomic(AtomicOrdering::Release);
  b.CreateBr(call);
  b.SetInsertPoint(call);
  PHINode *target = b.CreatePHI(ptr, 2);
  target->addIncoming(known, entry);
  target->addIncoming(made, compile);
  std::vector<Value *> args;
  for (Argument &a : f.args()) args.push_back(&a);
  CallInst *r = b.CreateCall(f.getFunctionType(), target, args);
  r->setTailCall();
  if (f.getReturnType()->isVoidTy())
    b.CreateRetVoid();
  else
    b.CreateRet(r);
}

// Note [Host code compiled quickly]: the host program (spmd_main: everything outside the
// pmap bodies, and the loops around them) is optimised by the IR pipeline like the rest,
// then compiled to machine code as LLVM's -O0 does (`optnone`, set after the pipeline:
// FastISel, and no machine-level optimisation), the pmap bodies and kernels at the
// requested level. It mostly runs once: setting up, slicing, printing, launching; the
// work is in the pmap bodies. In spec train_mlp its machine code took as long as the
// training step's (-O2: 80 to 120 ms CPU under load, -O0 about half), and with 2 cores it
// shares one with the accuracy pmap, so that core finished no sooner than the training
// step's. What -O2's code generation would change besides speed is FMA contraction,
// which the DAG combiner does only when optimising: so no float multiply and add are left
// for the backend to contract (Note [Explicit contraction]). A program that computes a
// lot in host code (a host `vmap` over a million elements) runs that part slower: spec
// pool_map's run phase (bench/notes.md, 2026-11-25, compile15).
//
// Note [Explicit contraction]: where spmdrun's code wants a multiply and add fused (the
// dot products' loops, the elementwise chains of Note [FMA contraction], Note
// [Contracted sums]) the IR says so, with llvm.fma or llvm.fmuladd (which becomes an FMA
// at every codegen level on a CPU with FMA), never with `contract` flags on an fmul and
// an fadd, which only an optimising backend fuses: so the bits do not depend on the
// codegen level (Note [Host code compiled quickly]).
/// Marks the host program of part `mod`, optimised, to be compiled to machine code quickly
/// (Note [Host code compiled quickly]).
static void quickHostCode(Module &mod) {
  if (Function *f = mod.getFunction("spmd_main"); f && !f->isDeclaration()) {
    f->addFnAttr(Attribute::OptimizeNone);
    f->addFnAttr(Attribute::NoInline);
  }
}

/// Optimises `mod` and (unless `irOnly`) emits its machine code; `slowApart`: `mod` is a
/// part of a split compile, whose trig slow paths `claim` is given once optimised (Note
/// [Slow paths apart]).
static PartOut finishPart(Module &mod, TargetMachine &tm, int optLevel, bool irOnly,
                          const std::function<void(Module &)> &claim = nullptr) {
  double c0 = threadCpuSeconds();
  optimize(mod, &tm, optLevel, true, claim != nullptr);
  if (claim) claim(mod);
  if (!irOnly && optLevel > 0) quickHostCode(mod);
  return finishObject(mod, tm, irOnly, c0);
}

/// Compiles the part of the module in `bitcode` that defines `roots`, in a context of its
/// own (Note [Parallel compilation]).
static PartOut compilePart(StringRef bitcode, const std::vector<std::string> &roots,
                           int optLevel, bool irOnly,
                           const std::function<void(Module &)> &claim) {
  LLVMContext ctx;
  auto mod = check(parseBitcodeFile(MemoryBufferRef(bitcode, "spmd"), ctx), "reading a part");
  std::set<std::string> mine(roots.begin(), roots.end());
  bool hasMain = mine.count("spmd_main");
  for (auto &f : *mod)
    if (!f.isDeclaration() && !f.hasLocalLinkage() && !mine.count(f.getName().str()))
      f.deleteBody();
  for (auto &g : mod->globals())  // external variables: defined in spmd_main's part
    if (!g.isDeclaration() && g.hasExternalLinkage() && !hasMain) g.setInitializer(nullptr);
  declareTrigSlowPaths(*mod);
  auto tm = check(hostBuilder(optLevel).createTargetMachine(), "creating the host target machine");
  return finishPart(*mod, *tm, optLevel, irOnly, claim);
}

/// Compiles the trig slow path `name` in a module of its own (Note [Slow paths apart]).
static PartOut compileSlowPath(const std::string &name, int optLevel, bool irOnly) {
  LLVMContext ctx;
  auto tm = check(hostBuilder(optLevel).createTargetMachine(), "creating the host target machine");
  Module mod("spmd", ctx);
  mod.setDataLayout(tm->createDataLayout());
  mod.setTargetTriple(tm->getTargetTriple().str());
  double c0 = threadCpuSeconds();
  PassBuilder pb(tm.get());
  Analyses a(pb);
  bool ok = defineTrigSlowPath(mod, name, a.fam, [&](Module &m) {
    optimize(m, tm.get(), optLevel, true);
  }) != nullptr;
  internal_assert(ok, "not a trig slow path: " + name);
  PartOut out = finishObject(mod, *tm, irOnly, c0);
  out.slowPath = name;
  return out;
}

/// Optimises the host module `mod` and emits its machine code, in parts on LLVM's thread
/// pool (Note [Parallel compilation]); `irOnly`: the optimised IR of each part instead.
static std::vector<PartOut> compileParts(std::unique_ptr<Module> mod, TargetMachine &tm,
                                         int optLevel, bool irOnly) {
  auto parts = partsOf(*mod);
  if (parts.empty()) return {finishPart(*mod, tm, optLevel, irOnly)};
  SmallString<0> bc;
  {
    raw_svector_ostream os(bc);
    WriteBitcodeToFile(*mod, os);
  }
  mod.reset();
  std::vector<PartOut> outs(parts.size());
  std::vector<std::exception_ptr> errs(parts.size());
  std::mutex mu;  // guards the three below
  std::set<std::string> claimed;
  std::vector<PartOut> slow;
  std::exception_ptr slowErr;
  {
    ThreadPoolStrategy threads = hardware_concurrency(unsigned(parts.size() + 1));
    threads.Limit = true;  // no more threads than cores; the largest part is queued first
    DefaultThreadPool pool(threads);
    // The first part to call a slow path queues its compile (Note [Slow paths apart]);
    // machine code compiles it on first call (Note [Slow paths on first call]).
    auto claim = [&](Module &part) {
      if (!irOnly) {
        std::vector<Function *> called;
        for (auto &f : part)
          if (f.isDeclaration() && !f.use_empty() && isTrigSlowPath(f.getName()))
            called.push_back(&f);
        for (Function *f : called) defineOnFirstCall(*f);
        return;
      }
      std::vector<std::string> mine;
      {
        std::lock_guard<std::mutex> lock(mu);
        for (auto &f : part)
          if (f.isDeclaration() && !f.use_empty() && isTrigSlowPath(f.getName()) &&
              claimed.insert(f.getName().str()).second)
            mine.push_back(f.getName().str());
      }
      for (auto &name : mine)
        pool.async([&, name] {
          try {
            PartOut out = compileSlowPath(name, optLevel, irOnly);
            std::lock_guard<std::mutex> lock(mu);
            slow.push_back(std::move(out));
          } catch (...) {
            std::lock_guard<std::mutex> lock(mu);
            slowErr = std::current_exception();
          }
        });
    };
    for (size_t k = 0; k < parts.size(); ++k)
      pool.async([&, k] {
        try {
          outs[k] = compilePart(bc.str(), parts[k], optLevel, irOnly, claim);
        } catch (...) { errs[k] = std::current_exception(); }
      });
    pool.wait();
  }
  for (auto &e : errs)
    if (e) std::rethrow_exception(e);
  if (slowErr) std::rethrow_exception(slowErr);
  std::sort(slow.begin(), slow.end(),
            [](const PartOut &a, const PartOut &b) { return a.slowPath < b.slowPath; });
  for (auto &p : slow) outs.push_back(std::move(p));
  return outs;
}

std::string emitLLVM(const ir::Module &m, const Options &o) {
  LLVMContext ctx;
  std::unique_ptr<TargetMachine> tm;
  auto mod = emitHost(ctx, m, o, tm);  // sets tm
  auto outs = compileParts(std::move(mod), *tm, o.optLevel, true);
  size_t parts = 0;
  for (auto &p : outs) parts += p.slowPath.empty();
  std::string s;
  for (size_t k = 0; k < outs.size(); ++k) {
    if (!outs[k].slowPath.empty())
      s += "; " + outs[k].slowPath + ", compiled once for all parts (Note [Slow paths apart])\n";
    else if (parts > 1)
      s += "; part " + std::to_string(k + 1) + " of " + std::to_string(parts) +
           " (Note [Parallel compilation])\n";
    s += outs[k].ir;
  }
  return s;
}

#ifdef SPMD_HAVE_LIBDEVICE
extern "C" const char spmd_libdevice_start[], spmd_libdevice_end[];
#endif

/// Links the libdevice functions the kernels call (f64 math, fmod). libdevice.10.bc is
/// embedded in the binary when the CUDA toolkit was found at build time; otherwise it is
/// looked for where CUDA installs it.
static void linkLibdevice(Module &mod) {
  bool needed = false;
  for (auto &f : mod) needed |= f.isDeclaration() && f.getName().starts_with("__nv_");
  if (!needed) return;
  SMDiagnostic diag;
  std::unique_ptr<Module> lib;
#ifdef SPMD_HAVE_LIBDEVICE
  auto buf = MemoryBuffer::getMemBuffer(
      StringRef(spmd_libdevice_start, size_t(spmd_libdevice_end - spmd_libdevice_start)),
      "libdevice.10.bc", false);
  lib = parseIR(buf->getMemBufferRef(), diag, mod.getContext());
#else
  const char *path = "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc";
  if (std::filesystem::exists(path)) lib = parseIRFile(path, diag, mod.getContext());
#endif
  internal_assert(lib != nullptr,
                  "the GPU kernels need libdevice.10.bc, which this build of spmdrun does not have "
                  "(build it where the CUDA toolkit is installed)");
  lib->setTargetTriple(mod.getTargetTriple());
  lib->setDataLayout(mod.getDataLayout());
  Linker::linkModules(mod, std::move(lib), Linker::LinkOnlyNeeded);
  for (auto &f : mod)
    if (!f.isDeclaration() && f.getName().starts_with("__nv_"))
      f.setLinkage(GlobalValue::InternalLinkage);
}

std::string emitPTX(const ir::Module &m, const Options &o) {
  initTargets();
  LLVMContext ctx;
  LlvmEmitter L(ctx, Target::Host, o.where, Split::NVPTX);
  L.run(m);  // the host code is not needed here
  auto kmod = L.takeKernels();
  return L.kernelNames.empty() ? std::string() : ptxOf(*kmod, o.optLevel);
}

/// The PTX of a kernel module (Note [Device programs]).
static std::string ptxOf(Module &kernels, int optLevel) {
  Module *mod = &kernels;
  std::string triple = "nvptx64-nvidia-cuda", err;
  const llvm::Target *t = TargetRegistry::lookupTarget(triple, err);
  internal_assert(t, "no NVPTX target: " + err);
  std::unique_ptr<TargetMachine> tm(t->createTargetMachine(
      triple, "sm_90", "+ptx80", TargetOptions(), std::nullopt, std::nullopt, cgLevel(optLevel)));
  mod->setTargetTriple(triple);
  mod->setDataLayout(tm->createDataLayout());
  linkLibdevice(*mod);
  verifyOrDie(*mod);
  optimize(*mod, tm.get(), optLevel, false);
  for (auto it = mod->begin(); it != mod->end();) {
    Function &f = *it++;
    if (f.isDeclaration() && f.use_empty()) f.eraseFromParent();
  }
  SmallString<0> out;
  raw_svector_ostream os(out);
  legacy::PassManager pm;
  internal_assert(!tm->addPassesToEmitFile(pm, os, nullptr, CodeGenFileType::AssemblyFile),
                  "NVPTX cannot emit assembly");
  pm.run(*mod);
  return std::string(out.str());
}

namespace {
/// The slow paths a program's JIT compiles on first call (Note [Slow paths on first call]).
struct LazySlowPaths {
  std::mutex mu;  // guards the rest
  orc::LLJIT *jit = nullptr;
  int optLevel = 2;
  std::map<std::string, void *> done;
  int *count = nullptr;  ///< the executable's breakdown().slowPaths
};

/// `spmd.jit.slow_path`: the address of slow path `name`, compiled and linked on the first
/// call (Note [Slow paths on first call]).
void *resolveSlowPath(void *lazyPaths, const char *name) {
  auto &lz = *static_cast<LazySlowPaths *>(lazyPaths);
  std::lock_guard<std::mutex> lock(lz.mu);
  auto [it, fresh] = lz.done.try_emplace(name, nullptr);
  if (!fresh) return it->second;
  try {
    PartOut out = compileSlowPath(name, lz.optLevel, false);
    if (auto err = lz.jit->addObjectFile(
            MemoryBuffer::getMemBufferCopy(out.object, std::string(name) + ".o")))
      internal_assert(false, "adding a slow path to the JIT: " + toString(std::move(err)));
    it->second = check(lz.jit->lookup(name), "looking up a slow path").toPtr<void *>();
  } catch (const std::exception &e) {  // JIT frames have no unwind tables: report here
    reportBug(e.what());
    std::_Exit(3);  // the driver's exit status for our bugs
  }
  if (lz.count) ++*lz.count;
  return it->second;
}

/// A program JIT compiled by ORC LLJIT; owns the JIT and so the code.
class JitExecutable : public Executable {
public:
  JitExecutable(std::unique_ptr<orc::LLJIT> jit, std::unique_ptr<LazySlowPaths> lazy,
                void (*fn)(spmd_host *), double secs, std::string ptx,
                std::vector<std::pair<std::string, void *>> hostKernels)
      : jit_(std::move(jit)), lazy_(std::move(lazy)), fn_(fn) {
    compileSeconds_ = secs;
    ptx_ = std::move(ptx);
    hostKernels_ = std::move(hostKernels);
    lazy_->count = &breakdown_.slowPaths;
  }
  void (*entry())(spmd_host *) override { return fn_; }
  void setCacheUse(CacheUse u) { cacheUse_ = u; }
  void setBreakdown(const CompileBreakdown &b) { breakdown_ = b; }

private:
  std::unique_ptr<orc::LLJIT> jit_;
  std::unique_ptr<LazySlowPaths> lazy_;  // the code calls into it
  void (*fn_)(spmd_host *);
};
}  // namespace

/// The JIT a Jit keeps (host-tuned, resolving the runtime from the process).
static std::unique_ptr<orc::LLJIT> makeJit(int optLevel) {
  auto jit = check(orc::LLJITBuilder().setJITTargetMachineBuilder(hostBuilder(optLevel)).create(),
                   "creating the JIT");
  auto gen = check(orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
                       jit->getDataLayout().getGlobalPrefix()),
                   "searching the process for the runtime");
  jit->getMainJITDylib().addGenerator(std::move(gen));
  return jit;
}

/// What the code compiled from `m` with `o` depends on (Note [Object cache]).
static std::string cacheKey(const ir::Module &m, const Options &o) {
  auto jtmb = hostBuilder(o.optLevel);
  std::string k = "spmdrun " + ObjectCache::compilerIdentity() + "\nllvm " LLVM_VERSION_STRING "\n";
  k += jtmb.getTargetTriple().str() + "\n" + jtmb.getCPU() + "\n" + jtmb.getFeatures().getString() +
       "\n";
  k += "O" + std::to_string(o.optLevel) + " backend " + std::to_string(int(o.backend)) + "\n";
  k += std::string("sum order ") + xlasum::vfTableName() + "\n";  // SPMD_SUM_HOST may differ
  return k + ir::fingerprint(m);
}

std::unique_ptr<Executable> compile(const ir::Module &m, const Options &o) {
  auto t0 = std::chrono::steady_clock::now();
  initTargets();
  std::optional<ObjectCache> cache;
  std::string key;
  if (!o.cacheDir.empty() && !ObjectCache::compilerIdentity().empty()) {
    cache.emplace(o.cacheDir);
    key = cacheKey(m, o);
  }
  std::optional<CompiledProgram> prog = cache ? cache->load(key) : std::nullopt;
  CacheUse use = !cache ? CacheUse::Off : prog ? CacheUse::Hit : CacheUse::Miss;
  CompileBreakdown bd;
  if (!prog) {
    LLVMContext ctx;
    std::unique_ptr<TargetMachine> tm;
    Kernels kernels;
    auto e0 = std::chrono::steady_clock::now();
    auto mod = emitHost(ctx, m, o, tm, &kernels);
    auto e1 = std::chrono::steady_clock::now();
    auto outs = compileParts(std::move(mod), *tm, o.optLevel, false);
    bd.emitSecs = std::chrono::duration<double>(e1 - e0).count();
    bd.llvmWallSecs = std::chrono::duration<double>(std::chrono::steady_clock::now() - e1).count();
    prog.emplace();
    for (auto &p : outs) {
      (p.slowPath.empty() ? bd.parts : bd.slowPaths) += 1;
      prog->objects.push_back(std::move(p.object));
      bd.optCpuSecs += p.optSecs;
      bd.objCpuSecs += p.objSecs;
      bd.maxPartCpuSecs = std::max(bd.maxPartCpuSecs, p.optSecs + p.objSecs);
    }
    prog->ptx = std::move(kernels.ptx);
    prog->kernelNames = std::move(kernels.names);
    if (cache) cache->store(key, *prog);
  }
  auto jit = makeJit(o.optLevel);
  auto lazy = std::make_unique<LazySlowPaths>();  // Note [Slow paths on first call]
  lazy->jit = jit.get();
  lazy->optLevel = o.optLevel;
  if (auto err = jit->getMainJITDylib().define(orc::absoluteSymbols(
          {{jit->mangleAndIntern(kLazyResolve),
            {orc::ExecutorAddr::fromPtr(&resolveSlowPath),
             JITSymbolFlags::Exported | JITSymbolFlags::Callable}},
           {jit->mangleAndIntern(kLazyContext),
            {orc::ExecutorAddr::fromPtr(lazy.get()), JITSymbolFlags::Exported}}})))
    internal_assert(false, "defining the JIT's slow-path symbols: " + toString(std::move(err)));
  for (size_t k = 0; k < prog->objects.size(); ++k)
    if (auto err = jit->addObjectFile(MemoryBuffer::getMemBufferCopy(
            prog->objects[k], "spmd_program." + std::to_string(k) + ".o")))
      internal_assert(false, "adding the program to the JIT: " + toString(std::move(err)));
  auto sym = check(jit->lookup("spmd_main"), "looking up spmd_main");
  auto fn = sym.toPtr<void (*)(spmd_host *)>();
  std::vector<std::pair<std::string, void *>> hostKernels;
  if (o.backend == Backend::CpuSplit)
    for (auto &name : prog->kernelNames)
      hostKernels.emplace_back(name,
                               check(jit->lookup(name), "looking up a kernel").toPtr<void *>());
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto exe = std::make_unique<JitExecutable>(std::move(jit), std::move(lazy), fn, secs,
                                             std::move(prog->ptx), std::move(hostKernels));
  exe->setCacheUse(use);
  exe->setBreakdown(bd);
  return exe;
}

// ---- one JIT, many modules (the REPL) ---------------------------------------------------

struct Jit::Impl {
  Options opts;
  std::unique_ptr<orc::LLJIT> jit;
  int64_t added = 0;
};

namespace {
/// A module's code in a shared JIT: removed from it on destruction.
class TrackedExecutable : public Executable {
public:
  TrackedExecutable(orc::ResourceTrackerSP rt, void (*fn)(spmd_host *),
                    void (*io)(spmd_host *, void **, void **), double secs)
      : rt_(std::move(rt)), fn_(fn), io_(io) {
    compileSeconds_ = secs;
  }
  ~TrackedExecutable() override {
    if (auto err = rt_->remove()) consumeError(std::move(err));
  }
  void (*entry())(spmd_host *) override { return fn_; }
  void (*entryIO())(spmd_host *, void **, void **) override { return io_; }

private:
  orc::ResourceTrackerSP rt_;
  void (*fn_)(spmd_host *);
  void (*io_)(spmd_host *, void **, void **);
};
}  // namespace

Jit::Jit(const Options &o) : impl_(std::make_unique<Impl>()) {
  initTargets();
  impl_->opts = o;
  impl_->jit = makeJit(o.optLevel);
}

Jit::~Jit() = default;

std::unique_ptr<Executable> Jit::add(const ir::Module &m) {
  auto t0 = std::chrono::steady_clock::now();
  auto ctx = std::make_unique<LLVMContext>();
  std::unique_ptr<TargetMachine> tm;
  auto mod = hostModule(*ctx, m, impl_->opts, tm);
  // Rename this module's definitions apart from those of modules still in the JIT.
  std::string suffix = ".m" + std::to_string(impl_->added++);
  for (auto &f : *mod)
    if (!f.isDeclaration() && !f.hasLocalLinkage()) f.setName(f.getName() + suffix);
  for (auto &g : mod->globals())
    if (!g.isDeclaration() && !g.hasLocalLinkage()) g.setName(g.getName() + suffix);
  bool io = !m.main.invars.empty() || !m.main.outvars.empty();
  auto rt = impl_->jit->getMainJITDylib().createResourceTracker();
  if (auto err = impl_->jit->addIRModule(rt, orc::ThreadSafeModule(std::move(mod), std::move(ctx))))
    internal_assert(false, "adding the module to the JIT: " + toString(std::move(err)));
  auto sym = check(impl_->jit->lookup("spmd_main" + suffix), "looking up spmd_main");
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (io)
    return std::make_unique<TrackedExecutable>(
        rt, nullptr, sym.toPtr<void (*)(spmd_host *, void **, void **)>(), secs);
  return std::make_unique<TrackedExecutable>(rt, sym.toPtr<void (*)(spmd_host *)>(), nullptr, secs);
}

}  // namespace spmd::codegen
