// ===- LlvmEmitter.h - the IR -> LLVM IR emitter (internal to codegen) -----===//
//
// One emitter for the host CPU and for NVPTX. Every array value is a buffer (a pointer);
// each primitive becomes a loop nest with constant bounds over its output. Chains of
// elementwise ops are fused: a value whose only consumers read it once per element is
// never materialised, its consumers recompute it at their index (Note [Fusion]).
//
// The work is split by seam over several files that share this class:
//   LlvmEmitter.cpp     module set-up, runtime declarations, buffers, loops, jaxpr walk
//   EmitElementwise.cpp scalar semantics of the elementwise primitives, fusion reads
//   EmitArrays.cpp      reductions, shape ops, dynamic slices
//   EmitDot.cpp         dot_general, host and device programs
//   EmitRegions.cpp     pmap (launch + kernel, nested flattening), collectives, host
//                       effects
//   EmitControl.cpp     for_loop, cond, poll points
//   Emitters.cpp        the per-primitive tables of which emitter makes each op
//   EmitDevice.cpp      with a split: pmap bodies as device programs that launch
//                       data-parallel kernels (Note [Device programs])
#pragma once

#include "ir/IR.h"
#include "spmdrt.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <array>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace spmd::codegen {

enum class Target { Host, NVPTX };

/// How pmap bodies are compiled (Note [Device programs] in EmitDevice.cpp): as one
/// function per device that computes everything (None: CPU devices), or as a device
/// program that launches kernels, the kernels compiled for NVIDIA GPUs (NVPTX) or as
/// loops the CPU runtime calls in place (Host).
enum class Split { None, Host, NVPTX };

/// One axis of a kernel's device mesh (a level of a flattened pmap nest).
struct MeshAxis {
  std::string name;
  int64_t size = 1;
};

/// Where a kernel writes a value directly: an output pointer and the launch mask of mesh
/// axes it is stacked over (Note [Nested pmap]).
struct DirectOut {
  llvm::Value *ptr = nullptr;
  uint32_t mask = 0;
  int slot = -1;  ///< index of the launch output
};

/// The first var id of codegen's own equations (FnState::synth), above any the IR numbers.
constexpr int kSynthVarBase = 1 << 30;

/// The state of the LLVM function being emitted (spmd_main or one kernel). Nested
/// regions (loops, conditionals, inner pmaps) share their function's state.
struct FnState {
  llvm::Function *fn = nullptr;
  bool kernel = false;
  llvm::Value *host = nullptr;            ///< spmd_host* (null in kernels)
  llvm::Value *dev = nullptr;             ///< spmd_dev* (null on the host)
  llvm::BasicBlock *allocs = nullptr;     ///< kernels: hoisted allocations go here
  llvm::BasicBlock *failBlock = nullptr;  ///< host: returns after a failed launch
  std::vector<MeshAxis> mesh;
  std::unordered_map<int, llvm::Value *> buf;      ///< var id -> buffer
  std::unordered_map<int, const ir::Eqn *> fused;  ///< var id -> its defining eqn
  /// Fused multiplies that XLA's CSE makes one value with another in the same loop, so
  /// never contracted (Note [FMA contraction]).
  std::unordered_set<int> sharedMul;
  /// kernel: divisions by a broadcast value that XLA keeps exact, not turned into a
  /// multiply by the reciprocal (Note [Reciprocal of a broadcast]).
  std::unordered_set<int> exactDiv;
  /// Divisions A / sqrt(B) that XLA computes as A * rsqrt(B): output id -> B (Note [Division
  /// by a square root] in EmitElementwise.cpp).
  std::unordered_map<int, ir::Atom> rsqrtDiv;
  /// Divisions A / pow(B, C) that XLA computes as A * pow(B, -C): output id -> that
  /// multiply, an equation of `synth` (Note [Division by a power] in EmitElementwise.cpp).
  std::unordered_map<int, const ir::Eqn *> powDiv;
  /// kernel: 2-D transposes, which XLA folds into a dot that reads them (Note [XLA dot
  /// order] in EmitDot.cpp).
  std::unordered_set<int> transposed2d;
  /// kernel: 2-D dot_general results whose one user is a transpose, which XLA folds into
  /// the product of the swapped operands (Note [XLA dot order] in EmitDot.cpp).
  std::unordered_set<int> transposedDot;
  /// Equations codegen made for the rewrites above (a deque: fused holds pointers), their
  /// vars numbered from kSynthVarBase.
  std::deque<ir::Eqn> synth;
  std::unordered_set<int> unsynced;  ///< host: values that may be shards still on the devices
  std::unordered_map<int, DirectOut> direct;  ///< kernel: var id -> launch output
  std::vector<uint32_t> outMasks;             ///< kernel: the mask of each launch output
  /// kernel: values whose buffer already is this device's slice for the inner pmap that
  /// maps them (splitChain in EmitRegions.cpp)
  std::unordered_set<int> presliced;
  /// Vars defined by the jaxpr being walked, not its outputs, whose last use is the
  /// equation being emitted: their buffers may be taken over (Note [Buffers]).
  const std::vector<int> *dying = nullptr;
  /// A device program (Note [Device programs]): host code whose buffers are device
  /// memory; it launches kernels and never reads an element itself.
  bool deviceProgram = false;
  /// How many concatenates planFusion fused (Note [Fused concatenate]).
  int fusedConcats = 0;
  /// A data-parallel kernel of a device program (its first parameter: the error record).
  bool gpuKernel = false;
  llvm::Value *errRec = nullptr;
  /// Rank-0 values held in registers rather than buffers: in a device program, values
  /// known on the host (a loop counter, an axis index); in a kernel, its by-value params.
  std::unordered_map<int, llvm::Value *> scalars;
  /// Segments (Note [Segments]): the jaxpr split into segment functions, the function
  /// that calls them (spmd_main or the kernel) and where it calls the next one, its own
  /// failBlock (host) and allocs block (kernel); the segment being emitted.
  const ir::Jaxpr *segRoot = nullptr;
  llvm::Function *segCaller = nullptr;
  llvm::IRBuilderBase::InsertPoint callerIP;
  llvm::BasicBlock *callerFail = nullptr, *callerAllocs = nullptr;
  bool inSegment = false;
  llvm::CallInst *pendingSegment = nullptr;  ///< its `out` table is set at the next boundary
  llvm::BasicBlock *segBody = nullptr;       ///< kernel segment: the block after its allocs
};

/// A loop body: gets the multi-index (i64 values, one per dimension).
using IndexFn = std::function<void(const std::vector<llvm::Value *> &)>;
/// A kernel's body: gets the flat index and the kernel-side values of its extra params.
using KernelBody = std::function<void(llvm::Value *, const std::vector<llvm::Value *> &)>;

class LlvmEmitter {
public:
  LlvmEmitter(llvm::LLVMContext &ctx, Target target,
              std::function<std::string(const SrcRange &)> where = nullptr,
              Split split = Split::None);
  /// Emits the whole module; returns it (the host code). With a split, the kernels are
  /// in takeKernels() afterwards.
  std::unique_ptr<llvm::Module> run(const ir::Module &m);
  /// The kernel module of a split (null without one) and the names of its kernels.
  std::unique_ptr<llvm::Module> takeKernels() { return std::move(kmod); }
  std::vector<std::string> kernelNames;

  // ---- shared helpers (LlvmEmitter.cpp) ----
  llvm::LLVMContext &ctx;
  Target target;
  std::unique_ptr<llvm::Module> mod;
  llvm::IRBuilder<> b;
  FnState *fs = nullptr;
  int kernelCount = 0;
  std::function<std::string(const SrcRange &)> renderLoc;
  /// The equation being emitted: host allocations name its location if they fail.
  const ir::Eqn *curEqn = nullptr;
  Split split = Split::None;
  std::unique_ptr<llvm::Module> kmod;  ///< the kernels of a split
  int kmodCount = 0;

  llvm::Type *i1() { return b.getInt1Ty(); }
  llvm::Type *i8() { return b.getInt8Ty(); }
  llvm::Type *i32() { return b.getInt32Ty(); }
  llvm::Type *i64() { return b.getInt64Ty(); }
  llvm::PointerType *ptr() { return b.getPtrTy(); }
  llvm::Value *c64(int64_t v) { return b.getInt64(uint64_t(v)); }
  llvm::Value *c32(int32_t v) { return b.getInt32(uint32_t(v)); }

  llvm::Type *regTy(ir::DType d);                    ///< the type of one element in a register
  llvm::Type *memTy(ir::DType d);                    ///< the type of one element in memory
  llvm::FunctionCallee rt(const std::string &name);  ///< a runtime entry point
  llvm::Value *cstr(const std::string &s);           ///< a private C string
  llvm::Value *constI64s(const std::vector<int64_t> &v);
  llvm::Value *constI32s(const std::vector<int32_t> &v);
  llvm::Value *nullPtr() { return llvm::ConstantPointerNull::get(ptr()); }

  llvm::Value *load(ir::DType d, llvm::Value *base, llvm::Value *linear);
  void store(ir::DType d, llvm::Value *v, llvm::Value *base, llvm::Value *linear);
  llvm::Value *linearIndex(const std::vector<llvm::Value *> &idx, const ir::Shape &shape);
  std::vector<llvm::Value *> delinearize(llvm::Value *lin, const ir::Shape &shape);
  void loop(int64_t n, const std::function<void(llvm::Value *)> &body);
  void loopNest(const ir::Shape &shape, const IndexFn &body);
  void memcpy(llvm::Value *dst, llvm::Value *src, int64_t bytes);

  /// A new buffer of `bytes` bytes (host: spmd_host_alloc; kernel: hoisted).
  llvm::Value *allocBytes(int64_t bytes);
  /// A heap buffer of `bytes` bytes on the host that the caller frees (spmd_host_alloc):
  /// when it cannot be had, the error names the current equation's source location.
  llvm::Value *hostAlloc(int64_t bytes);
  /// An alloca in the current function's entry block (so mem2reg promotes a scalar one).
  llvm::Value *entryAlloca(llvm::Type *t);
  /// The buffer of var `v`, allocating one on its first definition.
  llvm::Value *defBuffer(const ir::Var &v);
  /// The buffer holding atom `a` (a literal gets a constant global).
  llvm::Value *bufferOf(const ir::Atom &a);
  void freeBuffer(llvm::Value *p);
  /// Host: before the host reads `a`, sync it if a launch wrote it.
  void syncForRead(const ir::Atom &a);

  void emitJaxpr(const ir::Jaxpr &j);

  // ---- segments (Note [Segments] in LlvmEmitter.cpp) ----
  static constexpr size_t kSegmentEqns = 1000;
  int segmentCount = 0;
  /// A host buffer pointer reloaded in a later segment -> the value that defined it.
  std::unordered_map<llvm::Value *, llvm::Value *> segmentOrigin;
  /// Emits the equations of `j` in segments when it is long (spmd_main's jaxpr, a CPU
  /// kernel's body); otherwise as emitJaxpr.
  void emitJaxprInSegments(const ir::Jaxpr &j);
  /// Ends the current segment: the live buffers go through a table; a new segment
  /// function starts, or (`back`) emission goes on in the function that calls them.
  void switchSegment(bool back);
  void emitEqn(const ir::Eqn &e);
  /// Copies atom `a` into the buffer `dst`.
  /// copyAtom at host level that keeps a sharded value on the devices (spmd_host_copy).
  void copyKeepingShards(const ir::Atom &a, llvm::Value *dst);
  void copyAtom(const ir::Atom &a, llvm::Value *dst);

  // ---- elementwise (EmitElementwise.cpp) ----
  /// The element of `a` at `idx` (an index into a value of a's shape), recomputing
  /// fused producers.
  llvm::Value *elemAt(const ir::Atom &a, const std::vector<llvm::Value *> &idx);
  /// The element at `idx` of the output of an indexable eqn.
  llvm::Value *computeElem(const ir::Eqn &e, const std::vector<llvm::Value *> &idx);
  /// random_seed/fold_in/split/bits at `idx` (ThreefryEmit.h).
  llvm::Value *randomElem(const ir::Eqn &e, const std::vector<llvm::Value *> &idx);
  llvm::Value *unaryOp(const ir::Eqn &e, ir::DType in, llvm::Value *x);
  llvm::Value *binaryOp(ir::Op op, ir::DType d, llvm::Value *x, llvm::Value *y);
  /// argmax/argmin's step: whether v replaces the best so far, cur. As jnp.argmax, the
  /// first NaN wins (NaN counts as the largest and the smallest value).
  llvm::Value *argBetter(bool isMax, ir::DType d, llvm::Value *v, llvm::Value *cur);
  llvm::Value *convertOp(ir::DType from, ir::DType to, llvm::Value *x);
  llvm::Value *mathCall(const std::string &name, ir::DType d, std::vector<llvm::Value *> args);
  llvm::Value *literal(const ir::Literal &l, ir::DType as);
  llvm::Value *constOf(ir::DType d, double v);
  /// `v` (a scalar or a pointer) through an empty inline asm, so that LLVM cannot fold
  /// arithmetic on it at compile time; v itself on NVPTX (Note [Folding literals]).
  llvm::Value *opaque(llvm::Value *v);
  /// Makes the contents of the private global `g` unknown to LLVM from here on.
  void escapeGlobal(llvm::GlobalVariable *g);
  /// Whether `e`'s output element can be computed from its inputs' elements (fusable).
  static bool indexable(const ir::Eqn &e);
  /// The same for every equation of `op` (with one output).
  static bool indexableOp(ir::Op op);
  /// The longest chain of fused values one element read recurses through (Note [Fusion depth]).
  static constexpr int kMaxFusionDepth = 128;
  /// Decides which vars of `j` are fused (Note [Fusion]).
  void planFusion(const ir::Jaxpr &j);
  /// Finds the fused multiplies that XLA's CSE shares (FnState::sharedMul).
  void markSharedMuls(const ir::Jaxpr &j);
  /// Finds the divisions by a broadcast that XLA divides exactly (FnState::exactDiv) and
  /// those by a square root that it multiplies by the rsqrt (FnState::rsqrtDiv).
  void markExactDivs(const ir::Jaxpr &j);
  /// Makes `div` (A / pow(B, C), pow its divisor's definition) read as A * pow(B, -C)
  /// (FnState::powDiv).
  void rewritePowDiv(const ir::Eqn &div, const ir::Eqn &pow);
  /// Whether `a` is a fused float multiply of dtype d that XLA contracts into the add
  /// consuming it (Note [FMA contraction]), and its operands x * y (constants folded:
  /// Note [Constant reassociation]).
  bool contractibleMul(const ir::Atom &a, ir::DType d, ir::Atom &x, ir::Atom &y) const;
  /// Whether division `e` is XLA's A * broadcast(1 / B) (Note [Reciprocal of a broadcast]).
  bool reciprocalDiv(const ir::Eqn &e) const;
  void emitIndexable(const ir::Eqn &e);
  /// Where the innermost loop of `e`'s output is cut so that no fused concatenate read
  /// inside changes input within a piece (Note [Fused concatenate]): 0, the cuts, then n.
  std::vector<int64_t> innerCuts(const ir::Eqn &e);

  // ---- arrays (EmitArrays.cpp) ----
  void emitReduce(const ir::Eqn &e);
  void emitArgReduce(const ir::Eqn &e);
  void emitReshape(const ir::Eqn &e);
  void emitConcatenate(const ir::Eqn &e);
  void emitPad(const ir::Eqn &e);
  void emitConstant(const ir::Eqn &e);
  void emitDynamicSlice(const ir::Eqn &e, bool update);
  void emitDot(const ir::Eqn &e);  // EmitDot.cpp
  /// dst = transpose(src) with `perm` (src has shape `srcShape`).
  void emitTransposeCopy(ir::DType d, llvm::Value *src, const ir::Shape &srcShape,
                         const std::vector<int64_t> &perm, llvm::Value *dst);
  /// Where `bad` (i1) holds, fails the run (or the launch) with "where: message", "{0}"
  /// and "{1}" of the message being a0 and a1 (i64): Note [Run-time checks].
  void failIf(llvm::Value *bad, const char *message, llvm::Value *a0, llvm::Value *a1,
              const std::string &where);
  /// Checks 0 <= index <= limit at run time, else an index error (a limit below 0
  /// always fails). With `wrap` > 0 the index was wrapped NumPy-style by that size and
  /// the error reports it as written (Note [Index errors]).
  void checkIndex(llvm::Value *index, int64_t limit, int64_t size, const std::string &where,
                  int64_t wrap = 0);
  /// The start indices of a dynamic_slice/dynamic_update_slice, checked and clamped.
  std::vector<llvm::Value *> dynamicStarts(const ir::Eqn &e);
  /// Whether a dynamic slice's window is larger than its operand in some dimension (so
  /// every index is out of range: Note [Index errors]).
  static bool sliceHasNoStart(const ir::Eqn &e);
  std::string where(const ir::Eqn &e);

  // ---- regions, collectives, host effects (EmitRegions.cpp) ----
  void emitPmapLaunch(const ir::Eqn &e);
  /// For each output of host-level pmap `e`, the input whose buffer it may take over
  /// (Note [Buffer donation] in ir/InPlace.cpp), or -1.
  std::vector<int> donors(const ir::Eqn &e, const std::vector<uint32_t> &inMasks,
                          const std::vector<uint32_t> &outMasks, uint32_t rank);
  void emitInnerPmap(const ir::Eqn &e);
  void emitForLoop(const ir::Eqn &e);  // EmitControl.cpp, as emitCond and emitPollPoint
  /// At the top of a for-loop iteration: stop here if the run was interrupted (Note
  /// [Poll points] in EmitControl.cpp).
  void emitPollPoint();
  void emitCond(const ir::Eqn &e);
  void emitCollective(const ir::Eqn &e);
  void emitPrint(const ir::Eqn &e);
  void emitAssertClose(const ir::Eqn &e);
  void emitCheck(const ir::Eqn &e);
  /// The checks of a check equation, element by element (host, CPU kernel or device kernel).
  void checkElements(const ir::Eqn &e);
  uint32_t axisMask(const ir::Param &axisNames);
  llvm::Value *devAxisIndex(uint32_t mask);
  /// This device's index along the product of the named axes, in the tuple's order
  /// (Note [Tuple order]).
  llvm::Value *tupleAxisIndex(const ir::Param &axisNames);
  /// `blocks` (G blocks of `blockElems` elements, one per replica of the named axes)
  /// reordered from the tuple's order to the mesh's (`toMesh`) or back; `blocks` itself
  /// when the two orders agree (Note [Tuple order]). Written to `into` when given.
  llvm::Value *reorderGroup(const ir::Param &axisNames, ir::DType d, llvm::Value *blocks,
                            int64_t blockElems, bool toMesh, llvm::Value *into = nullptr);
  /// [.., G, n/G, ..] with G moved to the front: `x` split in G chunks along `axis`.
  llvm::Value *chunkMajor(const ir::Atom &x, int64_t axis, int64_t G);

  // ---- device programs and kernels (EmitDevice.cpp) ----
  /// Emits a kernel computing `body` at every flat index in [0, n) and launches it from
  /// the device program. Its params: the buffers (or host scalars) of `vars`, which
  /// elemAt then reads inside the kernel, and the device-program values `extra`.
  void launchKernel(const std::string &tag, int64_t n, const std::vector<int> &vars,
                    const std::vector<llvm::Value *> &extra, const KernelBody &body);
  /// A kernel storing elem(idx) for every element of a value of type `t` into `dst`;
  /// `reads` are the atoms elem reads (their leaves become params).
  void storeKernel(const std::string &tag, const ir::Type &t, llvm::Value *dst,
                   const std::vector<ir::Atom> &reads,
                   const std::function<llvm::Value *(const std::vector<llvm::Value *> &)> &elem);
  /// The non-fused vars whose buffers (or host scalars) computing `atoms` reads.
  std::vector<int> leavesOf(const std::vector<ir::Atom> &atoms);
  void collectLeaves(const ir::Atom &a, std::vector<int> &out, std::unordered_set<int> &seen);
  /// Device program: the value of a rank-0 atom on the host (read back when it lives on
  /// the device).
  llvm::Value *hostScalar(const ir::Atom &a);
  /// Kernel: output element `idx` of any one-output array equation.
  llvm::Value *kernelElem(const ir::Eqn &e, const std::vector<llvm::Value *> &idx);
  /// The element of concatenate `e` at `idx`: a branch per input (EmitDevice.cpp).
  llvm::Value *concatElem(const ir::Eqn &e, const std::vector<llvm::Value *> &idx);
  void emitDeviceEqn(const ir::Eqn &e);
  void deviceMaterialize(const ir::Eqn &e);
  /// Kernel: the fold with `comb` of elem(r) for r = lo, lo+step, ... < hi, in a fixed
  /// order (Note [Fold order]).
  llvm::Value *foldRange(ir::Op comb, ir::DType d, llvm::Value *ident, llvm::Value *lo,
                         llvm::Value *hi, llvm::Value *step,
                         const std::function<llvm::Value *(llvm::Value *)> &elem);
  /// Device program: dst[k] = the `reduce` (reduce_sum, ...) of elem(k, r, in) over r < R,
  /// for k < K (Note [Device programs]: P threads per output, then their partials). Its
  /// kernels take the buffers of `vars` (elemAt reads them) and the device-program values
  /// `inputs`, which elem gets as `in`.
  void deviceFold(const std::string &tag, int64_t K, int64_t R, ir::Op reduce, ir::DType d,
                  const std::vector<int> &vars, const std::vector<llvm::Value *> &inputs,
                  llvm::Value *dst,
                  const std::function<llvm::Value *(llvm::Value *k, llvm::Value *r,
                                                    const std::vector<llvm::Value *> &in)> &elem);
  void deviceReduce(const ir::Eqn &e);
  void deviceDot(const ir::Eqn &e);  // EmitDot.cpp
  void deviceCheck(const ir::Eqn &e);
  void deviceCollective(const ir::Eqn &e);
};

/// How codegen emits one primitive: one entry per Op in each of the two tables below
/// (null: that target does not support it), both in Emitters.cpp. The op-coverage test
/// (tests/unit/codegen/test_op_coverage.cpp) checks that every op of Ops.def has both.
using EqnEmitter = void (*)(LlvmEmitter &, const ir::Eqn &);
/// Host code and CPU kernels (LlvmEmitter::emitEqn).
const std::array<EqnEmitter, ir::kNumOps> &hostEmitters();
/// Device programs (LlvmEmitter::emitDeviceEqn: GPU kernels, and CPU ones with a split).
const std::array<EqnEmitter, ir::kNumOps> &deviceEmitters();

/// How a collective combines its group's contributions, one entry per collective of Ops.def
/// (EmitRegions.cpp; the op-coverage test checks that every collective has one). `code` is
/// the runtime's reduction (SPMD_REDUCE_* of spmdrt.h) and `combiner` the elementwise op that
/// folds two contributions on a device; a collective that only moves data has code -1.
struct CollectiveReduction {
  int32_t code = -1;
  ir::Op combiner = ir::Op::Add;
};
/// The entry of collective `op`, or null (not a collective, or one without its entry).
const CollectiveReduction *collectiveReduction(ir::Op op);
/// The reduction code of an all-reduce collective (psum, pmax, pmin, reduce_scatter), or -1.
int32_t collectiveReduceCode(ir::Op op);
/// The elementwise op folding two contributions of all-reduce `op` on dtype `d` (a bool sum
/// is an or).
ir::Op collectiveCombiner(ir::Op op, ir::DType d);

/// The reduction a reduce_* primitive folds with, and its identity on dtype `d`.
ir::Op reduceCombiner(ir::Op reduce);
double reduceIdentity(ir::Op reduce, ir::DType d);

// ---- helpers shared by the Emit*.cpp files (defined in EmitArrays.cpp) ----
/// A loop lo <= i < hi with run-time bounds, stepping by `step` (1 when null; positive).
/// Top-tested, so it may run no times; LlvmEmitter::loop is the static-count form.
void loopRange(LlvmEmitter &L, llvm::Value *lo, llvm::Value *hi,
               const std::function<void(llvm::Value *)> &body, llvm::Value *step = nullptr);
/// Runs `then` only when `cond` holds.
void ifThen(LlvmEmitter &L, llvm::Value *cond, const std::function<void()> &then);
/// The fold of elem(0) .. elem(n - 1) by `comb` in Note [Cascade]'s order.
llvm::Value *foldCascade(LlvmEmitter &L, ir::Op comb, ir::DType d, llvm::Value *ident, int64_t n,
                         const std::function<llvm::Value *(llvm::Value *)> &elem);

/// The runtime's dtype code (a spmd_dtype): ir::DType's own value (spmdrt.def).
int32_t dtypeCode(ir::DType d);

}  // namespace spmd::codegen
