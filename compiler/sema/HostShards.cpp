// ===- HostShards.cpp - host-level values laid out across a pmap's devices -----------===//
//
// Which host-level arrays JAX would keep sharded over the devices of the pmap that made
// them, and the reductions of those arrays, lowered as JAX's SPMD partitioner runs them:
// each device reduces its own block, then the blocks' results are combined across the
// devices (Note [Sharded host values]).
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
// so, then `* (1/96)` on the host, as spmdrun's host `/ 96` gives). A reduction that
// leaves the sharded axis keeps the result sharded, each block reduced alone; an
// elementwise op of a sharded array (`z * 2`, `exp(z)`, `z - mean(z)`) is sharded too, so
// `mean(z * 2)` is a sharded mean. argmax's partitioned form (each block's (max, index)
// pair all-gathered, then reduced) picks the same element, and integer and bool
// reductions are exact, so those reductions are left as they are. Indexing, reshapes and
// the rest gather: their results are ordinary host arrays (as `z[0]` is in JAX).
//
// A shard_map's result (at host level, split over more than one device) is laid out over
// its mesh as its out spec says: a reduction of all its axes is each device's block
// reduced, then combined over the devices in row-major mesh order (the all-reduce's
// replica group). Left as they are: `sum(y, axis=0)` (an all-reduce over one mesh
// axis), and layouts whose blocks are not slabs along axis 0 (`[rows, cols]` over a 2-D
// mesh), which would be copied whole to be split again.
//
// So `shards` records the host-level vars laid out over devices: the outputs of a
// host-level pmap that has no pmap nested in it (a nest's layout is a 2-D mesh), the
// results of a shard_map (ShardMap.cpp), the
// elementwise results of those, their reductions that keep the sharded axis, and the
// invars that carry them into a loop, branch or function frame (local()). emit() asks
// shardedReduce() before emitting a float reduction of such a var over the sharded axis:
// it emits a pmap over the devices whose body reduces the block (and psums it, for a
// sum), then takes device 0's copy; prod, max and min fold the blocks' results on the
// host in device order (pmax has no gradient; jnp.max of a sharded array has one). Inside a pmap or vmap body nothing is sharded this way.

namespace {
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

const Shard *AstLowering::shardOf(const Atom &a) const {
  if (a.isLit) return nullptr;
  auto it = shards.find(a.var.id);
  return it == shards.end() ? nullptr : &it->second;
}

std::optional<Atom> AstLowering::shardedReduce(Op op, const Atom &x, const ir::Params &params) {
  const Shard *s = shardOf(x);
  if (!s || inMapBody() || !isFloatReduce(op, x.type().dtype)) return std::nullopt;
  std::vector<int64_t> axes = params.at("axes").toInts();
  Shard sh = *s;
  Atom in = local(x);
  if (sh.axis < 0) {
    // A shard_map's result: only a reduction of every axis, over all the devices that
    // hold a block, each device's block in row-major mesh order.
    int64_t splitN = 1, n = x.type().numel();
    for (auto v : sh.split) splitN *= v;
    if (int64_t(axes.size()) != x.type().rank() || axes.empty() || splitN != n ||
        sh.perm.size() != sh.split.size())
      return std::nullopt;
    in = emit1(Op::Reshape, {in}, {{"new_sizes", Param::ints(sh.split)}, {"dimensions", Param::none()}});
    in = emit1(Op::Transpose, {in}, {{"permutation", Param::ints(sh.perm)}});
    int64_t meshDims = int64_t(sh.perm.size()) - x.type().rank();
    ir::Shape flat{sh.devices};
    for (int64_t k = meshDims; k < in.type().rank(); ++k) flat.push_back(in.type().shape[k]);
    in = emit1(Op::Reshape, {in}, {{"new_sizes", Param::ints(flat)}, {"dimensions", Param::none()}});
    axes.clear();
    for (int64_t k = 0; k < int64_t(flat.size()); ++k) axes.push_back(k);
    sh.axis = 0;
  } else if (sh.axis >= x.type().rank() || x.type().shape[sh.axis] != sh.devices ||
             std::find(axes.begin(), axes.end(), s->axis) == axes.end()) {
    return std::nullopt;
  }
  ir::Type xt = in.type();
  // The block's axes: the sharded one removed.
  std::vector<int64_t> blockAxes;
  for (auto k : axes)
    if (k != sh.axis) blockAxes.push_back(k > sh.axis ? k - 1 : k);
  ir::Type bt = xt;
  bt.shape.erase(bt.shape.begin() + sh.axis);
  const std::string axisName = "_shards";
  pushFrame(true);
  Atom blk = newInvar(bt);
  ir::Params bp = params;  // axes, and stop_gradient where logsumexp set it
  bp["axes"] = Param::ints(blockAxes);
  Atom r = blockAxes.empty() ? blk : Atom(emit1(op, {blk}, bp));
  if (op == Op::ReduceSum)
    r = emit1(Op::Psum, {r},
              {{"axes", Param::tuple({Param::ofStr(axisName)})}, {"axis_index_groups", Param::none()}});
  top().jaxpr.outvars.push_back(local(r));
  auto f = popFrame();
  internal_assert(f->captured.empty(), "a sharded reduction's body captures nothing");
  ir::Params pp{{"axis_name", Param::ofStr(axisName)},
                {"axis_size", Param::of(sh.devices)},
                {"in_axes", Param::tuple({Param::of(sh.axis)})},
                {"out_axes", Param::ints({0})}};
  std::vector<ir::Jaxpr> regions;
  regions.push_back(std::move(f->jaxpr));
  Atom stacked = emit(Op::Pmap, {in}, pp, std::move(regions)).at(0);
  shards.erase(stacked.var.id);  // device copies, not a layout to keep
  ir::Shape rs = stacked.type().shape;
  rs.erase(rs.begin());
  auto device = [&](int64_t k) {
    ir::Shape lo(stacked.type().rank(), 0), hi = stacked.type().shape;
    lo[0] = k;
    hi[0] = k + 1;
    Atom sl = emit1(Op::Slice, {stacked},
                    {{"start_indices", Param::ints(lo)},
                     {"limit_indices", Param::ints(hi)},
                     {"strides", Param::none()}});
    return Atom(emit1(Op::Reshape, {sl}, {{"new_sizes", Param::ints(rs)}, {"dimensions", Param::none()}}));
  };
  Atom out = device(0);
  if (op == Op::ReduceProd)  // XLA:CPU's all-reduce multiply: device order, left to right
    for (int64_t k = 1; k < sh.devices; ++k) out = emit1(Op::Mul, {out, device(k)});
  if (op == Op::ReduceMax || op == Op::ReduceMin) {
    // XLA:CPU's all-reduce max/min, folded here rather than by pmax, which has no
    // gradient (jnp.max of a sharded array has one): a NaN so far counts as the identity,
    // then the next device's value is taken where it is greater (less). Note [Collective
    // max] (runtime/cpu/Reduce.h) also flushes denormal results, which this does not.
    bool mx = op == Op::ReduceMax;
    ir::DType d = x.type().dtype;
    Atom ident = broadcast(b().lit(d, mx ? -INFINITY : INFINITY), rs);
    for (int64_t k = 1; k < sh.devices; ++k) {
      Atom a = emit1(Op::Select, {emit1(Op::Ne, {out, out}), out, ident});
      Atom v = device(k);
      out = emit1(Op::Select, {emit1(mx ? Op::Gt : Op::Lt, {v, a}), a, v});
    }
  }
  return out;
}

void AstLowering::trackShards(Op op, const std::vector<Atom> &ins, const ir::Params &params,
                              bool flatPmap, const std::vector<ir::Var> &outs) {
  if (op == Op::Pmap) {
    if (!flatPmap) return;
    std::vector<int64_t> oa = params.at("out_axes").toInts();
    int64_t n = params.at("axis_size").i;
    for (size_t k = 0; k < outs.size() && k < oa.size(); ++k) shards[outs[k].id] = {oa[k], n};
    return;
  }
  if (shards.empty() || outs.size() != 1) return;
  const ir::Type &ot = outs[0].type;
  if (ir::isElementwise(op)) {
    for (auto &a : ins)
      if (const Shard *s = shardOf(a); s && a.type().shape == ot.shape) {
        shards[outs[0].id] = *s;
        return;
      }
    return;
  }
  if (ir::info(op).category == ir::OpCategory::Reduce && op != Op::Argmax && op != Op::Argmin &&
      !ins.empty()) {
    const Shard *s = shardOf(ins[0]);
    if (!s || s->axis < 0) return;
    std::vector<int64_t> axes = params.at("axes").toInts();
    if (std::find(axes.begin(), axes.end(), s->axis) != axes.end()) return;
    int64_t below = std::count_if(axes.begin(), axes.end(), [&](int64_t k) { return k < s->axis; });
    shards[outs[0].id] = {s->axis - below, s->devices};
  }
}

}  // namespace spmd::sema
