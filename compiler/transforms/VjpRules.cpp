// ===- VjpRules.cpp - one VJP rule per primitive, in one table ----------------===//
//
// Each rule maps the cotangents of an equation's outputs to cotangents of its inputs,
// emitting ordinary primitives (JAX's JVP rules transposed by hand, operation for
// operation, so that gradients of gradients round as JAX's: Note [Primal-only equations]
// in Grad.cpp; tinygrad's gradient table in spirit). A rule may read the forward equation's inputs and outputs freely:
// they become residuals (Note [Splitting a jaxpr] in Grad.cpp). Every primitive that a
// rule emits has a rule itself, so second-order gradients work.
//
// Cotangent conventions: a rule only runs when at least one output has a cotangent;
// `c.need[k]` says whether input k wants one. Binary operands may be scalars broadcast
// implicitly (IR.cpp's elementwiseShape), so their cotangents are summed back
// (`unbroadcast`).
#include "transforms/Grad.h"
#include "transforms/GradInternal.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace spmd::transforms::grad {
using namespace ir;

namespace {

using Ints = std::vector<int64_t>;

Atom unbroadcast(Builder &b, Atom g, const Type &t) {
  if (g.type().shape == t.shape) return g;
  internal_assert(t.rank() == 0, "unbroadcast: only scalars broadcast implicitly");
  Ints axes(g.type().rank());
  std::iota(axes.begin(), axes.end(), 0);
  return b.reduce(Op::ReduceSum, g, axes);
}

Atom g0(RuleCtx &c) { return materialize(c.b, c.cts[0], c.e.out[0].type); }
Atom in(RuleCtx &c, int k) { return c.e.in[k]; }
Atom out0(RuleCtx &c) { return c.e.out[0]; }
Atom lit(RuleCtx &c, double v) { return c.b.lit(c.e.out[0].type.dtype, v); }
Var mul(RuleCtx &c, Atom a, Atom b) { return c.b.binary(Op::Mul, a, b); }

/// The cotangent of a unary elementwise op whose derivative is `d`: g * d.
std::vector<Ct> times(RuleCtx &c, Atom d) {
  return {unbroadcast(c.b, mul(c, g0(c), d), c.e.in[0].type())};
}
std::vector<Ct> none(RuleCtx &c) { return std::vector<Ct>(c.e.in.size()); }

Var slice(Builder &b, Atom x, const Ints &start, const Ints &limit, const Ints &strides) {
  return b.emit1(Op::Slice, {x},
                 {{"start_indices", Param::ints(start)},
                  {"limit_indices", Param::ints(limit)},
                  {"strides", Param::ints(strides)}});
}

Var pad(Builder &b, Atom x, Atom pv, const std::vector<Ints> &cfg) {
  std::vector<Param> p;
  for (auto &c : cfg) p.push_back(Param::ints(c));
  return b.emit1(Op::Pad, {x, pv}, {{"padding_config", Param::tuple(p)}});
}

Var sumAll(Builder &b, Atom x) {
  Ints axes(x.type().rank());
  std::iota(axes.begin(), axes.end(), 0);
  return b.reduce(Op::ReduceSum, x, axes);
}

Ints remaining(int n, const Ints &a, const Ints &b) {
  Ints r;
  for (int64_t d = 0; d < n; ++d)
    if (std::find(a.begin(), a.end(), d) == a.end() && std::find(b.begin(), b.end(), d) == b.end())
      r.push_back(d);
  return r;
}

Ints argsort(const Ints &v) {
  Ints idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) { return v[a] < v[b]; });
  return idx;
}

Ints range(int64_t a, int64_t b) {
  Ints r;
  for (int64_t k = a; k < b; ++k) r.push_back(k);
  return r;
}

// ---- elementwise ------------------------------------------------------------------------

std::vector<Ct> negVjp(RuleCtx &c) { return {c.b.unary(Op::Neg, g0(c))}; }
std::vector<Ct> expVjp(RuleCtx &c) { return times(c, out0(c)); }
std::vector<Ct> logVjp(RuleCtx &c) { return {c.b.binary(Op::Div, g0(c), in(c, 0))}; }
std::vector<Ct> log1pVjp(RuleCtx &c) {
  return {c.b.binary(Op::Div, g0(c), c.b.binary(Op::Add, in(c, 0), lit(c, 1)))};
}
// As JAX's JVP rules transposed, operation for operation, so the gradients round as
// JAX's do: sqrt g * (0.5 / ans); tanh (g + g * ans) * (1 - ans), whose transpose adds
// t and then t * ans (t = g * (1 - ans)) to x's total cotangent, one after the other.
std::vector<Ct> sqrtVjp(RuleCtx &c) { return times(c, c.b.binary(Op::Div, lit(c, 0.5), out0(c))); }
std::vector<Ct> rsqrtVjp(RuleCtx &c) {
  return times(c, mul(c, c.b.binary(Op::Div, out0(c), in(c, 0)), lit(c, -0.5)));
}
std::vector<Ct> sinVjp(RuleCtx &c) { return times(c, c.b.unary(Op::Cos, in(c, 0))); }
// cos: JAX's -(g * sin x), so sin x is the coefficient and the negation is linear.
std::vector<Ct> cosVjp(RuleCtx &c) {
  return {unbroadcast(c.b, mul(c, c.b.unary(Op::Neg, g0(c)), c.b.unary(Op::Sin, in(c, 0))),
                      c.e.in[0].type())};
}
std::vector<Ct> tanVjp(RuleCtx &c) {
  return times(c, c.b.binary(Op::Add, lit(c, 1), mul(c, out0(c), out0(c))));
}
std::vector<Ct> tanhVjp(RuleCtx &c) {
  Var t = mul(c, g0(c), c.b.binary(Op::Sub, lit(c, 1), out0(c)));
  c.extra.push_back({0, mul(c, t, out0(c))});
  return {t};
}
std::vector<Ct> logisticVjp(RuleCtx &c) {
  return times(c, mul(c, out0(c), c.b.binary(Op::Sub, lit(c, 1), out0(c))));
}
// As JAX's abs JVP, select(x >= 0, g, -g): the derivative at 0 (and -0) is 1, not sign(0).
// Its transpose is select(x >= 0, g, 0) + -select(x >= 0, 0, g): where x < 0 that is
// 0 - g, which is +0 for a zero cotangent (g * -1 would give -0: grad of min(abs(x)) at
// the elements that are not the minimum).
std::vector<Ct> absVjp(RuleCtx &c) {
  Var pos = c.b.binary(Op::Ge, in(c, 0), lit(c, 0));
  Var neg = c.b.binary(Op::Sub, lit(c, 0), g0(c));
  return {c.b.emit1(Op::Select, {pos, neg, g0(c)})};
}
std::vector<Ct> erfInvVjp(RuleCtx &c) {
  // d/dx erfinv(x) = sqrt(pi)/2 * exp(erfinv(x)^2)
  return times(c,
               mul(c, c.b.unary(Op::Exp, mul(c, out0(c), out0(c))), lit(c, std::sqrt(M_PI) / 2)));
}
std::vector<Ct> integerPowVjp(RuleCtx &c) {
  int64_t n = c.e.intParam("y");
  if (n == 0) return {Ct()};
  Atom d = n == 1   ? lit(c, 1)
           : n == 2 ? in(c, 0)
                    : Atom(c.b.emit1(Op::IntegerPow, {in(c, 0)}, {{"y", Param::of(n - 1)}}));
  return times(c, n == 1 ? d : Atom(mul(c, d, lit(c, double(n)))));
}
std::vector<Ct> convertVjp(RuleCtx &c) {
  DType from = c.e.in[0].type().dtype, to = c.e.out[0].type.dtype;
  if (!isFloat(from) || !isFloat(to)) return {Ct()};
  return {from == to ? g0(c) : Atom(c.b.convert(g0(c), from))};
}

std::vector<Ct> addVjp(RuleCtx &c) {
  return {unbroadcast(c.b, g0(c), c.e.in[0].type()), unbroadcast(c.b, g0(c), c.e.in[1].type())};
}
std::vector<Ct> subVjp(RuleCtx &c) {
  return {unbroadcast(c.b, g0(c), c.e.in[0].type()),
          c.need[1] ? Ct(unbroadcast(c.b, c.b.unary(Op::Neg, g0(c)), c.e.in[1].type())) : Ct()};
}
std::vector<Ct> mulVjp(RuleCtx &c) {
  std::vector<Ct> r(2);
  c.lastFirst = true;
  if (c.need[1]) r[1] = unbroadcast(c.b, mul(c, in(c, 0), g0(c)), c.e.in[1].type());
  if (c.need[0]) r[0] = unbroadcast(c.b, mul(c, g0(c), in(c, 1)), c.e.in[0].type());
  return r;
}
/// fma(a, b, c) = a * b + c: da = g * b, db = g * a, dc = g.
std::vector<Ct> fmaVjp(RuleCtx &c) {
  std::vector<Ct> r(3);
  if (c.need[0]) r[0] = unbroadcast(c.b, mul(c, g0(c), in(c, 1)), c.e.in[0].type());
  if (c.need[1]) r[1] = unbroadcast(c.b, mul(c, g0(c), in(c, 0)), c.e.in[1].type());
  if (c.need[2]) r[2] = unbroadcast(c.b, g0(c), c.e.in[2].type());
  return r;
}
std::vector<Ct> divVjp(RuleCtx &c) {
  std::vector<Ct> r(2);
  c.lastFirst = true;
  if (c.need[1]) {  // JAX: -g * x * y**-2, transposed: -((g * y**-2) * x)
    Var yinv2 = c.b.emit1(Op::IntegerPow, {in(c, 1)}, {{"y", Param::of(int64_t(-2))}});
    Var t = mul(c, mul(c, g0(c), yinv2), in(c, 0));
    r[1] = unbroadcast(c.b, c.b.unary(Op::Neg, t), c.e.in[1].type());
  }
  if (c.need[0]) {
    // An eager division's transpose is eager too (Note [Eager division]).
    Params p;
    if (c.e.has("_eager")) p["_eager"] = c.e.param("_eager");
    r[0] = unbroadcast(c.b, c.b.emit1(Op::Div, {g0(c), in(c, 1)}, p), c.e.in[0].type());
  }
  return r;
}
std::vector<Ct> remVjp(RuleCtx &c) {
  std::vector<Ct> r(2);
  if (c.need[0]) r[0] = unbroadcast(c.b, g0(c), c.e.in[0].type());
  if (c.need[1]) {  // rem(a, b) = a - b * trunc(a / b)
    Var q = c.b.binary(Op::Div, in(c, 0), in(c, 1));
    Var trunc = mul(c, c.b.unary(Op::Sign, q), c.b.unary(Op::Floor, c.b.unary(Op::Abs, q)));
    r[1] = unbroadcast(c.b, c.b.unary(Op::Neg, mul(c, g0(c), trunc)), c.e.in[1].type());
  }
  return r;
}
std::vector<Ct> powVjp(RuleCtx &c) {
  std::vector<Ct> r(2);
  Atom a = in(c, 0), e = in(c, 1);
  std::optional<Var> d0, d1;  // JAX's coefficients, the base's first
  if (c.need[0])  // e * a^(e-1)
    d0 = mul(c, e, c.b.binary(Op::Pow, a, c.b.binary(Op::Sub, e, lit(c, 1))));
  if (c.need[1]) {  // log(a) * a^e, with log(0) taken as 0 as JAX does
    Var isZero = c.b.binary(Op::Eq, a, lit(c, 0));
    Atom one = c.b.broadcastTo(lit(c, 1), a.type().shape);
    Var safe = c.b.emit1(Op::Select, {isZero, a, one});
    d1 = mul(c, c.b.unary(Op::Log, safe), out0(c));
  }
  c.lastFirst = true;
  if (d1) r[1] = unbroadcast(c.b, mul(c, g0(c), *d1), c.e.in[1].type());
  if (d0) r[0] = unbroadcast(c.b, mul(c, g0(c), *d0), c.e.in[0].type());
  return r;
}
/// max/min: the cotangent goes to the winner, split evenly on ties (JAX's rule).
/// relu (max with the parameter relu): jax.nn.relu's custom JVP, select(x > 0, g, 0), so a
/// cotangent of inf or nan at x <= 0 gives 0, and 0 at the kink.
std::vector<Ct> minMaxVjp(RuleCtx &c) {
  DType d = c.e.out[0].type.dtype;
  if (c.e.op == Op::Max && c.e.has("relu")) {
    std::vector<Ct> r(2);
    Atom g = g0(c), z = zeros(c.b, g.type());
    Var pos = c.b.binary(Op::Gt, in(c, 0), lit(c, 0));
    if (c.need[0]) r[0] = unbroadcast(c.b, c.b.emit1(Op::Select, {pos, z, g}), c.e.in[0].type());
    if (c.need[1]) r[1] = unbroadcast(c.b, zeros(c.b, g.type()), c.e.in[1].type());
    return r;
  }
  Op win = c.e.op == Op::Max ? Op::Gt : Op::Lt;
  Var wa = c.b.convert(c.b.binary(win, in(c, 0), in(c, 1)), d);
  Var tie = c.b.convert(c.b.binary(Op::Eq, in(c, 0), in(c, 1)), d);
  Var ma = c.b.binary(Op::Add, wa, mul(c, tie, lit(c, 0.5)));
  std::vector<Ct> r(2);
  std::optional<Var> mb;
  if (c.need[1]) mb = c.b.binary(Op::Sub, lit(c, 1), ma);
  c.lastFirst = true;
  if (c.need[1]) r[1] = unbroadcast(c.b, mul(c, g0(c), *mb), c.e.in[1].type());
  if (c.need[0]) r[0] = unbroadcast(c.b, mul(c, g0(c), ma), c.e.in[0].type());
  return r;
}
std::vector<Ct> selectVjp(RuleCtx &c) {
  Atom g = g0(c), z = zeros(c.b, g.type());
  std::vector<Ct> r(3);
  if (c.need[1]) r[1] = unbroadcast(c.b, c.b.emit1(Op::Select, {in(c, 0), g, z}), c.e.in[1].type());
  if (c.need[2]) r[2] = unbroadcast(c.b, c.b.emit1(Op::Select, {in(c, 0), z, g}), c.e.in[2].type());
  return r;
}

// ---- reductions -------------------------------------------------------------------------

/// Broadcasts a reduction's result (or cotangent) back over the reduced axes.
Var unreduce(RuleCtx &c, Atom v) {
  auto axes = c.e.intsParam("axes");
  const Type &xt = c.e.in[0].var.type;
  return c.b.broadcastInDim(v, xt.shape, remaining(xt.rank(), axes, {}));
}
std::vector<Ct> reduceSumVjp(RuleCtx &c) { return {unreduce(c, g0(c))}; }
std::vector<Ct> reduceMinMaxVjp(RuleCtx &c) {
  // A max taken under stop_gradient (logsumexp's shift, as jax.nn.logsumexp's): none.
  if (c.e.has("stop_gradient")) return {zeros(c.b, c.e.in[0].type())};
  DType d = c.e.out[0].type.dtype;
  Var mask = c.b.convert(c.b.binary(Op::Eq, in(c, 0), unreduce(c, out0(c))), d);
  Var count = c.b.reduce(Op::ReduceSum, mask, c.e.intsParam("axes"));
  return {mul(c, unreduce(c, c.b.binary(Op::Div, g0(c), count)), mask)};
}
// Note [The product tree]
// JAX differentiates reduce_prod through `_reduce_jvp` (lax.py): the reduced elements,
// flattened to n, are multiplied pairwise, first half by second half (an odd length padded
// with a 1), until one is left; the JVP of that tree, transposed, is the gradient. So
// each element's cotangent is g times the product of the others *in the tree's order*,
// and each level's cotangent is the sum of two pads (pad transposes a slice), which adds
// +0.0 to every element: grad(prod)([0.5, -1.5, 2.0, 0.0]) is [0, 0, 0, -1.5] with no
// -0.0, and from n = 5 on other orders round differently (in the last digits: 23 of the
// 33 elements of grad(prod) of 33 uniforms, as printed). This rule emits the same tree
// (O(n) work, log2(n) levels); it was an [n, n] array with x off the diagonal and 1 on
// it, reduced over the last axis. Every primitive in it has a rule, so second order works.
// The product's value is the tree's too in JAX (linearize evaluates the JVP, whose primal
// is the tree's top), not reduce_prod's sequential order: value_and_grad(prod) of 6
// uniforms is 1.6822053, where prod gives 1.6822054. So splitVjp's forward copy
// (Grad.cpp) computes a differentiated reduce_prod's value with productTree, and the rule
// reuses that tree's halves (RegionTape::atoms): in JAX's jaxpr one tree serves the value
// and the gradient, so a second derivative sums both uses' cotangents on the same
// products (a tree of its own in the rule gave 1 ulp off in 1 of 7 elements).
/// JAX's product tree over `axes` of x (Note [The product tree]): the reduced axes are
/// moved last and flattened to n, and each level multiplies the first half of the last
/// axis by the second (padded with a 1 when odd) until one element is left.
struct ProdTree {
  struct Level {
    int64_t m, n1;
    Atom lo, hi;  // the halves multiplied at this level (hi padded)
  };
  Shape front, moved, flat;  // the kept dims; the kept and reduced dims; front + [n]
  Ints perm;
  int64_t r = 0, n = 1;
  std::vector<Level> levels;
  std::optional<Atom> top;  // front + [1]; none when n is 0
};
Var cutLast(Builder &b, Atom p, int64_t from, int64_t to) {
  int64_t r = p.type().rank() - 1;
  Ints start(size_t(r + 1), 0), limit = p.type().shape, strides(size_t(r + 1), 1);
  start[size_t(r)] = from;
  limit[size_t(r)] = to;
  return slice(b, p, start, limit, strides);
}
Var padLast(Builder &b, Atom p, Atom v, int64_t lo, int64_t hi) {
  std::vector<Ints> cfg(size_t(p.type().rank()), Ints{0, 0, 0});
  cfg.back() = {lo, hi, 0};
  return pad(b, p, v, cfg);
}
/// `recorded`: the halves of a tree already built (by productTree in the forward pass),
/// used instead of emitting new ones.
ProdTree prodTree(Builder &b, Atom x, Ints axes, const std::vector<Atom> *recorded = nullptr) {
  ProdTree t;
  const Type xt = x.type();
  std::sort(axes.begin(), axes.end());
  Ints kept = remaining(xt.rank(), axes, {});
  t.perm = kept;
  t.perm.insert(t.perm.end(), axes.begin(), axes.end());
  for (int64_t d : kept) t.front.push_back(xt.shape[d]);
  for (int64_t d : t.perm) t.moved.push_back(xt.shape[d]);
  for (int64_t d : axes) t.n *= xt.shape[d];
  t.r = int64_t(t.front.size());
  t.flat = t.front;
  t.flat.push_back(t.n);
  if (t.n == 0) return t;
  if (recorded) {
    size_t k = 0;
    for (int64_t m = t.n; m > 1; m = (m + 1) / 2, k += 2)
      t.levels.push_back({m, (m + 1) / 2, recorded->at(k), recorded->at(k + 1)});
    internal_assert(k == recorded->size(), "prodTree: recorded halves");
    return t;
  }
  if (t.perm != range(0, xt.rank())) x = b.transpose(x, t.perm);
  x = b.reshape(x, t.flat);
  Atom one = b.lit(xt.dtype, 1);
  for (int64_t m = t.n; m > 1;) {
    int64_t n1 = (m + 1) / 2;
    Atom lo = cutLast(b, x, 0, n1), hi = cutLast(b, x, n1, m);
    if (m - n1 != n1) hi = padLast(b, hi, one, 0, 1);
    t.levels.push_back({m, n1, lo, hi});
    x = b.binary(Op::Mul, lo, hi);
    m = n1;
  }
  t.top = x;
  return t;
}

/// reduce_prod: Note [The product tree]. The cotangent runs down the tree (JAX's
/// `_reduce_jvp`, transposed) level by level.
std::vector<Ct> reduceProdVjp(RuleCtx &c) {
  Builder &b = c.b;
  const Type &xt = c.e.in[0].type();
  // The forward pass's tree where splitVjp built one (its products are then shared by
  // the value and the gradient, as in JAX's jaxpr, so a second derivative adds their
  // cotangents as JAX's does).
  bool fwd = c.tape && !c.tape->atoms.empty();
  ProdTree t = prodTree(b, in(c, 0), c.e.intsParam("axes"), fwd ? &c.tape->atoms : nullptr);
  if (t.n == 0) return {zeros(b, xt)};
  Atom zero = b.lit(xt.dtype, 0);
  Shape top = t.front;
  top.push_back(1);
  Atom ct = b.broadcastInDim(g0(c), top, range(0, t.r));
  for (auto l = t.levels.rbegin(); l != t.levels.rend(); ++l) {
    int64_t n2 = l->m - l->n1;
    Atom ctHi = mul(c, l->lo, ct), ctLo = mul(c, ct, l->hi);
    if (n2 != l->n1) ctHi = cutLast(b, ctHi, 0, n2);
    ct = b.binary(Op::Add, padLast(b, ctHi, zero, l->n1, 0), padLast(b, ctLo, zero, 0, n2));
  }
  if (t.moved != t.flat) ct = b.reshape(ct, t.moved);
  if (t.perm != range(0, xt.rank())) ct = b.transpose(ct, argsort(t.perm));
  return {ct};
}

// ---- shapes and data movement -----------------------------------------------------------

std::vector<Ct> broadcastVjp(RuleCtx &c) {
  const Type &xt = c.e.in[0].type();
  const Shape &s = c.e.out[0].type.shape;
  auto dims = c.e.intsParam("broadcast_dimensions");
  Ints sum;
  for (int64_t d = 0; d < int64_t(s.size()); ++d) {
    auto it = std::find(dims.begin(), dims.end(), d);
    if (it == dims.end() || (xt.shape[it - dims.begin()] == 1 && s[d] != 1)) sum.push_back(d);
  }
  Atom r = g0(c);
  if (!sum.empty()) r = c.b.reduce(Op::ReduceSum, r, sum);
  if (r.type().shape != xt.shape) r = c.b.reshape(r, xt.shape);
  return {r};
}
std::vector<Ct> reshapeVjp(RuleCtx &c) { return {c.b.reshape(g0(c), c.e.in[0].type().shape)}; }
std::vector<Ct> transposeVjp(RuleCtx &c) {
  return {c.b.transpose(g0(c), argsort(c.e.intsParam("permutation")))};
}
std::vector<Ct> revVjp(RuleCtx &c) {
  return {c.b.emit1(Op::Rev, {g0(c)}, {{"dimensions", c.e.param("dimensions")}})};
}
std::vector<Ct> concatenateVjp(RuleCtx &c) {
  int64_t dim = c.e.intParam("dimension"), off = 0;
  const Shape &s = c.e.out[0].type.shape;
  std::vector<Ct> r;
  for (size_t k = 0; k < c.e.in.size(); ++k) {
    int64_t n = c.e.in[k].type().shape[dim];
    if (c.need[k]) {
      Ints start(s.size(), 0), limit = s;
      start[dim] = off;
      limit[dim] = off + n;
      r.push_back(slice(c.b, g0(c), start, limit, Ints(s.size(), 1)));
    } else
      r.push_back(Ct());
    off += n;
  }
  return r;
}
std::vector<Ct> sliceVjp(RuleCtx &c) {
  const Type &xt = c.e.in[0].type();
  auto start = c.e.intsParam("start_indices");
  Ints strides = c.e.has("strides") && c.e.param("strides").kind != Param::None
                     ? c.e.intsParam("strides")
                     : Ints(start.size(), 1);
  std::vector<Ints> cfg;
  for (int d = 0; d < xt.rank(); ++d) {
    int64_t m = c.e.out[0].type.shape[d];
    int64_t used = m == 0 ? start[d] : start[d] + (m - 1) * strides[d] + 1;
    cfg.push_back({start[d], xt.shape[d] - used, strides[d] - 1});
  }
  return {pad(c.b, g0(c), c.b.lit(xt.dtype, 0), cfg)};
}
std::vector<Ct> padVjp(RuleCtx &c) {
  const Type &xt = c.e.in[0].type();
  auto &cfgP = c.e.param("padding_config").elems;
  std::vector<Ints> unpad;
  Ints start, limit, strides;
  bool negative = false;
  for (int d = 0; d < xt.rank(); ++d) {
    auto cf = cfgP[d].toInts();
    negative |= cf[0] < 0 || cf[1] < 0;
    unpad.push_back({std::max<int64_t>(-cf[0], 0), std::max<int64_t>(-cf[1], 0), 0});
    int64_t n = xt.shape[d], lo = std::max<int64_t>(cf[0], 0);
    start.push_back(lo);
    limit.push_back(n == 0 ? lo : lo + (n - 1) * (cf[2] + 1) + 1);
    strides.push_back(cf[2] + 1);
  }
  // Negative padding cropped the input: pad the cotangent back with zeros first.
  Atom g = g0(c);
  if (negative) g = pad(c.b, g, c.b.lit(xt.dtype, 0), unpad);
  Var tx = slice(c.b, g, start, limit, strides);
  std::vector<Ct> r{tx, Ct()};
  if (c.need[1]) r[1] = c.b.binary(Op::Sub, sumAll(c.b, g0(c)), sumAll(c.b, tx));
  return r;
}
std::vector<Ct> dynamicSliceVjp(RuleCtx &c) {
  std::vector<Ct> r(c.e.in.size());
  std::vector<Atom> ins{zeros(c.b, c.e.in[0].type()), g0(c)};
  ins.insert(ins.end(), c.e.in.begin() + 1, c.e.in.end());
  r[0] = c.b.emit1(Op::DynamicUpdateSlice, ins);
  return r;
}
std::vector<Ct> dynamicUpdateSliceVjp(RuleCtx &c) {
  std::vector<Ct> r(c.e.in.size());
  std::vector<Atom> idx(c.e.in.begin() + 2, c.e.in.end());
  const Type &ut = c.e.in[1].type();
  if (c.need[0]) {
    std::vector<Atom> ins{g0(c), zeros(c.b, ut)};
    ins.insert(ins.end(), idx.begin(), idx.end());
    r[0] = c.b.emit1(Op::DynamicUpdateSlice, ins);
  }
  if (c.need[1]) {
    std::vector<Atom> ins{g0(c)};
    ins.insert(ins.end(), idx.begin(), idx.end());
    r[1] = c.b.emit1(Op::DynamicSlice, ins, {{"slice_sizes", Param::ints(ut.shape)}});
  }
  return r;
}

/// JAX's _dot_general_transpose_lhs: the cotangent of x in dot_general(x, y) (or of y,
/// with the dimension numbers swapped and `swapAns`).
Atom dotTransposeLhs(RuleCtx &c, Atom g, const Type &xt, Atom y, const Ints &xc, const Ints &yc,
                     const Ints &xb, const Ints &yb, bool swapAns) {
  Ints xKept = remaining(xt.rank(), xc, xb), yKept = remaining(y.type().rank(), yc, yb);
  int64_t nb = int64_t(xb.size());
  Ints ansBatch = range(0, nb);
  Ints ansY = swapAns
                  ? range(nb, nb + int64_t(yKept.size()))
                  : range(nb + int64_t(xKept.size()), nb + int64_t(xKept.size() + yKept.size()));
  Params p = c.e.params;
  p["dimension_numbers"] =
      Param::tuple({Param::tuple({Param::ints(ansY, true), Param::ints(yKept, true)}),
                    Param::tuple({Param::ints(ansBatch, true), Param::ints(yb, true)})});
  Var r = c.b.emit1(Op::DotGeneral, {g, y}, p);
  Ints pre = xb;
  pre.insert(pre.end(), xKept.begin(), xKept.end());
  for (auto k : argsort(yc)) pre.push_back(xc[k]);
  Ints perm = argsort(pre);
  if (perm == range(0, int64_t(perm.size()))) return r;
  return c.b.transpose(r, perm);
}
std::vector<Ct> dotGeneralVjp(RuleCtx &c) {
  auto &dn = c.e.param("dimension_numbers").elems;
  Ints lc = dn[0].elems[0].toInts(), rc = dn[0].elems[1].toInts();
  Ints lb = dn[1].elems[0].toInts(), rb = dn[1].elems[1].toInts();
  std::vector<Ct> r(2);
  c.lastFirst = true;
  if (c.need[1]) r[1] = dotTransposeLhs(c, g0(c), c.e.in[1].type(), in(c, 0), rc, lc, rb, lb, true);
  if (c.need[0])
    r[0] = dotTransposeLhs(c, g0(c), c.e.in[0].type(), in(c, 1), lc, rc, lb, rb, false);
  return r;
}

// ---- collectives ------------------------------------------------------------------------

/// psum's transpose is psum (JAX's rule inside pmap): each replica's input reaches every
/// replica's output.
std::vector<Ct> psumVjp(RuleCtx &c) { return {c.b.emit1(Op::Psum, {g0(c)}, c.e.params)}; }
std::vector<Ct> notDifferentiable(RuleCtx &c) {
  userError(c.loc, std::string(name(c.e.op)) + " is not differentiable",
            {{c.e.loc, std::string("the ") + name(c.e.op) + " on the gradient's path is here"}});
}
std::vector<Ct> ppermuteVjp(RuleCtx &c) {
  Params p = c.e.params;
  for (auto &pair : p["perm"].elems) std::swap(pair.elems[0], pair.elems[1]);
  return {c.b.emit1(Op::Ppermute, {g0(c)}, p)};
}
std::vector<Ct> allGatherVjp(RuleCtx &c) {
  Params p{{"axis_name", c.e.param("axis_name")},
           {"axis_size", c.e.param("axis_size")},
           {"scatter_dimension", c.e.param("all_gather_dimension")},
           {"tiled", c.e.param("tiled")}};
  return {c.b.emit1(Op::ReduceScatter, {g0(c)}, p)};
}
std::vector<Ct> reduceScatterVjp(RuleCtx &c) {
  Params p{{"axis_name", c.e.param("axis_name")},
           {"axis_size", c.e.param("axis_size")},
           {"all_gather_dimension", c.e.param("scatter_dimension")},
           {"tiled", c.e.param("tiled")}};
  return {c.b.emit1(Op::AllGather, {g0(c)}, p)};
}
std::vector<Ct> allToAllVjp(RuleCtx &c) {
  Params p = c.e.params;
  std::swap(p["split_axis"], p["concat_axis"]);
  return {c.b.emit1(Op::AllToAll, {g0(c)}, p)};
}

std::vector<Ct> vmapVjp(RuleCtx &c) {
  internalError(__FILE__, __LINE__, "vmap reached grad: eliminateVmaps runs first");
}

/// The table, indexed by Op.
struct RuleTable {
  VjpRule rules[kNumOps] = {};
  RuleTable() {
    auto set = [&](Op op, VjpRule r) { rules[int(op)] = r; };
    // Integer, boolean, key and rounding results carry no cotangent.
    for (Op op : {Op::Sign,
                  Op::Floor,
                  Op::Ceil,
                  Op::Round,
                  Op::Not,
                  Op::BitcastConvert,
                  Op::And,
                  Op::Or,
                  Op::Xor,
                  Op::ShiftLeft,
                  Op::ShiftRightLogical,
                  Op::Eq,
                  Op::Ne,
                  Op::Lt,
                  Op::Le,
                  Op::Gt,
                  Op::Ge,
                  Op::ReduceAnd,
                  Op::ReduceOr,
                  Op::Argmax,
                  Op::Argmin,
                  Op::Iota,
                  Op::Constant,
                  Op::AxisIndex,
                  Op::RandomSeed,
                  Op::RandomSplit,
                  Op::RandomFoldIn,
                  Op::RandomBits,
                  Op::RandomWrap,
                  Op::RandomUnwrap,
                  Op::Print,
                  Op::AssertClose,
                  Op::Check})
      set(op, none);
    set(Op::Neg, negVjp);
    set(Op::Exp, expVjp);
    set(Op::Log, logVjp);
    set(Op::Log1p, log1pVjp);
    set(Op::Sqrt, sqrtVjp);
    set(Op::Rsqrt, rsqrtVjp);
    set(Op::Sin, sinVjp);
    set(Op::Cos, cosVjp);
    set(Op::Tan, tanVjp);
    set(Op::Tanh, tanhVjp);
    set(Op::Logistic, logisticVjp);
    set(Op::Abs, absVjp);
    set(Op::ErfInv, erfInvVjp);
    set(Op::IntegerPow, integerPowVjp);
    set(Op::Convert, convertVjp);
    set(Op::Add, addVjp);
    set(Op::Sub, subVjp);
    set(Op::Mul, mulVjp);
    set(Op::Div, divVjp);
    set(Op::Rem, remVjp);
    set(Op::Pow, powVjp);
    set(Op::Max, minMaxVjp);
    set(Op::Min, minMaxVjp);
    set(Op::Select, selectVjp);
    set(Op::Fma, fmaVjp);
    set(Op::ReduceSum, reduceSumVjp);
    set(Op::ReduceMax, reduceMinMaxVjp);
    set(Op::ReduceMin, reduceMinMaxVjp);
    set(Op::ReduceProd, reduceProdVjp);
    set(Op::BroadcastInDim, broadcastVjp);
    set(Op::Reshape, reshapeVjp);
    set(Op::Transpose, transposeVjp);
    set(Op::Concatenate, concatenateVjp);
    set(Op::Slice, sliceVjp);
    set(Op::Pad, padVjp);
    set(Op::Rev, revVjp);
    set(Op::DynamicSlice, dynamicSliceVjp);
    set(Op::DynamicUpdateSlice, dynamicUpdateSliceVjp);
    set(Op::DotGeneral, dotGeneralVjp);
    set(Op::Psum, psumVjp);
    set(Op::Pmax, notDifferentiable);
    set(Op::Pmin, notDifferentiable);
    set(Op::AllGather, allGatherVjp);
    set(Op::ReduceScatter, reduceScatterVjp);
    set(Op::Ppermute, ppermuteVjp);
    set(Op::AllToAll, allToAllVjp);
    set(Op::Pmap, pmapVjp);
    set(Op::ForLoop, forLoopVjp);
    set(Op::Cond, condVjp);
    set(Op::Vmap, vmapVjp);
  }
};

}  // namespace

VjpRule vjpRule(Op op) {
  static const RuleTable table;
  return table.rules[int(op)];
}

Atom productTree(Builder &b, Atom x, const std::vector<int64_t> &axes, std::vector<Atom> *halves) {
  ProdTree t = prodTree(b, x, axes);
  if (halves)
    for (auto &l : t.levels) halves->insert(halves->end(), {l.lo, l.hi});
  if (!t.top) return b.fill(x.type().dtype, t.front, 1);
  return b.reshape(*t.top, t.front);
}

}  // namespace spmd::transforms::grad

bool spmd::transforms::hasVjpRule(ir::Op op) { return grad::vjpRule(op) != nullptr; }
