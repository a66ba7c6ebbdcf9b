// ===- HostShards.cpp - host-level values laid out across devices ------------------===//
//
// Which host-level arrays JAX would keep sharded over the devices of the pmap or
// shard_map that made them, and the reductions and products of those arrays, lowered as
// JAX's SPMD partitioner runs them: each device works on its own block, then the blocks'
// results are combined across the devices (Note [Sharded host values]).
#include "sema/AstLowering.h"

#include <algorithm>
#include <cmath>

namespace spmd::sema {
using ir::Atom;
using ir::Op;
using ir::Param;

// Note [Sharded host values]: jax.pmap returns an array sharded over its devices (in JAX
// 0.10 a NamedSharding, P('_internal_pmap_axis_name') along the out axis), and an eager
// jnp op on it is a jit whose input keeps that sharding: XLA's SPMD partitioner compiles
// it per device. For `jnp.sum(z)` of `z: f32[8,3,4]` out of an 8-device pmap the
// optimized HLO (XLA_FLAGS=--xla_dump_to) is, per device,
//     wrapped_reduce = reduce(param: f32[1,3,4], dimensions={0,1,2})
//     all-reduce(wrapped_reduce), replica_groups {axis_0}
// so the sum is each device's block summed in the order a [1,3,4] block is summed, then
// the 8 block sums folded in device order (XLA:CPU's all-reduce, as psum: runtime/cpu/
// Reduce.h). The gathered array summed at once gives other bits: `mean(z)` of
// `pmap i (k in split(key(32), 8)) { normal(k, [3, 4]) }` is -0.000106945634 in JAX,
// -0.00010693958 for the gathered array. The same holds for prod (all-reduce multiply),
// for max and min (all-reduce max/min, which skip NaN as pmax does: Note [Collective
// max]), for a reduction over some axes that include the sharded one (`sum(z, axis=(0,
// 1))`: reduce the block over (0, 1), all-reduce the [4] results), and for mean (the sum
// so, then `* (1/96)` on the host, as spmdrun's host `/ 96` gives).
//
// Layouts. A value is laid out over a mesh, each dimension split over some of its axes
// (struct Shard): a flat pmap's result over a 1-D mesh along its out axis; a shard_map's
// result as its out spec says (`[rows, cols]`: dimension 0 over rows, 1 over cols); a
// nest of pmaps' result (a body returning an inner pmap's output) over the 2-D mesh of
// the nest, outer axis first. The reference for a nest is its conformance twin, a jitted
// jax.shard_map over a 4 x 2 mesh with out spec P('i', 'j') (conf7_nested; JAX 0.10's
// pmap does not nest), which keeps the result sharded so. Layouts are kept, as XLA's
// sharding propagation keeps them (`.sharding` in JAX, measured), by elementwise ops (the
// first laid-out operand's: `za + zt` is P(axis), `zt + za` P(None, axis), as in JAX), by
// reductions that leave every split dimension, by transposes (permuted), by slices and
// run-time indices (dynamic_slice), a split dimension they cut gathered and the others
// kept (`z[:, 1]`, `z[:, t]` P(axis); y[3], y[t] of a [rows, cols] result P(cols)), by
// reshapes that only add or drop ones or (dimension 0 split over n devices) give a
// dimension 0 that n divides (`reshape(z, [96])`; `[4, 24]` is gathered: P(); the other
// dimensions' axes are dropped: `reshape(q, [-1])` of a [rows, cols] result is P(rows)),
// by concatenation (the first laid-out operand's, where the devices divide the new size
// of a split dimension: `concat([h, z])` P(axis)), by a vmap over the split dimension
// (the results split along their out axes) or over another one (vmapLayouts: the body's
// layouts followed, the out axis not split), by products with an ordinary operand
// (below), by loops (Note [Peeled loop iterations], LowerControl.cpp: iterations are
// peeled off until the carries' layouts repeat or cycle), by an if's results that both branches
// leave laid out the same, by grad's arguments, and into loop, branch and function
// frames (local()). Indexing the only split dimension (`z[3]`), argmax and the rest gather:
// ordinary host arrays (argmax's partitioned form picks the same element; integer and
// bool reductions are exact, so both are left as they are).
//
// Reductions (shardedReduce, asked by emit() before a float reduction over a split
// dimension, or over two or more unsplit ones of a value split along a kept one: JAX
// reduces each device's block, and the order of a sum over [8, 8, 1] blocks is not that
// over the gathered [8, 8, 8] (sum(c, axis=(0, 1)), c split along dimension 2:
// 13107.525 in JAX, 13107.524 gathered; one reduced axis agrees either way, so those stay
// on the host; golden host_reduce_kept): a shard_map's result is read as its nest of pmaps left it (shardBlocks:
// [mesh axes..., block...], each device's block in place, so `sum(y)` of a `[r, c]`
// result moves no more than its 8 block sums; tests/stats/shard_chain_2d), as is a
// reshape of it whose blocks are the same runs of elements (sum(reshape(y, [-1])) of a
// [r, _] result, the block reshaped in the pmap body; tests/stats/shard_chain_flat);
// otherwise each split dimension is reshaped [n_p, n_q, D / (n_p n_q)] (no copy), and a
// nest of pmaps over the mesh axes named (outermost first, in_axes finding each axis's
// dimension) reduces the block, then the blocks' results are combined as XLA does for
// each reduced split dimension, the last dimension's first: for a `[rows, cols]`
// shard_map result on a 4 x 2 mesh the HLO of jnp.sum is reduce(f32[2,6]), all-reduce
// over cols, then all-reduce over rows (with out spec P(cols, rows): over rows, then
// cols: by array dimension, not mesh order); `sum(y, axis=0)` is the all-reduce over rows
// alone and stays split over cols. A sum psums in the body; prod, max and min fold the
// devices' results on the host in the same order (pmax has no gradient; jnp.max of a
// sharded array has one). Then the kept dimensions' mesh axes are merged back (a
// transpose only when a spec lists them out of mesh order).
//
// Products (shardedDot): jnp's `z @ w` with z split along a free dimension is a sharded
// dot, each device's block times w (HLO: dot(f32[16,32], f32[32,5]) per device); so it
// is a pmap over the blocks with w broadcast (matmul's broadcast of w to a batch split
// with z). The product's values agree with the whole-array product in the cases
// measured; its layout is what later reductions need.
//
// Divisions: an eager division of an array sharded in one-element blocks is one quotient
// of one element per device, so it divides exactly (`_exact`; LowerArith.cpp). In a
// gradient the transpose of `v / s` is `g / s`, exact in JAX where the cotangent g is
// sharded and through the reciprocal where it is not (sum(v / s * w), w ordinary), so
// inlineJaxpr tracks the backward pass's layouts and marks such divisions there. It
// partitions the backward pass's reductions and products of sharded values as emit()
// does (the gradient of a broadcast w in sum(tanh(xs * w)) sums a sharded cotangent:
// JAX's [6.9349756 ...], the plain sum's [6.9349737 ...]). (jnp.sum's transpose is a
// broadcast: the pmaps made here lay out nothing.)
//
// Inside a pmap or vmap body nothing is sharded this way.

namespace {
/// The axis names of the pmaps made here.
const std::string kShardAxis = "_shards";
bool isFloatReduce(Op op, ir::DType d) {
  return ir::isFloat(d) &&
         (op == Op::ReduceSum || op == Op::ReduceProd || op == Op::ReduceMax || op == Op::ReduceMin);
}
}  // namespace

bool hasNestedPmap(const ir::Jaxpr &j) {
  for (auto &e : j.eqns) {
    if (e.op == Op::Pmap) return true;
    for (auto &r : e.regions)
      if (hasNestedPmap(r)) return true;
  }
  return false;
}

int64_t Shard::devices() const {
  int64_t n = 1;
  std::vector<bool> seen(mesh.size());
  for (auto &d : dims)
    for (int k : d)
      if (!seen[k]) seen[k] = true, n *= mesh[k];
  return n;
}

int64_t Shard::parts(int64_t d) const {
  int64_t n = 1;
  if (split(d))
    for (int k : dims[d]) n *= mesh[k];
  return n;
}

const Shard *AstLowering::shardOf(const Atom &a) const {
  if (a.isLit) return nullptr;
  auto it = shards.find(a.var.id);
  return it == shards.end() ? nullptr : &it->second;
}

std::optional<Atom> AstLowering::shardedReduce(Op op, const Atom &x, const ir::Params &params) {
  const Shard *s = shardOf(x);
  if (!s || inMapBody() || !isFloatReduce(op, x.type().dtype)) return std::nullopt;
  const Shard sh = *s;
  const ir::Type xt = x.type();
  const int64_t rank = xt.rank();
  std::vector<int64_t> axes = params.at("axes").toInts();
  std::sort(axes.begin(), axes.end());
  auto reduced = [&](int64_t d) { return std::binary_search(axes.begin(), axes.end(), d); };
  if (int64_t(sh.dims.size()) != rank || axes.empty()) return std::nullopt;
  if (std::none_of(axes.begin(), axes.end(), [&](int64_t d) { return sh.split(d); })) {
    bool keptSplit = false;
    for (int64_t d = 0; d < rank; ++d) keptSplit |= sh.split(d);
    if (!keptSplit || axes.size() < 2) return std::nullopt;
  }
  // 1. Each split dimension, of size D over mesh axes of sizes n_p, n_q, reshaped to
  // [n_p, n_q, D / (n_p n_q)] (no block dimension where D = n_p n_q): a reshape, no copy.
  // A shard_map's result is read as its nest left it (no transpose to undo).
  ir::Shape rs;
  std::vector<int64_t> meshPos(sh.mesh.size(), -1), blockPos(rank, -1);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t n = 1;
    for (int k : sh.dims[d]) {
      if (meshPos[k] >= 0) return std::nullopt;  // an axis named twice: not a layout
      meshPos[k] = int64_t(rs.size());
      rs.push_back(sh.mesh[k]);
      n *= sh.mesh[k];
    }
    if (xt.shape[d] % n != 0) return std::nullopt;
    if (!sh.split(d) || xt.shape[d] != n) {
      blockPos[d] = int64_t(rs.size());
      rs.push_back(xt.shape[d] / n);
    }
  }
  std::vector<int> order;
  for (size_t k = 0; k < sh.mesh.size(); ++k)
    if (meshPos[k] >= 0) order.push_back(int(k));
  const size_t L = order.size();
  Atom in = local(x);
  // Each device's block of x; a shard_map's result (or a reshape of it that keeps each
  // device's run of elements: shardBlocks, set by trackShards) is read where its nest
  // left it, [mesh axes in mesh order..., its block], the block reshaped to x's in the
  // body (no copy).
  ir::Shape xBlock(rank);
  for (int64_t d = 0; d < rank; ++d) xBlock[d] = xt.shape[d] / sh.parts(d);
  auto bl = shardBlocks.find(x.var.id);
  bool inPlace = bl != shardBlocks.end() && bl->second.type().rank() >= int64_t(L);
  if (inPlace) {
    const ir::Shape &bs = bl->second.type().shape;
    int64_t numel = 1;
    for (size_t l = 0; l < bs.size(); ++l)
      if (l < L) inPlace &= bs[l] == sh.mesh[order[l]];
      else numel *= bs[l];
    inPlace &= numel == ir::Type{xt.dtype, xBlock}.numel();
  }
  if (inPlace) {
    in = local(bl->second);
    for (size_t l = 0; l < L; ++l) meshPos[order[l]] = int64_t(l);
    for (int64_t d = 0; d < rank; ++d) blockPos[d] = int64_t(L) + d;
  } else if (rs != xt.shape) {
    in = emit1(Op::Reshape, {in}, {{"new_sizes", Param::ints(rs)}, {"dimensions", Param::none()}});
  }
  // 2. A nest of pmaps over the mesh axes named, outermost first (devices row-major, as a
  // shard_map's nest); each maps its axis's dimension of what the outer ones leave.
  auto name = [&](int k) { return kShardAxis + std::to_string(k); };
  std::vector<int64_t> inAxis(L);
  std::vector<bool> gone(in.type().rank());
  ir::Type lt = in.type();
  std::vector<Atom> levelIn{in};
  for (size_t l = 0; l < L; ++l) {
    int64_t p = meshPos[order[l]], at = 0;
    for (int64_t q = 0; q < p; ++q) at += !gone[q];
    gone[p] = true;
    inAxis[l] = at;
    lt.shape.erase(lt.shape.begin() + at);
    pushFrame(true);
    levelIn.push_back(newInvar(lt));
  }
  // The block's dimensions: a kept dimension's block position, counting what is left.
  auto inBlock = [&](int64_t p) {
    if (inPlace) return p - int64_t(L);  // every mesh dimension mapped
    int64_t at = 0;
    for (int64_t q = 0; q < p; ++q) at += !gone[q];
    return at;
  };
  std::vector<int64_t> blockAxes;
  for (auto d : axes)
    if (blockPos[d] >= 0) blockAxes.push_back(inBlock(blockPos[d]));
  Atom blk = levelIn.back();
  if (inPlace && blk.type().shape != xBlock)
    blk = emit1(Op::Reshape, {blk},
                {{"new_sizes", Param::ints(xBlock)}, {"dimensions", Param::none()}});
  ir::Params bp = params;  // axes, and stop_gradient where logsumexp set it
  bp["axes"] = Param::ints(blockAxes);
  Atom r = blockAxes.empty() ? blk : Atom(emit1(op, {blk}, bp));
  // The blocks' results combined as XLA's partitioned reduce does: one all-reduce per
  // reduced dimension, the last dimension's first (each over the mesh axes it is split
  // over, together, in the spec's order).
  std::vector<int64_t> combine;
  for (auto it = axes.rbegin(); it != axes.rend(); ++it)
    if (sh.split(*it)) combine.push_back(*it);
  if (op == Op::ReduceSum)
    for (auto d : combine) {
      std::vector<Param> names;
      for (int k : sh.dims[d]) names.push_back(Param::ofStr(name(k)));
      r = emit1(Op::Psum, {r}, {{"axes", Param::tuple(names)}, {"axis_index_groups", Param::none()}});
    }
  for (size_t l = L; l-- > 0;) {
    top().jaxpr.outvars.push_back(local(r));
    auto f = popFrame();
    internal_assert(f->captured.empty(), "a sharded reduction's body captures nothing");
    ir::Params pp{{"axis_name", Param::ofStr(name(order[l]))},
                  {"axis_size", Param::of(sh.mesh[order[l]])},
                  {"in_axes", Param::tuple({Param::of(inAxis[l])})},
                  {"out_axes", Param::ints({0})}};
    std::vector<ir::Jaxpr> regions;
    regions.push_back(std::move(f->jaxpr));
    r = emit(Op::Pmap, {levelIn[l]}, pp, std::move(regions)).at(0);
  }
  shards.erase(r.var.id);  // device copies, not a layout to keep
  // 3. r is [mesh axes in `order`..., the block's result]. A sum is the same on every
  // device of a reduced axis; prod, max and min fold the devices' results here, in the
  // order of the all-reduces above (each XLA:CPU all-reduce: device order, left to
  // right). Either way each reduced mesh axis is left with size 1.
  auto posOf = [&](int k) { return int64_t(std::find(order.begin(), order.end(), k) - order.begin()); };
  auto slice = [&](Atom a, const std::vector<std::pair<int64_t, int64_t>> &at) {
    ir::Shape lo(a.type().rank(), 0), hi = a.type().shape;
    for (auto [p, i] : at) lo[p] = i, hi[p] = i + 1;
    return Atom(emit1(Op::Slice, {a},
                      {{"start_indices", Param::ints(lo)},
                       {"limit_indices", Param::ints(hi)},
                       {"strides", Param::none()}}));
  };
  Atom out = r;
  for (auto d : combine) {
    // The devices of the group in row-major order over the axes d is split over.
    std::vector<std::pair<int64_t, int64_t>> idx;
    for (int k : sh.dims[d]) idx.push_back({posOf(k), 0});
    auto device = [&](int64_t j) {
      auto at = idx;
      for (size_t q = at.size(); q-- > 0;) {
        int64_t n = sh.mesh[sh.dims[d][q]];
        at[q].second = j % n;
        j /= n;
      }
      return slice(out, at);
    };
    const int64_t n = sh.parts(d);
    Atom acc = device(0);
    if (op == Op::ReduceProd)
      for (int64_t j = 1; j < n; ++j) acc = emit1(Op::Mul, {acc, device(j)});
    if (op == Op::ReduceMax || op == Op::ReduceMin) {
      // XLA:CPU's all-reduce max/min, folded here rather than by pmax, which has no
      // gradient (jnp.max of a sharded array has one): a NaN so far counts as the
      // identity, then the next device's value is taken where it is greater (less).
      // Note [Collective max] (runtime/cpu/Reduce.h) also flushes denormal results,
      // which this does not.
      bool mx = op == Op::ReduceMax;
      Atom ident = broadcast(b().lit(xt.dtype, mx ? -INFINITY : INFINITY), acc.type().shape);
      for (int64_t j = 1; j < n; ++j) {
        Atom a = emit1(Op::Select, {emit1(Op::Ne, {acc, acc}), acc, ident});
        Atom v = device(j);
        acc = emit1(Op::Select, {emit1(mx ? Op::Gt : Op::Lt, {v, a}), a, v});
      }
    }
    out = acc;
  }
  // 4. The result: each kept dimension's mesh axes merged into its block dimension (a
  // transpose only where the spec lists them out of mesh order), the reduced ones dropped.
  std::vector<int64_t> perm;
  for (auto d : combine)
    for (int k : sh.dims[d]) perm.push_back(posOf(k));
  ir::Shape resShape;
  Shard res{sh.mesh, {}};
  int64_t blockAt = int64_t(L);
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced(d)) continue;
    for (int k : sh.dims[d]) perm.push_back(posOf(k));
    if (blockPos[d] >= 0) perm.push_back(blockAt++);
    resShape.push_back(xt.shape[d]);
    res.dims.push_back(sh.dims[d]);
  }
  bool identity = true;
  for (size_t k = 0; k < perm.size(); ++k) identity &= perm[k] == int64_t(k);
  if (!identity) out = emit1(Op::Transpose, {out}, {{"permutation", Param::ints(perm)}});
  if (out.type().shape != resShape)
    out = emit1(Op::Reshape, {out}, {{"new_sizes", Param::ints(resShape)}, {"dimensions", Param::none()}});
  if (res.devices() > 1 && !out.isLit) shards[out.var.id] = res;
  return out;
}

// Note [Sharded division]: at host level a division by a broadcast value, A /
// broadcast(B), multiplies by the reciprocal (Note [Eager division], LowerArith.cpp), but
// when A is sharded XLA partitions the division first: each device divides its block by
// its part of the broadcast, and where that part is B's part whole (B's extents along
// the split dimensions those of A, or 1 where a device's block has one), the broadcast is
// a reshape, the simplifier finds no broadcast, and the quotient is exact. Measured
// (`.sharding` and the bits of a / d, JAX 0.10.2): e of a pmap's [8, 5] over
// sum(e, axis=0, keepdims=True) ([1, 5]) or sum(e, axis=0) ([5]) divides exactly,
// [8, 3, 5] over [1, 3, 5] or [3, 5] too; over a scalar, [8, 1], [1, 1, 5], [8, 3, 1]
// through the reciprocal (each device's block broadcast from fewer elements); a [rows,
// cols] shard_map result ([2, 6] blocks) over [1, 12] ([1, 6] a device) or [8, 1] too.
// (A block of one element divides exactly whatever the divisor: LowerArith.cpp.)
bool AstLowering::shardedExactDiv(const Atom &x, const Atom &y) {
  const Shard *s = shardOf(x);
  if (!s || y.isLit || inMapBody() || !pmapStack.empty()) return false;
  const ir::Shape &o = x.type().shape;
  if (int64_t(s->dims.size()) != x.type().rank() || y.type().shape != o) return false;
  const ir::Eqn *bc = nullptr;  // y's broadcast, just emitted in this frame
  const auto &eqns = top().jaxpr.eqns;
  for (auto it = eqns.rbegin(); it != eqns.rend() && !bc; ++it)
    if (it->out.size() == 1 && it->out[0].id == y.var.id) bc = &*it;
  if (!bc || bc->op != Op::BroadcastInDim) return false;  // no broadcast: exact anyway
  std::vector<int64_t> bd = bc->params.at("broadcast_dimensions").toInts();
  const ir::Shape &bs = bc->in[0].type().shape;
  if (bd.size() != bs.size()) return false;
  int64_t block = 1, part = 1;
  for (int64_t d = 0; d < int64_t(o.size()); ++d) block *= o[d] / s->parts(d);
  for (size_t i = 0; i < bs.size(); ++i)
    part *= bs[i] == o[bd[i]] ? bs[i] / s->parts(bd[i]) : bs[i];
  return part == block;
}

namespace {
/// Where dimension d of operand `side` of a dot_general goes in its result, [batch...,
/// lhs free..., rhs free...]; -1 for a contracted one.
int64_t dotPlace(const Param &dn, const ir::Type &lt, int side, int64_t d) {
  std::vector<int64_t> c = dn.elems[0].elems[side].toInts(), bt = dn.elems[1].elems[side].toInts();
  auto has = [](const std::vector<int64_t> &v, int64_t k) { return std::find(v.begin(), v.end(), k) != v.end(); };
  if (has(c, d)) return -1;
  if (has(bt, d)) return std::find(bt.begin(), bt.end(), d) - bt.begin();
  int64_t o = int64_t(bt.size());
  if (side == 1) o += lt.rank() - int64_t(bt.size()) - int64_t(dn.elems[0].elems[0].toInts().size());
  for (int64_t k = 0; k < d; ++k) o += !has(c, k) && !has(bt, k);
  return o;
}
bool dotNumbers(const Param &dn) {
  return dn.elems.size() == 2 && dn.elems[0].elems.size() == 2 && dn.elems[1].elems.size() == 2;
}
}  // namespace

std::optional<Atom> AstLowering::shardedDot(const Atom &lhs, const Atom &rhs, const ir::Params &params) {
  if (inMapBody()) return std::nullopt;
  const Shard *sl = shardOf(lhs), *sr = shardOf(rhs);
  if ((sl != nullptr) == (sr != nullptr)) return std::nullopt;
  const int side = sl ? 0 : 1;
  const Shard sh = sl ? *sl : *sr;
  const Atom x = side == 0 ? lhs : rhs, y = side == 0 ? rhs : lhs;
  const ir::Type xt = x.type(), yt = y.type();
  const Param &dn = params.at("dimension_numbers");
  if (!ir::isFloat(xt.dtype) || int64_t(sh.dims.size()) != xt.rank() || !dotNumbers(dn))
    return std::nullopt;
  // One split dimension, not contracted.
  int64_t d = -1;
  for (int64_t k = 0; k < xt.rank(); ++k)
    if (sh.split(k)) {
      if (d >= 0) return std::nullopt;
      d = k;
    }
  const int64_t o = d < 0 ? -1 : dotPlace(dn, lhs.type(), side, d);
  if (o < 0) return std::nullopt;
  // A batch dimension: the other operand's (a broadcast, as matmul makes for z @ w) is
  // split with it.
  std::vector<int64_t> xb = dn.elems[1].elems[side].toInts(), yb = dn.elems[1].elems[1 - side].toInts();
  auto bi = std::find(xb.begin(), xb.end(), d);
  const int64_t e = bi == xb.end() ? -1 : yb[bi - xb.begin()];
  const std::vector<int> &ax = sh.dims[d];
  const int64_t n = sh.parts(d);
  if (xt.shape[d] % n != 0) return std::nullopt;
  // Each device's block (the split dimension [n_p, n_q, D / n], a reshape), a pmap per
  // mesh axis it is split over, the other operand broadcast to every device.
  auto splitDim = [&](const Atom &a, int64_t k) {
    const ir::Type t = a.type();
    ir::Shape rs(t.shape.begin(), t.shape.begin() + k);
    for (int m : ax) rs.push_back(sh.mesh[m]);
    rs.push_back(t.shape[k] / n);
    rs.insert(rs.end(), t.shape.begin() + k + 1, t.shape.end());
    return Atom(emit1(Op::Reshape, {local(a)}, {{"new_sizes", Param::ints(rs)}, {"dimensions", Param::none()}}));
  };
  const size_t L = ax.size();
  std::vector<Atom> levelIn{splitDim(x, d)}, levelY{e >= 0 ? splitDim(y, e) : y};
  ir::Type lt = levelIn[0].type(), ly = levelY[0].type();
  for (size_t l = 0; l < L; ++l) {
    lt.shape.erase(lt.shape.begin() + d);
    if (e >= 0) ly.shape.erase(ly.shape.begin() + e);
    pushFrame(true);
    levelIn.push_back(newInvar(lt));
    if (e >= 0) levelY.push_back(newInvar(ly));
  }
  Atom other = e >= 0 ? levelY.back() : local(y);
  Atom r = side == 0 ? emit1(Op::DotGeneral, {levelIn.back(), other}, params)
                     : emit1(Op::DotGeneral, {other, levelIn.back()}, params);
  for (size_t l = L; l-- > 0;) {
    top().jaxpr.outvars.push_back(local(r));
    auto f = popFrame();
    std::vector<Atom> ins{levelIn[l]};
    std::vector<Param> inAxes{Param::of(d)};
    if (e >= 0) ins.push_back(levelY[l]), inAxes.push_back(Param::of(e));
    f->jaxpr.invars.insert(f->jaxpr.invars.end(), f->captureVars.begin(), f->captureVars.end());
    for (auto &c : f->captured) ins.push_back(c), inAxes.push_back(Param::none());
    ir::Params pp{{"axis_name", Param::ofStr(kShardAxis + std::to_string(ax[l]))},
                  {"axis_size", Param::of(sh.mesh[ax[l]])},
                  {"in_axes", Param::tuple(inAxes)},
                  {"out_axes", Param::ints({0})}};
    std::vector<ir::Jaxpr> regions;
    regions.push_back(std::move(f->jaxpr));
    r = emit(Op::Pmap, ins, pp, std::move(regions)).at(0);
  }
  // r is [n_p, n_q, the block's product]: the mesh axes moved before the split dimension's
  // place o and merged into it.
  shards.erase(r.var.id);
  const ir::Type rt = r.type();
  const int64_t R = rt.rank() - int64_t(L);
  std::vector<int64_t> perm;
  for (int64_t k = 0; k < o; ++k) perm.push_back(int64_t(L) + k);
  for (size_t k = 0; k < L; ++k) perm.push_back(int64_t(k));
  for (int64_t k = o; k < R; ++k) perm.push_back(int64_t(L) + k);
  ir::Shape outShape(rt.shape.begin() + L, rt.shape.end());
  outShape[o] *= n;
  Atom out = r;
  if (o > 0) out = emit1(Op::Transpose, {out}, {{"permutation", Param::ints(perm)}});
  out = emit1(Op::Reshape, {out}, {{"new_sizes", Param::ints(outShape)}, {"dimensions", Param::none()}});
  Shard res{sh.mesh, std::vector<std::vector<int>>(outShape.size())};
  res.dims[o] = ax;
  shards[out.var.id] = res;
  return out;
}

namespace {
/// The layout of output k of pmap `e`: its out axis split over the pmap's devices, and,
/// where its body returns an inner pmap's output as it is, that output's layout inside
/// (mesh axes outermost first). nullopt where the body has pmaps but the output is not
/// one's result.
std::optional<Shard> pmapLayout(const ir::Eqn &e, size_t k) {
  std::vector<int64_t> oa = e.intsParam("out_axes");
  if (k >= oa.size() || e.regions.empty() || k >= e.regions[0].outvars.size()) return std::nullopt;
  // The pmaps of sharded reductions and products (and their transposes, in a gradient's
  // backward pass: jnp.sum's transpose is a broadcast, not sharded) lay out nothing.
  if (e.has("axis_name") && e.param("axis_name").kind == Param::Str &&
      e.param("axis_name").s.rfind(kShardAxis, 0) == 0)
    return std::nullopt;
  const ir::Jaxpr &body = e.regions[0];
  const Atom &o = body.outvars[k];
  Shard in{{}, std::vector<std::vector<int>>(o.type().rank())};
  if (hasNestedPmap(body)) {
    const ir::Eqn *src = nullptr;
    size_t at = 0;
    for (auto &b : body.eqns)
      for (size_t j = 0; j < b.out.size(); ++j)
        if (!o.isLit && b.op == Op::Pmap && b.out[j].id == o.var.id) src = &b, at = j;
    if (!src) return std::nullopt;
    auto inner = pmapLayout(*src, at);
    if (!inner) return std::nullopt;
    in = *inner;
  }
  int64_t a = oa[k];
  if (a < 0 || a > int64_t(in.dims.size())) return std::nullopt;
  Shard s{{e.intParam("axis_size")}, {}};
  for (auto m : in.mesh) s.mesh.push_back(m);
  for (auto &d : in.dims) {
    s.dims.emplace_back();
    for (int m : d) s.dims.back().push_back(m + 1);
  }
  s.dims.insert(s.dims.begin() + a, std::vector<int>{0});
  return s;
}
}  // namespace

void AstLowering::vmapLayouts(const ir::Eqn &e) {
  const std::vector<Atom> &ins = e.in;
  const std::vector<ir::Var> &outs = e.out;
  const ir::Params &params = e.params;
  // A mapped operand split along its mapped dimension alone: each result is split so
  // along its out axis (jax.vmap of a pmap's z: P(axis) on the batch dimension, whatever
  // the body does to the rest; measured with `r * 2`, `sum(r, axis=0)`, out_axes=1).
  std::vector<Param> inAxes = params.at("in_axes").elems;
  std::vector<int64_t> oa = params.at("out_axes").toInts();
  for (size_t k = 0; k < ins.size() && k < inAxes.size(); ++k) {
    const Shard *s = shardOf(ins[k]);
    if (!s || inAxes[k].kind == Param::None || int64_t(s->dims.size()) != ins[k].type().rank())
      continue;
    const int64_t a = inAxes[k].i;
    bool alone = s->split(a);
    for (int64_t d = 0; d < int64_t(s->dims.size()); ++d) alone &= d == a || !s->split(d);
    if (!alone) continue;
    for (size_t j = 0; j < outs.size() && j < oa.size(); ++j) {
      Shard r{s->mesh, std::vector<std::vector<int>>(outs[j].type.rank())};
      if (oa[j] < 0 || oa[j] >= outs[j].type.rank()) continue;
      r.dims[oa[j]] = s->dims[a];
      shards[outs[j].id] = r;
    }
    return;
  }
  // Operands split along other dimensions only: the body sees each element laid out as
  // the operand less its mapped dimension (a broadcast operand as it is), the layouts
  // are followed through the body's equations by these rules, and each result is laid
  // out as the body leaves it with its out axis not split (jax.vmap over
  // transpose(z, [1, 0, 2]) of a pmap's z, or in_axes=1 over z: P(None, axis) for
  // `r * 2`, `exp(r) - r`, `r - mean(r)`, `sum(r, axis=1)`, a vmap in the body).
  const ir::Jaxpr &body = e.regions.at(0);
  if (body.invars.size() != ins.size()) return;
  std::vector<int> added;
  auto mark = [&](int id, Shard s) {
    if (shards.emplace(id, std::move(s)).second) added.push_back(id);
  };
  bool any = false;
  for (size_t k = 0; k < ins.size() && k < inAxes.size(); ++k) {
    const Shard *s = shardOf(ins[k]);
    if (!s || int64_t(s->dims.size()) != ins[k].type().rank()) continue;
    Shard el = *s;
    if (inAxes[k].kind != Param::None) {
      const int64_t a = inAxes[k].i;
      if (a < 0 || a >= int64_t(el.dims.size()) || el.split(a)) continue;
      el.dims.erase(el.dims.begin() + a);
    }
    bool split = false;
    for (size_t d = 0; d < el.dims.size(); ++d) split |= el.split(int64_t(d));
    if (!split) continue;
    mark(body.invars[k].id, std::move(el));
    any = true;
  }
  if (any) {
    for (auto &eq : body.eqns) {
      if (eq.op == Op::Vmap) vmapLayouts(eq);
      else if (eq.regions.empty()) trackShards(eq.op, eq.in, eq.params, eq.out);
      // (pmaps, loops and conds in the body are not followed: their results ordinary)
      for (auto &v : eq.out)
        if (shards.count(v.id)) added.push_back(v.id);
    }
    for (size_t j = 0; j < outs.size() && j < oa.size() && j < body.outvars.size(); ++j) {
      const Shard *s = shardOf(body.outvars[j]);
      if (!s || oa[j] < 0 || oa[j] >= outs[j].type.rank() ||
          int64_t(s->dims.size()) + 1 != outs[j].type.rank())
        continue;
      Shard r = *s;
      r.dims.insert(r.dims.begin() + oa[j], std::vector<int>{});
      shards[outs[j].id] = r;
    }
  }
  for (int id : added) shards.erase(id);  // the body's own values: not host values
}

void AstLowering::trackShards(Op op, const std::vector<Atom> &ins, const ir::Params &params,
                              const std::vector<ir::Var> &outs) {
  if (op == Op::Pmap) {
    const ir::Eqn &e = top().jaxpr.eqns.back();
    for (size_t k = 0; k < outs.size(); ++k)
      if (auto s = pmapLayout(e, k)) shards[outs[k].id] = *s;
    return;
  }
  if (op == Op::Vmap) {
    if (!shards.empty()) vmapLayouts(top().jaxpr.eqns.back());
    return;
  }
  if (shards.empty() || outs.size() != 1) return;
  const ir::Type &ot = outs[0].type;
  if (op == Op::Concatenate) {
    // The first operand laid out over devices gives the layout (jnp.concatenate([h, z])
    // of an ordinary h and a pmap's z: P(axis), as [z, h]), the concatenated dimension
    // split as the operand's where its new size the devices divide (P() for [z, h[:2]]:
    // 10 rows on 8 devices), each device's block the same run of rows of the result.
    const int64_t dim = params.at("dimension").i;
    for (auto &a : ins) {
      const Shard *s = shardOf(a);
      if (!s || int64_t(s->dims.size()) != ot.rank()) continue;
      if (ot.shape[dim] % s->parts(dim) != 0) return;
      shards[outs[0].id] = *s;
      return;
    }
    return;
  }
  if (ir::isElementwise(op)) {
    for (auto &a : ins)
      if (const Shard *s = shardOf(a); s && a.type().shape == ot.shape) {
        shards[outs[0].id] = *s;
        return;
      }
    return;
  }
  const Shard *s0 = ins.empty() ? nullptr : shardOf(ins[0]);
  if (s0 && int64_t(s0->dims.size()) != ins[0].type().rank()) return;
  const ir::Type &it = ins.empty() ? ot : ins[0].type();
  // Layout-preserving shape ops, as XLA's sharding propagation keeps them (jnp.reshape(z,
  // (96,)), z.T, z[:, 1] of a pmap's z: f32[8,3,4] stay sharded; reshape(z, (4, 24)) not).
  if (op == Op::Transpose && s0) {
    std::vector<int64_t> perm = params.at("permutation").toInts();
    Shard r{s0->mesh, {}};
    for (auto p : perm) r.dims.push_back(s0->dims[p]);
    shards[outs[0].id] = r;
    return;
  }
  // Slices and run-time indices: a split dimension that is cut is gathered (its mesh
  // axes dropped), the others keep theirs; nothing split left, an ordinary array. JAX
  // (`.sharding`): z[:, 1], z[:, t] of a pmap's z P(axis), z[2:6], z[t] P(); of a
  // [rows, cols] shard_map result y[3], y[t], y[::2], y[2:6] P(None, cols), y[:, 2:8],
  // y[:, t] P(rows), y[0:4, 0:6] P().
  auto cut = [&](const std::vector<bool> &whole) {
    Shard r = *s0;
    bool split = false;
    for (int64_t d = 0; d < it.rank(); ++d) {
      if (!whole[d]) r.dims[d].clear();
      split |= r.split(d);
    }
    if (split) shards[outs[0].id] = r;
  };
  if (op == Op::Slice && s0) {
    std::vector<int64_t> lo = params.at("start_indices").toInts(), hi = params.at("limit_indices").toInts();
    const Param &st = params.at("strides");
    std::vector<int64_t> strides = st.kind == Param::None ? std::vector<int64_t>() : st.toInts();
    std::vector<bool> whole(it.rank());
    for (int64_t d = 0; d < it.rank(); ++d)
      whole[d] = lo[d] == 0 && hi[d] == it.shape[d] && (strides.empty() || strides[d] == 1);
    cut(whole);
    return;
  }
  if (op == Op::DynamicSlice && s0) {
    std::vector<int64_t> sizes = params.at("slice_sizes").toInts();
    std::vector<bool> whole(it.rank());
    for (int64_t d = 0; d < it.rank(); ++d) whole[d] = sizes[d] == it.shape[d];
    cut(whole);
    return;
  }
  if (op == Op::Reshape && s0) {
    // Size-1 dimensions added or removed only: the others keep their layouts.
    Shard r{s0->mesh, {}};
    size_t d = 0;
    bool ok = true;
    for (int64_t k = 0; k < ot.rank() && ok; ++k) {
      while (d < it.shape.size() && it.shape[d] == 1 && ot.shape[k] != 1) ok &= !s0->split(d++);
      if (ot.shape[k] == 1 && (d >= it.shape.size() || it.shape[d] != 1)) {
        r.dims.emplace_back();
        continue;
      }
      if (d >= it.shape.size() || it.shape[d] != ot.shape[k]) ok = false;
      else r.dims.push_back(s0->dims[d++]);
    }
    while (ok && d < it.shape.size()) ok &= it.shape[d] == 1 && !s0->split(d++);
    // A shard_map's result reshaped so that each device's block is the same run of its
    // elements (one split dimension with only ones before it, in and out, over the same
    // mesh axes in mesh order) keeps its blocks in place: a reduction reads them there
    // (sum(reshape(y, [-1])) of a [r, _] result; tests/stats/shard_chain_flat).
    auto keepBlocks = [&](const Shard &o) {
      auto bl = shardBlocks.find(ins[0].var.id);
      if (bl == shardBlocks.end()) return;
      auto single = [](const Shard &sh, const ir::Shape &shape) {
        int64_t k = -1;
        for (int64_t q = 0; q < int64_t(sh.dims.size()); ++q)
          if (sh.split(q)) {
            if (k >= 0) return int64_t(-1);
            k = q;
          }
        for (int64_t q = 0; q < k; ++q)
          if (shape[q] != 1) return int64_t(-1);
        return k >= 0 && std::is_sorted(sh.dims[k].begin(), sh.dims[k].end()) ? k : int64_t(-1);
      };
      int64_t a = single(*s0, it.shape), c = single(o, ot.shape);
      if (a >= 0 && c >= 0 && s0->dims[a] == o.dims[c]) shardBlocks[outs[0].id] = bl->second;
    };
    if (ok) {
      shards[outs[0].id] = r;
      keepBlocks(r);
      return;
    }
    // Dimension 0 split over n devices, into a dimension 0 that n divides: each device's
    // block is the same run of elements. The other dimensions' mesh axes are dropped
    // (gathered): reshape(q, [-1]) of a [r, c] shard_map result is P(r) in JAX, as are
    // [24, 4] and [4, 24] (4 x 2 mesh); [2, 48] is P().
    if (s0->split(0) && ot.rank() > 0 && ot.shape[0] % s0->parts(0) == 0) {
      Shard q{s0->mesh, std::vector<std::vector<int>>(ot.rank())};
      q.dims[0] = s0->dims[0];
      shards[outs[0].id] = q;
      keepBlocks(q);
    }
    return;
  }
  if (op == Op::DotGeneral && ins.size() == 2) {
    // (Int products, not lowered by shardedDot.) One operand split along one dimension
    // that is not contracted, the other not split: the product is split at its place.
    const Shard *s1 = shardOf(ins[1]);
    const Param &dn = params.at("dimension_numbers");
    if ((s0 != nullptr) == (s1 != nullptr) || !dotNumbers(dn)) return;
    int side = s0 ? 0 : 1;
    const Shard &sh = s0 ? *s0 : *s1;
    if (int64_t(sh.dims.size()) != ins[side].type().rank()) return;
    Shard r{sh.mesh, std::vector<std::vector<int>>(ot.rank())};
    for (int64_t d = 0; d < ins[side].type().rank(); ++d) {
      if (!sh.split(d)) continue;
      int64_t o = dotPlace(dn, ins[0].type(), side, d);
      if (o < 0) return;
      r.dims[o] = sh.dims[d];
    }
    shards[outs[0].id] = r;
    return;
  }
  if (ir::info(op).category == ir::OpCategory::Reduce && op != Op::Argmax && op != Op::Argmin &&
      !ins.empty()) {
    // A reduction that leaves every split dimension: each block reduced alone.
    const Shard *s = shardOf(ins[0]);
    if (!s || int64_t(s->dims.size()) != ins[0].type().rank()) return;
    std::vector<int64_t> axes = params.at("axes").toInts();
    Shard r{s->mesh, {}};
    for (int64_t d = 0; d < int64_t(s->dims.size()); ++d) {
      bool red = std::find(axes.begin(), axes.end(), d) != axes.end();
      if (red && s->split(d)) return;
      if (!red) r.dims.push_back(s->dims[d]);
    }
    if (int64_t(r.dims.size()) == ot.rank()) shards[outs[0].id] = r;
  }
}

}  // namespace spmd::sema
