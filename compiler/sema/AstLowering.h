// ===- AstLowering.h - the lowering engine shared by Lower/LowerOps/Builtins ---===//
//
// Internal to compiler/sema. The AstLowering walks the AST as an abstract interpreter (see
// Value.h), emitting IR into the current Frame. A Frame is a jaxpr under construction: the
// host program, a pmap/vmap body, a loop body, a branch, or a function being
// differentiated. Note [Closure conversion]: when an equation in an inner frame uses a
// variable defined in an outer frame, `local()` turns it into a new invar of each frame in
// between and records the outer atom as an input of the region equation; regions stay
// closed (Note [Regions] in IR.h).
#pragma once

#include "sema/Lower.h"
#include "sema/Value.h"

#include <functional>
#include <optional>
#include <unordered_map>

namespace spmd::sema {

struct Frame {
  ir::Jaxpr jaxpr;
  std::unique_ptr<ir::Builder> b;
  int level = 0;
  bool isMapBody = false;                       ///< pmap or vmap body: no host effects, static if
  std::vector<ir::Atom> captured;               ///< outer atoms (in the parent frame) ...
  std::vector<ir::Var> captureVars;             ///< ... and the invars that stand for them here
  std::unordered_map<int, ir::Var> captureMap;  ///< outer var id -> local invar
};

/// A host-level array laid out across devices, as JAX keeps a pmap's or shard_map's
/// result (Note [Sharded host values] in HostShards.cpp): over a mesh of `mesh` axes,
/// array dimension d split over the mesh axes `dims[d]` (in the order a spec lists them;
/// empty: not split). A flat pmap's result is a 1-D mesh splitting its out axis.
struct Shard {
  std::vector<int64_t> mesh;
  std::vector<std::vector<int>> dims;
  /// How many devices hold distinct blocks: the product of the mesh axes named.
  int64_t devices() const;
  /// How many blocks dimension d is split into: the product of its mesh axes (1: not split).
  int64_t parts(int64_t d) const;
  /// Whether dimension d is split.
  bool split(int64_t d) const { return d < int64_t(dims.size()) && !dims[d].empty(); }
  bool operator==(const Shard &) const = default;
};
/// Whether `j` (a region) holds a pmap, at any depth.
bool hasNestedPmap(const ir::Jaxpr &j);
/// A positional or keyword argument after evaluation, with the expression it came from.
struct ArgV {
  std::string keyword;  ///< empty when positional
  ValueP value;
  const ast::Expr *expr = nullptr;
  SrcRange loc;
  SrcRange keywordLoc;  ///< the keyword's name, for errors about the keyword itself
};

class AstLowering {
public:
  AstLowering(const SourceManager &sm, const LowerOptions &o);
  ~AstLowering();
  ir::Module run(const ast::Program &p);

  // ---- frames and emission ----
  ir::Module module;
  std::vector<std::unique_ptr<Frame>> frames;
  std::unordered_map<int, int> varLevel;  ///< var id -> level of the frame defining it
  Frame &top() { return *frames.back(); }
  ir::Builder &b() { return *top().b; }
  Frame &pushFrame(bool mapBody);
  std::unique_ptr<Frame> popFrame();
  ir::Var newInvar(ir::Type t);
  ir::Atom local(ir::Atom a);
  std::vector<ir::Var> emit(ir::Op op, std::vector<ir::Atom> ins, ir::Params params = {},
                            std::vector<ir::Jaxpr> regions = {});
  ir::Var emit1(ir::Op op, std::vector<ir::Atom> ins, ir::Params params = {}) {
    return emit(op, std::move(ins), std::move(params)).at(0);
  }
  // ---- host values sharded over a pmap's devices (HostShards.cpp) ----
  /// Host-level var id -> its layout over devices (Note [Sharded host values]).
  std::unordered_map<int, Shard> shards;
  /// A shard_map's result -> its blocks as the nest of pmaps left them, [mesh axes named,
  /// in mesh order..., block...], which a sharded reduction reads in place.
  std::unordered_map<int, ir::Atom> shardBlocks;
  const Shard *shardOf(const ir::Atom &a) const;
  /// A float reduction of a sharded var over its sharded axis, lowered as JAX partitions
  /// it (each device's block, then combined across devices); nullopt for any other.
  std::optional<ir::Atom> shardedReduce(ir::Op op, const ir::Atom &x, const ir::Params &params);
  /// A float product of a sharded operand split along one free dimension and an ordinary
  /// one, lowered as JAX partitions it: each device's block times the other operand.
  std::optional<ir::Atom> shardedDot(const ir::Atom &lhs, const ir::Atom &rhs, const ir::Params &params);
  /// Whether the host division x / y (same shapes) of a sharded x divides exactly, as JAX
  /// partitions it: each device's divisor is not enlarged by a broadcast (Note [Sharded
  /// division], HostShards.cpp).
  bool shardedExactDiv(const ir::Atom &x, const ir::Atom &y);
  /// Records which outputs of a host-level equation just emitted (the frame's last) are
  /// sharded.
  void trackShards(ir::Op op, const std::vector<ir::Atom> &ins, const ir::Params &params,
                   const std::vector<ir::Var> &outs);
  /// trackShards for a vmap equation `e` (its body's layouts followed).
  void vmapLayouts(const ir::Eqn &e);
  /// Inlines closed jaxpr `j` with `args` for its invars into the current frame.
  std::vector<ir::Atom> inlineJaxpr(const ir::Jaxpr &j, const std::vector<ir::Atom> &args);
  bool inMapBody() const;
  /// Whether `a` is a value of host code (defined outside every enclosing pmap or vmap
  /// body): eager JAX's concrete values, which a map body closes over as they are.
  bool hostLevel(ir::Atom a) const;

  // ---- statements and expressions (Lower.cpp) ----
  ScopeP scope;
  /// Every scope is made here. A closure holds its defining scope, which (or a scope
  /// under it) binds the closure: a shared_ptr cycle, so ~AstLowering empties the scopes
  /// still alive (LeakSanitizer found the closures of every `fn` leaked).
  ScopeP makeScope();
  std::vector<std::weak_ptr<Scope>> scopes;
  std::vector<AxisP> pmapStack;  ///< enclosing pmaps, for the device count check
  std::vector<AxisP> axisStack;  ///< enclosing pmaps and named vmaps (their sizes, for grad)
  std::vector<const ast::LambdaExpr *> callStack;
  /// The arguments of the latest call of each function called without axis arguments
  /// (the REPL's `:ir f` instantiates f at them; sema/Session.h).
  std::unordered_map<const ast::LambdaExpr *, std::vector<ValueP>> lastCallArgs;
  ValueP block(const ast::BlockExpr &b, bool newScope = true);
  ValueP stmt(const ast::Stmt &s);
  ValueP expr(const ast::Expr &e);
  void bindPattern(const ast::Pattern &p, ValueP v, bool mutable_, SrcRange loc);
  ValueP call(const ast::CallExpr &c);
  ValueP callValue(ValueP f, std::vector<ArgV> args, const std::vector<AxisP> &axes, SrcRange loc);
  ValueP callClosure(const Value &f, std::vector<ArgV> args, const std::vector<AxisP> &axes,
                     SrcRange loc);
  ValueP mapExpr(const ast::MapExpr &m);
  ValueP shardMapExpr(const ast::ShardMapExpr &s);  ///< ShardMap.cpp
  ValueP meshBuiltin(const std::vector<ArgV> &args, const std::vector<AxisP> &axes,
                     SrcRange loc);  ///< ShardMap.cpp
  ValueP ifExpr(const ast::IfExpr &e);
  void forStmt(const ast::ForStmt &f);
  AxisP axis(const std::string &name, SrcRange loc);
  std::vector<AxisP> axesOf(const ast::Expr &e);

  // ---- values, arithmetic, indexing (LowerOps.cpp) ----
  const SourceManager &sm;
  LowerOptions opts;
  ValueP binary(ast::BinOp op, ValueP a, ValueP b, SrcRange loc);
  /// x ** y with y a run-time i32/u32 scalar at host level: eager JAX's integer_pow
  /// (Note [Eager integer_pow] in LowerArith.cpp).
  ValueP eagerIntegerPow(ValueP a, ValueP y, SrcRange loc);
  ValueP unary(ast::UnOp op, ValueP a, SrcRange loc);
  ValueP compareKeys(bool eq, ValueP a, ValueP b, SrcRange loc);
  ValueP index(ValueP base, const ast::IndexExpr &e);
  ValueP matmul(ValueP a, ValueP b, SrcRange loc);
  /// The array a value stands for (static numbers and lists become constants).
  ir::Atom toAtom(ValueP v, SrcRange loc, bool *weak = nullptr);
  ValueP toArray(ValueP v, SrcRange loc);
  /// An i32 literal for an index position or an axis size in index arithmetic (set(),
  /// dynamic indices); one past i32 is an error at `loc`, not a wrap (Note [Indices past i32]).
  ir::Atom indexLit(int64_t v, SrcRange loc);
  /// A static number or static (nested) list converted to dtype d as NumPy's scalar types
  /// convert Python numbers (jnp.uint32([0, 4294967295]) holds both; a value d cannot
  /// hold is an error at loc, as JAX raises); nullptr for any other value.
  ValueP staticAs(ValueP v, ir::DType d, SrcRange loc);
  /// A `var` holding a list of numbers (`var w = [1.0, 2.0]`) is the array it spells once
  /// the var meets an array: in an assignment, or carried by a loop or a run-time `if`
  /// (Note [Vars of lists]). Any other value is returned as it is.
  ValueP listAsArray(ValueP v, SrcRange loc);
  /// An assignment `var = nv`: where one side has an array and the other a list of
  /// numbers, leaf by leaf through tuples, the list becomes its array (both may change).
  void alignLists(ValueP &old, ValueP &nv, SrcRange oldLoc, SrcRange newLoc);
  /// Promotes and broadcasts operands to a common dtype and shape.
  std::vector<ir::Atom> unify(const std::vector<ValueP> &vs, SrcRange loc, ir::DType *dt,
                              bool *weak, const char *what);
  ir::Atom castTo(ir::Atom a, ir::DType d);
  ir::Atom broadcast(ir::Atom a, const ir::Shape &s);
  ir::Atom constant(const std::vector<double> &data, ir::DType d, const ir::Shape &s);
  ValueP fromLeaves(const Value &like, const std::vector<ValueP> &leaves, size_t &pos);
  void leaves(ValueP v, std::vector<ValueP> &out);
  int64_t staticInt(ValueP v, SrcRange loc, const char *what);
  /// The index variables of the range loops being lowered (var id, the loop's variable).
  std::vector<std::pair<int, const ast::Ident *>> loopIndices;
  /// Note [Loop variables are not static]: a note naming the loop variable that the
  /// run-time value `a` is computed from, or none.
  std::vector<std::pair<SrcRange, std::string>> loopVariableNote(const ir::Atom &a);
  std::vector<int64_t> staticInts(const ArgV &a, const char *what);
  /// A shape given as a static list, checked by checkedShape for arrays of dtype `d`.
  ir::Shape staticShape(const ArgV &a, ir::DType d = ir::DType::F32);
  /// The checked constructor of the shapes the checker builds from the program (Note
  /// [Array size limits] in IR.h): every size non-negative, the element and byte counts
  /// computed with overflow checks, at most ir::kMaxArrayBytes; else a user error at
  /// `loc` ("array of shape [...] would need N bytes"). Shapes derived from these
  /// (broadcasting, stacking, batching) are checked by ir::Builder::emit.
  ir::Shape checkedShape(ir::Shape s, ir::DType d, SrcRange loc);
  /// JAX rejects arithmetic, reductions and casts on key arrays (a TypeError): so do we,
  /// at `loc`, when `v` is a key array. `what` names the operation: "sum()", "'-'".
  void rejectKeys(const Value &v, SrcRange loc, const std::string &what);
  ir::DType dtypeFrom(ValueP v, SrcRange loc);
  std::string where(SrcRange loc) const { return locationText(sm, loc); }

  // ---- builtins (Builtins.cpp) ----
  ValueP builtin(const std::string &name, std::vector<ArgV> &args, const std::vector<AxisP> &axes,
                 SrcRange loc);
  static bool isBuiltin(const std::string &name);
  ValueP gradCall(const Value &g, std::vector<ArgV> args, SrcRange loc);
};

/// The error for a bool indexing an array, which NumPy and JAX read as a mask (`what`
/// shows the use, "x[True]"): Note [Bool indices] in LowerIndex.cpp.
[[noreturn]] void boolIndex(SrcRange loc, const std::string &what);

}  // namespace spmd::sema
