// ===- BuiltinTable.h - the builtin table, shared by its sections -------------------===//
//
// Internal to the Builtins*.cpp files. Builtins.cpp binds a call's arguments against the
// table (so arity and unknown-keyword errors come from one place) and builds the table
// from one registrar per section of spec section 7: arrays (creation and shapes), math
// (elementwise and reductions), random, spmd (differentiation, trees, collectives) and
// host (printing and the rest). The helpers several sections share are declared here.
#pragma once
#include "sema/AstLowering.h"

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace spmd::sema::builtins {
using ir::Atom;
using ir::DType;
using ir::Op;
using ir::Param;

/// The arguments of one builtin call, bound to its parameter names.
struct Bound {
  std::vector<ArgV> args;  ///< in parameter order; value null when absent
  std::vector<ArgV> rest;  ///< extra positional arguments (variadic builtins)
  const ArgV &operator[](size_t k) const { return args[k]; }
  bool has(size_t k) const { return args[k].value != nullptr; }
};

struct BuiltinDef {
  std::vector<std::string> params;  ///< a trailing "*" makes it variadic
  size_t required;
  std::function<ValueP(AstLowering &, Bound &, const std::vector<AxisP> &, SrcRange)> fn;
  /// The parameter that names axes (a collective's axis_name), or -1: that argument, by
  /// position or by its name in `params`, is an axis expression. AxisCheck checks that its
  /// names are in scope (sema/AxisCheck.h, builtinArgKind).
  int axisParam = -1;
};
using Table = std::map<std::string, BuiltinDef>;

// ---- the sections (each in its own file) ----
void addArrayBuiltins(Table &m);   ///< BuiltinsArrays.cpp
void addMathBuiltins(Table &m);    ///< BuiltinsMath.cpp
void addRandomBuiltins(Table &m);  ///< BuiltinsRandom.cpp
void addSpmdBuiltins(Table &m);    ///< BuiltinsSpmd.cpp
void addHostBuiltins(Table &m);    ///< BuiltinsHost.cpp

// ---- helpers (Builtins.cpp unless noted) ----
inline ir::Params reduceParams(std::vector<int64_t> axes) { return {{"axes", Param::ints(axes)}}; }
ValueP arr(AstLowering &L, const ArgV &a);
/// A float array for math functions (ints are promoted to f32, as JAX does).
std::pair<Atom, bool> floatArg(AstLowering &L, const ArgV &a, const char *fn);
BuiltinDef unaryMath(Op op, const char *name);
BuiltinDef unaryKeep(Op op, bool identityOnInt);
BuiltinDef binaryElementwise(Op op, const char *name);
std::vector<int64_t> axesArg(AstLowering &L, const ArgV &a, int rank);
Atom keepDims(AstLowering &L, Atom r, const ir::Shape &in, const std::vector<int64_t> &axes);
Atom staticIntAs(AstLowering &L, int64_t i, DType d, SrcRange loc);
bool boolArg(AstLowering &L, const ArgV &a, bool dflt);
double floatStatic(AstLowering &L, const ArgV &a, double dflt, const char *what);
/// The common part of zeros/ones/full.
ValueP filled(AstLowering &L, const ArgV &shapeArg, double value, DType d);
/// f applied to every array leaf of a (nested) tuple (BuiltinsSpmd.cpp).
ValueP mapLeaves(AstLowering &L, ValueP v, const std::function<ValueP(ValueP)> &f);
/// Python's repr of a static value (BuiltinsHost.cpp).
std::string pyRepr(const Value &v);

}  // namespace spmd::sema::builtins
