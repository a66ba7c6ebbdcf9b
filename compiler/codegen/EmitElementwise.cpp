// ===- EmitElementwise.cpp - scalar semantics of elementwise ops, and fusion ===//
//
// Each elementwise primitive as a function of its operands' elements (JAX's semantics:
// C-style integer division, round half to even, NaN-propagating max/min, shifts of 32 or
// more give 0), plus the index maps of the "indexable" data movement ops
// (broadcast_in_dim, iota, transpose, slice, rev), which can be read at any index.
//
// Note [Fusion]: a var defined by an indexable equation is fused (never materialised)
// when every consumer reads it once per element (another indexable op, or a reduction),
// it is not a jaxpr output, and either it has one use or it is cheap to recompute (pure
// index maps, convert). A cheap value with several uses forces its own operands to be
// materialised, so expensive work is never duplicated. A whole fused chain then runs
// as one loop nest over the final output, which LLVM vectorises.
#include "codegen/LlvmEmitter.h"

#include "codegen/ThreefryEmit.h"
#include "codegen/VecMath.h"
#include "codegen/XlaSum.h"

#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Intrinsics.h>

#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <optional>

namespace spmd::codegen {

using namespace llvm;
using ir::DType;
using ir::Op;
using ir::OpCategory;

bool LlvmEmitter::indexable(const ir::Eqn &e) { return e.out.size() == 1 && indexableOp(e.op); }

bool LlvmEmitter::indexableOp(ir::Op op) {
  if (ir::isElementwise(op)) return true;
  switch (op) {
  case Op::BroadcastInDim:
  case Op::Iota:
  case Op::Transpose:
  case Op::Slice:
  case Op::Rev:
  case Op::RandomSeed:
  case Op::RandomFoldIn:
  case Op::RandomSplit:
  case Op::RandomBits: return true;
  default: return false;
  }
}

/// Whether `e` reads its operands once per element (so they may be fused into it).
static bool readsOnce(const ir::Eqn &e) {
  if (e.op == Op::BroadcastInDim) return e.in[0].type().numel() == e.out[0].type.numel();
  if (e.op == Op::RandomSplit || e.op == Op::RandomBits) return false;  // a key per block
  if (LlvmEmitter::indexable(e)) return true;
  return ir::info(e.op).category == OpCategory::Reduce;
}

static bool cheap(Op op) {
  return op == Op::BroadcastInDim || op == Op::Iota || op == Op::Transpose || op == Op::Slice ||
         op == Op::Rev || op == Op::Convert;
}

void LlvmEmitter::planFusion(const ir::Jaxpr &j) {
  std::unordered_map<int, int> uses;
  std::unordered_set<int> blocked, forced;
  for (auto &e : j.eqns)
    for (auto &a : e.in) {
      if (a.isLit) continue;
      ++uses[a.var.id];
      if (!readsOnce(e)) blocked.insert(a.var.id);
    }
  for (auto &a : j.outvars)
    if (!a.isLit) blocked.insert(a.var.id);
  // Note [Fusion depth]: elemAt recurses once per fused producer, so a fused chain is cut
  // every kMaxFusionDepth values (that one is materialised): a program of 30,000
  // `x = x + 1.0` then needs a bounded stack, and its loops stay of a size LLVM handles.
  // depth[v]: how deep in a fused expression tree var v is read (1 = by a materialised
  // equation); consumers come before producers in this backward walk.
  std::unordered_map<int, int> depth;
  // Vars read somewhere other than the loop of an indexable equation (emitIndexable), as
  // a whole or element by element: a fused concatenate is only read inside such loops
  // (Note [Fused concatenate]).
  std::unordered_set<int> notInLoop;
  for (auto &a : j.outvars)
    if (!a.isLit) notInLoop.insert(a.var.id);
  auto readAt = [&](const ir::Eqn &e, int d) {
    bool inLoop = indexable(e) && !(fs->fused.count(e.out[0].id) && notInLoop.count(e.out[0].id));
    for (auto &a : e.in) {
      if (a.isLit) continue;
      depth[a.var.id] = std::max(depth[a.var.id], d);
      if (!inLoop) notInLoop.insert(a.var.id);
    }
  };
  for (size_t k = j.eqns.size(); k-- > 0;) {
    const ir::Eqn &e = j.eqns[k];
    bool concat = e.op == Op::Concatenate && !fs->deviceProgram && e.out.size() == 1 &&
                  e.intParam("dimension") + 1 == int64_t(e.out[0].type.rank()) &&
                  !notInLoop.count(e.out[0].id);
    if (!indexable(e) && !concat) {
      readAt(e, 1);
      continue;
    }
    int id = e.out[0].id;
    int n = uses[id];
    int d = std::max(depth[id], 1);
    bool fuse = !(forced.count(id) || blocked.count(id) || n == 0 || fs->direct.count(id)) &&
                !(n > 1 && !cheap(e.op) && !concat) && d < kMaxFusionDepth;
    if (!fuse) {
      readAt(e, 1);
      continue;
    }
    fs->fused[id] = &e;
    fs->fusedConcats += concat;
    readAt(e, d + 1);
    if (n > 1)
      for (auto &a : e.in)
        if (!a.isLit) forced.insert(a.var.id);
  }
  markSharedMuls(j);
  if (fs->kernel) markExactDivs(j);
}

// Note [Reciprocal of a broadcast]: XLA's algebraic simplifier (HandleDivide, on the CPU)
// rewrites `A / broadcast(B)` as `A * broadcast(1 / B)` only when B has one use, the
// broadcast: `m::Divide(m::Op(&a), m::Broadcast(m::Op(&b).WithOneUse()))`. In a softmax
// in a pmap, `e / s` with `s = psum(sum(e), i)` multiplies by 1/s, but with `log(s)` also
// computed, s has two uses and e / s divides exactly (2.1205774e-07, not 2.1205773e-07,
// in conf9b_softmax). CSE runs between the simplifier's rounds and makes identical
// broadcasts of B one, so `a / s` and `b / s` give B one use (one broadcast); then the
// first division is rewritten, which gives B a second use (1 / B), and the second divides
// exactly. Only a scalar B is broadcast directly: jnp reaches a divisor of rank 1 or more
// through an expand_dims or a reshape of its own (`x / v` with v: [3], `x / m` with
// keepdims, `e / s[:, None]`), a B of one use whatever v's other uses, so those divide
// through the reciprocal in JAX (checked on the CPU; spmdrun's simplify folds those
// reshapes into the broadcast). At host level each eager op is its own computation, B has
// one use, and every such division multiplies by the reciprocal, so this is for kernels
// only. Uses are
// counted in the jaxpr being emitted (XLA's computation: a pmap body or a loop body), an
// output counting as one (the root tuple), equations reading B twice once.
// Note [Division by a power]: XLA's simplifier (HandleDivide) rewrites A / pow(B, C) as
// A * pow(B, -C), whatever C is (a constant or a traced exponent) and however many uses
// the pow has (measured against jax.jit on 4096 random quotients: `p / a ** 1.5`,
// `a ** 2.5`, `a ** 0.5`, `a ** q` all equal p * jit(a ** -C) bit for bit, a third of
// them differ from the exact quotient; `(p / a ** 1.5, a ** 1.5)` too). The multiply then
// contracts like any other (Note [FMA contraction]): `sum(dx / (dx * dx + 0.1) ** 1.5)`
// in a pmap is a reduce of fma(dx, pow(., -1.5), acc) (conf10a_particles' forces). Not for
// exponents 0, 1, 2 and -1: HandlePower has turned those pows into 1, B, B * B and 1 / B
// before (`p / a ** 2.0` divides exactly in JAX). Eager host code divides (one op per
// computation, nothing to simplify). The rewrite is made here, in kernels, as equations
// of FnState::synth: the pow with the negated exponent and the multiply, which then
// stands for the division wherever it is read (fused or not).
void LlvmEmitter::rewritePowDiv(const ir::Eqn &div, const ir::Eqn &pow) {
  DType d = div.out[0].type.dtype;
  if (pow.out[0].type.dtype != d || pow.in[0].type().dtype != d) return;
  const ir::Atom &c = pow.in[1];
  if (c.isLit) {
    double v = c.lit.asDouble();
    if (v == 0.0 || v == 1.0 || v == 2.0 || v == -1.0) return;
  }
  auto fresh = [&](const ir::Type &t) {
    return ir::Var{kSynthVarBase + int(fs->synth.size()), t};
  };
  ir::Atom negC;
  if (c.isLit) {
    ir::Literal l = c.lit;
    l.f = -l.asDouble();
    negC = ir::Atom::literal(l);
  } else {
    ir::Eqn &n = fs->synth.emplace_back();
    n.op = Op::Neg;
    n.in = {c};
    n.out = {fresh(c.type())};
    fs->fused[n.out[0].id] = &n;
    negC = ir::Atom(n.out[0]);
  }
  ir::Eqn &p = fs->synth.emplace_back();
  p.op = Op::Pow;
  p.in = {pow.in[0], negC};
  p.out = {fresh(pow.out[0].type)};
  fs->fused[p.out[0].id] = &p;
  ir::Eqn &m = fs->synth.emplace_back();
  m.op = Op::Mul;
  m.in = {div.in[0], ir::Atom(p.out[0])};
  m.out = div.out;
  m.loc = div.loc;
  if (auto f = fs->fused.find(div.out[0].id); f != fs->fused.end()) f->second = &m;
  fs->powDiv[div.out[0].id] = &m;
}

void LlvmEmitter::markExactDivs(const ir::Jaxpr &j) {
  std::unordered_map<int, const ir::Eqn *> def;
  for (auto &e : j.eqns) {
    for (auto &v : e.out) def[v.id] = &e;
    // A 2-D transpose, which XLA folds into a dot reading it (Note [XLA dot order]).
    if (e.op == Op::Transpose && e.out.size() == 1 && e.out[0].type.shape.size() == 2)
      fs->transposed2d.insert(e.out[0].id);
  }
  // The key of a broadcast as CSE sees it: its operand, shape and dimensions.
  auto bcastKey = [](const ir::Eqn &e) {
    return e.param("broadcast_dimensions").str() + "|" + e.out[0].type.str();
  };
  // Uses are XLA's after its dead-code elimination: an unused result (the primal value of
  // a grad in a pmap body, sum(sqrt(u)) beside 0.5 / sqrt(u)) uses nothing.
  std::unordered_set<int> live;
  for (auto &a : j.outvars)
    if (!a.isLit) live.insert(a.var.id);
  std::vector<bool> liveEqn(j.eqns.size(), false);
  for (size_t k = j.eqns.size(); k-- > 0;) {
    const ir::Eqn &e = j.eqns[k];
    bool on = !e.regions.empty() || ir::info(e.op).category == ir::OpCategory::Host ||
              ir::info(e.op).category == ir::OpCategory::Collective;
    for (auto &v : e.out) on |= live.count(v.id) > 0;
    if (!on) continue;
    liveEqn[k] = true;
    for (auto &a : e.in)
      if (!a.isLit) live.insert(a.var.id);
  }
  std::unordered_map<int, std::set<std::string>> users;  // var id -> its distinct users
  for (size_t k = 0; k < j.eqns.size(); ++k) {
    const ir::Eqn &e = j.eqns[k];
    if (!liveEqn[k]) continue;
    std::string key = e.op == Op::BroadcastInDim ? bcastKey(e) : "#" + std::to_string(k);
    for (auto &a : e.in)
      if (!a.isLit) users[a.var.id].insert(key);
  }
  for (auto &a : j.outvars)
    if (!a.isLit) users[a.var.id].insert("out");
  // A 2-D product whose one user is a transpose: XLA's simplifier folds the two into the
  // product of the swapped operands, which YNNPACK sums in that product's order (Note
  // [XLA dot order] in EmitDot.cpp).
  for (size_t k = 0; k < j.eqns.size(); ++k) {
    const ir::Eqn &e = j.eqns[k];
    if (!liveEqn[k] || e.op != Op::Transpose || e.in[0].isLit || e.out[0].type.shape.size() != 2)
      continue;
    auto d = def.find(e.in[0].var.id);
    if (d != def.end() && d->second->op == Op::DotGeneral && users[e.in[0].var.id].size() == 1)
      fs->transposedDot.insert(e.in[0].var.id);
  }
  std::set<std::pair<int, std::string>> rewritten;  // (B, broadcast key) already used once
  for (auto &e : j.eqns) {
    // Note [Division by a square root]: XLA's simplifier (HandleDivide) rewrites
    // A / sqrt(B) as A * rsqrt(B) when the sqrt has one use, `m::Divide(m::Op(&a),
    // m::Sqrt(m::Op(&b)).WithOneUse())`, and rsqrt is XLA's estimate and Newton step on
    // the CPU (Note [XLA rsqrt] in VecMath.cpp). So does every jitted division by a square
    // root, sqrt's own gradient among them (0.5 / sqrt(x)): 133 of 512 random quotients
    // in a pmap body differed by an ulp from JAX before (conf11_nan_where); eager host
    // code divides (each op its own computation).
    if (e.op == Op::Div && e.out.size() == 1 && ir::isFloat(e.out[0].type.dtype) &&
        !e.in[1].isLit) {
      auto d = def.find(e.in[1].var.id);
      if (d != def.end() && d->second->op == Op::Sqrt && users[e.in[1].var.id].size() == 1)
        fs->rsqrtDiv.emplace(e.out[0].id, d->second->in[0]);
      if (d != def.end() && d->second->op == Op::Pow) rewritePowDiv(e, *d->second);
    }
    if (e.op != Op::Div || e.out.size() != 1 || !ir::isFloat(e.out[0].type.dtype) || e.in[1].isLit)
      continue;
    auto d = def.find(e.in[1].var.id);
    if (d == def.end() || d->second->op != Op::BroadcastInDim || d->second->in[0].isLit ||
        d->second->in[0].type().rank() != 0)
      continue;
    int b = d->second->in[0].var.id;
    bool oneUse = users[b].size() == 1;
    if (!oneUse || !rewritten.insert({b, bcastKey(*d->second)}).second)
      fs->exactDiv.insert(e.out[0].id);
  }
}

/// Note [FMA contraction]: XLA's CSE runs before fusion, so two multiplies of the same
/// values (`(a * b + 1.5) * (b * a - 0.5)`) are one multiply with two uses when they end
/// up in the same loop, and LLVM fuses a multiply into an add only when it is its one use.
/// Values are numbered as CSE sees them (an elementwise op of the same numbered operands,
/// in either order for + * maximum minimum, is the same value; anything else is new); two
/// fused multiplies with one number read by the same materialised equation are shared.
void LlvmEmitter::markSharedMuls(const ir::Jaxpr &j) {
  std::unordered_map<int, size_t> consumer;  // var id -> the eqn that reads it
  for (size_t k = 0; k < j.eqns.size(); ++k)
    for (auto &a : j.eqns[k].in)
      if (!a.isLit) consumer[a.var.id] = k;
  std::map<std::vector<int64_t>, int64_t> numbers;
  std::unordered_map<int, int64_t> num;  // var id -> value number
  int64_t next = 0;
  auto numOf = [&](const ir::Atom &a) -> int64_t {
    if (a.isLit) {
      double v = a.lit.asDouble();
      int64_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      auto [it, _] = numbers.try_emplace({-1, int64_t(a.lit.dtype), bits}, next);
      if (it->second == next) ++next;
      return it->second;
    }
    auto it = num.find(a.var.id);
    if (it != num.end()) return it->second;
    return num[a.var.id] = next++;
  };
  std::map<std::pair<size_t, int64_t>, std::vector<int>> muls;  // (root, number) -> var ids
  for (size_t k = 0; k < j.eqns.size(); ++k) {
    const ir::Eqn &e = j.eqns[k];
    if (e.out.size() != 1) continue;
    int id = e.out[0].id;
    if (!ir::isElementwise(e.op) || !e.params.empty()) {
      num[id] = next++;
      continue;
    }
    std::vector<int64_t> key{int64_t(e.op), int64_t(e.out[0].type.dtype)};
    for (auto &a : e.in) key.push_back(numOf(a));
    if ((e.op == Op::Add || e.op == Op::Mul || e.op == Op::Max || e.op == Op::Min) &&
        key.size() == 4 && key[2] > key[3])
      std::swap(key[2], key[3]);
    auto [it, _] = numbers.try_emplace(key, next);
    if (it->second == next) ++next;
    num[id] = it->second;
    if (e.op != Op::Mul || !fs->fused.count(id)) continue;
    size_t root = k;  // the materialised equation this multiply is computed in
    for (int v = id; fs->fused.count(v) && consumer.count(v);) {
      root = consumer[v];
      if (j.eqns[root].out.size() != 1) break;
      v = j.eqns[root].out[0].id;
    }
    muls[{root, num[id]}].push_back(id);
  }
  for (auto &[_, ids] : muls)
    if (ids.size() > 1) fs->sharedMul.insert(ids.begin(), ids.end());
}

// Note [Parallel loops]: LLVM's loop vectoriser guards a loop that loads through one
// pointer and stores through another with a run-time check, and runs the scalar loop when
// the store is less than a vector's worth of bytes past the load: an output written over
// its input (Note [Buffer donation] in ir/InPlace.cpp) is exactly 0 bytes past it, so
// `x / psum(sum(x), i)` with xs dying there divided one element at a time (bench/notes.md,
// 2026-11-24). No iteration of an indexable equation's loop reads what another one
// writes: its output is a fresh buffer (Note [Buffers]: a buffer is never written after
// its value is defined), or a donated input that the loop reads only at the element it
// writes (rule 5 there). So the innermost loop is marked parallel: every load of its body
// and its one store in an access group, and llvm.loop.parallel_accesses on its latch;
// LLVM then vectorises it without the check. A body that may write memory otherwise
// (another store, a call) is left unmarked, and LLVM keeps its check.

/// The loads of `blocks` and its one store `out` in a new access group, or null when
/// another instruction there touches memory (another store, a call).
static MDNode *accessGroup(LLVMContext &ctx, const std::vector<BasicBlock *> &blocks,
                           const StoreInst *out) {
  if (!out) return nullptr;
  for (BasicBlock *bb : blocks)
    for (Instruction &i : *bb)
      if (i.mayReadOrWriteMemory() && !isa<LoadInst>(i) && &i != out) return nullptr;
  MDNode *group = MDNode::getDistinct(ctx, {});
  for (BasicBlock *bb : blocks)
    for (Instruction &i : *bb)
      if (isa<LoadInst>(i) || isa<StoreInst>(i)) i.setMetadata(LLVMContext::MD_access_group, group);
  return group;
}

void LlvmEmitter::emitIndexable(const ir::Eqn &e) {
  if (fs->deviceProgram) return deviceMaterialize(e);
  const ir::Var &out = e.out[0];
  const ir::Shape &shape = out.type.shape;
  Value *dst = defBuffer(out);
  if (shape.empty()) {
    store(out.type.dtype, computeElem(e, {}), dst, c64(0));
    return;
  }
  std::vector<int64_t> cuts = innerCuts(e);
  loopNest(ir::Shape(shape.begin(), shape.end() - 1), [&](const std::vector<Value *> &outer) {
    std::vector<Value *> idx = outer;
    idx.push_back(nullptr);
    for (size_t s = 0; s + 1 < cuts.size(); ++s) {
      int64_t lo = cuts[s], n = cuts[s + 1] - lo;
      // The innermost loop (Note [Parallel loops]); none when its extent is 1 (loop() then
      // emits the body once, inline).
      MDNode *group = nullptr;
      BasicBlock *latch = nullptr;
      loop(n, [&](Value *i) {
        BasicBlock *head = b.GetInsertBlock();
        Function *fn = head->getParent();
        BasicBlock *before = &fn->back();  // the blocks the body adds come after this one
        idx.back() = lo == 0 ? i : b.CreateAdd(i, c64(lo), "", true, true);
        store(out.type.dtype, computeElem(e, idx), dst, linearIndex(idx, shape));
        if (n == 1) return;
        std::vector<BasicBlock *> blocks{head};
        for (auto it = std::next(before->getIterator()); it != fn->end(); ++it)
          if (&*it != head) blocks.push_back(&*it);
        group = accessGroup(ctx, blocks, dyn_cast<StoreInst>(&b.GetInsertBlock()->back()));
        latch = b.GetInsertBlock();  // loop() ends the body here with its back edge
      });
      if (!group || !latch) continue;
      auto *br = dyn_cast_or_null<BranchInst>(latch->getTerminator());
      if (!br || !br->isConditional()) continue;
      Metadata *par[] = {MDString::get(ctx, "llvm.loop.parallel_accesses"), group};
      MDNode *id = MDNode::getDistinct(ctx, {nullptr, MDNode::get(ctx, par)});
      id->replaceOperandWith(0, id);
      br->setMetadata(LLVMContext::MD_loop, id);
    }
  });
}

// Note [Fused concatenate]: a halo exchange builds `concat([from_left, s, from_right])` and
// reads it through slices (`b[:-2] ^ (b[1:-1] | b[2:])`, bench/rule30.spmd), so
// materialising the concatenate copies the whole shard once more per step, and the
// stencil then reads the copy. A concatenate along its last axis whose every read is in
// the loop of an indexable equation (planFusion: a slice, an elementwise op, ...; not a
// reduction, which walks its own loops, and not in a device program, whose kernels gather
// it as before) is fused instead: concatElem reads the element from the input that holds
// it, one branch per input. Branches in the loop would stop LLVM vectorising it, so
// emitIndexable cuts the innermost loop where any fused concatenate read changes input:
// innerCuts follows the innermost loop index i through the fused index maps as a*i + b
// (slice, rev, transpose, broadcast, elementwise) to each concatenate's axis, and cuts
// where a*i + b crosses the start of an input. Within a segment LLVM proves each branch's
// condition from the loop's bounds and folds it, so every segment is one straight,
// vectorised loop over plain loads (rule30's step: two one-element segments and one of
// 131,070 elements on cpu:8). Reads the walk cannot follow (another index map, more than
// kMaxCuts cuts) only lose the cut: the branches stay, and the result is the same.

namespace {
/// An index as a function of the innermost loop index i: a * i + b, or independent of i.
struct Affine {
  bool dep = false;
  int64_t a = 0, b = 0;
};
}  // namespace

std::vector<int64_t> LlvmEmitter::innerCuts(const ir::Eqn &root) {
  int64_t n = root.out[0].type.shape.back();
  std::vector<int64_t> cuts{0, n};
  if (fs->fusedConcats == 0) return cuts;
  constexpr size_t kMaxCuts = 32;
  int budget = 4 * kMaxFusionDepth;  // equations visited: a fused tree may share nodes
  bool sawConcat = false;
  std::function<void(const ir::Eqn &, const std::vector<Affine> &)> walk =
      [&](const ir::Eqn &e, const std::vector<Affine> &idx) {
        if (--budget < 0) return;
        auto into = [&](const ir::Atom &a, const std::vector<Affine> &in) {
          if (a.isLit) return;
          auto f = fs->fused.find(a.var.id);
          if (f != fs->fused.end() && a.var.type.rank() == int64_t(in.size())) walk(*f->second, in);
        };
        if (ir::isElementwise(e.op)) {
          for (auto &a : e.in) into(a, idx);
          return;
        }
        std::vector<Affine> in;
        switch (e.op) {
        case Op::Concatenate: {
          sawConcat = true;
          int64_t dim = e.intParam("dimension"), start = 0;
          Affine x = idx[dim];
          for (auto &a : e.in) {
            if (start > 0 && x.dep && x.a != 0) {
              // The first i at which (a * i + b >= start) changes.
              int64_t c;
              if (x.a > 0) {
                int64_t num = start - x.b;  // i >= num / a, rounded up
                c = num >= 0 ? (num + x.a - 1) / x.a : -((-num) / x.a);
              } else {
                int64_t num = x.b - start;  // a * i + b < start once i > num / -a
                c = num >= 0 ? num / -x.a + 1 : -((-num + -x.a - 1) / -x.a) + 1;
              }
              if (c > 0 && c < n) cuts.push_back(c);
            }
            in = idx;
            in[dim].b -= start;
            into(a, in);
            start += a.type().shape[dim];
          }
          return;
        }
        case Op::Slice: {
          auto st = e.intsParam("start_indices");
          std::vector<int64_t> strides(st.size(), 1);
          if (e.has("strides") && e.param("strides").kind != ir::Param::None)
            strides = e.intsParam("strides");
          in = idx;
          for (size_t k = 0; k < st.size(); ++k)
            in[k] = {idx[k].dep, idx[k].a * strides[k], idx[k].b * strides[k] + st[k]};
          break;
        }
        case Op::Rev: {
          const ir::Shape &s = e.in[0].type().shape;
          in = idx;
          for (auto d : e.intsParam("dimensions")) in[d] = {idx[d].dep, -idx[d].a, s[d] - 1 - idx[d].b};
          break;
        }
        case Op::Transpose: {
          auto perm = e.intsParam("permutation");
          in.resize(perm.size());
          for (size_t k = 0; k < perm.size(); ++k) in[perm[k]] = idx[k];
          break;
        }
        case Op::BroadcastInDim: {
          if (e.in[0].isLit) return;
          auto dims = e.intsParam("broadcast_dimensions");
          const ir::Shape &s = e.in[0].type().shape;
          for (size_t k = 0; k < s.size(); ++k) in.push_back(s[k] == 1 ? Affine{} : idx[dims[k]]);
          break;
        }
        default: return;  // iota, the random ops: no operand to follow
        }
        into(e.in[0], in);
      };
  std::vector<Affine> idx(root.out[0].type.rank());
  idx.back() = {true, 1, 0};
  walk(root, idx);
  if (!sawConcat || cuts.size() - 2 > kMaxCuts || budget < 0) return {0, n};
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  return cuts;
}

Value *LlvmEmitter::elemAt(const ir::Atom &a, const std::vector<Value *> &idx) {
  if (a.isLit) return literal(a.lit, a.lit.dtype);
  auto s = fs->scalars.find(a.var.id);
  if (s != fs->scalars.end()) return s->second;
  auto f = fs->fused.find(a.var.id);
  if (f != fs->fused.end())
    return computeElem(*f->second, a.var.type.rank() == 0 ? std::vector<Value *>{} : idx);
  Value *base = fs->buf.at(a.var.id);
  const ir::Type &t = a.var.type;
  return load(t.dtype, base, t.rank() == 0 ? c64(0) : linearIndex(idx, t.shape));
}

// Note [Folding literals]: CPU code runs with denormals flushed (Note [Denormals] in
// runtime/Denormals.h), but LLVM folds arithmetic on constants in IEEE arithmetic, so a
// computation on literals alone (`exp([-100.0])`, `[1e-39] * 0.25`, `arange(3.0) * 1e-39`
// once the loop is unrolled) would keep a denormal result that JAX, which runs every op
// at run time, flushes to 0. Telling LLVM the mode ("denormal-fp-math") is no cure (its
// folder only partly honours it, and that broke the explicit flushes of log and the PRNG
// on literal inputs). Instead, the sources of array values that LLVM could see through
// are made opaque, so their arithmetic runs at run time under FTZ/DAZ like any other:
// a literal broadcast, selected or read by a unary op (or by a binary op whose operands
// are both literals), iota's index, and the globals that hold constant arrays and literals that
// are copied. Data movement keeps the bits (a stored `1e-40` prints as NumPy prints it).
// The asm has no memory effects, so LLVM hoists it out of loops: vectorised loops over
// broadcasts and iotas stay as fast. A literal operand of arithmetic on a run-time
// value stays a constant (`x * 0.25`). GPUs do not flush: nothing changes there.
Value *LlvmEmitter::opaque(Value *v) {
  if (target == Target::NVPTX) return v;
  Type *t = v->getType();
  Type *rt = t->isFloatTy() ? i32() : t->isDoubleTy() ? b.getInt64Ty() : t;
  if (t->isIntegerTy(1)) rt = i8();
  Value *x = t->isIntegerTy(1) ? b.CreateZExt(v, rt) : rt != t ? b.CreateBitCast(v, rt) : v;
  auto *asmTy = FunctionType::get(rt, {rt}, false);
  CallInst *c = b.CreateCall(InlineAsm::get(asmTy, "", "=r,0", /*hasSideEffects=*/false), {x});
  c->setDoesNotAccessMemory();
  c->setDoesNotThrow();
  c->addFnAttr(Attribute::WillReturn);
  if (t->isIntegerTy(1)) return b.CreateTrunc(c, t);
  return rt != t ? b.CreateBitCast(c, t) : c;
}

void LlvmEmitter::escapeGlobal(GlobalVariable *g) {
  if (target == Target::NVPTX) return;
  g->setConstant(false);  // LLVM would read a constant's initializer through any pointer
  auto *asmTy = FunctionType::get(b.getVoidTy(), {g->getType()}, false);
  b.CreateCall(InlineAsm::get(asmTy, "", "r,~{memory}", /*hasSideEffects=*/true), {g});
}

// Note [FMA contraction]
// Inside a pmap body (one XLA computation, as jax.pmap compiles it), XLA:CPU's LLVM backend
// runs with FP contraction on: a float multiply whose only use is an add or a subtract in
// the same fused loop becomes a fused multiply-add, rounded once (LLVM's DAGCombiner:
// (a * b) + c and c + (a * b) give fma(a, b, c), (a * b) - c gives fma(a, b, -c), c - (a * b)
// gives fma(-a, b, c), the left operand tried first). JAX's `x * w + b` in a pmap prints
// those digits (a quarter of random f32 inputs differ in the last place from two
// roundings). A multiply fused into its one consumer (Note [Fusion]) is exactly that case;
// a multiply by 0, 1 or -1 is left alone, as XLA's simplifier removes or rewrites it. In
// elementwise loops and the inputs of XLA's own reduction loops, that is; but a sum of
// 4096 elements or more goes to YNNPACK (Note [XLA sum order] in XlaSum.cpp), whose input
// rounds twice in JAX (sum(c * c - 7.0) in tests/golden/xla_sum_fused), as here. Host
// code is eager JAX, one op at a time, where nothing fuses: it rounds twice (Note [Eager
// division] in sema/LowerArith.cpp describes the two modes).
// A multiply with several uses in one loop is not contracted (LLVM fuses only a multiply
// whose one use is the add), and XLA's CSE, before fusion, makes two multiplies of the
// same values one: `(a * b + 1.5) * (b * a - 0.5)` rounds a * b once and adds it twice
// (markSharedMuls). When the uses are in different loops (two outputs of a pmap), XLA's
// fusion duplicates the multiply into each, and each is contracted, as here.
// Evidence: XLA_FLAGS=--xla_dump_to=DIR --xla_dump_hlo_as_text writes the optimised HLO
// (DIR/*cpu_after_optimizations.txt: what CSE, the simplifier and fusion did) and each
// kernel's object file (DIR/*.o: `objdump -d` shows vfmadd* or vmulps + vaddps);
// tests/conformance/conf8a/fma_classes.py measures a class of programs against jax.pmap
// (class multi, seed 1: 7 of 40 exact before markSharedMuls, 40 after).

// Note [Constant reassociation]
// Inside a pmap body XLA's algebraic simplifier folds chains of constants before LLVM sees
// them: A - C becomes A + (-C), then (A + C1) + C2 is A + (C1 + C2), (C1 - A) + C2 is
// (C1 + C2) - A, and (A * C1) * C2 is A * (C1 * C2), the constants added or multiplied in
// the dtype, in either operand order (A / C is A * (1 / C) first: Note [Division by a
// constant]). C1 - (A + C2) and (A * C1 + C2) * C3 stay. Measured on the optimised HLO
// (--xla_dump_to, Note [FMA contraction]): `(a * 1.7) * 2.4` is multiply(a, 4.0800004),
// `(a + 1.7) - 2.4` is add(a, -0.700000048), `(1.7 - a) + 2.4` is subtract(4.10000038, a),
// `1.7 * (a * 0.4) + b` is add(multiply(a, 0.68), b), then contracted. Class const of
// fma_classes.py (seed 1): 23 of 40 exact before, 40 after. Constants 0, 1 and -1 are left
// to the simplifier's other rules (as in contraction). Host code is eager: nothing folds.

/// A kernel's float `e` with one literal operand as x + c, c - x or x * c, its constant
/// folded with those of the fused equations below it (`folds`: how many were).
struct ConstForm {
  enum Kind { Sum, CMinus, Prod } kind;
  ir::Atom x;
  double c;
  int folds = 1;
};

static std::optional<ConstForm> constForm(const LlvmEmitter &l, const ir::Eqn &e, DType d) {
  if (!l.fs->kernel || (d != DType::F32 && d != DType::F64) || e.in.size() != 2 || e.out.size() != 1 ||
      e.out[0].type.dtype != d || e.in[0].isLit == e.in[1].isLit)
    return std::nullopt;
  bool lit0 = e.in[0].isLit;
  const ir::Atom &x = lit0 ? e.in[1] : e.in[0];
  double c = (lit0 ? e.in[0] : e.in[1]).lit.asDouble();
  auto round = [&](double v) { return d == DType::F32 ? double(float(v)) : v; };
  ConstForm f{ConstForm::Sum, x, c};
  switch (e.op) {
  case Op::Add: break;
  case Op::Sub: f = lit0 ? ConstForm{ConstForm::CMinus, x, c} : ConstForm{ConstForm::Sum, x, -c}; break;
  case Op::Mul: f.kind = ConstForm::Prod; break;
  case Op::Div:
    if (lit0) return std::nullopt;
    f = {ConstForm::Prod, x, d == DType::F32 ? double(1.0f / float(c)) : 1.0 / c};
    break;
  default: return std::nullopt;
  }
  if (f.c == 0.0 || (f.kind == ConstForm::Prod && (f.c == 1.0 || f.c == -1.0)))
    return std::nullopt;
  if (f.kind == ConstForm::CMinus) return f;  // C1 - (A + C2) stays
  auto in = l.fs->fused.find(x.var.id);
  if (in == l.fs->fused.end()) return f;
  std::optional<ConstForm> g = constForm(l, *in->second, d);
  if (!g || (g->kind == ConstForm::Prod) != (f.kind == ConstForm::Prod)) return f;
  g->c = round(f.kind == ConstForm::Prod ? g->c * f.c : g->c + f.c);
  g->folds += 1;
  return g;
}

bool LlvmEmitter::reciprocalDiv(const ir::Eqn &e) const {
  if (e.op != Op::Div || !ir::isFloat(e.out[0].type.dtype) || e.in[1].isLit || e.has("_exact"))
    return false;
  auto f = fs->fused.find(e.in[1].var.id);
  // Not where B has another use (Note [Reciprocal of a broadcast]).
  return f != fs->fused.end() && f->second->op == Op::BroadcastInDim &&
         f->second->in[0].type().numel() < f->second->out[0].type.numel() &&
         !fs->exactDiv.count(e.out[0].id);
}

bool LlvmEmitter::contractibleMul(const ir::Atom &a, DType d, ir::Atom &x, ir::Atom &y) const {
  if (a.isLit || !fs->kernel || fs->sharedMul.count(a.var.id)) return false;
  auto f = fs->fused.find(a.var.id);
  if (f == fs->fused.end() || f->second->out[0].type.dtype != d) return false;
  const ir::Eqn &m = *f->second;
  if (m.op == Op::IntegerPow && m.intParam("y") == 2) {  // XLA's multiply(x, x)
    x = y = m.in[0];
    return true;
  }
  if (m.op != Op::Mul) return false;
  for (auto &o : m.in)
    if (o.isLit) {
      double v = o.lit.asDouble();
      if (v == 0.0 || v == 1.0 || v == -1.0) return false;
    }
  std::optional<ConstForm> c = constForm(*this, m, d);  // Note [Constant reassociation]
  if (c && c->folds >= 2)
    x = c->x, y = ir::Atom::literal(ir::Literal{d, c->c, 0});
  else
    x = m.in[0], y = m.in[1];
  return true;
}

/// `p + q` or `p - q` (floats, in a kernel) as XLA contracts it, or null when no multiply
/// fused into it can be (Note [FMA contraction]). LLVM first turns a subtraction of a
/// negation into an addition, an addition of a negation into a subtraction and (-r) - q
/// into -(r + q) (all exact), then fuses: (a * b) + q, p + (a * b), (a * b) - q, p - (a * b),
/// trying the left operand first.
static Value *contracted(LlvmEmitter &l, bool sub, const ir::Atom &p, const ir::Atom &q, DType d,
                         const std::vector<Value *> &idx, int depth = 0) {
  auto def = [&](const ir::Atom &a, Op op) -> const ir::Eqn * {
    if (a.isLit) return nullptr;
    auto f = l.fs->fused.find(a.var.id);
    if (f == l.fs->fused.end() || f->second->op != op || f->second->out[0].type.dtype != d)
      return nullptr;
    return f->second;
  };
  auto mulOf = [&](const ir::Atom &a) -> const ir::Eqn * {
    ir::Atom x, y;
    return l.contractibleMul(a, d, x, y) ? l.fs->fused.at(a.var.id) : nullptr;
  };
  if (depth > 8) return nullptr;
  if (const ir::Eqn *n = def(q, Op::Neg)) return contracted(l, !sub, p, n->in[0], d, idx, depth + 1);
  if (const ir::Eqn *n = def(p, Op::Neg)) {
    if (!sub) return contracted(l, true, q, n->in[0], d, idx, depth + 1);
    // (-r) - q is -(r + q) (InstCombine's rewrite, before the DAG's)
    Value *v = contracted(l, false, n->in[0], q, d, idx, depth + 1);
    return v ? l.b.CreateFNeg(v) : nullptr;
  }
  auto fma = [&](const ir::Eqn &m, bool negX, Value *c) {
    std::vector<Value *> mi = m.out[0].type.rank() == 0 ? std::vector<Value *>{} : idx;
    ir::Atom xa, ya;
    l.contractibleMul(ir::Atom(m.out[0]), d, xa, ya);
    Value *x = l.elemAt(xa, mi), *y = l.elemAt(ya, mi);
    if (negX) x = l.b.CreateFNeg(x);
    return l.b.CreateIntrinsic(Intrinsic::fma, {x->getType()}, {x, y, c});
  };
  if (const ir::Eqn *m = mulOf(p)) {
    Value *c = l.elemAt(q, idx);
    return fma(*m, false, sub ? l.b.CreateFNeg(c) : c);
  }
  if (const ir::Eqn *m = mulOf(q)) return fma(*m, sub, l.elemAt(p, idx));
  return nullptr;
}

/// Whether the equation being emitted contracts the multiplies fused into it (Note [FMA
/// contraction]): an elementwise loop, or a reduction XLA does not send to YNNPACK.
static bool contracts(const LlvmEmitter &l) {
  const ir::Eqn *curEqn = l.curEqn;
  if (!curEqn) return false;
  if (LlvmEmitter::indexable(*curEqn)) return true;
  if (ir::info(curEqn->op).category != OpCategory::Reduce) return false;
  return !(curEqn->op == Op::ReduceSum && curEqn->in[0].type().numel() >= kYnnMinElems);
}

// Note [libm tails]: eager JAX computes f32 exp and log of a 1-D array of 3, 5, 6, 7, 11,
// 13, 14 or 15 elements with XLA's polynomial (Note [XLA exp]; emitLogF32) for all but the
// last (size % 8) elements, and those with glibc's expf and logf: XLA:CPU's loop runs
// vectors of 8, 4, 2 and 1 lanes, and a remainder of 3, 5, 6 or 7 goes element by element
// through libm. Measured against JAX 0.10.2 (eager and jitted alike): for sizes 1 to 23,
// 60 random arrays each, that rule gives every element of exp and log bit for bit (16,560
// each; golden exp_libm_tail, twin exp_libm_tail.py); other sizes, other ranks,
// other functions and pmap bodies (fused, and shards) use the polynomial throughout.
// Host code is eager JAX (one computation per op), so an exp anywhere in host code follows
// the rule by its own output's shape; kernels (pmap bodies) never do.
Value *LlvmEmitter::computeElem(const ir::Eqn &e, const std::vector<Value *> &idx) {
  const ir::Type &ot = e.out[0].type;
  switch (ir::info(e.op).category) {
  case OpCategory::Unary: {
    // Note [Folding literals]
    Value *x = e.in[0].isLit ? opaque(elemAt(e.in[0], idx)) : elemAt(e.in[0], idx);
    Value *v = unaryOp(e, e.in[0].type().dtype, x);
    // Note [libm tails]
    int64_t n = ot.rank() == 1 ? ot.shape[0] : 0;
    if (!fs->kernel && target == Target::Host && ot.dtype == DType::F32 &&
        (e.op == Op::Exp || e.op == Op::Log) && n < 16 && n % 8 != 0 && n % 8 != 1 &&
        n % 8 != 2 && n % 8 != 4) {
      FunctionCallee f = mod->getOrInsertFunction(e.op == Op::Exp ? "expf" : "logf",
                                                  FunctionType::get(b.getFloatTy(), {b.getFloatTy()}, false));
      Value *tail = b.CreateICmpUGE(idx[0], c64(n - n % 8));
      return b.CreateSelect(tail, b.CreateCall(f, {x}), v);
    }
    return v;
  }
  case OpCategory::Binary:
  case OpCategory::Compare: {
    DType d = e.in[0].isLit ? e.in[1].type().dtype : e.in[0].type().dtype;
    if (e.in[0].isLit && e.in[1].isLit)  // Note [Folding literals]
      return binaryOp(e.op, d, opaque(elemAt(e.in[0], idx)), elemAt(e.in[1], idx));
    if (std::optional<ConstForm> f = constForm(*this, e, d); f && f->folds >= 2) {
      // Note [Constant reassociation]
      ir::Atom c = ir::Atom::literal(ir::Literal{d, f->c, 0});
      if ((f->kind == ConstForm::Sum && f->c == 0.0) || (f->kind == ConstForm::Prod && f->c == 1.0))
        return elemAt(f->x, idx);  // A + 0 and A * 1 are A
      if (f->kind == ConstForm::Prod) return binaryOp(Op::Mul, d, elemAt(f->x, idx), literal(c.lit, d));
      bool sub = f->kind == ConstForm::CMinus;
      const ir::Atom &p = sub ? c : f->x, &q = sub ? f->x : c;
      if (contracts(*this))
        if (Value *v = contracted(*this, sub, p, q, d, idx)) return v;
      return binaryOp(sub ? Op::Sub : Op::Add, d, elemAt(p, idx), elemAt(q, idx));
    }
    if (fs->kernel && ir::isFloat(d) && (e.op == Op::Add || e.op == Op::Sub) && contracts(*this))
      if (Value *v = contracted(*this, e.op == Op::Sub, e.in[0], e.in[1], d, idx)) return v;
    if (!fs->kernel && ir::isFloat(d) && (e.in[0].isLit || e.in[1].isLit) &&
        (e.op == Op::Mul || e.op == Op::Div || e.op == Op::Add || e.op == Op::Sub)) {
      // Note [Folding literals]: LLVM rewrites x * 1.0, x / 1.0, x - 0.0, x + -0.0 to x and
      // x * -1.0 to -x, which keep a denormal x; JAX's host-level ops (eager, each an XLA
      // computation whose operands are run-time arguments) flush it. Inside a pmap body,
      // one XLA computation as here, XLA's simplifier removes them as LLVM does.
      auto ident = [&](const ir::Atom &a) {
        if (!a.isLit) return false;
        double v = a.lit.asDouble();
        return v == 0.0 || v == 1.0 || v == -1.0;
      };
      if (ident(e.in[0]) || ident(e.in[1])) {
        auto opnd = [&](const ir::Atom &a) {
          return ident(a) ? opaque(elemAt(a, idx)) : elemAt(a, idx);
        };
        return binaryOp(e.op, d, opnd(e.in[0]), opnd(e.in[1]));
      }
    }
    if (e.op == Op::Div && ir::isFloat(d) && e.in[1].isLit && !e.in[0].isLit &&
        !(e.has("_eager") && ot.numel() == 1) && !e.has("_exact")) {
      // Note [Division by a constant]: XLA rewrites A / c as A * (1 / c), the reciprocal
      // rounded to the dtype, and JAX's results carry that rounding (x / 7.0, mean,
      // linspace): so does spmdrun, to print the same digits. But an eager division of
      // one element is exact (Note [Eager division] in sema/LowerArith.cpp).
      ir::Literal r = e.in[1].lit;
      r.dtype = d;
      r.f = d == DType::F32 ? double(1.0f / float(e.in[1].lit.asDouble()))
                            : 1.0 / e.in[1].lit.asDouble();
      return binaryOp(Op::Mul, d, elemAt(e.in[0], idx), literal(r, d));
    }
    if (auto r = fs->powDiv.find(e.out[0].id); r != fs->powDiv.end() && r->second != &e)
      return computeElem(*r->second, idx);  // Note [Division by a power]
    if (auto r = fs->rsqrtDiv.find(e.out[0].id); r != fs->rsqrtDiv.end()) {
      ir::Eqn rs;  // Note [Division by a square root]
      rs.op = Op::Rsqrt;
      return binaryOp(Op::Mul, d, elemAt(e.in[0], idx), unaryOp(rs, d, elemAt(r->second, idx)));
    }
    if (e.op == Op::Div && ir::isFloat(d) && !e.in[1].isLit && !e.has("_exact")) {
      // XLA's simplifier also rewrites A / broadcast(B) as A * broadcast(1 / B): a row,
      // a column or a scalar divisor broadcast to A's shape (x / sum(x), a vmapped
      // scalar) divides through its rounded reciprocal in JAX, on every backend.
      if (reciprocalDiv(e)) {
        Value *r = binaryOp(Op::Div, d, constOf(d, 1.0), elemAt(e.in[1], idx));
        return binaryOp(Op::Mul, d, elemAt(e.in[0], idx), r);
      }
    }
    return binaryOp(e.op, d, elemAt(e.in[0], idx), elemAt(e.in[1], idx));
  }
  case OpCategory::Select: {
    Value *p = elemAt(e.in[0], idx);
    if (!p->getType()->isIntegerTy(1)) p = b.CreateICmpNE(p, ConstantInt::get(p->getType(), 0));
    // Literal arms are opaque too: LLVM would fold arithmetic into the select.
    auto arm = [&](const ir::Atom &a) {
      return a.isLit ? opaque(elemAt(a, idx)) : elemAt(a, idx);
    };
    return b.CreateSelect(p, arm(e.in[2]), arm(e.in[1]));
  }
  case OpCategory::Ternary: {  // fma: one rounding, as XLA's fused multiply-add
    Value *x = elemAt(e.in[0], idx), *y = elemAt(e.in[1], idx), *z = elemAt(e.in[2], idx);
    return b.CreateIntrinsic(Intrinsic::fma, {x->getType()}, {x, y, z});
  }
  default: break;
  }
  std::vector<Value *> in;
  switch (e.op) {
  case Op::Concatenate: return concatElem(e, idx);  // fused (Note [Fused concatenate])
  case Op::RandomSeed:
  case Op::RandomFoldIn:
  case Op::RandomSplit:
  case Op::RandomBits: return randomElem(e, idx);
  case Op::BroadcastInDim: {
    if (e.in[0].isLit) return opaque(elemAt(e.in[0], {}));  // Note [Folding literals]
    auto dims = e.intsParam("broadcast_dimensions");
    const ir::Shape &s = e.in[0].type().shape;
    for (size_t j = 0; j < s.size(); ++j) in.push_back(s[j] == 1 ? c64(0) : idx[dims[j]]);
    break;
  }
  case Op::Iota: {
    // The index plus an opaque 0, hoisted out of the loop (Note [Folding literals]).
    Value *i = b.CreateAdd(idx[e.intParam("dimension")], opaque(c64(0)));
    return convertOp(DType::I32, ot.dtype, b.CreateTrunc(i, i32()));
  }
  case Op::Transpose: {
    auto perm = e.intsParam("permutation");
    in.resize(perm.size());
    for (size_t k = 0; k < perm.size(); ++k) in[perm[k]] = idx[k];
    break;
  }
  case Op::Slice: {
    auto start = e.intsParam("start_indices");
    std::vector<int64_t> strides(start.size(), 1);
    if (e.has("strides") && e.param("strides").kind != ir::Param::None)
      strides = e.intsParam("strides");
    for (size_t k = 0; k < start.size(); ++k)
      in.push_back(b.CreateAdd(c64(start[k]), b.CreateMul(idx[k], c64(strides[k]))));
    break;
  }
  case Op::Rev: {
    auto dims = e.intsParam("dimensions");
    const ir::Shape &s = e.in[0].type().shape;
    in = idx;
    for (auto d : dims) in[d] = b.CreateSub(c64(s[d] - 1), idx[d]);
    break;
  }
  default: internal_assert(false, std::string("not indexable: ") + ir::name(e.op));
  }
  return elemAt(e.in[0], in);
}

/// Keys live in registers as i64: word k0 in the low half (it comes first in memory).
static WordPair unpackKey(IRBuilderBase &b, Value *k) {
  return {b.CreateTrunc(k, b.getInt32Ty()), b.CreateTrunc(b.CreateLShr(k, 32), b.getInt32Ty())};
}
static Value *packKey(IRBuilderBase &b, WordPair w) {
  return b.CreateOr(b.CreateZExt(w.first, b.getInt64Ty()),
                    b.CreateShl(b.CreateZExt(w.second, b.getInt64Ty()), 32));
}

Value *LlvmEmitter::randomElem(const ir::Eqn &e, const std::vector<Value *> &idx) {
  if (e.op == Op::RandomSeed) return packKey(b, emitRandomSeed(b, elemAt(e.in[0], idx)));
  if (e.op == Op::RandomFoldIn)
    return packKey(b, emitFoldIn(b, unpackKey(b, elemAt(e.in[0], idx)), elemAt(e.in[1], idx)));
  // split / bits: the leading dims pick the key, the trailing `shape` dims the counter.
  size_t kr = size_t(e.in[0].type().rank());
  std::vector<Value *> ki(idx.begin(), idx.begin() + kr), ci(idx.begin() + kr, idx.end());
  WordPair key = unpackKey(b, elemAt(e.in[0], ki));
  Value *i = linearIndex(ci, ir::Shape(e.intsParam("shape")));
  return e.op == Op::RandomSplit ? packKey(b, emitSplitAt(b, key, i)) : emitRandomBitsAt(b, key, i);
}

Value *LlvmEmitter::constOf(DType d, double v) {
  switch (d) {
  case DType::F32: return ConstantFP::get(b.getFloatTy(), v);
  case DType::F64: return ConstantFP::get(b.getDoubleTy(), v);
  case DType::Bool: return b.getInt1(v != 0);
  case DType::I32: return b.getInt32(uint32_t(int32_t(int64_t(v))));
  case DType::U32: return b.getInt32(uint32_t(int64_t(v)));
  case DType::Key: return b.getInt64(uint64_t(int64_t(v)));
  }
  return nullptr;
}

Value *LlvmEmitter::literal(const ir::Literal &l, DType as) {
  if (ir::isFloat(l.dtype)) return constOf(as, l.f);
  if (as == DType::I32 || as == DType::U32) return b.getInt32(uint32_t(l.i));
  if (as == DType::Bool) return b.getInt1(l.i != 0);
  if (as == DType::Key) return b.getInt64(uint64_t(l.i));
  return constOf(as, double(l.i));
}

Value *LlvmEmitter::mathCall(const std::string &name, DType d, std::vector<Value *> args) {
  Type *t = regTy(d);
  static const std::unordered_map<std::string, Intrinsic::ID> intrinsics = {
      {"sqrt", Intrinsic::sqrt}, {"floor", Intrinsic::floor},
      {"ceil", Intrinsic::ceil}, {"roundeven", Intrinsic::roundeven},
      {"fabs", Intrinsic::fabs}, {"exp", Intrinsic::exp},
      {"log", Intrinsic::log},   {"sin", Intrinsic::sin},
      {"cos", Intrinsic::cos},   {"pow", Intrinsic::pow}};
  bool gpuLib = target == Target::NVPTX && name != "sqrt" && name != "floor" && name != "ceil" &&
                name != "roundeven" && name != "fabs";
  auto it = intrinsics.find(name);
  if (it != intrinsics.end() && !gpuLib) return b.CreateIntrinsic(it->second, {t}, args);
  // libm on the host, libdevice on NVIDIA GPUs.
  std::string fn = (gpuLib ? "__nv_" : "") + name + (d == DType::F32 ? "f" : "");
  std::vector<Type *> tys(args.size(), t);
  FunctionCallee c = mod->getOrInsertFunction(fn, FunctionType::get(t, tys, false));
  return b.CreateCall(c, args);
}

/// Whether dtype `d`'s transcendental functions come from VecMath.h: f32 on every
/// target (branch-free IR, no calls), so GPUs compute the same bits as CPUs.
static bool vecMath(Target, DType d) { return d == DType::F32; }

/// Where VecMath.h's sin, cos and tan will run (the GPU has no loop vectoriser).
static MathTarget mathTarget(Target t) {
  return t == Target::NVPTX ? MathTarget::Gpu : MathTarget::Cpu;
}

Value *LlvmEmitter::unaryOp(const ir::Eqn &e, DType d, Value *x) {
  bool fl = ir::isFloat(d);
  Type *t = regTy(d);
  auto one = [&] { return constOf(d, 1); };
  switch (e.op) {
  case Op::Neg: return fl ? b.CreateFNeg(x) : b.CreateNeg(x);
  // f32 exp/sin/cos/tan/tanh/logistic/pow on the host: branch-free polynomials
  // (VecMath.h), so loops using them vectorise; libdevice on GPUs, libm for f64.
  case Op::Exp:
    return vecMath(target, d) ? emitExpF32(b, x, mathTarget(target)) : mathCall("exp", d, {x});
  // f32 log/log1p/erf_inv: the bit-exact ports of XLA's (ThreefryEmit.h), on every target.
  case Op::Log: return d == DType::F32 ? emitLogF32(b, x) : mathCall("log", d, {x});
  case Op::Log1p: return d == DType::F32 ? emitLog1pF32(b, x) : mathCall("log1p", d, {x});
  case Op::ErfInv:
    if (d == DType::F32) return emitErfInvF32(b, x);
    return b.CreateFPExt(emitErfInvF32(b, b.CreateFPTrunc(x, b.getFloatTy())), t);
  case Op::Sqrt: return mathCall("sqrt", d, {x});
  case Op::Rsqrt:  // XLA's estimate and Newton step on the host (Note [XLA rsqrt])
    if (target == Target::Host && d == DType::F32 && !x->getType()->isVectorTy() &&
        hardwareRsqrt())
      return emitRsqrtF32(b, x);
    return b.CreateFDiv(one(), mathCall("sqrt", d, {x}));
  case Op::Sin:
    return vecMath(target, d) ? emitSinF32(b, x, mathTarget(target)) : mathCall("sin", d, {x});
  case Op::Cos:
    return vecMath(target, d) ? emitCosF32(b, x, mathTarget(target)) : mathCall("cos", d, {x});
  case Op::Tan:
    return vecMath(target, d) ? emitTanF32(b, x, mathTarget(target)) : mathCall("tan", d, {x});
  case Op::Tanh: return vecMath(target, d) ? emitTanhF32(b, x) : mathCall("tanh", d, {x});
  case Op::Logistic:
    if (vecMath(target, d)) return emitLogisticF32(b, x, mathTarget(target));
    return b.CreateFDiv(one(), b.CreateFAdd(one(), mathCall("exp", d, {b.CreateFNeg(x)})));
  case Op::Abs:
    if (fl) return mathCall("fabs", d, {x});
    if (d == DType::I32)
      return b.CreateSelect(b.CreateICmpSLT(x, b.getInt32(0)), b.CreateNeg(x), x);
    return x;
  case Op::Sign: {
    if (d == DType::U32 || d == DType::Bool)
      return b.CreateZExt(b.CreateICmpNE(x, ConstantInt::get(t, 0)), t);
    Value *zero = constOf(d, 0), *pos, *neg;
    if (fl) {
      pos = b.CreateFCmpOGT(x, zero);
      neg = b.CreateFCmpOLT(x, zero);
    } else {
      pos = b.CreateICmpSGT(x, zero);
      neg = b.CreateICmpSLT(x, zero);
    }
    // Floats neither > 0 nor < 0 give x * 0: NaN stays NaN, -0.0 stays -0.0, and a
    // denormal read as 0 (CPU, Note [Denormals]) gives a signed 0 as XLA's, not its bits.
    return b.CreateSelect(pos, one(),
                          b.CreateSelect(neg, constOf(d, -1), fl ? b.CreateFMul(x, zero) : zero));
  }
  case Op::Floor: return fl ? mathCall("floor", d, {x}) : x;
  case Op::Ceil: return fl ? mathCall("ceil", d, {x}) : x;
  case Op::Round: return fl ? mathCall("roundeven", d, {x}) : x;
  case Op::Not: return b.CreateNot(x);
  case Op::IntegerPow: {
    int64_t y = e.intParam("y");
    Value *acc = nullptr, *p = x;
    for (int64_t n = y < 0 ? -y : y; n > 0; n >>= 1) {
      if (n & 1) acc = acc ? (fl ? b.CreateFMul(acc, p) : b.CreateMul(acc, p)) : p;
      if (n > 1) p = fl ? b.CreateFMul(p, p) : b.CreateMul(p, p);
    }
    if (!acc) acc = one();
    return y < 0 ? b.CreateFDiv(one(), acc) : acc;
  }
  case Op::Convert: return convertOp(d, e.param("new_dtype").dtype, x);
  case Op::BitcastConvert: return b.CreateBitCast(x, regTy(e.param("new_dtype").dtype));
  default: break;
  }
  internal_assert(false, std::string("not a unary op: ") + ir::name(e.op));
}

Value *LlvmEmitter::convertOp(DType from, DType to, Value *x) {
  if (from == to) return x;
  bool ff = ir::isFloat(from), tf = ir::isFloat(to);
  Type *t = regTy(to);
  if (to == DType::Bool)
    return ff ? b.CreateFCmpUNE(x, ConstantFP::get(x->getType(), 0))
              : b.CreateICmpNE(x, ConstantInt::get(x->getType(), 0));
  if (from == DType::Bool) return tf ? b.CreateUIToFP(x, t) : b.CreateZExt(x, t);
  if (ff && tf) return b.CreateFPCast(x, t);
  if (ff)
    return b.CreateIntrinsic(to == DType::U32 ? Intrinsic::fptoui_sat : Intrinsic::fptosi_sat,
                             {t, x->getType()}, {x});
  if (tf) return from == DType::U32 ? b.CreateUIToFP(x, t) : b.CreateSIToFP(x, t);
  return b.CreateZExtOrTrunc(x, t);  // i32 <-> u32 (and keys)
}

Value *LlvmEmitter::argBetter(bool isMax, DType d, Value *v, Value *cur) {
  Value *better = binaryOp(isMax ? Op::Gt : Op::Lt, d, v, cur);
  if (!ir::isFloat(d)) return better;
  return b.CreateOr(better, b.CreateAnd(b.CreateFCmpUNO(v, v), b.CreateFCmpORD(cur, cur)));
}

Value *LlvmEmitter::binaryOp(Op op, DType d, Value *x, Value *y) {
  bool fl = ir::isFloat(d), sgn = d == DType::I32;
  Type *t = x->getType();
  auto zero = [&] { return ConstantInt::get(t, 0); };
  switch (op) {
  // XLA's add of two preds is their or (True + True is True in JAX), not an i1 add.
  case Op::Add:
    return fl ? b.CreateFAdd(x, y) : d == DType::Bool ? b.CreateOr(x, y) : b.CreateAdd(x, y);
  case Op::Sub: return fl ? b.CreateFSub(x, y) : b.CreateSub(x, y);
  case Op::Mul: return fl ? b.CreateFMul(x, y) : b.CreateMul(x, y);
  case Op::Div:
  case Op::Rem: {
    // NVPTX has no exact frem: libdevice's fmod.
    if (fl && op == Op::Rem && target == Target::NVPTX) return mathCall("fmod", d, {x, y});
    if (fl && op == Op::Div) return b.CreateFDiv(x, y);
    // Note [frem by a power of two]: LLVM's DAGCombiner (visitFREM) rewrites `frem x, C`
    // with C a constant power of two as x - trunc(x / C) * C, whose subnormal steps are
    // flushed under Note [Denormals]: 1e-40 % 1.0 was 0. In host code (eager JAX) XLA's
    // frem keeps the subnormal, as the fmodf call that every other divisor becomes does;
    // a fence on the divisor hides the constant from the combine, so every float `%`
    // there is that call. In a pmap body (one fused XLA computation) JAX gives 0 for
    // `% 1.0` and the subnormal for `% 0.75`, as the rewrite does, so kernels keep it.
    if (fl && !fs->kernel) return b.CreateFRem(x, b.CreateArithmeticFence(y, y->getType()));
    if (fl) return b.CreateFRem(x, y);
    // Integer division never traps; as XLA: x/0 is -1 (all bits set), x%0 is x,
    // INT_MIN/-1 wraps.
    Value *y0 = b.CreateICmpEQ(y, zero());
    Value *ym1 = sgn ? b.CreateICmpEQ(y, ConstantInt::get(t, -1, true)) : b.getInt1(false);
    Value *safe = b.CreateSelect(b.CreateOr(y0, ym1), ConstantInt::get(t, 1), y);
    Value *r = op == Op::Div ? (sgn ? b.CreateSDiv(x, safe) : b.CreateUDiv(x, safe))
                             : (sgn ? b.CreateSRem(x, safe) : b.CreateURem(x, safe));
    Value *special = op == Op::Div ? b.CreateNeg(x) : (Value *)zero();
    r = b.CreateSelect(ym1, special, r);
    return b.CreateSelect(y0, op == Op::Div ? (Value *)ConstantInt::get(t, -1, true) : x, r);
  }
  case Op::Pow: {
    if (fl) return vecMath(target, d) ? emitPowF32(b, x, y) : mathCall("pow", d, {x, y});
    // jnp.power of integers (_pow_int_int): binary exponentiation over the exponent's low
    // 6 bits only, products wrapping; acc starts at 0 for 0 ** (y != 0), else 1. So
    // 3 ** 21 wraps, 2 ** 64 is 1 (bit 6 is not read), 2 ** -1 is 2 ** 63 (wraps to 0).
    if (d == DType::Bool) return b.CreateOr(x, b.CreateNot(y));  // y ? x : 1
    Value *acc = b.CreateSelect(b.CreateAnd(b.CreateICmpEQ(x, zero()), b.CreateICmpNE(y, zero())),
                                zero(), ConstantInt::get(t, 1));
    for (int bit = 0; bit < 6; ++bit) {
      Value *odd = b.CreateICmpNE(b.CreateAnd(y, ConstantInt::get(t, 1)), zero());
      acc = b.CreateSelect(odd, b.CreateMul(acc, x), acc);
      x = b.CreateMul(x, x);
      y = b.CreateLShr(y, ConstantInt::get(t, 1));
    }
    return acc;
  }
  case Op::Max:
  case Op::Min: {
    bool mx = op == Op::Max;
    if (fl) return b.CreateIntrinsic(mx ? Intrinsic::maximum : Intrinsic::minimum, {t}, {x, y});
    if (d == DType::Bool) return mx ? b.CreateOr(x, y) : b.CreateAnd(x, y);
    Intrinsic::ID id =
        sgn ? (mx ? Intrinsic::smax : Intrinsic::smin) : (mx ? Intrinsic::umax : Intrinsic::umin);
    return b.CreateIntrinsic(id, {t}, {x, y});
  }
  case Op::And: return b.CreateAnd(x, y);
  case Op::Or: return b.CreateOr(x, y);
  case Op::Xor: return b.CreateXor(x, y);
  case Op::ShiftLeft:
  case Op::ShiftRightLogical: {
    Value *big = b.CreateICmpUGE(y, ConstantInt::get(t, t->getIntegerBitWidth()));
    Value *safe = b.CreateSelect(big, zero(), y);
    Value *r = op == Op::ShiftLeft ? b.CreateShl(x, safe) : b.CreateLShr(x, safe);
    return b.CreateSelect(big, zero(), r);
  }
  case Op::Eq: return fl ? b.CreateFCmpOEQ(x, y) : b.CreateICmpEQ(x, y);
  case Op::Ne: return fl ? b.CreateFCmpUNE(x, y) : b.CreateICmpNE(x, y);
  case Op::Lt:
    return fl ? b.CreateFCmpOLT(x, y) : sgn ? b.CreateICmpSLT(x, y) : b.CreateICmpULT(x, y);
  case Op::Le:
    return fl ? b.CreateFCmpOLE(x, y) : sgn ? b.CreateICmpSLE(x, y) : b.CreateICmpULE(x, y);
  case Op::Gt:
    return fl ? b.CreateFCmpOGT(x, y) : sgn ? b.CreateICmpSGT(x, y) : b.CreateICmpUGT(x, y);
  case Op::Ge:
    return fl ? b.CreateFCmpOGE(x, y) : sgn ? b.CreateICmpSGE(x, y) : b.CreateICmpUGE(x, y);
  default: break;
  }
  internal_assert(false, std::string("not a binary op: ") + ir::name(op));
}

}  // namespace spmd::codegen
