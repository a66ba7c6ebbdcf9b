// ===- Codegen.h - lowering the IR to LLVM, JIT compiling it, emitting PTX --===//
//
// The public face of code generation. One emitter (LlvmEmitter.h) turns a Module into an
// LLVM module: the host jaxpr becomes `void spmd_main(spmd_host*)`, each pmap nest one
// kernel `void k(spmd_dev*, void** ins, void** outs)` (runtime/abi/spmdrt.def is the contract).
// For the CPU the module is optimised for the host and JIT compiled with ORC; for
// NVIDIA GPUs the kernels alone are compiled to PTX.
#pragma once

#include "ir/IR.h"
#include "spmdrt.h"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace spmd::codegen {

/// Where pmap bodies run (Note [Device programs] in EmitDevice.cpp): on CPU devices as
/// one function per device (Cpu), on CPU devices as device programs whose kernels are
/// loops called in place (CpuSplit: the GPU model, tested without a GPU), or on NVIDIA
/// GPUs as device programs launching PTX kernels (Cuda).
enum class Backend { Cpu, CpuSplit, Cuda };

/// Code generation options.
struct Options {
  int optLevel = 2;  ///< 0..3, LLVM's new pass manager pipeline level
  Backend backend = Backend::Cpu;
  /// Renders an equation's location for run-time errors ("file:line:col"); when unset,
  /// "line:col".
  std::function<std::string(const SrcRange &)> where;
  /// compile() keeps its result in this directory and reuses it (Note [Object cache] in
  /// ObjectCache.h); "" turns the cache off. The key holds the module's locations and file
  /// names, not `where`: use the cache only with a `where` that depends on them alone.
  std::string cacheDir;
};

/// How compile() used the object cache.
enum class CacheUse { Off, Hit, Miss };

/// The optimised LLVM module for the host CPU, as text (`--dump=llvm`).
std::string emitLLVM(const ir::Module &m, const Options &o);

/// The GPU kernels of `m` (the split of Note [Device programs]) compiled for
/// nvptx64-nvidia-cuda, sm_90, PTX 8.0, with libdevice linked in (`--dump=ptx`). The
/// kernels call nothing outside the module.
std::string emitPTX(const ir::Module &m, const Options &o);

/// Where an LLVM compile went (`--stats`): the emitter's wall seconds, then
/// LLVM's optimisation and machine code generation over the module's parts (Note
/// [Parallel compilation] in Jit.cpp): their CPU seconds summed over the parts, and the
/// wall seconds from the first part's start to the last one's end, and the CPU seconds of
/// the largest part (the wall time of LLVM's work when every part has a core of its own);
/// `slowPaths`: the trig slow paths the run has compiled on their first call so far (Note
/// [Slow paths on first call] in Jit.cpp; their time is the run's, not counted here). All
/// zero but `slowPaths` when the code came from the object cache.
struct CompileBreakdown {
  int parts = 0, slowPaths = 0;
  double emitSecs = 0, optCpuSecs = 0, objCpuSecs = 0, llvmWallSecs = 0, maxPartCpuSecs = 0;
};

/// A JIT-compiled program; keeps its code alive.
class Executable {
public:
  virtual ~Executable();
  /// The compiled `spmd_main` (null when main has invars or outvars: see entryIO).
  virtual void (*entry())(spmd_host *) = 0;
  /// The compiled `spmd_main(host, ins, outs)` of a module whose main has invars or
  /// outvars (Note [REPL entry] in LlvmEmitter.cpp), else null.
  virtual void (*entryIO())(spmd_host *, void **, void **) { return nullptr; }
  /// Wall time spent lowering, optimising and compiling to machine code.
  double compileSeconds() const { return compileSeconds_; }
  /// Backend::Cuda: the PTX of the program's kernels, for the runtime to load ("" when
  /// the program has none).
  const std::string &ptx() const { return ptx_; }
  /// Backend::CpuSplit: each kernel's entry `void name(err, n, void **params)`.
  const std::vector<std::pair<std::string, void *>> &hostKernels() const { return hostKernels_; }
  /// Whether the code came from the object cache.
  CacheUse cacheUse() const { return cacheUse_; }
  const CompileBreakdown &breakdown() const { return breakdown_; }

protected:
  CompileBreakdown breakdown_;
  double compileSeconds_ = 0;
  CacheUse cacheUse_ = CacheUse::Off;
  std::string ptx_;
  std::vector<std::pair<std::string, void *>> hostKernels_;
};

/// Lowers, optimises and JIT compiles `m` for the host CPU, or loads what an earlier
/// compile of the same module left in `o.cacheDir`. Throws InternalError on our
/// own bugs (an IR the emitter does not support).
std::unique_ptr<Executable> compile(const ir::Module &m, const Options &o);

/// The host buffers that a run of `m` takes first for its launches' results, in the
/// order it takes them (Note [Buffer plan] in BufferPlan.cpp), for the runtime to make
/// ready while compile() runs. Empty for CUDA devices (their results live in device
/// memory) and for programs that launch nothing before they branch.
std::vector<spmd_buffer_hint> planHostBuffers(const ir::Module &m, const Options &o);

/// One JIT for many modules (the REPL): each add() compiles a module into the same
/// ORC LLJIT under its own ResourceTracker, and destroying the Executable it returns
/// removes that module's code. Modules' symbols are renamed apart, so several may live
/// at once. The Jit must outlive its Executables.
class Jit {
public:
  explicit Jit(const Options &o);
  ~Jit();
  /// Lowers, optimises and adds `m`; see compile().
  std::unique_ptr<Executable> add(const ir::Module &m);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace spmd::codegen
