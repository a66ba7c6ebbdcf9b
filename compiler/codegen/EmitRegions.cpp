// ===- EmitRegions.cpp - pmap launches and kernels, loops, conds, collectives ===//
//
// Note [Nested pmap]: a host-level pmap and every pmap nested in its body become ONE
// kernel launched over a mesh whose axes are the nest's axis names, outermost first.
// The outer body runs on every device of the mesh (redundantly for each inner index).
// An inner pmap runs inline in the same kernel: a mapped input is sliced at the device's
// coordinate on the inner axis (a pointer offset for axis 0); its results are stacked by
// all_gather over the inner axis, unless a result flows straight into a launch output,
// in which case each device writes its own slot and the launch stacks it over the mask
// of both axes (spmd_launch_desc.out_axes). Collectives turn axis names into mask bits
// (bit m = mesh axis m). in_axes/out_axes other than 0 are transposes on the host.
#include "ir/Collectives.h"
#include "codegen/LlvmEmitter.h"
#include "ir/InPlace.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/MDBuilder.h>

#include <algorithm>
#include <optional>

namespace spmd::codegen {

using namespace llvm;
using ir::DType;
using ir::Op;

/// Collects the mesh of a pmap nest: one axis per nesting depth.
static void collectMesh(const ir::Jaxpr &j, size_t depth, std::vector<MeshAxis> &mesh) {
  for (auto &e : j.eqns) {
    if (e.op != Op::Pmap) {
      for (auto &r : e.regions) collectMesh(r, depth, mesh);
      continue;
    }
    MeshAxis ax{e.param("axis_name").s, e.intParam("axis_size")};
    if (depth < mesh.size())
      internal_assert(mesh[depth].name == ax.name && mesh[depth].size == ax.size,
                      "pmaps at one nesting depth must share their axis (" + mesh[depth].name +
                          " vs " + ax.name + ")");
    else
      mesh.push_back(ax);
    for (auto &r : e.regions) collectMesh(r, depth + 1, mesh);
  }
}

static int countUses(const ir::Jaxpr &j, int id) {
  int n = 0;
  for (auto &e : j.eqns)
    for (auto &a : e.in) n += !a.isLit && a.var.id == id;
  for (auto &a : j.outvars) n += !a.isLit && a.var.id == id;
  return n;
}

static const ir::Eqn *definer(const ir::Jaxpr &j, int id) {
  for (auto &e : j.eqns)
    for (auto &v : e.out)
      if (v.id == id) return &e;
  return nullptr;
}

/// Position `o` of the stacked axis: the permutation taking [n, per...] to out_axes `o`.
static std::vector<int64_t> stackPerm(int rank, int64_t o) {
  std::vector<int64_t> p;
  for (int k = 0; k < rank; ++k) p.push_back(k < o ? k + 1 : k == o ? 0 : k);
  return p;
}

static int64_t optInt(const ir::Param &p) { return p.kind == ir::Param::None ? -1 : p.i; }

uint32_t LlvmEmitter::axisMask(const ir::Param &names) {
  std::vector<std::string> ns;
  if (names.kind == ir::Param::Str) ns.push_back(names.s);
  for (auto &e : names.elems) ns.push_back(e.s);
  uint32_t m = 0;
  for (auto &n : ns) {
    size_t k = 0;
    while (k < fs->mesh.size() && fs->mesh[k].name != n) ++k;
    internal_assert(k < fs->mesh.size(), "axis '" + n + "' is not an axis of this kernel's mesh");
    m |= 1u << k;
  }
  return m;
}

Value *LlvmEmitter::devAxisIndex(uint32_t mask) {
  return b.CreateCall(rt("spmd_axis_index"), {fs->dev, c32(int32_t(mask))});
}

// Note [Tuple order]: the runtime numbers the replicas of a group of mesh axes in mesh
// order (outermost first), but a collective over a tuple of axes numbers its product
// axis row-major in the tuple's order, as JAX's axis_index does: over (c, r) with r the
// outer axis, replica (r, c) has index c*R + r. When the orders differ, indices are
// converted (axis_index, ppermute's pairs) and blocks reordered around the exchange
// (all_gather, all_to_all, psum_scatter); when they agree nothing changes.
namespace {
struct TupleOrder {
  std::vector<int64_t> sizes;   ///< of each name, in the tuple's order
  std::vector<size_t> pos;      ///< the mesh position of each name
  std::vector<int64_t> sorted;  ///< the tuple's indices in mesh order
  bool agrees() const {
    for (size_t k = 0; k < sorted.size(); ++k)
      if (sorted[k] != int64_t(k)) return false;
    return true;
  }
  /// Tuple-order index -> mesh-order index of the same replica.
  int64_t meshIndex(int64_t L) const {
    std::vector<int64_t> coord(sizes.size());
    for (size_t k = sizes.size(); k-- > 0;) {
      coord[k] = L % sizes[k];
      L /= sizes[k];
    }
    int64_t m = 0;
    for (int64_t k : sorted) m = m * sizes[size_t(k)] + coord[size_t(k)];
    return m;
  }
};

TupleOrder tupleOrderOf(const std::vector<MeshAxis> &mesh, const ir::Param &names) {
  std::vector<std::string> ns;
  if (names.kind == ir::Param::Str) ns.push_back(names.s);
  for (auto &e : names.elems) ns.push_back(e.s);
  TupleOrder o;
  for (auto &n : ns) {
    size_t k = 0;
    while (k < mesh.size() && mesh[k].name != n) ++k;
    internal_assert(k < mesh.size(), "axis '" + n + "' is not an axis of this kernel's mesh");
    o.pos.push_back(k);
    o.sizes.push_back(mesh[k].size);
  }
  for (size_t k = 0; k < ns.size(); ++k) o.sorted.push_back(int64_t(k));
  std::sort(o.sorted.begin(), o.sorted.end(),
            [&](int64_t a, int64_t b) { return o.pos[size_t(a)] < o.pos[size_t(b)]; });
  return o;
}
}  // namespace

Value *LlvmEmitter::tupleAxisIndex(const ir::Param &names) {
  TupleOrder o = tupleOrderOf(fs->mesh, names);
  if (o.agrees()) return devAxisIndex(axisMask(names));
  Value *idx = nullptr;
  for (size_t k = 0; k < o.pos.size(); ++k) {
    Value *i = devAxisIndex(1u << o.pos[k]);
    idx = idx ? b.CreateAdd(b.CreateMul(idx, c32(int32_t(o.sizes[k]))), i) : i;
  }
  return idx;
}

Value *LlvmEmitter::reorderGroup(const ir::Param &names, DType d, Value *blocks, int64_t blockElems,
                                 bool toMesh, Value *into) {
  TupleOrder o = tupleOrderOf(fs->mesh, names);
  if (o.agrees()) return blocks;
  size_t m = o.sizes.size();
  ir::Shape shape;
  std::vector<int64_t> perm(m + 1, int64_t(m));
  if (toMesh) {  // [tuple-order sizes.., block] -> [mesh-order sizes.., block]
    shape = o.sizes;
    for (size_t k = 0; k < m; ++k) perm[k] = o.sorted[k];
  } else {  // [mesh-order sizes.., block] -> [tuple-order sizes.., block]
    for (size_t k = 0; k < m; ++k) {
      shape.push_back(o.sizes[size_t(o.sorted[k])]);
      perm[size_t(o.sorted[k])] = int64_t(k);
    }
  }
  shape.push_back(blockElems);
  int64_t G = 1;
  for (auto s : o.sizes) G *= s;
  Value *dst = into ? into : allocBytes(ir::Type{d, {G, blockElems}}.bytes());
  emitTransposeCopy(d, blocks, shape, perm, dst);
  return dst;
}

/// The output slot of a body outvar that a kernel writes directly, or -1.
static bool canWriteDirect(const ir::Jaxpr &body, const ir::Atom &ov, size_t q) {
  if (ov.isLit) return false;
  for (auto &v : body.invars)
    if (v.id == ov.var.id) return false;
  for (size_t k = 0; k < q; ++k)
    if (!body.outvars[k].isLit && body.outvars[k].var.id == ov.var.id) return false;
  return true;
}

/// Note [Inputs split over a nest]: a nested pmap is one launch over the whole mesh. An
/// input that the outer pmap maps (in_axes 0 once in front) and whose only use in the body
/// is an inner pmap that maps it again along its first dimension, and so on down, is split
/// over every axis of that chain: the launch gives device (r, c) block [r, c] itself
/// (spmd_launch_desc::in_axes) instead of row block r to slice, so a sharded result of an
/// earlier nest, stacked over the same axes, is read where it is (Note [Sharded arrays]).
/// Returns the mask of the chain below `depth` and records each value whose buffer is
/// then already its device's slice.
static uint32_t splitChain(const ir::Jaxpr &body, int id, size_t depth,
                           std::unordered_set<int> &presliced) {
  if (depth >= 32 || countUses(body, id) != 1) return 0;
  for (auto &e : body.eqns) {
    if (e.op != Op::Pmap) continue;
    auto inAxes = e.param("in_axes").elems;
    for (size_t k = 0; k < e.in.size(); ++k) {
      if (e.in[k].isLit || e.in[k].var.id != id) continue;
      if (optInt(inAxes.at(k)) != 0) return 0;
      presliced.insert(id);
      return 1u << depth |
             splitChain(e.regions.at(0), e.regions.at(0).invars[k].id, depth + 1, presliced);
    }
  }
  return 0;
}

std::vector<int> LlvmEmitter::donors(const ir::Eqn &e, const std::vector<uint32_t> &inMasks,
                                     const std::vector<uint32_t> &outMasks, uint32_t rank) {
  // Note [Buffer donation] (ir/InPlace.cpp): rules 1 and 2 here, 3 to 5 there.
  std::vector<int> donor(e.out.size(), -1);
  if (split != Split::None || !fs->dying) return donor;
  const ir::Jaxpr &body = e.regions.at(0);
  auto inAxes = e.param("in_axes").elems;
  auto outAxes = e.intsParam("out_axes");
  uint32_t full = (1u << rank) - 1;
  std::vector<bool> taken(e.in.size(), false);
  for (size_t o = 0; o < e.out.size(); ++o) {
    if (outAxes[o] != 0 || outMasks[o] != full) continue;
    for (size_t k = 0; k < e.in.size() && donor[o] < 0; ++k) {
      const ir::Atom &a = e.in[k];
      if (taken[k] || a.isLit || optInt(inAxes.at(k)) != 0 || inMasks[k] != full) continue;
      if (!(a.var.type == e.out[o].type) ||
          std::count(fs->dying->begin(), fs->dying->end(), a.var.id) == 0)
        continue;
      int uses = 0;
      for (auto &b : e.in) uses += !b.isLit && b.var.id == a.var.id;
      auto it = fs->buf.find(a.var.id);
      if (uses != 1 || it == fs->buf.end() || isa<GlobalVariable>(it->second)) continue;
      if (!ir::canWriteOver(body, body.invars[k], body.outvars[o])) continue;
      donor[o] = int(k);
      taken[k] = true;
    }
  }
  return donor;
}

void LlvmEmitter::emitPmapLaunch(const ir::Eqn &e) {
  const ir::Jaxpr &body = e.regions.at(0);
  std::vector<MeshAxis> mesh{{e.param("axis_name").s, e.intParam("axis_size")}};
  collectMesh(body, 1, mesh);
  internal_assert(mesh.size() <= 8, "a pmap nest deeper than 8 (sema refuses those)");
  for (auto &m : mesh)  // sema refuses a pmap over an empty axis (JAX has no 0-device pmap)
    internal_assert(m.size > 0, "a pmap over axis '" + m.name + "' of size 0");
  auto inAxes = e.param("in_axes").elems;
  auto outAxes = e.intsParam("out_axes");

  // ---- the kernel ----
  FnState *host = fs;
  auto ip = b.saveIP();
  FunctionType *kt = FunctionType::get(b.getVoidTy(), {ptr(), ptr(), ptr()}, false);
  std::string kname = "pmap_" + mesh[0].name + "_" + std::to_string(kernelCount++);
  Function *kf = Function::Create(kt, GlobalValue::ExternalLinkage, kname, mod.get());
  FnState ks;
  ks.fn = kf;
  ks.kernel = true;
  ks.dev = kf->getArg(0);
  ks.host = nullPtr();
  ks.mesh = mesh;
  ks.deviceProgram = split != Split::None;
  ks.allocs = BasicBlock::Create(ctx, "allocs", kf);
  BasicBlock *start = BasicBlock::Create(ctx, "body", kf);
  fs = &ks;
  b.SetInsertPoint(start);
  for (size_t k = 0; k < body.invars.size(); ++k)
    ks.buf[body.invars[k].id] =
        b.CreateLoad(ptr(), b.CreateConstInBoundsGEP1_64(ptr(), kf->getArg(1), k));
  std::vector<uint32_t> inMasks(e.in.size(), 0);
  for (size_t k = 0; k < e.in.size(); ++k)
    if (optInt(inAxes.at(k)) >= 0)
      inMasks[k] = 1u | splitChain(body, body.invars[k].id, 1, ks.presliced);
  std::vector<Value *> outPtr;
  ks.outMasks.assign(body.outvars.size(), 1u);
  for (size_t k = 0; k < body.outvars.size(); ++k) {
    outPtr.push_back(b.CreateLoad(ptr(), b.CreateConstInBoundsGEP1_64(ptr(), kf->getArg(2), k)));
    const ir::Atom &ov = body.outvars[k];
    if (!canWriteDirect(body, ov, k)) continue;
    const ir::Eqn *d = definer(body, ov.var.id);
    if (d && d->op == Op::Pmap && (outAxes[k] != 0 || countUses(body, ov.var.id) != 1)) continue;
    ks.direct[ov.var.id] = DirectOut{outPtr[k], 1u, int(k)};
    if (!d || d->op != Op::Pmap) ks.buf[ov.var.id] = outPtr[k];
  }
  emitJaxprInSegments(body);  // Note [Segments]
  for (size_t k = 0; k < body.outvars.size(); ++k) {
    const ir::Atom &ov = body.outvars[k];
    if (!ov.isLit && ks.direct.count(ov.var.id) && ks.direct[ov.var.id].slot == int(k)) continue;
    copyAtom(ov, outPtr[k]);
  }
  b.CreateRetVoid();
  IRBuilder<>(ks.allocs).CreateBr(start);
  std::vector<uint32_t> masks = ks.outMasks;
  fs = host;
  b.restoreIP(ip);

  // ---- the launch ----
  std::vector<Value *> ins, temps;
  std::vector<int64_t> inBytes;
  for (size_t k = 0; k < e.in.size(); ++k) {
    Value *p = bufferOf(e.in[k]);
    int64_t a = optInt(inAxes.at(k));
    const ir::Type &t = e.in[k].type();
    if (a > 0) {  // move the mapped axis to the front
      syncForRead(e.in[k]);
      std::vector<int64_t> perm{a};
      for (int64_t d = 0; d < t.rank(); ++d)
        if (d != a) perm.push_back(d);
      Value *tp = allocBytes(t.bytes());
      emitTransposeCopy(t.dtype, p, t.shape, perm, tp);
      temps.push_back(tp);
      p = tp;
    }
    ins.push_back(p);
    inBytes.push_back(t.bytes());
  }
  std::vector<int> donor = donors(e, inMasks, masks, uint32_t(mesh.size()));
  std::vector<Value *> outs;
  std::vector<int64_t> outBytes;
  for (size_t k = 0; k < e.out.size(); ++k) {
    const ir::Var &v = e.out[k];
    int64_t n = 1;
    for (size_t m = 0; m < mesh.size(); ++m)
      if (masks[k] >> m & 1) n *= mesh[m].size;
    outBytes.push_back(v.type.bytes() / n);
    if (donor[k] >= 0) {  // the input's buffer becomes the output's (Note [Buffer donation])
      auto it = fs->buf.find(e.in[donor[k]].var.id);
      fs->buf[v.id] = it->second;
      outs.push_back(it->second);
      fs->buf.erase(it);
      continue;
    }
    outs.push_back(outAxes[k] == 0 ? defBuffer(v) : allocBytes(v.type.bytes()));
  }
  auto ptrArray = [&](const std::vector<Value *> &ps) {
    Value *a = entryAlloca(ArrayType::get(ptr(), std::max<size_t>(ps.size(), 1)));
    for (size_t k = 0; k < ps.size(); ++k)
      b.CreateStore(ps[k], b.CreateConstInBoundsGEP1_64(ptr(), a, k));
    return a;
  };
  std::vector<int64_t> meshShape;
  for (auto &m : mesh) meshShape.push_back(m.size);
  StructType *desc = StructType::get(
      ctx, {ptr(), ptr(), i32(), ptr(), i32(), ptr(), ptr(), ptr(), i32(), ptr(), ptr(), ptr()});
  Value *d = entryAlloca(desc);
  std::vector<int32_t> outMasks(masks.begin(), masks.end());
  std::string label = "pmap " + mesh[0].name + " @ " + where(e);
  Value *fields[] = {kf,
                     cstr(label),
                     c32(int32_t(mesh.size())),
                     constI64s(meshShape),
                     c32(int32_t(ins.size())),
                     ptrArray(ins),
                     constI64s(inBytes),
                     constI32s(std::vector<int32_t>(inMasks.begin(), inMasks.end())),
                     c32(int32_t(outs.size())),
                     ptrArray(outs),
                     constI64s(outBytes),
                     constI32s(outMasks)};
  for (unsigned k = 0; k < 12; ++k) b.CreateStore(fields[k], b.CreateStructGEP(desc, d, k));
  Value *rc = b.CreateCall(rt("spmd_launch"), {fs->host, d});
  BasicBlock *ok = BasicBlock::Create(ctx, "launched", fs->fn);
  b.CreateCondBr(b.CreateICmpEQ(rc, c32(0)), ok, fs->failBlock);
  b.SetInsertPoint(ok);
  for (auto *t : temps) freeBuffer(t);
  for (size_t k = 0; k < e.out.size(); ++k) {
    const ir::Var &v = e.out[k];
    if (outAxes[k] == 0) {
      fs->unsynced.insert(v.id);
      continue;
    }
    b.CreateCall(rt("spmd_host_sync"), {fs->host, outs[k], c64(v.type.bytes())});
    ir::Shape stacked = body.outvars[k].type().shape;
    stacked.insert(stacked.begin(), e.intParam("axis_size"));
    emitTransposeCopy(v.type.dtype, outs[k], stacked, stackPerm(v.type.rank(), outAxes[k]),
                      defBuffer(v));
    freeBuffer(outs[k]);
  }
}

void LlvmEmitter::emitInnerPmap(const ir::Eqn &e) {
  const ir::Jaxpr &body = e.regions.at(0);
  uint32_t bit = axisMask(e.param("axis_name"));
  Value *me = b.CreateSExt(devAxisIndex(bit), i64());
  auto inAxes = e.param("in_axes").elems;
  auto outAxes = e.intsParam("out_axes");
  for (size_t k = 0; k < e.in.size(); ++k) {
    const ir::Var &iv = body.invars[k];
    Value *src = bufferOf(e.in[k]);
    int64_t a = optInt(inAxes.at(k));
    if (a < 0) {
      fs->buf[iv.id] = src;
      continue;
    }
    if (a == 0 && !e.in[k].isLit && fs->presliced.count(e.in[k].var.id)) {
      fs->buf[iv.id] = src;
      continue;
    }  // Note [Inputs split over a nest]
    if (a == 0) {
      fs->buf[iv.id] = b.CreateInBoundsGEP(i8(), src, b.CreateMul(me, c64(iv.type.bytes())));
      continue;
    }
    Value *dst = defBuffer(iv);
    const ir::Shape &xs = e.in[k].type().shape;
    if (fs->deviceProgram) {
      launchKernel("pmap_slice", iv.type.numel(), {}, {src, dst, me},
                   [&](Value *i, const std::vector<Value *> &kx) {
                     std::vector<Value *> xi = delinearize(i, iv.type.shape);
                     xi.insert(xi.begin() + a, kx[2]);
                     store(iv.type.dtype, load(iv.type.dtype, kx[0], linearIndex(xi, xs)), kx[1],
                           i);
                   });
      continue;
    }
    loopNest(iv.type.shape, [&](const std::vector<Value *> &idx) {
      std::vector<Value *> xi = idx;
      xi.insert(xi.begin() + a, me);
      store(iv.type.dtype, load(iv.type.dtype, src, linearIndex(xi, xs)), dst,
            linearIndex(idx, iv.type.shape));
    });
  }
  std::vector<bool> isDirect(e.out.size(), false);
  std::vector<DirectOut> dest(e.out.size());
  for (size_t q = 0; q < e.out.size(); ++q) {
    auto it = fs->direct.find(e.out[q].id);
    const ir::Atom &ov = body.outvars[q];
    if (it == fs->direct.end()) continue;
    const ir::Eqn *d = ov.isLit ? nullptr : definer(body, ov.var.id);
    if (outAxes[q] != 0 || !canWriteDirect(body, ov, q) ||
        (d && d->op == Op::Pmap && countUses(body, ov.var.id) != 1)) {
      fs->direct.erase(it);  // gathered below, then copied out by the enclosing kernel
      continue;
    }
    DirectOut dd = it->second;
    dd.mask |= bit;
    fs->outMasks[dd.slot] = dd.mask;
    fs->direct[ov.var.id] = dd;
    if (!d || d->op != Op::Pmap) fs->buf[ov.var.id] = dd.ptr;
    isDirect[q] = true;
    dest[q] = dd;
  }
  emitJaxpr(body);
  for (size_t q = 0; q < e.out.size(); ++q) {
    const ir::Atom &ov = body.outvars[q];
    if (isDirect[q]) {
      // A deeper pmap could not write it in place after all: copy its gathered value.
      if (!fs->direct.count(ov.var.id)) copyAtom(ov, dest[q].ptr);
      continue;
    }
    const ir::Var &v = e.out[q];
    Value *per = bufferOf(ov);
    Value *res = outAxes[q] == 0 ? defBuffer(v) : allocBytes(v.type.bytes());
    b.CreateCall(rt("spmd_all_gather"),
                 {fs->dev, per, res, c64(ov.type().bytes()), c32(int32_t(bit))});
    if (outAxes[q] != 0) {
      ir::Shape stacked = ov.type().shape;
      stacked.insert(stacked.begin(), e.intParam("axis_size"));
      emitTransposeCopy(v.type.dtype, res, stacked, stackPerm(v.type.rank(), outAxes[q]),
                        defBuffer(v));
    }
  }
}

Value *LlvmEmitter::chunkMajor(const ir::Atom &x, int64_t axis, int64_t G) {
  LlvmEmitter &L = *this;
  Value *src = L.bufferOf(x);
  if (axis == 0) return src;
  const ir::Type &t = x.type();
  ir::Shape split = t.shape;
  split[axis] /= G;
  split.insert(split.begin() + axis, G);
  std::vector<int64_t> perm{axis};
  for (int64_t k = 0; k < int64_t(split.size()); ++k)
    if (k != axis) perm.push_back(k);
  Value *dst = L.allocBytes(t.bytes());
  L.emitTransposeCopy(t.dtype, src, split, perm, dst);
  return dst;
}

const CollectiveReduction *collectiveReduction(Op op) {
  static const std::array<std::optional<CollectiveReduction>, ir::kNumOps> table = [] {
    std::array<std::optional<CollectiveReduction>, ir::kNumOps> t{};
    // The runtime's code for each combiner of ir::collectiveInfo (the one table of what
    // a collective does); a collective that only moves data has code -1.
    auto code = [](Op combiner) {
      return combiner == Op::Add   ? SPMD_REDUCE_SUM
             : combiner == Op::Max ? SPMD_REDUCE_MAX
                                   : SPMD_REDUCE_MIN;
    };
    for (int k = 0; k < ir::kNumOps; ++k)
      if (const ir::CollectiveInfo *c = ir::collectiveInfo(Op(k)))
        t[size_t(k)] = c->combines ? CollectiveReduction{code(c->combiner), c->combiner}
                                   : CollectiveReduction{};
    return t;
  }();
  auto &r = table[size_t(op)];
  return r ? &*r : nullptr;
}

int32_t collectiveReduceCode(Op op) {
  const CollectiveReduction *r = collectiveReduction(op);
  return r ? r->code : -1;
}

Op collectiveCombiner(Op op, DType d) {
  const CollectiveReduction *r = collectiveReduction(op);
  internal_assert(r && r->code >= 0, std::string(ir::name(op)) + " is not an all-reduce");
  return d == DType::Bool && r->combiner == Op::Add ? Op::Or : r->combiner;
}

void LlvmEmitter::emitCollective(const ir::Eqn &e) {
  internal_assert(fs->kernel, std::string(ir::name(e.op)) + " outside a pmap");
  const ir::Var &out = e.out[0];
  DType d = out.type.dtype;
  if (e.op == Op::AxisIndex) {
    store(DType::I32, tupleAxisIndex(e.param("axis_name")), defBuffer(out), c64(0));
    return;
  }
  const ir::Atom &x = e.in[0];
  int64_t bytes = x.type().bytes();
  auto groupSize = [&](uint32_t m) {
    int64_t g = 1;
    for (size_t k = 0; k < fs->mesh.size(); ++k)
      if (m >> k & 1) g *= fs->mesh[k].size;
    return g;
  };
  switch (e.op) {
  case Op::Psum:
  case Op::Pmax:
  case Op::Pmin: {
    Value *dst = defBuffer(out);
    std::vector<Value *> args{fs->dev,
                              nullptr,
                              dst,
                              c64(out.type.numel()),
                              c32(dtypeCode(d)),
                              c32(collectiveReduceCode(e.op)),
                              c32(int32_t(axisMask(e.param("axes"))))};
    if (!x.isLit && fs->buf.count(x.var.id)) {
      // Out of place: the runtime reads every member's x where it is (no copy into dst).
      syncForRead(x);
      args[1] = bufferOf(x);
      b.CreateCall(rt("spmd_allreduce_to"), args);
      return;
    }
    copyAtom(x, dst);  // a literal or a fused value: computed straight into dst
    args.erase(args.begin() + 1);
    b.CreateCall(rt("spmd_allreduce"), args);
    return;
  }
  case Op::AllGather: {
    uint32_t m = axisMask(e.param("axis_name"));
    int64_t gd = e.intParam("all_gather_dimension");
    Value *dst = defBuffer(out);
    bool agrees = tupleOrderOf(fs->mesh, e.param("axis_name")).agrees();
    Value *tmp = gd == 0 && agrees ? dst : allocBytes(out.type.bytes());
    b.CreateCall(rt("spmd_all_gather"), {fs->dev, bufferOf(x), tmp, c64(bytes), c32(int32_t(m))});
    if (!agrees)  // Note [Tuple order]
      tmp = reorderGroup(e.param("axis_name"), d, tmp, x.type().numel(), false,
                         gd == 0 ? dst : nullptr);
    if (gd != 0) {
      ir::Shape st = x.type().shape;
      st.insert(st.begin(), groupSize(m));
      emitTransposeCopy(d, tmp, st, stackPerm(int(st.size()), gd), dst);
    }
    return;
  }
  case Op::Ppermute: {
    std::vector<int32_t> pairs;
    TupleOrder o = tupleOrderOf(fs->mesh, e.param("axis_name"));  // Note [Tuple order]
    for (auto &p : e.param("perm").elems)
      for (auto v : p.toInts()) pairs.push_back(int32_t(o.meshIndex(v)));
    b.CreateCall(rt("spmd_ppermute"), {fs->dev, bufferOf(x), defBuffer(out), c64(bytes),
                                       c32(int32_t(axisMask(e.param("axis_name")))),
                                       c32(int32_t(pairs.size() / 2)), constI32s(pairs)});
    return;
  }
  case Op::AllToAll: {
    uint32_t m = axisMask(e.param("axis_name"));
    int64_t G = groupSize(m), sa = e.intParam("split_axis"), ca = e.intParam("concat_axis");
    Value *in =
        reorderGroup(e.param("axis_name"), d, chunkMajor(x, sa, G), x.type().numel() / G, true);
    Value *tmp = allocBytes(bytes);
    b.CreateCall(rt("spmd_all_to_all"), {fs->dev, in, tmp, c64(bytes / G), c32(int32_t(m))});
    tmp = reorderGroup(e.param("axis_name"), d, tmp, x.type().numel() / G, false);
    ir::Shape chunk = x.type().shape;
    chunk[sa] /= G;
    chunk.insert(chunk.begin(), G);
    emitTransposeCopy(d, tmp, chunk, stackPerm(int(chunk.size()), ca), defBuffer(out));
    return;
  }
  case Op::ReduceScatter: {
    uint32_t m = axisMask(e.param("axis_name"));
    int64_t G = groupSize(m);
    Value *in =
        reorderGroup(e.param("axis_name"), d, chunkMajor(x, e.intParam("scatter_dimension"), G),
                     x.type().numel() / G, true);
    b.CreateCall(rt("spmd_reduce_scatter"),
                 {fs->dev, in, defBuffer(out), c64(x.type().numel() / G), c32(dtypeCode(d)),
                  c32(collectiveReduceCode(e.op)), c32(int32_t(m))});
    return;
  }
  default: break;
  }
  internal_assert(false, std::string("unsupported collective ") + ir::name(e.op));
}

void LlvmEmitter::emitPrint(const ir::Eqn &e) {
  for (auto &s : e.param("segments").elems) {
    if (s.kind == ir::Param::Str) {
      b.CreateCall(rt("spmd_print_str"), {fs->host, cstr(s.s)});
    } else if (s.kind == ir::Param::Int) {
      const ir::Atom &a = e.in.at(size_t(s.i));
      const ir::Type t = a.type();
      b.CreateCall(rt("spmd_print_array"), {fs->host, bufferOf(a), c32(dtypeCode(t.dtype)),
                                            c32(t.rank()), constI64s(t.shape)});
    } else {
      const ir::Atom &a = e.in.at(size_t(s.elems.at(0).i));
      b.CreateCall(rt("spmd_print_render"), {fs->host, bufferOf(a), c64(a.type().numel()),
                                             cstr(s.elems.at(1).s), cstr(s.elems.at(2).s)});
    }
  }
  b.CreateCall(rt("spmd_print_end"), {fs->host});
}

void LlvmEmitter::emitAssertClose(const ir::Eqn &e) {
  const ir::Type t = e.in[0].type();
  auto num = [&](const char *k) {
    const ir::Param &p = e.param(k);
    return ConstantFP::get(b.getDoubleTy(), p.kind == ir::Param::Float ? p.f : double(p.i));
  };
  b.CreateCall(rt("spmd_assert_close"),
               {fs->host, bufferOf(e.in[0]), bufferOf(e.in[1]), c32(dtypeCode(t.dtype)),
                c64(t.numel()), num("rtol"), num("atol"), cstr(e.param("where").s)});
}

}  // namespace spmd::codegen
