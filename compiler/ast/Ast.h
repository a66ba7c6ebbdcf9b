// ===- Ast.h - the syntax tree of .spmd programs ---------------------------===//
//
// One header for the whole AST. Every node has a source range. The tree is built from
// ANTLR's parse tree in exactly one place (AstBuilder.cpp), so no ANTLR type is seen
// past that file. Nodes are plain structs owned through unique_ptr; a `kind` tag says
// which struct a base pointer is (use `as<T>()`).
#pragma once

#include "diag/Diagnostics.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace spmd::ast {

struct Expr;
struct Stmt;
struct Block;
using ExprP = std::unique_ptr<Expr>;
using StmtP = std::unique_ptr<Stmt>;

/// A name with its location: variables, functions, axes, keyword arguments.
struct Ident {
  std::string name;
  SrcRange loc;
};

// ---- Patterns: `x`, `_`, `(a, (b, c))` -------------------------------------------------
struct Pattern {
  enum Kind { Name, Wildcard, Tuple } kind = Name;
  Ident name;                  ///< for Name
  std::vector<Pattern> elems;  ///< for Tuple
  SrcRange loc;
};

// ---- Type annotations: `f32[n, m]`, `i32[]`, `key[8]` -----------------------------------
struct TypeAnn {
  Ident dtype;  ///< "f32", "i32", ...
  struct Dim {
    bool isName = false;
    int64_t value = 0;
    Ident name;
  };
  std::vector<Dim> dims;
  bool hasShape = false;  ///< `f32` alone means any shape
  SrcRange loc;
};

// ---- Expressions ------------------------------------------------------------------------
enum class ExprKind {
  IntLit,
  FloatLit,
  BoolLit,
  StringLit,
  Name,
  Unary,
  Binary,
  Call,
  Index,
  ArrayLit,
  Comprehension,
  Range,
  TupleLit,
  Lambda,
  Block,
  If,
  Map,
  ShardMap,
};

enum class UnOp { Neg, BitNot, Not, Plus };
enum class BinOp {
  Add,
  Sub,
  Mul,
  Div,
  FloorDiv,
  Mod,
  Pow,
  MatMul,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  BitAnd,
  BitOr,
  BitXor,
  And,
  Or,
};
const char *spelling(UnOp);
const char *spelling(BinOp);

struct Expr {
  ExprKind kind;
  SrcRange loc;    ///< the place a caret points to (the operator of a binary expression)
  SrcRange range;  ///< the whole expression
  explicit Expr(ExprKind k) : kind(k) {}
  virtual ~Expr() = default;
  template <class T>
  T *as() {
    return kind == T::Kind ? static_cast<T *>(this) : nullptr;
  }
  template <class T>
  const T *as() const {
    return kind == T::Kind ? static_cast<const T *>(this) : nullptr;
  }
};

#define SPMD_EXPR(NAME)                                                                            \
  static constexpr ExprKind Kind = ExprKind::NAME;                                                 \
  NAME##Expr() : Expr(Kind) {}

struct IntLitExpr : Expr {
  SPMD_EXPR(IntLit) int64_t value = 0;
};
struct FloatLitExpr : Expr {
  SPMD_EXPR(FloatLit) double value = 0;
  std::string text;
};
struct BoolLitExpr : Expr {
  SPMD_EXPR(BoolLit) bool value = false;
};
struct StringLitExpr : Expr {
  SPMD_EXPR(StringLit) std::string value;
};  ///< unescaped
struct NameExpr : Expr {
  SPMD_EXPR(Name) std::string name;
};
struct UnaryExpr : Expr {
  SPMD_EXPR(Unary) UnOp op{};
  ExprP operand;
};
struct BinaryExpr : Expr {
  SPMD_EXPR(Binary) BinOp op{};
  ExprP lhs, rhs;
};

/// A call argument, positional or `name=value`.
struct Arg {
  std::optional<Ident> keyword;
  ExprP value;
};
/// `callee[axes](args)`. The callee is usually a NameExpr; `grad(f)(x)` has a Call callee.
struct CallExpr : Expr {
  SPMD_EXPR(Call)
  ExprP callee;
  std::vector<Ident> axes;  ///< axis arguments in `f[i, j](x)`
  bool hasAxisList = false;
  std::vector<Arg> args;
};

/// One item of an index: an expression, or a slice `lo:hi:step` with optional parts.
struct IndexItem {
  bool isSlice = false;
  ExprP index;         ///< when !isSlice
  ExprP lo, hi, step;  ///< when isSlice; null when omitted
  SrcRange loc;
};
struct IndexExpr : Expr {
  SPMD_EXPR(Index) ExprP base;
  std::vector<IndexItem> items;
};
struct ArrayLitExpr : Expr {
  SPMD_EXPR(ArrayLit) std::vector<ExprP> elems;
};
/// `[elem for pattern in iter]`
struct ComprehensionExpr : Expr {
  SPMD_EXPR(Comprehension) ExprP elem;
  Pattern var;
  ExprP iter;
};
/// `lo..hi`
struct RangeExpr : Expr {
  SPMD_EXPR(Range) ExprP lo, hi;
};
struct TupleLitExpr : Expr {
  SPMD_EXPR(TupleLit) std::vector<ExprP> elems;
};

struct Param {
  Ident name;
  std::optional<TypeAnn> type;
};

/// `fn (x) = expr` or `fn (x) { ... }`; also the body of a named `fn`.
struct LambdaExpr : Expr {
  SPMD_EXPR(Lambda)
  std::vector<Ident> axisParams;  ///< `fn f[i, j](x)`
  std::vector<Param> params;
  std::optional<TypeAnn> result;
  ExprP body;  ///< an expression or a BlockExpr
};

/// `{ stmts; expr }`: the value is the last statement when it is an expression.
struct BlockExpr : Expr {
  SPMD_EXPR(Block)
  std::vector<StmtP> stmts;
  SrcRange close;  ///< the closing brace
};

struct IfExpr : Expr {
  SPMD_EXPR(If)
  ExprP cond;
  ExprP then;       ///< a BlockExpr
  ExprP otherwise;  ///< a BlockExpr, an IfExpr (else if), or null
};

/// One mapped input of a pmap/vmap: `PATTERN in EXPR [along K]`.
struct MapBinding {
  Pattern pattern;
  ExprP source;
  ExprP along;  ///< null: axis 0
};
/// `pmap AXIS (bindings) [-> along K] { body }`, `vmap [AXIS] (...) { ... }`.
struct MapExpr : Expr {
  SPMD_EXPR(Map)
  bool isPmap = true;
  std::optional<Ident> axis;  ///< required for pmap, optional for vmap
  std::vector<MapBinding> bindings;
  ExprP outAlong;  ///< null: axis 0; an int or a tuple of ints
  ExprP body;      ///< a BlockExpr
};

/// One dimension of a partition spec: the mesh axes it is split over, major first
/// (`rows`, `(rows, cols)`), or none (`_`).
struct SpecEntry {
  std::vector<Ident> axes;
  SrcRange loc;
};
/// `[rows, _]`: one entry per dimension of an array.
struct PartitionSpec {
  std::vector<SpecEntry> dims;
  SrcRange loc;
};
/// `[rows, (rows, cols), _]`, as written (AstDump.cpp).
std::string specText(const PartitionSpec &s);
/// One input of a shard_map: `PATTERN in EXPR [SPEC]`.
struct ShardBinding {
  Pattern pattern;
  ExprP source;
  PartitionSpec spec;
};
/// `NAME=SIZE` in a shard_map's mesh.
struct MeshAxis {
  Ident name;
  ExprP size;
};
/// `shard_map (AXIS=N, ...) (PATTERN in EXPR [SPEC], ...) -> [SPEC] { body }`; the
/// result spec may be a tuple of specs, one per element of the body's tuple value. The
/// mesh may instead be a name bound by `let NAME = mesh(AXIS=N, ...)`: `shard_map NAME (...)`.
struct ShardMapExpr : Expr {
  SPMD_EXPR(ShardMap)
  std::vector<MeshAxis> mesh;  ///< empty when `meshName` names the mesh
  std::optional<Ident> meshName;
  std::vector<ShardBinding> bindings;
  std::vector<PartitionSpec> outSpecs;
  bool outTuple = false;  ///< `-> ([...], [...])`
  SrcRange outLoc;
  ExprP body;  ///< a BlockExpr
};
#undef SPMD_EXPR

// ---- Statements -------------------------------------------------------------------------
enum class StmtKind { Let, Var, Assign, Fn, For, Expr };

struct Stmt {
  StmtKind kind;
  SrcRange loc;
  explicit Stmt(StmtKind k) : kind(k) {}
  virtual ~Stmt() = default;
  template <class T>
  T *as() {
    return kind == T::Kind ? static_cast<T *>(this) : nullptr;
  }
  template <class T>
  const T *as() const {
    return kind == T::Kind ? static_cast<const T *>(this) : nullptr;
  }
};

#define SPMD_STMT(NAME)                                                                            \
  static constexpr StmtKind Kind = StmtKind::NAME;                                                 \
  NAME##Stmt() : Stmt(Kind) {}
struct LetStmt : Stmt {
  SPMD_STMT(Let) Pattern pattern;
  ExprP value;
};
struct VarStmt : Stmt {
  SPMD_STMT(Var) Ident name;
  ExprP value;
};
struct AssignStmt : Stmt {
  SPMD_STMT(Assign) Ident name;
  ExprP value;
};
/// `fn name[axes](params) -> T = expr` / `{ block }`; the lambda holds params and body.
struct FnStmt : Stmt {
  SPMD_STMT(Fn) Ident name;
  std::unique_ptr<LambdaExpr> fn;
};
/// `for PATTERN in EXPR { body }` (the iterable is usually a range `a..b`).
struct ForStmt : Stmt {
  SPMD_STMT(For) Pattern var;
  ExprP iter;
  ExprP body;
};
struct ExprStmt : Stmt {
  SPMD_STMT(Expr) ExprP expr;
};
#undef SPMD_STMT

struct Program {
  int file = -1;
  std::vector<StmtP> stmts;
};

/// Renders the AST as an indented S-expression tree (`--dump=ast`).
std::string dumpAst(const Program &p);

}  // namespace spmd::ast
