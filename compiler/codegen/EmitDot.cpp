// ===- EmitDot.cpp - dot_general on the CPU and in device programs ---------===//
//
// The matrix products: in the host and CPU kernels, BLIS (spmd_cpu_gemm) for f32/f64
// products of more than kBlasMinWork multiply-adds, else a cache-blocked FMA loop nest
// that sums in the same order (Note [Dot]); cuBLAS or an in-order FMA kernel in device
// programs.
#include "codegen/LlvmEmitter.h"
#include "codegen/XlaSum.h"
#include "codegen/XlaSumEmit.h"

#include <llvm/IR/Intrinsics.h>

#include <algorithm>
#include <string_view>

namespace spmd::codegen {

using namespace llvm;
using ir::DType;
using ir::Op;

namespace {
/// dot_general as a batched matrix product: the lhs transposed by lhsPerm is [B, M, K]
/// and the rhs transposed by rhsPerm is [B, K, N] (batch, free, contracting dimensions,
/// each in order), whatever its dimension_numbers. Both targets start from this.
struct DotShape {
  std::vector<int64_t> lhsPerm, rhsPerm;
  int64_t B = 1, M = 1, K = 1, N = 1;
  size_t batchDims = 0, lhsFreeDims = 0, rhsContractDims = 0;  ///< group sizes in the perms
};

/// Whether an operand whose canonical form is `perm` (batch ++ first ++ second groups,
/// `nb` and `nfirst` dimensions) is stored as batch ++ second ++ first, each group in
/// order: a transposed matrix per batch, which BLIS reads in place.
bool swappedView(const std::vector<int64_t> &perm, size_t nb, size_t nfirst) {
  std::vector<int64_t> s(perm.begin(), perm.begin() + int64_t(nb));
  s.insert(s.end(), perm.begin() + int64_t(nb + nfirst), perm.end());
  s.insert(s.end(), perm.begin() + int64_t(nb), perm.begin() + int64_t(nb + nfirst));
  for (size_t k = 0; k < s.size(); ++k)
    if (s[k] != int64_t(k)) return false;
  return true;
}

DotShape dotShape(const ir::Eqn &e) {
  const ir::Param &dn = e.param("dimension_numbers");
  auto lc = dn.elems[0].elems[0].toInts(), rc = dn.elems[0].elems[1].toInts();
  auto lb = dn.elems[1].elems[0].toInts(), rb = dn.elems[1].elems[1].toInts();
  const ir::Shape &ls = e.in[0].type().shape, &rs = e.in[1].type().shape;
  auto freeDims = [](size_t rank, const std::vector<int64_t> &x, const std::vector<int64_t> &y) {
    std::vector<int64_t> f;
    for (int64_t k = 0; k < int64_t(rank); ++k)
      if (std::find(x.begin(), x.end(), k) == x.end() &&
          std::find(y.begin(), y.end(), k) == y.end())
        f.push_back(k);
    return f;
  };
  auto prod = [](const ir::Shape &s, const std::vector<int64_t> &dims) {
    int64_t p = 1;
    for (auto k : dims) p *= s[k];
    return p;
  };
  auto lf = freeDims(ls.size(), lb, lc), rf = freeDims(rs.size(), rb, rc);
  DotShape g;
  g.B = prod(ls, lb), g.M = prod(ls, lf), g.K = prod(ls, lc), g.N = prod(rs, rf);
  g.lhsPerm = lb, g.rhsPerm = rb;
  g.batchDims = lb.size(), g.lhsFreeDims = lf.size(), g.rhsContractDims = rc.size();
  g.lhsPerm.insert(g.lhsPerm.end(), lf.begin(), lf.end());
  g.lhsPerm.insert(g.lhsPerm.end(), lc.begin(), lc.end());
  g.rhsPerm.insert(g.rhsPerm.end(), rc.begin(), rc.end());
  g.rhsPerm.insert(g.rhsPerm.end(), rf.begin(), rf.end());
  return g;
}

// Note [XLA dot order]: JAX's f32 products on CPU are summed in XLA:CPU's order where that
// order is fixed by XLA itself (jaxlib 0.10.2; measured bit for bit against
// jax.jit(jnp.matmul), tests/conformance/sweep_dot.py):
// - vector . vector: XLA rewrites it as multiply and reduce (AlgebraicSimplifier). Over
//   more than 32 elements the products are rounded and summed in the order of Note [XLA
//   sum order], per batch as reduce_sum over the last axis of [batch, k]
//   (emitXlaOrderDot in XlaSum.cpp; the IR keeps the dot_general). Up to 32 elements the
//   multiply fuses into the reduce's loop and the backend contracts each step: one FMA
//   chain from 0, k in order. Both also per batch and for free dimensions all of size 1,
//   which XLA drops.
// - matrix . vector and vector . matrix (no batch): XLA's own tiled gemv emitters
//   (tiled_dot_emitter.cc), with vectors of 8 floats (xla_cpu_prefer_vector_width=256)
//   and fused multiply-adds (the backend contracts them on any CPU with FMA):
//   * A @ x (XLA's row-major gemv, A [M, K] with k contiguous): rows in tiles of 8;
//     per row, 8 lanes, lane l an FMA chain over k = l (mod 8) for k below K - K % 8;
//     the rest of k an in-order FMA chain from 0 (s); the result is hsum(lanes) + s,
//     hsum being ((l0+l1)+(l2+l3))+((l4+l5)+(l6+l7)) for a full tile
//     of 8 rows (XLA's AVX horizontal sums) and ((l0+l4)+(l2+l6))+((l1+l5)+(l3+l7))
//     (halving) for the last, partial tile;
//   * x @ B (XLA's column-major gemv, B [K, N]): each output one FMA chain over k in
//     order, from 0.
//   Both depend on the CPU only through FMA and the 256-bit preference, the same on every
//   x86-64 CPU with AVX2 and FMA; without FMA (or on other architectures) JAX's own bits
//   differ. Known differences: a matrix operand that is a transpose computed in the same
//   jit is fused into the dot by XLA (a loop fusion, summed elementwise, another order;
//   here the transpose is a buffer and the gemv order is used); the last N mod 8
//   outputs of vector . matrix (XLA's scalar epilogue) now and then differ by an ulp
//   (1 element of 593 in one of 30 random shapes; not understood yet). A product whose
//   free dimensions are all 1 ([1, k] @ [k]) is vector . vector at every k (XLA's
//   multiply and reduce, on YNNPACK's road from 4096 elements: measured bit for bit at
//   24 values of k from 4096 to 120000).
// - matrix-vector products with a batch: a dot that XLA emits itself, not modelled yet.
// - everything else (matrix . matrix, batched matrix products): XLA hands the dot to
//   YNNPACK (`__ynn_fusion` in the optimized HLO), which picks a micro-kernel per CPU
//   (and per shape) from its cost model; XLA enables YNNPACK's consistent-arithmetic mode
//   only with xla_cpu_enable_platform_dependent_math=false, and its default is true. On
//   this project's AVX2 + FMA host (AMD EPYC; AVX-512 hosts: Note [YNNPACK on AVX-512])
//   every product measured with K <= 4096 is one in-order FMA chain over all of k from
//   0 per output element (conf12: bit for bit
//   on 8x8x8, 13x37x29, 64x128x96, 12x287x26, 40x300x20, 503x512x10, 311x784x128,
//   50x1000x40, 20x2000x16, 8x3000x8, 8x4096x8, 8x3000x512; tests/conformance/conf12/
//   README.md). So f32 products on the host with K <= 4096 sum k in one slice (Note
//   [Dot]'s KB = K; BLIS with KC = K, Note [BLIS order]) (sweep_dot.py: MLP
//   layers 7 -> 20 of 20 shapes, vmap 8 -> 19). `a @ b.T` (rhs contracting dimension 1)
//   is one chain when N mod 16 is 0 or 9..15 (16x221x16, 32x200x32, 8x200x16, 8x64x9,
//   8x64x31, 200x64x25, 62x64x10).
//   `a @ b.T` with N mod 16 in 1..8 (the rest of N is one chain) is two FMA chains from 0,
//   even k and odd k, added, then an odd K's last product rounded alone (dotPairsNT;
//   bit for bit at 8x64xN for N = 2, 3, 4, 5, 7, 8, 17, 20, 33, 40, 50, 3x64x8, 2x3x8,
//   8x1000x8, 100x64x8, 200x64x{4, 8, 24}, 62x64x{20, 56}, 300x300x40, 38x221x24;
//   exception 2x5x40, one chain). Matched where the IR has the dot_general with rhs
//   contracting dimension 1, as grad makes it, and in kernels (jitted code) for a plain
//   product of a 2-D transpose (`q @ transpose(k)`), which XLA folds into such a dot.
//   Host code is eager JAX: the transpose is a computation of its own, the product a
//   plain one, one chain (measured: eager `a @ b.T` at 38x221x24, 47x157x99, 8x64x8).
//   a @ b picks pairs too for some M and N (62x64x20, 62x64x24, 200x64x4; chain at
//   62x64x8, 62x64x10, 200x64x12, 20x64x20): the rule not found, left.
//   Not reproduced: K > 4096 (YNNPACK splits k then, in slices that depend on N and M:
//   4096 for N = 8, 512 for N = 64 and 512, none for N <= 5, no slicing found for N =
//   20, 40, 100), which keep KB = 256.
//   `a.T @ b` (lhs contracting dimension 0, grad's dW = A^T @ dC; a plain `dot` in XLA's
//   optimized HLO, not a `__ynn_fusion`, but YNNPACK's kernels' bits; dot14, tests/
//   conformance/dot14/README.md): rows in blocks of 6 and columns in blocks of 16 are one
//   FMA chain; the last N mod 16 columns, when that is 1..8, are pairs (as `a @ b.T`, but
//   an odd K's last product folded into the sum by one FMA); the last M mod 6 rows are
//   pairs without FMA (each product rounded) for 1 or 2 rows, pairs for 3, and as the
//   other rows for 4 or 5 (dotTransposedLhsTails; bit for bit at 40 random shapes with M,
//   N < 130, K <= 256 short of the exceptions below). A kernel's dot_general whose one user
//   is a 2-D transpose (grad's dot_general(dC, A) then transpose, in a pmap body) is
//   folded by XLA into dot(A, dC), whose order applies (transposedDot), and so is a
//   kernel's `transpose(a) @ b` (measured in a pmap body at 7x40x20, 14x33x9, 9x64x24,
//   20x17x40); host code is eager JAX, the product as written. Not matched: K > 256 (k split: in halves up to 512,
//   measured at 257, 300 and 512; in quarters of 192 at 768; 600 and 1000 not found),
//   larger products that XLA splits along M between threads (76x131x88 in 2 blocks of 38
//   rows, each with its own tail rows), K < 16 or so with N mod 16 in 1..8 (123x9x20:
//   some tail columns otherwise), and tiny products (kTransposedLhsMinWork).
/// out[r] = sum_k R[r, k] v[k] for r < rows, R row-major: XLA's row-major gemv order.
void gemvRows(LlvmEmitter &L, Value *R, Value *v, Value *out, int64_t rows, int64_t K) {
  auto &b = L.b;
  Type *f = b.getFloatTy();
  auto *v8 = FixedVectorType::get(f, 8);
  const int64_t K8 = K / 8 * 8;
  auto fma = [&](Value *x, Value *y, Value *z) {
    return b.CreateIntrinsic(Intrinsic::fma, {z->getType()}, {x, y, z});
  };
  auto tile = [&](Value *r0, int64_t n) {
    std::vector<Value *> acc, s, row;
    for (int64_t i = 0; i < n; ++i) {
      acc.push_back(L.entryAlloca(v8));
      s.push_back(L.entryAlloca(f));
      b.CreateStore(Constant::getNullValue(v8), acc.back());
      b.CreateStore(ConstantFP::get(f, 0.0), s.back());
      row.push_back(b.CreateMul(b.CreateAdd(r0, L.c64(i)), L.c64(K)));
    }
    if (K8)
      L.loop(K8 / 8, [&](Value *kt) {
        Value *k = b.CreateMul(kt, L.c64(8));
        Value *vb = b.CreateAlignedLoad(v8, b.CreateInBoundsGEP(f, v, k), Align(4));
        for (int64_t i = 0; i < n; ++i) {
          Value *a = b.CreateAlignedLoad(v8, b.CreateInBoundsGEP(f, R, b.CreateAdd(row[i], k)),
                                         Align(4));
          b.CreateStore(fma(a, vb, b.CreateLoad(v8, acc[i])), acc[i]);
        }
      });
    if (K > K8)
      L.loop(K - K8, [&](Value *kk) {
        Value *k = b.CreateAdd(kk, L.c64(K8));
        Value *vk = L.load(DType::F32, v, k);
        for (int64_t i = 0; i < n; ++i)
          b.CreateStore(fma(L.load(DType::F32, R, b.CreateAdd(row[i], k)), vk,
                            b.CreateLoad(f, s[i])),
                        s[i]);
      });
    for (int64_t i = 0; i < n; ++i) {
      Value *x = b.CreateLoad(v8, acc[i]);
      auto l = [&](int q) { return b.CreateExtractElement(x, uint64_t(q)); };
      auto add = [&](Value *p, Value *q) { return b.CreateFAdd(p, q); };
      Value *h = n == 8 ? add(add(add(l(0), l(1)), add(l(2), l(3))), add(add(l(4), l(5)), add(l(6), l(7))))
                        : add(add(add(l(0), l(4)), add(l(2), l(6))), add(add(l(1), l(5)), add(l(3), l(7))));
      L.store(DType::F32, add(h, b.CreateLoad(f, s[i])), out, b.CreateAdd(r0, L.c64(i)));
    }
  };
  if (rows / 8) L.loop(rows / 8, [&](Value *t) { tile(b.CreateMul(t, L.c64(8)), 8); });
  if (rows % 8) tile(L.c64(rows / 8 * 8), rows % 8);
}

/// out[j] = sum_k x[k] Mt[k, j] for j < cols, each an in-order FMA chain from 0: XLA's
/// column-major gemv order.
void gemvCols(LlvmEmitter &L, Value *Mt, Value *x, Value *out, int64_t cols, int64_t K) {
  auto &b = L.b;
  Type *f = b.getFloatTy();
  L.loop(cols, [&](Value *j) { L.store(DType::F32, ConstantFP::get(f, 0.0), out, j); });
  L.loop(K, [&](Value *k) {
    Value *xk = L.load(DType::F32, x, k), *r = b.CreateMul(k, L.c64(cols));
    L.loop(cols, [&](Value *j) {
      Value *m = L.load(DType::F32, Mt, b.CreateAdd(r, j));
      L.store(DType::F32,
              b.CreateIntrinsic(Intrinsic::fma, {f}, {xk, m, L.load(DType::F32, out, j)}), out, j);
    });
  });
}

/// Where a product's operands lie: A(i, k) at A[i * ai + k * ak], B(k, j) at B[k * bk +
/// j * bj], C(i, j) at C[i * ci + j * cj].
struct DotStrides {
  int64_t ai, ak, bk, bj, ci, cj;
};

/// C[i, j] for i in [i0, i1), j in [j0, j1) in YNNPACK's pairs order (Note [XLA dot
/// order]): two chains from 0, over even and odd k, added (FMAs with `fused`, else each
/// product rounded, then added); then an odd K's last product: with `lastFma` folded into
/// the sum by one FMA (`a.T @ b`), else rounded alone and added (`a @ b.T`).
void dotPairs(LlvmEmitter &L, Value *A, Value *Bm, Value *C, const DotStrides &st, int64_t i0,
              int64_t i1, int64_t j0, int64_t j1, int64_t K, bool fused, bool lastFma) {
  if (i0 >= i1 || j0 >= j1) return;
  auto &b = L.b;
  Type *f = b.getFloatTy();
  Value *zero = ConstantFP::get(f, 0.0);
  Value *acc = L.entryAlloca(ArrayType::get(f, 2));
  Value *acc0 = b.CreateConstInBoundsGEP2_32(ArrayType::get(f, 2), acc, 0, 0),
        *acc1 = b.CreateConstInBoundsGEP2_32(ArrayType::get(f, 2), acc, 0, 1);
  // No contraction flags on these fmul and fadd: each rounds (Note [XLA dot order]).
  auto madd = [&](Value *x, Value *y, Value *z) {
    return fused ? b.CreateIntrinsic(Intrinsic::fma, {f}, {x, y, z})
                 : b.CreateFAdd(z, b.CreateFMul(x, y));
  };
  L.loop(i1 - i0, [&](Value *ii) {
    Value *i = b.CreateAdd(ii, L.c64(i0));
    Value *arow = b.CreateMul(i, L.c64(st.ai));
    L.loop(j1 - j0, [&](Value *jj) {
      Value *j = b.CreateAdd(jj, L.c64(j0));
      Value *bcol = b.CreateMul(j, L.c64(st.bj));
      auto aAt = [&](Value *k) { return L.load(DType::F32, A, b.CreateAdd(arow, b.CreateMul(k, L.c64(st.ak)))); };
      auto bAt = [&](Value *k) { return L.load(DType::F32, Bm, b.CreateAdd(bcol, b.CreateMul(k, L.c64(st.bk)))); };
      b.CreateStore(zero, acc0);
      b.CreateStore(zero, acc1);
      L.loop(K / 2, [&](Value *kk) {
        Value *k = b.CreateMul(kk, L.c64(2));
        for (int h = 0; h < 2; ++h) {
          Value *kh = b.CreateAdd(k, L.c64(h)), *p = h ? acc1 : acc0;
          b.CreateStore(madd(aAt(kh), bAt(kh), b.CreateLoad(f, p)), p);
        }
      });
      Value *s = b.CreateFAdd(b.CreateLoad(f, acc0), b.CreateLoad(f, acc1));
      if (K % 2) {
        Value *x = aAt(L.c64(K - 1)), *y = bAt(L.c64(K - 1));
        s = lastFma && fused ? b.CreateIntrinsic(Intrinsic::fma, {f}, {x, y, s})
                             : b.CreateFAdd(s, b.CreateFMul(x, y));
      }
      L.store(DType::F32, s, C,
              b.CreateAdd(b.CreateMul(i, L.c64(st.ci)), b.CreateMul(j, L.c64(st.cj))));
    });
  });
}

/// C[i, j] for i < M, j < N in the order of YNNPACK's avx512 tile_k 4 kernels (Note
/// [YNNPACK on AVX-512]): four FMA chains from +0 over k = 0, 1, 2, 3 (mod 4) below K4 = K -
/// K mod 4, added as (c0 + c1) + (c2 + c3); the last K mod 4 products, each rounded, in
/// lanes of their own summed the same way (the kernel run again over a zero-padded tile),
/// that tail then added to the rest.
void dotQuads(LlvmEmitter &L, Value *A, Value *Bm, Value *C, const DotStrides &st, int64_t M,
              int64_t N, int64_t K) {
  auto &b = L.b;
  Type *f = b.getFloatTy();
  auto *arr = ArrayType::get(f, 4);
  Value *zero = ConstantFP::get(f, 0.0);
  Value *acc = L.entryAlloca(arr);
  Value *lane[4];
  for (unsigned q = 0; q < 4; ++q) lane[q] = b.CreateConstInBoundsGEP2_32(arr, acc, 0, q);
  const int64_t K4 = K / 4 * 4, tail = K % 4;
  L.loop(M, [&](Value *i) {
    Value *arow = b.CreateMul(i, L.c64(st.ai));
    L.loop(N, [&](Value *j) {
      Value *bcol = b.CreateMul(j, L.c64(st.bj));
      auto aAt = [&](Value *k) {
        return L.load(DType::F32, A, b.CreateAdd(arow, b.CreateMul(k, L.c64(st.ak))));
      };
      auto bAt = [&](Value *k) {
        return L.load(DType::F32, Bm, b.CreateAdd(bcol, b.CreateMul(k, L.c64(st.bk))));
      };
      auto sum4 = [&](Value *l[4]) {  // the kernel's finalize: (l0 + l1) + (l2 + l3)
        return b.CreateFAdd(b.CreateFAdd(l[0], l[1]), b.CreateFAdd(l[2], l[3]));
      };
      Value *s = nullptr;
      if (K4) {
        for (unsigned q = 0; q < 4; ++q) b.CreateStore(zero, lane[q]);
        L.loop(K4 / 4, [&](Value *kk) {
          Value *k = b.CreateMul(kk, L.c64(4));
          for (unsigned q = 0; q < 4; ++q) {
            Value *kq = b.CreateAdd(k, L.c64(q));
            b.CreateStore(b.CreateIntrinsic(Intrinsic::fma, {f},
                                            {aAt(kq), bAt(kq), b.CreateLoad(f, lane[q])}),
                          lane[q]);
          }
        });
        Value *l[4];
        for (unsigned q = 0; q < 4; ++q) l[q] = b.CreateLoad(f, lane[q]);
        s = sum4(l);
      }
      if (tail) {
        // No contraction flags: each product rounds, as fma(a, b, +0) does.
        Value *l[4];
        for (int64_t q = 0; q < 4; ++q)
          l[q] = q < tail ? b.CreateFMul(aAt(L.c64(K4 + q)), bAt(L.c64(K4 + q))) : zero;
        Value *t = sum4(l);
        s = s ? b.CreateFAdd(t, s) : t;
      }
      L.store(DType::F32, s, C,
              b.CreateAdd(b.CreateMul(i, L.c64(st.ci)), b.CreateMul(j, L.c64(st.cj))));
    });
  });
}

/// C[i, j] = sum_k A[i, k] Bt[j, k] (A [M, K], Bt [N, K], both k contiguous) in YNNPACK's
/// order for `a @ b.T` with N mod 16 in 1..8 on an AVX2 host (Note [XLA dot order]): two
/// FMA chains from 0, over even and odd k, added; an odd K's last product rounded alone
/// and added last.
/// With kn, the rhs is given as B [K, N] (a transpose XLA folds into the dot) and read
/// as Bt.
void dotPairsNT(LlvmEmitter &L, Value *A, Value *Bt, Value *C, int64_t M, int64_t N,
                int64_t K, bool kn) {
  dotPairs(L, A, Bt, C, DotStrides{K, 1, kn ? N : 1, kn ? 1 : K, N, 1}, 0, M, 0, N, K, true, false);
}

// Note [YNNPACK kernel choice]: a plain `a @ b` (lhs [B, M, K] and rhs [B, K, N], both
// row-major, batched or not) goes from XLA to YNNPACK when M > 1, N > 1 and one of M, N,
// K is at least 8 (XLA's IsDotSupportedByYnn; below that XLA's DotThunk sums it
// otherwise, not modelled). YNNPACK picks one micro-kernel for the whole product by its
// cost model (google/XNNPACK ynnpack/kernels/dot/dot.cc estimate_dot_cost; kernel
// selection in ynnpack/subgraph/dot.cc), over the fp32 kernels that jaxlib 0.10.2 has
// for an AVX2 + FMA host (libjax_common.so's symbols, in kernels.inc's order, the first
// of equal costs winning):
//   fma3 (tile 1x8x1, unaligned B): one FMA chain over k per output;
//   avx2_fma3 (tile 1x4x2): pairs, even-k and odd-k FMA chains added (the avx2 kernels
//     without FMA, same blocks and costs, come later and never win);
//   avx (tile 1x8x1, unaligned B) and sse2 (tile 1x4x1): one chain, each product rounded
//     and added (mul then add, no FMA).
// The choice, for B not transposed: a first kernel for the shape with M taken as 2048
// (the graph is built before M is known); B is packed when that kernel needs it (tile_k
// 2 or no unaligned-B flag), when the best unpacked kernel (tile_k 1, unaligned B) costs
// more than twice as much, or when A has more than 10 blocks of that kernel's rows; the
// kernel run is then the cheapest for the real M, N, K compatible with the packing (the
// first kernel's tile_k, block_n = N rounded up to its tile_n) or, unpacked, among
// tile_k 1 unaligned-B kernels. Measured (tests/conformance/dot15/nn_model.py): random
// `a @ b` with K <= 256, M, N <= 300, 130 of 130 bit for bit where max(M, N, K) >= 8
// (one chain alone: 58 of 130); K > 256 with N >= 143 splits k (not matched). For `a @
// b.T` (B transposed, always packed) the same model gives the N mod 16 rule above.
// Below that size (XLA's DotThunk, not YNNPACK's graph) `a @ b` follows the model of `a.T @
// b` above (dotTransposedLhsTails: rows in blocks of 6, columns in blocks of 16, tails in
// pairs) when K >= 4 and M or N is above 3, else one chain (tests/conformance/dot15/
// tiny_dots.py: 150 of 150 random M, K, N in 2..7 bit for bit, seeds 1 to 3; the same
// bounds as `a.T @ b`'s tiny exceptions 3x4x2, 2x12x3, 9x3x4), per batch as well (host14's
// `vmap (r in z) { r @ transpose(r) }` of [4, 4]s).

// Note [YNNPACK on AVX-512]: on an AVX-512 host (xlasum's vfTable avx512, Note
// [Host-dependent goldens]) jaxlib 0.10.2's YNNPACK has three more fp32 kernel families,
// listed in kernels.inc before the AVX2 ones (so they win ties), all with FMA
// (google/XNNPACK ynnpack/kernels/dot/generator/x86_fp32*.py; their names, e.g.
// dot_fp32_4x16x4_1x4x4_avx512, in libjax_common.so's symbols):
//   avx512 (tile 1x16x1, unaligned B; blocks 1..5 x 64, 1..5 x 32, 5 x 16): one FMA chain;
//   avx512 tile_k 2 (tile 1x8x2): pairs, even-k and odd-k chains added, as avx2_fma3;
//   avx512 tile_k 4 (tile 1x4x4; blocks 1x32, 2x32, 1x16, 3x16, 4x16, 5x16, 2x8, 4x8,
//     6x8, 4x4, 8x4): quads, four FMA chains over k = 0, 1, 2, 3 (mod 4) below K - K mod
//     4, added as (c0 + c1) + (c2 + c3) (the kernel's odd_to_even adds and even-lane
//     permutes); the last K mod 4 products (the kernel run again on a zero-padded tile,
//     ynnpack/subgraph/dot.cc) rounded, summed the same way with +0 lanes, and that sum
//     added to the rest (dotQuads; BLIS's SPMD_GEMM_QUADS, Note [GEMM in quads]).
// The same cost model and packing rule pick among all of them (ynnPlan with avx512);
// the cheap loads of tile_k 4 make quads the common choice (62x64x20, 1000x1200x1000),
// one chain where B stays unpacked (13x37x29, 12x40x20). An odd K's last product under
// pairs is a tail tile too: rounded, then added (dotPairs without lastFma). Applied to
// `a @ b` (per batch) as on an AVX2 host and to `a @ b.T` (grad's dA, a kernel's folded
// `q @ transpose(k)`, and per batch a vmap's; B packed), both in YNNPACK's tiles (Note
// [YNNPACK's tiles]); the other products (`a.T @ b`, XLA's DotThunk
// below 8 in every dimension) keep Note [Dot]'s order there, one chain for K <= 256 (no
// difference found in the goldens). Measured against jax.jit on this project's Zen 5
// host (tests/conformance/dot17/nn_model.py): `a @ b` 59 / 59 random shapes (K <= 300,
// M, N <= 40), 68 / 68 (K <= 64, M, N <= 12), 45 / 50 (K <= 600, M, N <= 300: the 5
// others K > 256 with N >= 60, where YNNPACK slices k: matched in dot18, Note [YNNPACK's
// tiles]); `a @ b.T` 40 / 40 (K <= 200, M, N <= 60); [3, M, K] @ [3, K, N] 28 / 28. One
// chain alone (spmdrun's order here before): 83 of those 245.

// Note [YNNPACK's tiles]: YNNPACK does not run one kernel over the whole product. slinky
// cuts it into tiles (ynnpack/subgraph/dot.cc, choose_split_factors: split_n from min(N,
// block_n), split_m from min(M, 16), doubled, split_m up to 4 split_n, until the tile's
// area reaches min(M, 64) min(N, 64) and its cost (split_m + split_n) min(K, 1024) or
// its area 65536), and for each tile make_dot_impl picks the kernel again for the tile's
// m and n, among those B's layout allows, then schedule_dot (ynnpack/kernels/dot/
// schedule.cc) slices k for its 128 KiB "L2": slices of block_k * (131072 / (block_n *
// 4 * block_k)) when that is below K, block_n B's packed block (define_pack_b: the first
// kernel's block_n times the blocks of K rows that fit in 128 KiB, at most N rounded up
// to tile_n) or, B unpacked, the tile's n. The kernel adds each slice's sums to C after
// the slice (C_in), so each slice is summed from 0 in the kernel's order and added; the
// K mod tile_k tail comes last (Note [YNNPACK on AVX-512]). Unpacked, block_n for the
// split is max(16, the unpacked kernel's block_n). The XNNPACK read (75db3c0) is newer
// than jaxlib 0.10.2's: before 4728d1536e (2026-08-10) the packing block was aligned to
// the first kernel's block_n, not the largest, and min_area had no floor of 256; jaxlib
// 0.10.2 still has the scalar kernel dot_fp32_1x128x1 that commit changed, and the older
// rules are the ones that fit (the newer slice pairs and quads at K > 512, which JAX does
// not). So 48x415x221 is one chain in slices of 256 over its first 128 columns and of 352
// over the other 93, 184x559x60 (B packed, block_n 64) in slices of 512, an MLP's
// 100x784x512 too; and a narrow last tile can pick another kernel (18x734x260: its last
// 4 columns an avx kernel, unfused). ynnPlan says, per band of rows and of columns (all
// tiles but the last in each direction have the same extent), which order and slices;
// products with one order and no slices are summed as before, the others by
// spmd_cpu_gemm_tiles (Note [GEMM in tiles] in runtime/cpu/CpuGemm.cpp), whatever their
// size, and so are `a @ b.T` products in an unfused kernel; beyond SPMD_GEMM_MAX_CHAIN of
// k too where the plan's slices are short enough for BLIS's contexts (ynnPlanFits: the
// rules hold there, no split of k before the kernels at K = 9000). Measured against
// jax.jit on this project's AVX-512 host (Zen 4; tests/conformance/dot18/nn_model.py and
// shapes.py, figures in tests/conformance/dot18/README.md): the shapes dot17 left (K >
// 256, wide N) match, and none that matched is lost. Only on AVX-512 hosts: on an
// AVX2 host the same rules predict slices where conf12 measured one chain (8x3000x512),
// so the AVX2 model keeps the whole product (not checked: no AVX2 host this round).
enum class YnnOrder { Chain, Pairs, Quads, Unfused };

/// One kind of tile of YNNPACK's schedule (Note [YNNPACK's tiles]): the order of the kernel
/// that sums it, and the length of the slices of k summed apart and added (0: one slice).
struct YnnTile {
  YnnOrder order;
  int64_t slice;
  bool operator==(const YnnTile &o) const { return order == o.order && slice == o.slice; }
};

/// YNNPACK's schedule of one product (per batch): rows [0, rowsFull) are tiles of the same
/// height, [rowsFull, M) one shorter tile, columns likewise at colsFull; tile[r][c] is the
/// kind of the tiles in row band r (0 full, 1 the last) and column band c. A band that is
/// empty (rowsFull = 0 or M) holds a copy of the other.
struct YnnPlan {
  int64_t rowsFull, colsFull;
  YnnTile tile[2][2];
  /// One order and one slice for the whole product: what the emitters below sum.
  bool simple() const {
    return tile[0][0] == tile[0][1] && tile[0][0] == tile[1][0] && tile[0][0] == tile[1][1] &&
           tile[0][0].slice == 0;
  }
  YnnOrder order() const { return tile[0][0].order; }
};

/// YNNPACK's schedule of `a @ b` (or, with bTransposed, `a @ b.T`: B always packed) of M x
/// K x N on an AVX2 + FMA host or, with avx512, an AVX-512 one (Note [YNNPACK kernel
/// choice], Note [YNNPACK on AVX-512]); with `tiles`, slinky's tiles and k slices (Note
/// [YNNPACK's tiles]), else the whole product in the kernel chosen for its M and N.
YnnPlan ynnPlan(int64_t M, int64_t N, int64_t K, bool avx512, bool bTransposed, bool tiles) {
  struct Kernel {
    int bm, bn, bk, tn, tk;
    bool unalignedB;
    YnnOrder order;
  };
  auto table = [](bool withAvx512) {
    std::vector<Kernel> v;
    if (withAvx512) {  // kernels.inc lists them first
      const int k1[][2] = {{1, 64}, {2, 64}, {3, 64}, {4, 64}, {5, 64}, {1, 32}, {2, 32},
                           {3, 32}, {4, 32}, {5, 32}, {5, 16}};
      const int k2[][2] = {{1, 32}, {2, 32}, {3, 32}, {4, 32}, {5, 32}, {1, 16}, {4, 16},
                           {4, 8}, {8, 8}};
      const int k4[][2] = {{1, 32}, {2, 32}, {1, 16}, {3, 16}, {4, 16}, {5, 16}, {2, 8},
                           {4, 8}, {6, 8}, {4, 4}, {8, 4}};
      for (auto &b : k1) v.push_back({b[0], b[1], 1, 16, 1, true, YnnOrder::Chain});
      for (auto &b : k2) v.push_back({b[0], b[1], 2, 8, 2, false, YnnOrder::Pairs});
      for (auto &b : k4) v.push_back({b[0], b[1], 4, 4, 4, false, YnnOrder::Quads});
    }
    const int fma3[][2] = {{1, 32}, {2, 32}, {1, 16}, {2, 16}, {3, 16}, {4, 16}, {5, 16}, {6, 16}, {8, 8}};
    const int k2[][2] = {{1, 16}, {2, 16}, {1, 8}, {3, 8}, {4, 8}, {5, 8}, {6, 8}, {4, 4}, {5, 4}, {6, 4}, {8, 4}};
    const int avx[][2] = {{1, 32}, {2, 32}, {1, 16}, {2, 16}, {3, 16}, {4, 16}, {4, 8}, {6, 8}, {8, 8}};
    const int sse2[][2] = {{1, 16}, {2, 16}, {3, 16}, {1, 8}, {2, 8}, {3, 8}, {4, 8}, {4, 4}, {6, 4}, {8, 4}};
    for (auto &b : fma3) v.push_back({b[0], b[1], 1, 8, 1, true, YnnOrder::Chain});
    for (auto &b : k2) v.push_back({b[0], b[1], 2, 4, 2, false, YnnOrder::Pairs});
    for (auto &b : avx) v.push_back({b[0], b[1], 1, 8, 1, true, YnnOrder::Unfused});
    for (auto &b : sse2) v.push_back({b[0], b[1], 1, 4, 1, false, YnnOrder::Unfused});
    return v;
  };
  static const std::vector<Kernel> avx2Kernels = table(false), avx512Kernels = table(true);
  const std::vector<Kernel> &kernels = avx512 ? avx512Kernels : avx2Kernels;
  struct Pick {
    const Kernel *k = nullptr;
    float cost = 0;
  };
  // estimate_dot_cost, in YNNPACK's float arithmetic (tile_m is 1 for every kernel here).
  auto cost = [](int64_t m, int64_t n, int64_t k, const Kernel &q) {
    auto cdiv = [](int64_t x, int64_t y) { return float((x + y - 1) / y); };
    const int64_t loadsA = int64_t(q.bm) * q.bk / q.tk, loadsB = int64_t(q.bn) * q.bk / (q.tn * q.tk);
    const float block = float(loadsA * 5 + loadsB * 11 + 9) + float(q.tn * q.tk) * 1e-4f;
    return cdiv(m, q.bm) * cdiv(n, q.bn) * cdiv(k, q.bk) * block;
  };
  auto best = [&](int64_t m, int64_t n, int64_t k, int reqTk, int64_t reqBn, bool reqUnaligned) {
    Pick p;
    for (const Kernel &q : kernels) {
      if ((reqUnaligned && !q.unalignedB) || (reqTk && q.tk != reqTk) ||
          (!q.unalignedB && reqBn % q.tn != 0))
        continue;
      float c = cost(m, n, k, q);
      if (!p.k || c < p.cost) p = {&q, c};
    }
    return p;
  };
  constexpr int64_t kUnknownM = 2048;  // YNNPACK's unknown_dot_extent
  const Pick first = best(kUnknownM, N, K, 0, 0, false);
  const Pick unpacked = first.k->tk == 1 ? first : best(kUnknownM, N, K, 1, 0, true);
  const bool pack = bTransposed || !unpacked.k->unalignedB ||
                    unpacked.cost > first.cost * 2.0f ||
                    (M + unpacked.k->bm - 1) / unpacked.k->bm > 10;
  const int tn = first.k->tn;
  YnnPlan plan;
  if (!tiles) {
    const Pick run = pack ? best(M, N, K, first.k->tk, (N + tn - 1) / tn * tn, false)
                          : best(M, N, K, 1, N, true);
    plan.rowsFull = M, plan.colsFull = N;
    for (auto &r : plan.tile)
      for (YnnTile &t : r) t = {run.k->order, 0};
    return plan;
  }
  // B's layout: packed in blocks of blockN columns (define_pack_b: the first kernel's
  // block_n times the blocks of K rows that fit in 128 KiB, at most N rounded up to its
  // tile_n), else as it is, tiles of n read a cache line at a time (block_n_unpacked).
  constexpr int64_t kL2 = 128 * 1024, kL2Floats = kL2 / 4;
  const int tk = pack ? first.k->tk : 1;
  int64_t blockN, kSplit;
  if (pack) {
    const int64_t align = first.k->bn;
    blockN = align * std::max<int64_t>(1, kL2Floats / (align * K));
    blockN = std::max<int64_t>(tn, std::min((N + tn - 1) / tn * tn, blockN));
    kSplit = (K + tk - 1) / tk * tk;
  } else {
    blockN = std::max(16, unpacked.k->bn);
    kSplit = K;
  }
  // choose_split_factors: a tile of sn columns and sm rows, doubled from min(N, blockN)
  // and min(M, 16) (sm up to 4 sn) until its area reaches min(M, 64) min(N, 64) and its
  // cost (sm + sn) min(k, 1024) reaches 65536 or its area 65536.
  int64_t sn = std::min(N, blockN), sm = std::min<int64_t>(M, 16);
  const int64_t kc = std::min<int64_t>(kSplit, 1024);
  const int64_t minArea = std::min<int64_t>(M, 64) * std::min<int64_t>(N, 64);
  while (!(sn * sm >= minArea && ((sm + sn) * kc >= 65536 || sm * sn >= 65536))) {
    if ((4 * sn <= sm || sm >= M) && sn < N)
      sn *= 2;
    else if ((sm <= 4 * sn || sn >= N) && sm < M)
      sm *= 2;
    else
      break;
  }
  // Per tile, the kernel is chosen again for the tile's m and n among those B's layout
  // allows, and schedule_dot slices k so that blockN (packed) or the tile's n columns of
  // each slice of B take 128 KiB.
  const int64_t k1 = K - K % tk;
  auto kind = [&](int64_t m, int64_t n) -> YnnTile {
    const Pick p = pack ? best(m, n, k1, tk, blockN, false) : best(m, n, k1, 1, n, true);
    const int64_t bk = p.k->bk, blocks = kL2 / ((pack ? blockN : n) * 4 * bk);
    return {p.k->order, blocks && k1 > bk * blocks ? bk * blocks : 0};
  };
  plan.rowsFull = M - M % sm, plan.colsFull = N - N % sn;
  const int64_t ms[2] = {plan.rowsFull ? sm : M % sm, M % sm ? M % sm : sm},
                ns[2] = {plan.colsFull ? sn : N % sn, N % sn ? N % sn : sn};
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 2; ++c) plan.tile[r][c] = kind(ms[r], ns[c]);
  // Bands of the same kinds are one (fewer, larger rectangles for spmd_cpu_gemm_tiles).
  if (plan.tile[0][0] == plan.tile[1][0] && plan.tile[0][1] == plan.tile[1][1])
    plan.rowsFull = M;
  if (plan.tile[0][0] == plan.tile[0][1] && plan.tile[1][0] == plan.tile[1][1])
    plan.colsFull = N;
  return plan;
}

/// C[b] = A[b] B[b] (A [M, K], B [K, N], row-major, per batch) with each product rounded
/// and added in k order from +0: YNNPACK's avx and sse2 kernels (Note [YNNPACK kernel
/// choice]). The j loop is innermost (no reassociation: each element's sum stays in k
/// order).
void dotUnfused(LlvmEmitter &L, Value *A, Value *Bm, Value *C, int64_t B, int64_t M, int64_t N,
                int64_t K) {
  auto &b = L.b;
  Type *f = b.getFloatTy();
  L.loop(B * M * N, [&](Value *i) { L.store(DType::F32, ConstantFP::get(f, 0.0), C, i); });
  L.loop(B * M, [&](Value *bm) {
    Value *arow = b.CreateMul(bm, L.c64(K)), *crow = b.CreateMul(bm, L.c64(N));
    Value *b0 = b.CreateMul(b.CreateUDiv(bm, L.c64(M)), L.c64(K * N));
    L.loop(K, [&](Value *k) {
      Value *av = L.load(DType::F32, A, b.CreateAdd(arow, k));
      Value *brow = b.CreateAdd(b0, b.CreateMul(k, L.c64(N)));
      L.loop(N, [&](Value *j) {
        Value *ci = b.CreateAdd(crow, j);
        // No contraction flags: the product rounds, then the sum.
        Value *p = b.CreateFMul(av, L.load(DType::F32, Bm, b.CreateAdd(brow, j)));
        L.store(DType::F32, b.CreateFAdd(L.load(DType::F32, C, ci), p), C, ci);
      });
    });
  });
}

/// The parts of `a.T @ b` (lhs contracting dimension 0) that YNNPACK sums otherwise than
/// in one chain on an AVX2 host (Note [XLA dot order]), written over a product already
/// summed in one chain: rows in blocks of 6, the last M mod 6 rows in pairs (without FMA
/// for 1 or 2 rows, with for 3) or, for 4 or 5, as the other rows; columns in blocks of
/// 16, the last N mod 16 in pairs when that is 1..8.
void dotTransposedLhsTails(LlvmEmitter &L, Value *A, Value *Bm, Value *C, const DotStrides &st,
                           int64_t M, int64_t N, int64_t K) {
  const int64_t M6 = M / 6 * 6, r = M % 6;
  const int64_t Nm = N % 16 >= 1 && N % 16 <= 8 ? N / 16 * 16 : N;
  dotPairs(L, A, Bm, C, st, 0, r == 4 || r == 5 ? M : M6, Nm, N, K, true, true);
  if (r >= 1 && r <= 3) dotPairs(L, A, Bm, C, st, M6, M, 0, N, K, r == 3, true);
}
}  // namespace

// Note [Dot]: C[b] = A[b] (M x K) * B[b] (K x N), all row-major. The j loop is innermost
// and contiguous in B and C, so it vectorises (with FMA contraction); blocking over j and
// k keeps a KB x NB panel of B in cache while every row of A streams past it.
// Accuracy: each KB slice of k sums into fresh partials that then join C, so a float
// element's error grows with KB + K / KB, not K (as Eigen's GEMM panels, which XLA runs);
// a product with one column (N = 1) folds each output by Note [Cascade].
// Products of at least this many multiply-adds (per batch) in CPU code go to BLIS
// (spmd_cpu_gemm); smaller ones, integer ones and matrix-vector ones (N = 1) stay in the
// loop nest below. Both sum in the same order, so this is a matter of speed only. (f32
// matrix-vector products without a batch take XLA's gemv order instead, Note [XLA dot
// order].)
constexpr int64_t kBlasMinWork = 32 * 32 * 32;

/// The longest k of `a.T @ b` that YNNPACK sums in one slice, as far as measured (Note [XLA
/// dot order]): from 257 it splits k (into halves up to 512, measured at 257, 300 and 512).
constexpr int64_t kTransposedLhsOneSlice = 256;
/// Below this many multiply-adds `a.T @ b` is one chain in the cases measured (3x4x2,
/// 2x12x3, 9x3x4; a grad in golden conf9c_stop_gradient_tree), though not in all (2x6x6
/// is YNNPACK's tails): which path XLA takes for tiny products was not found.
constexpr int64_t kTransposedLhsMinWork = 128;

/// Whether an f32 product sums all of k in one FMA chain, as YNNPACK does for K <= 4096 on
/// an AVX2 host (Note [XLA dot order]; the host kind of Note [Host-dependent goldens], part
/// of the cache key); BLIS does it too, with KC = K (spmd_cpu_gemm's kc).
static bool xlaOneChain(Target target, DType d, int64_t K) {
  return target == Target::Host && d == DType::F32 && K > 0 && K <= SPMD_GEMM_MAX_CHAIN &&
         std::string_view(xlasum::vfTableName()) == "avx2";
}

/// Whether an f32 product on the host is YNNPACK's on an AVX-512 host, where the kernel
/// its cost model picks fixes the order (Note [YNNPACK on AVX-512]); beyond
/// SPMD_GEMM_MAX_CHAIN of k only as ynnPlanFits says.
static bool ynnAvx512(Target target, DType d, int64_t K) {
  return target == Target::Host && d == DType::F32 && K > 0 &&
         std::string_view(xlasum::vfTableName()) == "avx512";
}

/// Whether spmd_cpu_gemm_tiles can sum `plan` for a product of depth K: every chain that
/// BLIS folds is at most SPMD_GEMM_MAX_CHAIN long (its contexts' KC), so beyond that K
/// only plans that slice k finely enough (Note [YNNPACK's tiles]: measured bit for bit at
/// 8x5000x64, 30x6000x100, 16x9000x40, 64x5000x8, `a @ b.T` 100x5000x20).
static bool ynnPlanFits(const YnnPlan &plan, int64_t K) {
  if (K <= SPMD_GEMM_MAX_CHAIN) return true;
  for (auto &r : plan.tile)
    for (const YnnTile &t : r) {
      const int64_t tk = t.order == YnnOrder::Pairs ? 2 : t.order == YnnOrder::Quads ? 4 : 1;
      if (t.order != YnnOrder::Unfused && (t.slice == 0 || t.slice / tk > SPMD_GEMM_MAX_CHAIN))
        return false;
    }
  return true;
}

void LlvmEmitter::emitDot(const ir::Eqn &e) {
  const DotShape g = dotShape(e);
  const int64_t B = g.B, M = g.M, K = g.K, N = g.N;
  DType d = e.out[0].type.dtype;
  // Canonical operands: A as [B, M, K], B as [B, K, N].
  auto canon = [&](const ir::Atom &a, std::vector<int64_t> perm, bool &owned) -> Value * {
    Value *src = bufferOf(a);
    owned = false;
    bool id = true;
    for (size_t k = 0; k < perm.size(); ++k) id &= perm[k] == int64_t(k);
    if (id) return src;
    owned = true;
    Value *t = allocBytes(a.type().bytes());
    emitTransposeCopy(a.type().dtype, src, a.type().shape, perm, t);
    return t;
  };
  const std::vector<int64_t> &lp = g.lhsPerm, &rp = g.rhsPerm;
  bool fl = ir::isFloat(d);
  const bool avx512 = ynnAvx512(target, d, K);
  if (target == Target::Host && d == DType::F32 && M == 1 && N == 1 && K > 0) {
    // vector . vector (per batch), Note [XLA dot order]: up to 32 elements one FMA chain,
    // over 32 XLA's multiply and sum.
    bool ownA, ownB;
    Value *A = canon(e.in[0], lp, ownA), *Bv = canon(e.in[1], rp, ownB), *C = defBuffer(e.out[0]);
    if (K > 32)
      emitXlaOrderDot(*this, A, Bv, C, B, K);
    else
      loop(B, [&](Value *bi) {
        Value *o = b.CreateMul(bi, c64(K));
        gemvCols(*this, b.CreateInBoundsGEP(b.getFloatTy(), Bv, o),
                 b.CreateInBoundsGEP(b.getFloatTy(), A, o),
                 b.CreateInBoundsGEP(b.getFloatTy(), C, bi), 1, K);
      });
    if (ownA) freeBuffer(A);
    if (ownB) freeBuffer(Bv);
    return;
  }
  if (target == Target::Host && d == DType::F32 && B == 1 && (M == 1) != (N == 1) && K > 0) {
    // A matrix-vector product in XLA's gemv order (Note [XLA dot order]): A @ x by rows,
    // x @ B by columns.
    bool matLhs = N == 1;
    const ir::Atom &mat = e.in[matLhs ? 0 : 1], &vec = e.in[matLhs ? 1 : 0];
    const std::vector<int64_t> &mp = matLhs ? lp : rp, &vp = matLhs ? rp : lp;
    bool ownM = false, ownV = false, kInner = matLhs;
    Value *Mat = canon(mat, mp, ownM);
    Value *V = canon(vec, vp, ownV), *C = defBuffer(e.out[0]);
    if (kInner)
      gemvRows(*this, Mat, V, C, matLhs ? M : N, K);
    else
      gemvCols(*this, Mat, V, C, matLhs ? M : N, K);
    if (ownM) freeBuffer(Mat);
    if (ownV) freeBuffer(V);
    return;
  }
  // `a @ b.T`: as dot_general (grad's dA = dC @ B^T), or in a kernel a plain product of a
  // 2-D transpose, which XLA folds into the dot (host code is eager JAX: no folding).
  const std::vector<int64_t> id2{0, 1}, swap2{1, 0};
  bool foldedT = fs->kernel && rp == id2 && !e.in[1].isLit &&
                 fs->transposed2d.count(e.in[1].var.id);
  const bool blas = target == Target::Host && fl && N > 1 && M * N * K >= kBlasMinWork;
  bool ynnChain = false;  // YNNPACK's kernel sums all of k in one FMA chain
  auto isId = [](const std::vector<int64_t> &p) {
    for (size_t k = 0; k < p.size(); ++k)
      if (p[k] != int64_t(k)) return false;
    return true;
  };
  // A product YNNPACK sums in tiles of more than one kind, or in slices of k (Note
  // [YNNPACK's tiles]): spmd_cpu_gemm_tiles, whatever its size.
  auto emitTiles = [&](const YnnPlan &plan, Value *A, bool ta, Value *Bm, bool tb, Value *C) {
    auto code = [](YnnOrder o) -> int64_t {
      switch (o) {
      case YnnOrder::Chain: return SPMD_GEMM_ONE_CHAIN;
      case YnnOrder::Pairs: return SPMD_GEMM_PAIRS;
      case YnnOrder::Quads: return SPMD_GEMM_QUADS;
      case YnnOrder::Unfused: return SPMD_GEMM_UNFUSED;
      }
      return SPMD_GEMM_ONE_CHAIN;
    };
    std::vector<int64_t> desc{plan.rowsFull, plan.colsFull};
    for (auto &r : plan.tile)
      for (const YnnTile &t : r) desc.push_back(code(t.order)), desc.push_back(t.slice);
    b.CreateCall(rt("spmd_cpu_gemm_tiles"), {c32(dtypeCode(d)), c64(B), c64(M), c64(N),
                                             c64(K), constI64s(desc), A, c32(ta), Bm, c32(tb),
                                             C});
  };
  // rhs [batch..., N, K]: the batch dimensions first, then its two others swapped.
  const int64_t nb = g.batchDims;
  bool rhsSwapped = int64_t(rp.size()) == nb + 2 && rp[nb] == nb + 1 && rp[nb + 1] == nb;
  for (int64_t i = 0; i < nb && rhsSwapped; ++i) rhsSwapped = rp[i] == i;
  const bool nt = avx512 && M > 1 && N > 1 && std::max({M, N, K}) >= 8 && isId(lp) &&
                 (rhsSwapped || (B == 1 && foldedT));
  const YnnPlan ntPlan = nt ? ynnPlan(M, N, K, true, true, true) : YnnPlan{};
  if (nt && ynnPlanFits(ntPlan, K)) {
    // YNNPACK's kernel for `a @ b.T` (per batch) on an AVX-512 host, B packed (Note
    // [YNNPACK on AVX-512]).
    const YnnPlan &plan = ntPlan;
    const YnnOrder o = plan.order();
    ynnChain = plan.simple() && o == YnnOrder::Chain;
    if (!plan.simple() || o == YnnOrder::Unfused) {
      emitTiles(plan, bufferOf(e.in[0]), false, bufferOf(e.in[1]), !foldedT, defBuffer(e.out[0]));
      return;
    }
    if (o == YnnOrder::Pairs || o == YnnOrder::Quads) {
      Value *A = bufferOf(e.in[0]), *Bm = bufferOf(e.in[1]), *C = defBuffer(e.out[0]);
      if (blas)
        b.CreateCall(rt("spmd_cpu_gemm"),
                     {c32(dtypeCode(d)), c64(B), c64(M), c64(N), c64(K),
                      c32(o == YnnOrder::Quads ? SPMD_GEMM_QUADS : SPMD_GEMM_PAIRS), A, c32(0),
                      Bm, c32(foldedT ? 0 : 1), C});
      else
        loop(B, [&](Value *bi) {
          Type *f = b.getFloatTy();
          Value *Ai = b.CreateInBoundsGEP(f, A, b.CreateMul(bi, c64(M * K))),
                *Bi = b.CreateInBoundsGEP(f, Bm, b.CreateMul(bi, c64(K * N))),
                *Ci = b.CreateInBoundsGEP(f, C, b.CreateMul(bi, c64(M * N)));
          if (o == YnnOrder::Pairs)
            dotPairsNT(*this, Ai, Bi, Ci, M, N, K, foldedT);
          else
            dotQuads(*this, Ai, Bi, Ci,
                     DotStrides{K, 1, foldedT ? N : 1, foldedT ? 1 : K, N, 1}, M, N, K);
        });
      return;
    }
  }
  if (xlaOneChain(target, d, K) && B == 1 && M > 1 && N % 16 >= 1 && N % 16 <= 8 &&
      lp == id2 && (rp == swap2 || foldedT)) {
    // YNNPACK's pairs, Note [XLA dot order]; BLIS makes them for the larger products
    // (Note [GEMM in pairs] in runtime/cpu/CpuGemm.cpp), the same bits.
    Value *A = bufferOf(e.in[0]), *Bm = bufferOf(e.in[1]), *C = defBuffer(e.out[0]);
    if (blas)
      b.CreateCall(rt("spmd_cpu_gemm"), {c32(dtypeCode(d)), c64(1), c64(M), c64(N), c64(K),
                                         c32(SPMD_GEMM_PAIRS), A, c32(0), Bm,
                                         c32(foldedT ? 0 : 1), C});
    else
      dotPairsNT(*this, A, Bm, C, M, N, K, foldedT);
    return;
  }
  // `a @ b` (both operands row-major, batched or not) in the kernel YNNPACK picks (Note
  // [YNNPACK kernel choice]): pairs or products rounded where its cost model says so, else
  // one chain (below). Not a product whose lhs or result transpose XLA folds into it.
  const bool swappedOut = fs->kernel && fs->transposedDot.count(e.out[0].id);
  const bool foldedLhs = fs->kernel && lp == id2 && !e.in[0].isLit &&
                         fs->transposed2d.count(e.in[0].var.id);
  const bool nn = (xlaOneChain(target, d, K) || avx512) && M > 1 && N > 1 &&
                  std::max({M, N, K}) >= 8 && isId(lp) && isId(rp) && !foldedT && !foldedLhs &&
                  !swappedOut;
  // On an AVX-512 host with YNNPACK's tiles (Note [YNNPACK's tiles]).
  const YnnPlan nnPlan = nn ? ynnPlan(M, N, K, avx512, false, avx512) : YnnPlan{};
  if (nn && ynnPlanFits(nnPlan, K)) {
    const YnnPlan &plan = nnPlan;
    const YnnOrder o = plan.order();
    if (!plan.simple() || (avx512 && o == YnnOrder::Unfused && blas)) {
      emitTiles(plan, bufferOf(e.in[0]), false, bufferOf(e.in[1]), false, defBuffer(e.out[0]));
      return;
    }
    ynnChain = o == YnnOrder::Chain;
    if (o == YnnOrder::Pairs || o == YnnOrder::Quads || (o == YnnOrder::Unfused && !blas)) {
      Value *A = bufferOf(e.in[0]), *Bm = bufferOf(e.in[1]), *C = defBuffer(e.out[0]);
      const DotStrides st{K, 1, N, 1, N, 1};
      if (o == YnnOrder::Unfused)
        dotUnfused(*this, A, Bm, C, B, M, N, K);
      else if (blas)
        b.CreateCall(rt("spmd_cpu_gemm"),
                     {c32(dtypeCode(d)), c64(B), c64(M), c64(N), c64(K),
                      c32(o == YnnOrder::Quads ? SPMD_GEMM_QUADS : SPMD_GEMM_PAIRS), A, c32(0),
                      Bm, c32(0), C});
      else
        loop(B, [&](Value *bi) {
          Type *f = b.getFloatTy();
          Value *Ai = b.CreateInBoundsGEP(f, A, b.CreateMul(bi, c64(M * K))),
                *Bi = b.CreateInBoundsGEP(f, Bm, b.CreateMul(bi, c64(K * N))),
                *Ci = b.CreateInBoundsGEP(f, C, b.CreateMul(bi, c64(M * N)));
          if (o == YnnOrder::Quads)
            dotQuads(*this, Ai, Bi, Ci, st, M, N, K);
          else
            dotPairs(*this, Ai, Bi, Ci, st, 0, M, 0, N, K, true, false);
        });
      return;
    }
    // An unfused kernel's product of BLIS's size on an AVX2 host stays in BLIS, one chain
    // (not matched).
  }
  // A smaller `a @ b` (all of M, N, K below 8; XLA's DotThunk): the rows and columns of
  // `a.T @ b`'s tails, Note [YNNPACK kernel choice], over the one chain summed below.
  const bool tinyTails = xlaOneChain(target, d, K) && M > 1 && N > 1 &&
                         std::max({M, N, K}) < 8 && K >= 4 && (M > 3 || N > 3) && isId(lp) &&
                         isId(rp) && !foldedT && !foldedLhs && !swappedOut;
  // The length of the slices of k whose sums are added: K for XLA's (YNNPACK's) one chain
  // over k for f32 on the host (Note [XLA dot order]), else 256 (Note [Dot]).
  const int64_t KB = xlaOneChain(target, d, K) || ynnChain ? K : 256;
  // `a.T @ b` (lhs contracting dimension 0, grad's dB = A^T @ dC): summed in one chain as
  // above, then its tails rewritten in YNNPACK's orders (Note [XLA dot order]); up to
  // kTransposedLhsOneSlice of k, above which YNNPACK splits k (not matched).
  // In a kernel XLA folds a 2-D transpose of the lhs into the dot too (`transpose(a) @ b`
  // in a pmap body).
  const bool foldedA = fs->kernel && lp == id2 && !e.in[0].isLit &&
                       fs->transposed2d.count(e.in[0].var.id) && !foldedT;
  const bool lhsTails = xlaOneChain(target, d, K) && K <= kTransposedLhsOneSlice && B == 1 &&
                        M * N * K >= kTransposedLhsMinWork && (lp == swap2 || foldedA) &&
                        rp == id2;
  // A result whose one user is a transpose (in a kernel): XLA sums the product of the
  // swapped operands, dot(b, a) [N, M], here written transposed into C.
  const bool swapped = fs->kernel && fs->transposedDot.count(e.out[0].id);
  auto emitLhsTails = [&](Value *C) {
    if (!lhsTails) return;
    Value *L = bufferOf(e.in[0]), *R = bufferOf(e.in[1]);  // [K, M] and [K, N]
    if (foldedA)  // L is the transpose, [M, K]
      dotTransposedLhsTails(*this, L, R, C, DotStrides{K, 1, N, 1, N, 1}, M, N, K);
    else if (swapped)
      dotTransposedLhsTails(*this, R, L, C, DotStrides{1, N, M, 1, 1, N}, N, M, K);
    else
      dotTransposedLhsTails(*this, L, R, C, DotStrides{1, M, N, 1, N, 1}, M, N, K);
  };
  if (blas) {
    // BLIS (spmd_cpu_gemm) in slices of KB, the same sums in the same order (Note [BLIS
    // order] in runtime/cpu/CpuGemm.cpp); a transposed operand is read in place.
    auto operand = [&](const ir::Atom &a, const std::vector<int64_t> &perm, size_t nfirst,
                       bool &trans, bool &owned) -> Value * {
      trans = false;
      bool id = true;
      for (size_t k = 0; k < perm.size(); ++k) id &= perm[k] == int64_t(k);
      if (!id && swappedView(perm, g.batchDims, nfirst)) {
        trans = true, owned = false;
        return bufferOf(a);
      }
      return canon(a, perm, owned);
    };
    bool ta, tb, ownA, ownB;
    Value *A = operand(e.in[0], lp, g.lhsFreeDims, ta, ownA);
    Value *Bm = operand(e.in[1], rp, g.rhsContractDims, tb, ownB);
    Value *C = defBuffer(e.out[0]);
    const int32_t order = KB == 256 ? SPMD_GEMM_SLICES : SPMD_GEMM_ONE_CHAIN;
    b.CreateCall(rt("spmd_cpu_gemm"), {c32(dtypeCode(d)), c64(B), c64(M), c64(N), c64(K),
                                       c32(order), A, c32(ta), Bm, c32(tb), C});
    emitLhsTails(C);
    if (ownA) freeBuffer(A);
    if (ownB) freeBuffer(Bm);
    return;
  }
  bool ownA, ownB;
  Value *A = canon(e.in[0], lp, ownA), *Bm = canon(e.in[1], rp, ownB);
  Value *C = defBuffer(e.out[0]);
  Type *t = regTy(d);
  loop(B * M * N, [&](Value *i) { store(d, constOf(d, 0), C, i); });
  const int64_t NB = 256;
  auto tileRange = [&](Value *lo, int64_t step, int64_t hi) {
    return b.CreateIntrinsic(Intrinsic::smin, {i64()}, {b.CreateAdd(lo, c64(step)), c64(hi)});
  };
  // The scalar i-k-j loops over rows [i0, i1) and columns [j0, j1), the j loop vectorised.
  Value *part = fl ? entryAlloca(ArrayType::get(t, uint64_t(NB))) : nullptr;  // one row of a j tile
  auto scalarPart = [&](Value *a0, Value *b0, Value *c0, int64_t i0, int64_t i1, int64_t j0,
                        int64_t j1) {
    if (i0 >= i1 || j0 >= j1) return;
    loop((j1 - j0 + NB - 1) / NB, [&](Value *jt) {
      Value *jlo = b.CreateAdd(c64(j0), b.CreateMul(jt, c64(NB))), *jhi = tileRange(jlo, NB, j1);
      loop((K + KB - 1) / KB, [&](Value *kt) {
        Value *klo = b.CreateMul(kt, c64(KB)), *khi = tileRange(klo, KB, K);
        loop(i1 - i0, [&](Value *ii) {
          Value *i = b.CreateAdd(ii, c64(i0));
          Value *arow = b.CreateAdd(a0, b.CreateMul(i, c64(K))),
                *crow = b.CreateAdd(c0, b.CreateMul(i, c64(N)));
          Value *cout = b.CreateInBoundsGEP(t, C, crow);
          // The k tile's products gather in a row of partials (part[j - jlo]), which then
          // joins C.
          Value *cp = fl ? b.CreateGEP(t, part, b.CreateNeg(jlo)) : cout;
          if (fl)
            loopRange(*this, jlo, jhi, [&](Value *j) {
              b.CreateStore(constOf(d, 0), b.CreateInBoundsGEP(t, cp, j));
            });
          loopRange(*this, klo, khi, [&](Value *k) {
            Value *av = load(d, A, b.CreateAdd(arow, k));
            Value *bp = b.CreateInBoundsGEP(t, Bm, b.CreateAdd(b0, b.CreateMul(k, c64(N))));
            loopRange(*this, jlo, jhi, [&](Value *j) {
              Value *cj = b.CreateInBoundsGEP(t, cp, j);
              Value *bv = b.CreateLoad(t, b.CreateInBoundsGEP(t, bp, j));
              Value *cv = b.CreateLoad(t, cj);
              // Note [Explicit contraction]. (Bools accumulate with or, as XLA's dot of
              // preds: binaryOp's Add.)
              b.CreateStore(fl ? b.CreateIntrinsic(Intrinsic::fmuladd, {t}, {av, bv, cv})
                               : binaryOp(Op::Add, d, cv, b.CreateMul(av, bv)),
                            cj);
            });
          });
          if (fl)
            loopRange(*this, jlo, jhi, [&](Value *j) {
              Value *cj = b.CreateInBoundsGEP(t, cout, j);
              b.CreateStore(
                  b.CreateFAdd(b.CreateLoad(t, cj), b.CreateLoad(t, b.CreateInBoundsGEP(t, cp, j))),
                  cj);
            });
        });
      });
    });
  };
  // Note [Dot] micro-kernel: an MR x NR block of C stays in vector registers over a KB
  // slice of k: per k, one vector load of B and MR broadcasts of A feed MR FMAs.
  const int64_t MR = 6, NR = d == DType::F32 ? 16 : 8;
  bool micro = fl && target == Target::Host;
  int64_t Mf = micro ? M / MR * MR : 0, Nf = micro ? N / NR * NR : 0;
  if (Mf == 0 || Nf == 0) Mf = Nf = 0;
  auto *vt = FixedVectorType::get(t, unsigned(NR));
  std::vector<Value *> acc;
  for (int64_t r = 0; r < MR && Mf; ++r) acc.push_back(entryAlloca(vt));
  if (fl && N == 1 && K > 16) {
    // A matrix-vector or vector-vector product: each output is a sum of K products, one
    // contiguous run of A and of B, folded by Note [Cascade] (a running sum over a long
    // k was off by 1e-4 for K = 1e6).
    loop(B * M, [&](Value *bm) {
      Value *arow = b.CreateMul(bm, c64(K)), *bcol = b.CreateMul(b.CreateUDiv(bm, c64(M)), c64(K));
      store(d,
            foldCascade(*this, Op::Add, d, constOf(d, 0), K,
                        [&](Value *k) {
                          return b.CreateFMul(load(d, A, b.CreateAdd(arow, k)),
                                              load(d, Bm, b.CreateAdd(bcol, k)));
                        }),
            C, bm);
    });
    if (ownA) freeBuffer(A);
    if (ownB) freeBuffer(Bm);
    return;
  }
  loop(B, [&](Value *bi) {
    Value *a0 = b.CreateMul(bi, c64(M * K)), *b0 = b.CreateMul(bi, c64(K * N)),
          *c0 = b.CreateMul(bi, c64(M * N));
    if (Mf) {
      loop((Nf + NB - 1) / NB, [&](Value *jt) {
        Value *jlo = b.CreateMul(jt, c64(NB)), *jhi = tileRange(jlo, NB, Nf);
        Value *nj = b.CreateUDiv(b.CreateSub(jhi, jlo), c64(NR));
        loop((K + KB - 1) / KB, [&](Value *kt) {
          Value *klo = b.CreateMul(kt, c64(KB)), *khi = tileRange(klo, KB, K);
          // jb outside ib: one KB x NR micro-panel of B stays in L1 for every row block.
          loopRange(*this, c64(0), nj, [&](Value *jb) {
            Value *j0 = b.CreateAdd(jlo, b.CreateMul(jb, c64(NR)));
            loop(Mf / MR, [&](Value *ib) {
              Value *i0 = b.CreateMul(ib, c64(MR));
              auto cptr = [&](int64_t r) {
                Value *row = b.CreateAdd(c0, b.CreateMul(b.CreateAdd(i0, c64(r)), c64(N)));
                return b.CreateInBoundsGEP(t, C, b.CreateAdd(row, j0));
              };
              for (int64_t r = 0; r < MR; ++r) b.CreateStore(Constant::getNullValue(vt), acc[r]);
              loopRange(*this, klo, khi, [&](Value *k) {
                Value *bp = b.CreateInBoundsGEP(
                    t, Bm, b.CreateAdd(b.CreateAdd(b0, b.CreateMul(k, c64(N))), j0));
                Value *bv = b.CreateAlignedLoad(vt, bp, Align(4));
                for (int64_t r = 0; r < MR; ++r) {
                  Value *ai =
                      b.CreateAdd(b.CreateAdd(a0, b.CreateMul(b.CreateAdd(i0, c64(r)), c64(K))), k);
                  Value *av = b.CreateVectorSplat(unsigned(NR), load(d, A, ai));
                  Value *cur = b.CreateLoad(vt, acc[r]);
                  b.CreateStore(b.CreateIntrinsic(Intrinsic::fmuladd, {vt}, {av, bv, cur}), acc[r]);
                }
              });
              for (int64_t r = 0; r < MR; ++r)  // the tile's sum joins C (Note [Dot] accuracy)
                b.CreateAlignedStore(b.CreateFAdd(b.CreateAlignedLoad(vt, cptr(r), Align(4)),
                                                  b.CreateLoad(vt, acc[r])),
                                     cptr(r), Align(4));
            });
          });
        });
      });
    }
    scalarPart(a0, b0, c0, Mf, M, 0, N);
    scalarPart(a0, b0, c0, 0, Mf, Nf, N);
  });
  emitLhsTails(C);
  if (tinyTails)
    loop(B, [&](Value *bi) {
      Type *f = b.getFloatTy();
      dotTransposedLhsTails(*this, b.CreateInBoundsGEP(f, A, b.CreateMul(bi, c64(M * K))),
                            b.CreateInBoundsGEP(f, Bm, b.CreateMul(bi, c64(K * N))),
                            b.CreateInBoundsGEP(f, C, b.CreateMul(bi, c64(M * N))),
                            DotStrides{K, 1, N, 1, N, 1}, M, N, K);
    });
  if (ownA) freeBuffer(A);
  if (ownB) freeBuffer(Bm);
}

void LlvmEmitter::deviceDot(const ir::Eqn &e) {
  const DotShape g = dotShape(e);
  const int64_t B = g.B, M = g.M, K = g.K, N = g.N;
  DType d = e.out[0].type.dtype;
  // Canonical operands, A as [B, M, K] and B as [B, K, N] (a transpose kernel when needed).
  auto canon = [&](const ir::Atom &a, std::vector<int64_t> perm) -> Value * {
    Value *src = bufferOf(a);
    bool id = true;
    for (size_t k = 0; k < perm.size(); ++k) id &= perm[k] == int64_t(k);
    if (id) return src;
    Value *t = allocBytes(a.type().bytes());
    emitTransposeCopy(a.type().dtype, src, a.type().shape, perm, t);
    return t;
  };
  const std::vector<int64_t> &lp = g.lhsPerm, &rp = g.rhsPerm;
  Value *A = canon(e.in[0], lp), *Bm = canon(e.in[1], rp);
  Value *C = defBuffer(e.out[0]);
  auto ownKernel = [&] {
    // One output element per thread, k ascending with fused multiply-adds (the CPU's order).
    launchKernel("dot", B * M * N, {}, {A, Bm, C}, [&](Value *i, const std::vector<Value *> &kx) {
      Value *bi = b.CreateUDiv(i, c64(M * N)), *mn = b.CreateURem(i, c64(M * N));
      Value *m = b.CreateUDiv(mn, c64(N)), *nn = b.CreateURem(mn, c64(N));
      Value *a0 = b.CreateAdd(b.CreateMul(bi, c64(M * K)), b.CreateMul(m, c64(K)));
      Value *b0 = b.CreateAdd(b.CreateMul(bi, c64(K * N)), nn);
      Value *acc = entryAlloca(regTy(d));
      b.CreateStore(constOf(d, 0), acc);
      loop(K, [&](Value *k) {
        Value *x = load(d, kx[0], b.CreateAdd(a0, k)),
              *y = load(d, kx[1], b.CreateAdd(b0, b.CreateMul(k, c64(N))));
        Value *cur = b.CreateLoad(regTy(d), acc);
        Value *r = ir::isFloat(d) ? b.CreateIntrinsic(Intrinsic::fmuladd, {regTy(d)}, {x, y, cur})
                                  : binaryOp(Op::Add, d, cur, binaryOp(Op::Mul, d, x, y));
        b.CreateStore(r, acc);
      });
      store(d, b.CreateLoad(regTy(d), acc), kx[2], i);
    });
  };
  if (B * M * N == 0) return;
  if (ir::isFloat(d) && M == 1 && N == 1 && K > 0) {
    // vector . vector (per batch): XLA's multiply and sum (Note [XLA dot order]), folded
    // as a device reduce_sum of the products is (P threads per output, not a BLAS call).
    deviceFold("dot_sum", B, K, Op::ReduceSum, d, {}, {A, Bm}, C,
               [&](Value *bi, Value *k, const std::vector<Value *> &in) {
                 Value *i = b.CreateAdd(b.CreateMul(bi, c64(K)), k);
                 return binaryOp(Op::Mul, d, load(d, in[0], i), load(d, in[1], i));
               });
    return;
  }
  if (!ir::isFloat(d) || K == 0) {
    if (K == 0) {
      launchKernel("dot_zero", B * M * N, {}, {C}, [&](Value *i, const std::vector<Value *> &kx) {
        store(d, constOf(d, 0), kx[0], i);
      });
      return;
    }
    return ownKernel();
  }
  // The device's BLAS when it has one (spmd_gemm returns 1 otherwise).
  Value *rc_ = b.CreateCall(rt("spmd_gemm"),
                            {fs->dev, c32(dtypeCode(d)), c64(B), c64(M), c64(N), c64(K), A, Bm, C});
  Function *f = b.GetInsertBlock()->getParent();
  BasicBlock *own = BasicBlock::Create(ctx, "dot.own", f),
             *cont = BasicBlock::Create(ctx, "dot.done", f);
  b.CreateCondBr(b.CreateICmpNE(rc_, c32(0)), own, cont);
  b.SetInsertPoint(own);
  ownKernel();
  b.CreateBr(cont);
  b.SetInsertPoint(cont);
}

}  // namespace spmd::codegen
