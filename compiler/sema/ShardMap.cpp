// ===- ShardMap.cpp - shard_map: a mesh, partition specs, nested pmaps ------===//
//
// Note [shard_map]: `shard_map (rows=4, cols=2) (a in x [rows, cols]) -> [rows, _] { body }`
// is lowered to the nest of pmaps it means, so every backend runs it as it runs pmap:
//
// 1. Each input is laid out for the mesh. A dimension split over axes (p, q) of sizes
//    (n_p, n_q) must divide by n_p * n_q; it is reshaped into [n_p, n_q, D / (n_p n_q)]
//    and the mesh dimensions moved to the front in mesh order (a transpose): x above
//    becomes f32[4, 2, 2, 3], an input split over cols alone f32[2, ...].
// 2. One pmap per mesh axis, outermost first, maps the inputs split over its axis (along
//    their first remaining mesh dimension); the others are captured, so they are
//    broadcast along it (in_axes None). Devices are thus assigned row-major, as for
//    nested pmap. An axis no input is split over maps over iota(n). The innermost body
//    binds the patterns to the blocks and is the user's body, with every mesh axis bound.
// 3. Each result, f32[n_rows, n_cols, block...] after the nest, is placed by its output
//    spec: mesh dimensions that the spec names are merged into the block dimension that
//    names them (a transpose and a reshape: the inverse of step 1); those it does not
//    name must be ones along which the value does not vary, and replica 0 is taken.
//
// Note [Replication checking]: which mesh axes a value varies along is found from the IR
// of the body, as JAX's check_vma does while tracing: an input varies along the axes it is
// split over, axis_index(a) along a; psum, pmax, pmin (and so pmean) and all_gather over
// a make a value the same along a; ppermute, all_to_all and psum_scatter over a make it
// vary along a; any other equation varies along the union of its operands' axes (a cond
// also along its predicate's, a loop's carries until they stop growing). A result whose
// output spec leaves out an axis along which it varies is a compile error at the spec,
// naming the axis and where the variation came from.
#include "ir/Collectives.h"
#include "sema/AstLowering.h"

#include <algorithm>
#include <map>

namespace spmd::sema {

using namespace ast;
using ir::Atom;
using ir::Op;
using ir::Param;

namespace {

ir::Params reshapeParams(const ir::Shape &s) {
  return {{"new_sizes", Param::ints(s)}, {"dimensions", Param::none()}};
}
ir::Params transposeParams(const std::vector<int64_t> &p) {
  return {{"permutation", Param::ints(p)}};
}

struct MeshAx {
  std::string name;
  int64_t size;
};

/// The mesh axes a value varies along, each with the place the variation came from.
using Vary = std::map<int, SrcRange>;

void unite(Vary &into, const Vary &from) {
  for (auto &[k, v] : from) into.emplace(k, v);
}

std::string entries(size_t n) { return std::to_string(n) + (n == 1 ? " entry" : " entries"); }

/// Note [Replication checking]: the mesh axes each variable of a body varies along.
class VaryAnalysis {
public:
  explicit VaryAnalysis(const std::vector<MeshAx> &mesh) : mesh_(mesh) {}
  std::map<int, Vary> vars;

  Vary of(const Atom &a) const {
    if (a.isLit) return {};
    auto it = vars.find(a.var.id);
    return it == vars.end() ? Vary{} : it->second;
  }

  /// The mesh axes named by an equation's axis parameter.
  std::vector<int> axesOf(const ir::Eqn &e) const {
    std::vector<int> out;
    std::function<void(const Param &)> walk = [&](const Param &p) {
      if (p.kind == Param::Str) {
        for (size_t k = 0; k < mesh_.size(); ++k)
          if (mesh_[k].name == p.s) out.push_back(int(k));
      }
      for (auto &x : p.elems) walk(x);
    };
    for (const char *k : {"axes", "axis_name"})
      if (e.has(k)) walk(e.param(k));
    return out;
  }

  /// Runs over `j`, whose invars' entries are already in `vars`; returns its outvars'.
  std::vector<Vary> run(const ir::Jaxpr &j) {
    for (auto &e : j.eqns) eqn(e);
    std::vector<Vary> out;
    for (auto &a : j.outvars) out.push_back(of(a));
    return out;
  }

private:
  const std::vector<MeshAx> &mesh_;

  void eqn(const ir::Eqn &e) {
    Vary all;
    for (auto &a : e.in) unite(all, of(a));
    std::vector<Vary> outs(e.out.size(), all);
    if (const ir::CollectiveInfo *c = ir::collectiveInfo(e.op)) {
      // psum, pmax, pmin, all_gather: the same on every member of the group; the others
      // differ from member to member (ir/Collectives.h).
      for (int k : axesOf(e))
        if (c->invariant)
          all.erase(k);
        else
          all.emplace(k, e.loc);
      outs.assign(e.out.size(), all);
      for (size_t k = 0; k < e.out.size(); ++k) vars[e.out[k].id] = outs[k];
      return;
    }
    switch (e.op) {
    case Op::Pmap:
    case Op::Vmap:
      for (size_t k = 0; k < e.regions[0].invars.size() && k < e.in.size(); ++k)
        vars[e.regions[0].invars[k].id] = of(e.in[k]);
      outs = run(e.regions[0]);
      break;
    case Op::Cond: {  // pred, operands; regions: false, true
      Vary pred = of(e.in[0]);
      std::vector<Vary> merged(e.out.size(), pred);
      for (auto &r : e.regions) {
        for (size_t k = 0; k < r.invars.size() && k + 1 < e.in.size(); ++k)
          vars[r.invars[k].id] = of(e.in[k + 1]);
        auto o = run(r);
        for (size_t k = 0; k < o.size() && k < merged.size(); ++k) unite(merged[k], o[k]);
      }
      outs = merged;
      break;
    }
    case Op::ForLoop: {  // consts, carries; region invars: index, consts, carries
      const ir::Jaxpr &r = e.regions[0];
      size_t nIn = e.in.size(), skip = r.invars.size() - nIn;  // the index comes first
      std::vector<Vary> carry;
      for (auto &a : e.in) carry.push_back(of(a));
      for (int round = 0; round <= int(mesh_.size()) + 1; ++round) {
        for (size_t k = 0; k < skip; ++k) vars[r.invars[k].id] = {};
        for (size_t k = 0; k < nIn; ++k) vars[r.invars[k + skip].id] = carry[k];
        auto o = run(r);
        bool grew = false;
        size_t nConst = nIn - o.size();
        for (size_t k = 0; k < o.size(); ++k) {
          size_t before = carry[nConst + k].size();
          unite(carry[nConst + k], o[k]);
          grew |= carry[nConst + k].size() != before;
        }
        if (!grew) {
          outs.assign(carry.begin() + long(nConst), carry.end());
          break;
        }
      }
      break;
    }
    default: break;
    }
    for (size_t k = 0; k < e.out.size() && k < outs.size(); ++k) vars[e.out[k].id] = outs[k];
  }
};

}  // namespace

namespace {
/// a * b for positive sizes, at most 2^62 (a count of devices that no machine has).
int64_t saturatingMul(int64_t a, int64_t b) {
  const int64_t cap = int64_t(1) << 62;
  return a > cap / b ? cap : std::min(cap, a * b);
}

/// A mesh's axes, checked: sizes at least 1, no name twice.
ValueP makeMesh(std::vector<std::pair<ast::Ident, std::pair<int64_t, SrcRange>>> axes) {
  auto v = std::make_shared<Value>();
  v->kind = Value::Mesh;
  for (auto &[name, size] : axes) {
    if (size.first <= 0)
      userError(size.second,
                "a mesh axis needs at least one device, not " + std::to_string(size.first));
    for (auto &m : v->meshAxes)
      if (m.name == name.name)
        userError(name.loc, "mesh axis '" + name.name + "' is named twice",
                  {{m.loc, "first named here"}});
    v->meshAxes.push_back(name);
    v->meshSizes.push_back(size.first);
  }
  return v;
}
}  // namespace

ValueP AstLowering::meshBuiltin(const std::vector<ArgV> &args, const std::vector<AxisP> &axes,
                                SrcRange loc) {
  if (!axes.empty()) userError(loc, "mesh() takes no axis arguments in [ ]");
  if (args.empty()) userError(loc, "mesh() needs at least one axis: `mesh(rows=4, cols=2)`");
  std::vector<std::pair<ast::Ident, std::pair<int64_t, SrcRange>>> mesh;
  for (auto &a : args) {
    if (a.keyword.empty())
      userError(a.loc, "mesh() takes its axes as NAME=SIZE, as in `mesh(rows=4, cols=2)`");
    mesh.push_back({ast::Ident{a.keyword, a.keywordLoc},
                    {staticInt(a.value, a.loc, "a mesh axis size"), a.loc}});
  }
  return makeMesh(std::move(mesh));
}

ValueP AstLowering::shardMapExpr(const ShardMapExpr &s) {
  // ---- the mesh: written in place, or a mesh value bound by name ----
  ValueP meshValue;
  if (s.meshName) {
    Scope::Binding *b = scope->lookup(s.meshName->name);
    if (!b) userError(s.meshName->loc, "'" + s.meshName->name + "' is not defined");
    if (b->value->kind != Value::Mesh)
      userError(
          s.meshName->loc,
          "shard_map needs a mesh, but '" + s.meshName->name + "' is " + describe(*b->value),
          {{SrcRange{}, "bind one with `let " + s.meshName->name + " = mesh(rows=4, cols=2)`"}});
    meshValue = b->value;
  } else {
    std::vector<std::pair<ast::Ident, std::pair<int64_t, SrcRange>>> axes;
    for (auto &a : s.mesh)
      axes.push_back(
          {a.name, {staticInt(expr(*a.size), a.size->loc, "a mesh axis size"), a.size->loc}});
    meshValue = makeMesh(std::move(axes));
  }
  std::vector<MeshAx> mesh;
  int64_t devices = 1;
  for (size_t k = 0; k < meshValue->meshAxes.size(); ++k) {
    int64_t n = meshValue->meshSizes[k];
    mesh.push_back({meshValue->meshAxes[k].name, n});
    devices = saturatingMul(devices, n);
  }
  std::string meshText = "(";
  for (size_t k = 0; k < mesh.size(); ++k)
    meshText += (k ? ", " : "") + mesh[k].name + "=" + std::to_string(mesh[k].size);
  meshText += ")";
  int64_t need = devices;
  for (auto &a : pmapStack) need = saturatingMul(need, a->size);
  if (need > opts.deviceCount)
    userError(s.loc,
              "shard_map over mesh " + meshText + " needs " + std::to_string(need) +
                  " devices, but only " + std::to_string(opts.deviceCount) + " are available",
              {{SrcRange{}, "run with " + opts.devicesFlagHint + " (N >= " + std::to_string(need) +
                                ") to use more logical devices"}});
  if (pmapStack.size() + mesh.size() > 8)
    userError(s.loc, "pmap and shard_map nested too deeply: at most 8 mesh axes in all");

  // Resolves a spec's axis names against the mesh: per dimension, mesh axis indices.
  auto resolve = [&](const PartitionSpec &spec) {
    std::vector<std::vector<int>> dims;
    std::map<int, SrcRange> used;
    for (auto &d : spec.dims) {
      auto &out = dims.emplace_back();
      for (auto &id : d.axes) {
        auto it = std::find_if(mesh.begin(), mesh.end(),
                               [&](const MeshAx &m) { return m.name == id.name; });
        if (it == mesh.end())
          userError(id.loc, "'" + id.name + "' is not an axis of the mesh " + meshText);
        int k = int(it - mesh.begin());
        if (used.count(k))
          userError(id.loc,
                    "mesh axis '" + id.name + "' appears twice in the partition spec " +
                        specText(spec),
                    {{used[k], "first here"}});
        used[k] = id.loc;
        out.push_back(k);
      }
    }
    return dims;
  };

  // ---- 1. the inputs, laid out for the mesh ----
  struct Input {
    ValueP value;             ///< [mesh dims of `axes`, in mesh order; block dims]
    std::vector<bool> split;  ///< per mesh axis
    SrcRange loc;
  };
  std::vector<Input> inputs;
  for (auto &bd : s.bindings) {
    ValueP v = expr(*bd.source);
    if (v->kind == Value::Tuple && !v->isList)
      userError(bd.source->loc, "a shard_map input is one array, with one partition spec");
    ValueP a = v->kind == Value::Array ? v : toArray(v, bd.source->loc);
    ir::Type t = a->type();
    auto dims = resolve(bd.spec);
    if (int64_t(dims.size()) != t.rank())
      userError(bd.spec.loc, "the partition spec " + specText(bd.spec) + " has " +
                                 entries(dims.size()) + ", but the input is " + t.str() +
                                 " (rank " + std::to_string(t.rank()) + ")");
    ir::Shape split;
    std::vector<int> meshDimAt(mesh.size(), -1);  // position of each mesh axis's dimension
    std::vector<int64_t> blockPos;
    for (size_t j = 0; j < dims.size(); ++j) {
      int64_t parts = 1;
      std::string names;
      for (int k : dims[j]) {
        parts *= mesh[k].size;
        names += (names.empty() ? "'" : " x '") + mesh[k].name + "' (" +
                 std::to_string(mesh[k].size) + ")";
      }
      if (t.shape[j] % parts != 0)
        userError(bd.spec.dims[j].loc, "dimension " + std::to_string(j) + " of the input " +
                                           t.str() + " has size " + std::to_string(t.shape[j]) +
                                           ", which " + names + " does not divide");
      for (int k : dims[j]) {
        meshDimAt[k] = int(split.size());
        split.push_back(mesh[k].size);
      }
      blockPos.push_back(int64_t(split.size()));
      split.push_back(t.shape[j] / parts);
    }
    b().setLoc(bd.source->loc);
    Atom x = a->atom;
    if (split != t.shape) x = emit1(Op::Reshape, {x}, reshapeParams(split));
    std::vector<int64_t> perm;
    Input in;
    in.split.assign(mesh.size(), false);
    for (size_t k = 0; k < mesh.size(); ++k)
      if (meshDimAt[k] >= 0) {
        perm.push_back(meshDimAt[k]);
        in.split[k] = true;
      }
    perm.insert(perm.end(), blockPos.begin(), blockPos.end());
    bool identity = true;
    for (size_t k = 0; k < perm.size(); ++k) identity &= perm[k] == int64_t(k);
    if (!identity) x = emit1(Op::Transpose, {x}, transposeParams(perm));
    in.value = Value::array(x, a->weak);
    in.loc = bd.pattern.loc;
    inputs.push_back(std::move(in));
  }

  // ---- 2. one pmap per mesh axis ----
  struct Level {
    std::vector<std::pair<ir::Var, size_t>> slices;  ///< region invar, input index
    std::vector<ir::Var> captureVars;
    std::vector<Atom> captured;
  };
  std::vector<Level> levels(mesh.size());
  std::vector<ValueP> cur;
  for (auto &in : inputs) cur.push_back(in.value);
  std::function<ValueP(size_t)> level = [&](size_t k) -> ValueP {
    if (k == mesh.size()) {
      for (size_t i = 0; i < s.bindings.size(); ++i)
        bindPattern(s.bindings[i].pattern, cur[i], false, s.bindings[i].pattern.loc);
      return block(*s.body->as<BlockExpr>(), false);
    }
    std::vector<Atom> ins;
    std::vector<size_t> mapped;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i].split[k]) {
        ins.push_back(local(cur[i]->atom));
        mapped.push_back(i);
      }
    if (ins.empty()) {  // nothing is split over this axis: map over its indices
      b().setLoc(s.loc);
      ins.push_back(emit1(Op::Iota, {},
                          {{"dtype", Param::ofDType(ir::DType::I32)},
                           {"shape", Param::ints({mesh[k].size})},
                           {"dimension", Param::of(0)}}));
    }
    auto ax = std::make_shared<AxisInfo>();
    ax->name = mesh[k].name;
    ax->size = mesh[k].size;
    ax->isPmap = true;
    std::vector<ValueP> outer = cur;
    pushFrame(true);
    for (size_t j = 0; j < ins.size(); ++j) {
      ir::Type t = ins[j].type();
      t.shape.erase(t.shape.begin());
      ir::Var v = newInvar(t);
      if (j < mapped.size()) {
        cur[mapped[j]] = Value::array(v, cur[mapped[j]]->weak);
        levels[k].slices.push_back({v, mapped[j]});
      }
    }
    ScopeP parentScope = scope;
    scope = makeScope();
    scope->parent = parentScope;
    scope->axes[mesh[k].name] = ax;
    pmapStack.push_back(ax);
    axisStack.push_back(ax);
    ValueP result;
    try {
      result = level(k + 1);
    } catch (...) {
      pmapStack.pop_back();
      axisStack.pop_back();
      popFrame();
      scope = parentScope;
      throw;
    }
    pmapStack.pop_back();
    axisStack.pop_back();
    scope = parentScope;
    std::vector<ValueP> outLeaves, outArrs;
    leaves(result, outLeaves);
    for (auto &l : outLeaves) {
      ValueP a = l->kind == Value::Array ? l : toArray(l, s.body->loc);
      top().jaxpr.outvars.push_back(local(a->atom));
      outArrs.push_back(a);
    }
    auto f = popFrame();
    cur = outer;
    f->jaxpr.invars.insert(f->jaxpr.invars.end(), f->captureVars.begin(), f->captureVars.end());
    levels[k].captureVars = f->captureVars;
    levels[k].captured = f->captured;
    for (auto &c : f->captured) ins.push_back(c);
    std::vector<Param> inAxes(ins.size() - f->captured.size(), Param::of(0));
    for (size_t j = 0; j < f->captured.size(); ++j) inAxes.push_back(Param::none());
    ir::Params params{{"axis_name", Param::ofStr(mesh[k].name)},
                      {"axis_size", Param::of(mesh[k].size)},
                      {"in_axes", Param::tuple(inAxes)},
                      {"out_axes", Param::ints(std::vector<int64_t>(outArrs.size(), 0))}};
    b().setLoc(s.loc);
    std::vector<ir::Jaxpr> regions;
    regions.push_back(std::move(f->jaxpr));
    auto outs = emit(Op::Pmap, ins, params, std::move(regions));
    std::vector<ValueP> res;
    for (size_t j = 0; j < outs.size(); ++j) res.push_back(Value::array(outs[j], outArrs[j]->weak));
    size_t pos = 0;
    return fromLeaves(*result, res, pos);
  };
  ValueP result = level(0);

  // ---- Note [Replication checking] ----
  // The regions are nested: level k's region holds level k+1's pmap. Fill in what each
  // level's invars vary along, outermost first, then run the body.
  VaryAnalysis va(mesh);
  const ir::Jaxpr *region = nullptr;
  {
    const ir::Jaxpr *r = &top().jaxpr;
    for (size_t k = 0; k < mesh.size(); ++k) {
      auto it = std::find_if(r->eqns.rbegin(), r->eqns.rend(), [&](const ir::Eqn &e) {
        return e.op == Op::Pmap && e.has("axis_name") && e.param("axis_name").kind == Param::Str &&
               e.param("axis_name").s == mesh[k].name;
      });
      internal_assert(it != r->eqns.rend(), "shard_map: a level's pmap is missing");
      const ir::Jaxpr &reg = it->regions[0];
      // invars: mapped (slices and perhaps an iota), then captures (in_axes None).
      size_t nMapped = reg.invars.size() - levels[k].captureVars.size();
      for (size_t j = 0; j < nMapped; ++j) {
        Vary v;
        if (j < levels[k].slices.size()) {
          size_t i = levels[k].slices[j].second;
          for (size_t a = 0; a <= k; ++a)
            if (inputs[i].split[a]) v.emplace(int(a), inputs[i].loc);
        }
        va.vars[reg.invars[j].id] = v;
      }
      for (size_t j = 0; j < levels[k].captured.size(); ++j)
        va.vars[reg.invars[nMapped + j].id] = va.of(levels[k].captured[j]);
      r = region = &reg;
    }
  }
  std::vector<Vary> outVary = va.run(*region);

  // ---- 3. the results, placed by the output specs ----
  std::vector<ValueP> outLeaves;
  if (s.outTuple) {
    if (result->kind != Value::Tuple || result->elems.size() != s.outSpecs.size())
      userError(s.outLoc, "the output spec is a tuple of " + std::to_string(s.outSpecs.size()) +
                              " specs, but the body's value is not a tuple of as many arrays");
    for (auto &e : result->elems) {
      if (e->kind != Value::Array) userError(s.outLoc, "each result of a shard_map is one array");
      outLeaves.push_back(e);
    }
  } else {
    if (result->kind != Value::Array)
      userError(
          s.outLoc,
          "the body's value is not one array: give a tuple of output specs, `-> ([..], [..])`");
    outLeaves.push_back(result);
  }
  std::vector<ValueP> placed;
  for (size_t r = 0; r < outLeaves.size(); ++r) {
    const PartitionSpec &spec = s.outSpecs[r];
    auto dims = resolve(spec);
    ir::Type t = outLeaves[r]->type();  // [mesh dims..., block...]
    int64_t blockRank = t.rank() - int64_t(mesh.size());
    if (int64_t(dims.size()) != blockRank) {
      ir::Type bt{t.dtype, ir::Shape(t.shape.begin() + long(mesh.size()), t.shape.end())};
      userError(spec.loc, "the output spec " + specText(spec) + " has " + entries(dims.size()) +
                              ", but the body's value is " + bt.str() + " (rank " +
                              std::to_string(blockRank) + ")");
    }
    std::vector<bool> named(mesh.size(), false);
    for (auto &d : dims)
      for (int k : d) named[k] = true;
    for (auto &[k, origin] : outVary[r])
      if (!named[k])
        userError(spec.loc,
                  "the result varies along mesh axis '" + mesh[k].name +
                      "', which the output spec " + specText(spec) + " does not split over",
                  {{origin, "it varies along '" + mesh[k].name + "' from here"},
                   {SrcRange{}, "psum, pmean, pmax, pmin or all_gather over '" + mesh[k].name +
                                    "' makes a value the same along it; or name it in the spec"}});
    b().setLoc(s.loc);
    Atom x = outLeaves[r]->atom;
    // Replica 0 along the axes the spec leaves out (the value is the same along them).
    ir::Shape kept;
    std::vector<int64_t> start(t.rank(), 0), limit = t.shape;
    bool drop = false;
    for (size_t k = 0; k < mesh.size(); ++k)
      if (!named[k]) {
        limit[k] = 1;
        drop = true;
      }
    std::vector<int> meshPos(mesh.size(), -1);  // position in the reduced array
    int64_t pos = 0;
    for (size_t k = 0; k < mesh.size(); ++k)
      if (named[k]) {
        meshPos[k] = int(pos++);
        kept.push_back(t.shape[k]);
      }
    for (int64_t j = 0; j < blockRank; ++j) kept.push_back(t.shape[mesh.size() + j]);
    if (drop) {
      x = emit1(Op::Slice, {x},
                {{"start_indices", Param::ints(start)},
                 {"limit_indices", Param::ints(limit)},
                 {"strides", Param::none()}});
      x = emit1(Op::Reshape, {x}, reshapeParams(kept));
    }
    const Atom blocks = x;  // [named mesh dims, in mesh order..., block...]
    // For each block dimension: the mesh dimensions it is split over (in the spec's
    // order), then the block dimension; then merge each group.
    std::vector<int64_t> perm;
    ir::Shape merged;
    int64_t nMesh = pos;
    for (int64_t j = 0; j < blockRank; ++j) {
      int64_t size = kept[nMesh + j];
      for (int k : dims[j]) {
        perm.push_back(meshPos[k]);
        size *= mesh[k].size;
      }
      perm.push_back(nMesh + j);
      merged.push_back(size);
    }
    bool identity = true;
    for (size_t k = 0; k < perm.size(); ++k) identity &= perm[k] == int64_t(k);
    if (!identity) x = emit1(Op::Transpose, {x}, transposeParams(perm));
    ir::Shape split = x.type().shape;
    if (merged != kept) x = emit1(Op::Reshape, {x}, reshapeParams(merged));
    auto v = std::make_shared<Value>(*Value::array(x, outLeaves[r]->weak));
    int64_t over = 1;
    for (size_t k = 0; k < mesh.size(); ++k)
      if (named[k]) over *= mesh[k].size;
    // Note [Sharded host values] (HostShards.cpp): the result stays laid out over the
    // mesh as its out spec says.
    if (over > 1 && !inMapBody() && !x.isLit) {
      Shard sd;
      for (auto &m : mesh) sd.mesh.push_back(m.size);
      sd.dims = dims;
      shards[x.var.id] = sd;
      if (!blocks.isLit && !(blocks.var.id == x.var.id)) shardBlocks[x.var.id] = blocks;
    }
    std::string meshAxes;
    for (size_t k = 0; k < mesh.size(); ++k)
      meshAxes += (k ? ", " : "") + mesh[k].name + "=" + std::to_string(mesh[k].size);
    v->sharding = (over == 1 ? std::string("replicated")
                             : "sharded over " + std::to_string(over) + " devices") +
                  " as " + specText(spec) + " (mesh " + meshAxes + ")";
    placed.push_back(v);
  }
  return s.outTuple ? Value::tuple(placed) : placed[0];
}

}  // namespace spmd::sema
