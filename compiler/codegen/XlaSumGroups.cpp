// ===- XlaSumGroups.cpp - YNNPACK's order for any reduced axes --------------===//
//
// Note [YNNPACK groups] (extends Note [XLA sum order], XlaSum.cpp): a sum of at least
// 4096 elements over reduced axes that are not one run of adjacent axes ([a, b, c] over
// (0, 2)), or over adjacent axes that YNNPACK's tiles split ([21, 71, 121] over (0, 1)).
// Measured against jax.jit(jnp.sum) (jaxlib 0.10.2) with the NumPy model
// tests/difftest/sum_model/ynn_tiling.py (`ynn_groups`):
// 1. Squeeze size-1 dimensions and fuse the innermost run of dimensions of one kind
//    (reduced or kept) into one; the other dimensions stay apart.
// 2. Tile that shape as Note [XLA sum order] says (from the innermost, min(extent,
//    32768 / the inner tiles)): one dimension is split, every one outside it has tile 1.
//    When no reduced dimension is split, step 3 runs on the whole input; else each tile
//    of the innermost split reduced dimension (a contiguous block) is reduced by step 3
//    into its own partial, from 0, and step 3 then reduces the partials (the reduced
//    dimensions of the input become the number of tiles along them). A kept dimension
//    split inside it does not change the order ([10, 5000, 8] over (0, 2): partials of
//    each [5000, 8], then kn over the 10 partials).
// 3. The untiled reduce of a contiguous block: fuse adjacent dimensions of one kind.
//    If the innermost is reduced, each run of it is summed by k1 and added to its output
//    (which starts at 0), the runs in row-major order; else the innermost is kept (C
//    columns) and each slab [R, C] of the reduced dimension before it is summed by kn,
//    added to its C outputs, the slabs in row-major order.
// Not modelled (emitReduce's own order is used): a split reduced dimension with a
// reduced dimension just outside it ([5, 35, 1442] over (0, 1)): jaxlib's YNNPACK
// schedules those partials otherwise; a split kept dimension longer than 32768 with a
// reduced one outside it ([7, 40000, 3] over (0, 2) adds the runs in order, without
// partials, unlike [7, 20000, 3]; one shape measured, the rule is not known).
#include "codegen/XlaSumGroups.h"

namespace spmd::codegen::xlasum {

namespace {

/// Step 1: the squeezed shape with its innermost run of one kind fused.
void innerFused(const std::vector<int64_t> &shape, const std::vector<bool> &red,
                std::vector<int64_t> &ns, std::vector<bool> &rs) {
  ns.clear(), rs.clear();
  for (size_t k = 0; k < shape.size(); ++k)
    if (shape[k] != 1) ns.push_back(shape[k]), rs.push_back(red[k]);
  while (ns.size() >= 2 && rs[ns.size() - 2] == rs.back()) {
    ns[ns.size() - 2] *= ns.back();
    ns.pop_back(), rs.pop_back();
  }
}

/// Step 2: the reduced dimension whose tiles the partials follow (-1: none) and its tile.
/// The tiles split one dimension i; every one outside it has tile 1 (a tile of 32768 /
/// the inner tiles < n_i leaves at most 1 for them). A split kept dimension changes no
/// output's order, but a reduced one outside it (tile 1) does: its partials are taken.
int splitDim(const std::vector<int64_t> &ns, const std::vector<bool> &rs, int64_t &tile) {
  int64_t area = 1;
  for (size_t k = ns.size(); k-- > 0;) {
    int64_t t = std::max<int64_t>(1, std::min(ns[k], kTileArea / area));
    if (t < ns[k]) {
      for (size_t j = k + 1; j-- > 0;)
        if (rs[j]) return tile = j == k ? t : 1, int(j);
      return -1;
    }
    area *= t;
  }
  return -1;
}

struct Groups {
  Emit &E;
  LlvmEmitter &L;
  IRBuilder<> &b;

  /// 16 consecutive elements of `p` from i0; lanes at or past `valid` are 0.0.
  Value *vec(Value *p, Value *i0, int64_t valid) {
    if (valid == kLanes)
      return b.CreateAlignedLoad(E.v16, b.CreateInBoundsGEP(E.f, p, i0), Align(4));
    Value *v = E.zero16();
    for (int64_t q = 0; q < valid; ++q)
      v = b.CreateInsertElement(v, E.ld(E.f, E.at(p, b.CreateAdd(i0, L.c64(q)))), uint64_t(q));
    return v;
  }

  /// Step 3 on the contiguous block of `src` from `off` with dimensions ns/rs: adds each
  /// output's sum to out[outOff + its row-major index over the kept dimensions].
  void untiled(Value *src, Value *off, std::vector<int64_t> ns0, const std::vector<bool> &rs0,
               Value *out, Value *outOff) {
    std::vector<int64_t> ns;
    std::vector<bool> rs;
    for (size_t k = 0; k < ns0.size(); ++k) {
      if (ns0[k] == 1) continue;
      if (!ns.empty() && rs.back() == rs0[k]) {
        ns.back() *= ns0[k];
        continue;
      }
      ns.push_back(ns0[k]), rs.push_back(rs0[k]);
    }
    auto addTo = [&](Value *o, Value *v) {
      Value *p = E.at(out, b.CreateAdd(outOff, o));
      b.CreateStore(b.CreateFAdd(E.ld(E.f, p), v), p);
    };
    if (std::find(rs.begin(), rs.end(), true) == rs.end()) {  // nothing left to reduce
      int64_t n = 1;
      for (int64_t x : ns) n *= x;
      E.loop(0, n, [&](Value *i) { addTo(i, E.ld(E.f, E.at(src, b.CreateAdd(off, i)))); });
      return;
    }
    size_t nOuter = rs.back() ? ns.size() - 1 : ns.size() - 2;
    // The output index of the outer index q (its kept digits, row-major).
    std::vector<int64_t> keptStride(nOuter, 0);
    int64_t ks = rs.back() ? 1 : ns.back(), nq = 1;
    for (size_t k = nOuter; k-- > 0;) {
      nq *= ns[k];
      if (!rs[k]) keptStride[k] = ks, ks *= ns[k];
    }
    auto outIndex = [&](Value *q) {
      Value *o = L.c64(0);
      for (size_t k = nOuter; k-- > 0;) {
        if (keptStride[k])
          o = b.CreateAdd(o, b.CreateMul(b.CreateURem(q, L.c64(ns[k])), L.c64(keptStride[k])));
        q = b.CreateUDiv(q, L.c64(ns[k]));
      }
      return o;
    };
    if (rs.back()) {  // runs of K by k1
      int64_t K = ns.back();
      E.loop(0, nq, [&](Value *q) {
        Value *run = b.CreateAdd(off, b.CreateMul(q, L.c64(K)));
        addTo(outIndex(q), E.k1(K, [&](Value *i, int64_t valid) { return vec(src, b.CreateAdd(run, i), valid); }));
      });
      return;
    }
    int64_t R = ns[ns.size() - 2], C = ns.back();  // slabs [R, C] by kn
    E.loop(0, nq, [&](Value *q) {
      Value *slab = b.CreateAdd(off, b.CreateMul(q, L.c64(R * C)));
      Value *o = outIndex(q);
      auto group = [&](Value *c0, bool full) {
        Value *res = E.kn(R, E.zero16(), [&](Value *r) {
          Value *rowLin = b.CreateAdd(slab, b.CreateMul(r, L.c64(C)));
          if (full) return vec(src, b.CreateAdd(rowLin, c0), kLanes);
          Value *v = E.zero16();  // the columns past C repeat column C - 1, unused
          for (int64_t l = 0; l < kLanes; ++l) {
            Value *c = b.CreateAdd(c0, L.c64(l));
            c = b.CreateSelect(b.CreateICmpSLT(c, L.c64(C)), c, L.c64(C - 1));
            v = b.CreateInsertElement(v, E.ld(E.f, E.at(src, b.CreateAdd(rowLin, c))), uint64_t(l));
          }
          return v;
        });
        for (int64_t l = 0; l < kLanes; ++l) {
          Value *c = b.CreateAdd(c0, L.c64(l));
          auto put = [&] { addTo(b.CreateAdd(o, c), b.CreateExtractElement(res, uint64_t(l))); };
          if (full) put();
          else E.ifThen(b.CreateICmpSLT(c, L.c64(C)), put);
        }
      };
      E.loop(0, C / kLanes, [&](Value *g) { group(b.CreateMul(g, L.c64(kLanes)), true); });
      if (C % kLanes) group(L.c64(C / kLanes * kLanes), false);
    });
  }

  void zero(Value *p, int64_t n) {
    E.loop(0, n, [&](Value *i) { b.CreateStore(E.cf(0.0f), E.at(p, i)); });
  }
};

}  // namespace

bool ynnGroupsModelled(const std::vector<int64_t> &shape, const std::vector<bool> &red) {
  std::vector<int64_t> ns;
  std::vector<bool> rs;
  innerFused(shape, red, ns, rs);
  int64_t tile = 0;
  int i = splitDim(ns, rs, tile);
  if (i > 0 && rs[size_t(i - 1)]) return false;
  // A split kept dimension longer than a tile with a reduced one outside it: [7, 40000,
  // 3] over (0, 2) sums each output in order, with no partials ([7, 20000, 3] takes them).
  for (size_t k = size_t(std::max(i, 0)) + 1; i >= 0 && k < ns.size(); ++k)
    if (!rs[k] && ns[k] > kTileArea) return false;
  return true;
}

void emitYnnGroups(Emit &E, const std::vector<int64_t> &shape, const std::vector<bool> &red,
                   Value *src, Value *dst, std::vector<Value *> &heap) {
  LlvmEmitter &L = E.L;
  Groups G{E, L, L.b};
  std::vector<int64_t> ns;
  std::vector<bool> rs;
  innerFused(shape, red, ns, rs);
  int64_t nOut = 1;
  for (size_t k = 0; k < ns.size(); ++k)
    if (!rs[k]) nOut *= ns[k];
  G.zero(dst, nOut);
  int64_t t = 0;
  int i = splitDim(ns, rs, t);
  if (i < 0) return G.untiled(src, L.c64(0), ns, rs, dst, L.c64(0));
  // Partials [outer..., tiles along dimension i, kept dimensions inside it].
  size_t d = size_t(i);
  int64_t outer = 1, inner = 1, keptIn = 1, n = ns[d], cnt = ceilDiv(n, t);
  for (size_t k = 0; k < d; ++k) outer *= ns[k];
  for (size_t k = d + 1; k < ns.size(); ++k) inner *= ns[k], keptIn *= rs[k] ? 1 : ns[k];
  std::vector<int64_t> pn(ns.begin(), ns.begin() + long(d)), tileN(ns.begin() + long(d), ns.end());
  pn.push_back(cnt);
  for (size_t k = d + 1; k < ns.size(); ++k) pn.push_back(rs[k] ? 1 : ns[k]);
  std::vector<bool> tileR(rs.begin() + long(d), rs.end());
  Value *parts = E.scratch(outer * cnt * keptIn, heap);
  G.zero(parts, outer * cnt * keptIn);
  auto &b = L.b;
  E.loop(0, outer, [&](Value *q) {
    E.tiles(n, t, [&](Value *start, int64_t k) {
      tileN[0] = k;
      Value *off = b.CreateMul(b.CreateAdd(b.CreateMul(q, L.c64(n)), start), L.c64(inner));
      Value *slot = b.CreateAdd(b.CreateMul(q, L.c64(cnt)), b.CreateUDiv(start, L.c64(t)));
      G.untiled(src, off, tileN, tileR, parts, b.CreateMul(slot, L.c64(keptIn)));
    });
  });
  G.untiled(parts, L.c64(0), pn, rs, dst, L.c64(0));
}

}  // namespace spmd::codegen::xlasum
