// ===- IR.h - the typed SSA intermediate representation --------------------===//
//
// The IR is a jaxpr: a list of equations `outs = prim[params] ins` over typed variables,
// with nested regions for pmap, vmap, loops and conditionals. Every primitive is listed
// once in Ops.def. Types are fully static (dtype + shape). The IR is what the transforms
// (vmap batching, grad, simplification: transforms::pipeline) rewrite and what codegen
// lowers to LLVM.
//
// Note [Regions]: a region is a Jaxpr owned by its equation. For pmap/vmap its invars are
// the per-replica values of the equation's inputs in order (mapped or broadcast, as
// `in_axes` says) and its outvars the per-replica results. A region refers only to its own
// invars and the vars it defines: values from outside come in as inputs (closure
// conversion happens in lowering), so a region can be compiled on its own.
#pragma once

#include "diag/Diagnostics.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace spmd::ir {

enum class Op : uint16_t {
// clang-format off
#define SPMD_OP(E, name, arity, cat) E,
#include "ir/Ops.def"
  // clang-format on
};
enum class OpCategory : uint8_t {
  Unary,
  Binary,
  Compare,
  Select,
  Ternary,
  Reduce,
  Shape,
  Index,
  Dot,
  Collective,
  Random,
  Region,
  Host
};

struct OpInfo {
  const char *name;
  int arity;
  OpCategory category;
};
const OpInfo &info(Op op);
inline const char *name(Op op) { return info(op).name; }
/// An op that maps its operands' elements one to one (unary, binary, compare, select,
/// ternary): batching, fusion into index-driven loops and buffer donation all ask this.
bool isElementwise(Op op);
constexpr int kNumOps = 0
// clang-format off
#define SPMD_OP(E, name, arity, cat) +1
#include "ir/Ops.def"
    // clang-format on
    ;

// ---- Types ------------------------------------------------------------------------------
/// The element types; each value is the runtime's dtype code (spmdrt.def, the one list
/// of them), so codegen passes `int32_t(d)` as a spmd_dtype.
enum class DType : uint8_t {
// clang-format off
#define SPMD_RT_DTYPE(Cxx, C, code, bytes, text) Cxx = code,
#include "spmdrt.def"
  // clang-format on
};
const char *name(DType);
int byteSize(DType);  ///< Key: 8 (two u32 words)
bool isFloat(DType d);
bool isInt(DType d);  ///< i32 or u32

using Shape = std::vector<int64_t>;
struct Type {
  DType dtype = DType::F32;
  Shape shape;
  int rank() const { return int(shape.size()); }
  int64_t numel() const;
  int64_t bytes() const { return numel() * byteSize(dtype); }
  bool operator==(const Type &o) const { return dtype == o.dtype && shape == o.shape; }
  bool operator!=(const Type &o) const { return !(*this == o); }
  std::string str() const;  ///< `f32[4,2]`
};

/// Note [Array size limits]: no array may need more than kMaxArrayBytes (256 TiB), and
/// no size, element count or byte count may overflow 64 bits, even of an empty array
/// (the product of its non-zero sizes bounds its strides). Lowering checks every shape
/// it builds from the program (sema's checkedShape, with the culprit's location), and
/// Builder::emit checks every result type it infers (so shapes derived by broadcasting
/// or by the vmap pass's batching are checked too): no later pass, codegen or the
/// runtime sees a size that overflows.
constexpr int64_t kMaxArrayBytes = int64_t(1) << 48;
/// Why no array of dtype `d` and shape `s` can exist ("array of shape [...] (f32) would
/// need N bytes, ..."), or "" when one can.
std::string arraySizeError(DType d, const Shape &s);

// ---- Values -----------------------------------------------------------------------------
/// A variable: defined once (by an equation or as a jaxpr input). Ids are unique within
/// a Module; the printer names them a, b, c, ... in order of appearance.
struct Var {
  int id = -1;
  Type type;
  bool valid() const { return id >= 0; }
};

/// A scalar literal operand, like JAX's `2.0:f32[]`.
struct Literal {
  DType dtype = DType::F32;
  double f = 0;   ///< for floats
  int64_t i = 0;  ///< for ints and bools
  double asDouble() const { return isFloat(dtype) ? f : double(i); }
};

/// An operand: a variable or a scalar literal.
struct Atom {
  bool isLit = false;
  Var var;
  Literal lit;
  Atom() = default;
  Atom(Var v) : var(std::move(v)) {}
  static Atom literal(Literal l) {
    Atom a;
    a.isLit = true;
    a.lit = l;
    return a;
  }
  Type type() const { return isLit ? Type{lit.dtype, {}} : var.type; }
};

// ---- Parameters -------------------------------------------------------------------------
/// A static parameter of an equation: numbers, names, dtypes, and tuples/lists of them,
/// printed exactly as JAX prints its params (`(1,)`, `(([2], [1]), ([0], [0]))`, `None`).
struct Param {
  enum Kind { None, Int, Float, Bool, Str, DTypeK, Tuple, List } kind = None;
  int64_t i = 0;
  double f = 0;
  std::string s;
  DType dtype = DType::F32;
  std::vector<Param> elems;

  static Param none() { return {}; }
  static Param of(int64_t v) {
    Param p;
    p.kind = Int;
    p.i = v;
    return p;
  }
  static Param ofFloat(double v) {
    Param p;
    p.kind = Float;
    p.f = v;
    return p;
  }
  static Param ofBool(bool v) {
    Param p;
    p.kind = Bool;
    p.i = v;
    return p;
  }
  static Param ofStr(std::string v) {
    Param p;
    p.kind = Str;
    p.s = std::move(v);
    return p;
  }
  static Param ofDType(DType d) {
    Param p;
    p.kind = DTypeK;
    p.dtype = d;
    return p;
  }
  static Param tuple(std::vector<Param> e) {
    Param p;
    p.kind = Tuple;
    p.elems = std::move(e);
    return p;
  }
  static Param list(std::vector<Param> e) {
    Param p;
    p.kind = List;
    p.elems = std::move(e);
    return p;
  }
  static Param ints(const std::vector<int64_t> &v, bool asList = false);

  /// The elements of a tuple/list of ints.
  std::vector<int64_t> toInts() const;
  std::string str() const;
};

/// Parameters by name; printed sorted by name.
using Params = std::map<std::string, Param>;

struct Jaxpr;

struct Eqn {
  Op op{};
  std::vector<Atom> in;
  std::vector<Var> out;
  Params params;
  std::vector<Jaxpr> regions;
  SrcRange loc;  ///< where in the source it came from (for run-time errors)

  const Param &param(const std::string &k) const;
  bool has(const std::string &k) const { return params.count(k) != 0; }
  int64_t intParam(const std::string &k) const { return param(k).i; }
  std::vector<int64_t> intsParam(const std::string &k) const { return param(k).toInts(); }
};

struct Jaxpr {
  std::vector<Var> invars;
  std::vector<Eqn> eqns;
  std::vector<Atom> outvars;
};

/// A whole program: the host-level jaxpr `main` (no inputs, no outputs) plus the
/// counter that keeps variable ids unique.
struct Module {
  Jaxpr main;
  int nextId = 0;
  std::vector<std::string> fileNames;  ///< SrcRange::file -> name, for run-time messages
  /// "file:line:col" of a location (for run-time error messages).
  std::string where(SrcRange loc) const {
    std::string f =
        loc.file >= 0 && loc.file < int(fileNames.size()) ? fileNames[loc.file] : "<input>";
    return f + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col);
  }
  Var newVar(Type t) { return Var{nextId++, std::move(t)}; }
};

// ---- Type inference, building and checking ---------------------------------------------
/// The output types of `op` on inputs of types `ins` with `params` (and regions, for
/// region ops). Throws InternalError when the combination is ill-typed: user-facing type
/// errors are found earlier, in lowering, with a source location.
std::vector<Type> inferTypes(Op op, const std::vector<Type> &ins, const Params &params,
                             const std::vector<Jaxpr> &regions);

/// Appends equations to a Jaxpr, inferring output types. Used by lowering and by every
/// transform, so each primitive's type rule lives in one place (inferTypes).
class Builder {
public:
  Builder(Module &m, Jaxpr &j) : m_(m), j_(&j) {}
  Module &module() { return m_; }
  Jaxpr &jaxpr() { return *j_; }
  void setLoc(SrcRange l) { loc_ = l; }
  SrcRange loc() const { return loc_; }

  std::vector<Var> emit(Op op, std::vector<Atom> ins, Params params = {},
                        std::vector<Jaxpr> regions = {});
  Var emit1(Op op, std::vector<Atom> ins, Params params = {}) {
    return emit(op, std::move(ins), std::move(params)).at(0);
  }
  Var newVar(Type t) { return m_.newVar(std::move(t)); }

  // Conveniences for the most common primitives.
  Atom lit(DType d, double v);
  Var unary(Op op, Atom x) { return emit1(op, {x}); }
  Var binary(Op op, Atom a, Atom b) { return emit1(op, {a, b}); }
  Var convert(Atom x, DType to);
  Var broadcastInDim(Atom x, Shape shape, std::vector<int64_t> dims);
  /// NumPy broadcasting of `x` to `shape` (trailing dimensions aligned).
  Atom broadcastTo(Atom x, const Shape &shape);
  Var reshape(Atom x, Shape shape);
  Var transpose(Atom x, std::vector<int64_t> perm);
  Var reduce(Op op, Atom x, std::vector<int64_t> axes);
  Var fill(DType d, const Shape &shape, double v);

private:
  Module &m_;
  Jaxpr *j_;
  SrcRange loc_;
};

/// Checks the invariants of a jaxpr (definitions before uses, arities, types agree with
/// inferTypes, regions closed). Throws InternalError naming the broken invariant.
void verify(const Module &m);

/// Prints a jaxpr as JAX does: `{ lambda ; a:f32[8,3]. let b:f32[8] = ... in (b,) }`.
std::string print(const Jaxpr &j);
std::string print(const Module &m);
/// Every field of `m` that code generation reads, exactly, as bytes: equal fingerprints
/// compile to the same code (Note [Module fingerprints] in Fingerprint.cpp).
std::string fingerprint(const Module &m);

/// Calls `f` on every equation, recursing into regions (pre-order).
void walk(const Jaxpr &j, const std::function<void(const Eqn &)> &f);

}  // namespace spmd::ir
