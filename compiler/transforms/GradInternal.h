// ===- GradInternal.h - shared pieces of reverse-mode differentiation ---------===//
//
// Internal to Grad.cpp, GradRegions.cpp and VjpRules.cpp. The transform is a direct
// VJP (Note [Splitting a jaxpr] in Grad.cpp): a jaxpr is split into a forward jaxpr that
// also returns residuals and a backward jaxpr that maps output cotangents (plus the
// residuals) to input cotangents. Per-primitive rules live in one table (VjpRules.cpp);
// pmap, for_loop and cond have region rules (GradRegions.cpp) that split their bodies.
#pragma once

#include "ir/IR.h"

#include <memory>
#include <optional>
#include <vector>

namespace spmd::transforms::grad {

/// A cotangent: an atom, or nothing (a symbolic zero).
using Ct = std::optional<ir::Atom>;

/// A jaxpr split into its forward and backward halves.
struct Split {
  /// invars: fresh copies of the body's; outvars: the body's outputs, then `numResOut`
  /// residuals it computes.
  ir::Jaxpr fwd;
  /// invars: a cotangent per output with outCt, then the body invars listed in
  /// `resInvars`, then the `numResOut` computed residuals; outvars: a cotangent per
  /// body invar with inActive (zeros where none flows).
  ir::Jaxpr bwd;
  std::vector<int> resInvars;  ///< body invars the backward reads, by index
  int numResOut = 0;
  std::vector<bool> inActive, outCt;
};

/// Splits `body` (a closed jaxpr). `inActive[k]`: invar k is differentiated (it must be
/// floating point); `outCt[k]`: output k receives a cotangent. `hoist`: the rules'
/// primal-only equations move to the forward jaxpr, after their equation, as JAX's
/// linearization computes them (Note [Primal-only equations] in Grad.cpp).
/// How a cond's backward branch starts its invars' totals (Note [Cotangents into a cond]
/// in GradRegions.cpp).
struct Seeds {
  /// Active invars whose cotangent starts from a value the caller passes: a bwd invar
  /// after the output cotangents, before the body's own contributions are added to it.
  std::vector<bool> seed;
  /// For each invar, an earlier invar whose total it shares (its own output is then
  /// zeros, to be ignored), or -1.
  std::vector<int> shares;
};
Split splitVjp(ir::Module &m, const ir::Jaxpr &body, const std::vector<bool> &inActive,
               const std::vector<bool> &outCt, SrcRange loc, bool hoist = true,
               const Seeds *seeds = nullptr);

/// Which outputs of `j` depend on a floating-point invar marked in `inActive`.
std::vector<bool> activeOutputs(const ir::Jaxpr &j, const std::vector<bool> &inActive);

/// Copies closed jaxpr `j` into `b`'s jaxpr with `args` for its invars (fresh variables
/// everywhere, regions included); returns its outputs.
std::vector<ir::Atom> inlineJaxpr(ir::Builder &b, const ir::Jaxpr &j,
                                  const std::vector<ir::Atom> &args);
/// The same for a jaxpr used once and then dropped (a split's halves): its regions are
/// moved, not copied. Copying them made grad through n nested loops O(n^2) in copies
/// (Note [Splitting nested regions] in Grad.cpp).
std::vector<ir::Atom> inlineJaxpr(ir::Builder &b, ir::Jaxpr &&j, const std::vector<ir::Atom> &args);
/// A deep copy of closed jaxpr `j` with fresh variables.
ir::Jaxpr cloneJaxpr(ir::Module &m, const ir::Jaxpr &j);

/// Zeros of type `t` (keys: the key with zero data).
ir::Atom zeros(ir::Builder &b, const ir::Type &t);
/// `c`, or zeros of type `t` when it is a symbolic zero.
ir::Atom materialize(ir::Builder &b, const Ct &c, const ir::Type &t);

/// reduce_prod of x over `axes` as JAX computes it under differentiation: by the tree of
/// pairwise products that its JVP rule builds (Note [The product tree] in VjpRules.cpp).
/// `halves`: receives each level's two halves, for the VJP rule to reuse.
ir::Atom productTree(ir::Builder &b, ir::Atom x, const std::vector<int64_t> &axes,
                     std::vector<ir::Atom> *halves = nullptr);

/// What a region rule recorded in the forward pass for its backward half.
struct RegionTape {
  std::vector<Split> splits;   ///< one per region (pmap, for_loop: one; cond: two)
  std::vector<bool> inActive;  ///< the original equation's inputs that are active
  std::vector<bool> outCt;     ///< the original equation's outputs with a cotangent
  int numOrigOuts = 0;         ///< the original equation's outputs come first
  /// Forward values a plain rule reuses (reduce_prod: its product tree's halves).
  std::vector<ir::Atom> atoms;
  /// cond: the original branches, split again by the backward half with the cotangents
  /// its operands already have (Note [Cotangents into a cond] in GradRegions.cpp).
  std::vector<ir::Jaxpr> bodies;
};

/// Everything a VJP rule sees. The rule emits into `b` (the backward jaxpr) and may read
/// the forward equation's inputs and outputs: they become residuals automatically.
struct RuleCtx {
  ir::Builder &b;
  const ir::Eqn &e;        ///< the forward equation
  std::vector<Ct> cts;     ///< a cotangent per output of `e`
  std::vector<bool> need;  ///< which inputs of `e` want a cotangent
  RegionTape *tape = nullptr;  // non-const: a rule may consume its split
  SrcRange loc;  ///< the grad call, for user errors
  /// Further cotangents (input index, value) that the sweep adds to the inputs' totals
  /// after the returned ones, in order: for a JVP rule that uses the tangent twice, as
  /// tanh's does, JAX's transpose adds each use to the total separately.
  std::vector<std::pair<int, ir::Atom>> extra = {};
  /// The returned cotangents are added to the inputs' totals last input first: JAX's
  /// JVP rule of a primitive with a rule per input (mul, div, pow, max, dot_general) sums
  /// one term per input, and transposing the sum meets the last term first. Such a rule
  /// also emits its last input's cotangent first (Note [Primal-only equations]).
  bool lastFirst = false;
  /// The cotangent each needed input has so far, from the equations after this one; for
  /// inputs that share a total (the same var, or aliases: Note [Tangent aliases] in
  /// Grad.cpp), at the first of them only.
  std::vector<Ct> prior = {};
  /// For each needed input, the first input whose total it shares, or -1.
  std::vector<int> shares = {};
  /// Inputs whose returned cotangent already includes `prior`: it replaces the total
  /// instead of being added to it (Note [Cotangents into a cond] in GradRegions.cpp).
  std::vector<bool> replaces = {};
};

/// A rule returns a cotangent per input of the equation (nullopt: none).
using VjpRule = std::vector<Ct> (*)(RuleCtx &);

/// The rule for `op`: every primitive has one (non-differentiable ones raise a UserError
/// or return zeros).
VjpRule vjpRule(ir::Op op);

// Region rules (GradRegions.cpp): the forward half emits the split equation into `fb`
// and returns the tape; the backward half is an ordinary rule reading `RuleCtx::tape`.
// `ins` are the equation's operands in the forward jaxpr (`e.in` are the body's).
using RegionForward = std::vector<ir::Var> (*)(ir::Builder &fb, const ir::Eqn &e,
                                               const std::vector<ir::Atom> &ins, RegionTape &t,
                                               SrcRange loc);
/// The forward half of a region rule for pmap / for_loop / cond, else null.
RegionForward regionForward(ir::Op op);
std::vector<Ct> pmapVjp(RuleCtx &c);
std::vector<Ct> forLoopVjp(RuleCtx &c);
std::vector<Ct> condVjp(RuleCtx &c);

}  // namespace spmd::transforms::grad
