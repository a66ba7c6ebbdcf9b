// ===- Value.h - what an expression evaluates to while lowering ---------------===//
//
// AstLowering is an abstract interpretation of the program (as JAX traces Python): static
// values (integers, floats, bools, strings, dtypes, lists and tuples of them) are known
// at compile time and computed here; array values are IR atoms whose type is known and
// whose data exists only at run time. Functions are closures, instantiated per call.
#pragma once

#include "ast/Ast.h"
#include "ir/IR.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace spmd::sema {

struct Value;
using ValueP = std::shared_ptr<const Value>;
struct Scope;
using ScopeP = std::shared_ptr<Scope>;

/// A named axis as seen inside the block or function that binds it.
struct AxisInfo {
  std::string name;  ///< the name as the IR knows it (the binding block's name)
  int64_t size = 0;
  bool isPmap = true;
  bool anonymous = false;
};
using AxisP = std::shared_ptr<const AxisInfo>;

struct Value {
  enum Kind {
    Array,     ///< a run-time array: `atom`, weakly typed when `weak`
    Int,       ///< a static integer (weak i32)
    Float,     ///< a static float (weak f32)
    Bool,      ///< a static bool
    Str,       ///< a string (for print, render, arg)
    DTypeV,    ///< a dtype used as a value: zeros([3], bool)
    Tuple,     ///< a tuple `(a, b)`; `isList` for a static list `[1, 2]`
    Func,      ///< a closure, a builtin, or grad/value_and_grad of a function
    Rendered,  ///< render(b, on, off): printable only
    Mesh,      ///< mesh(rows=4, cols=2): the axes of a shard_map, static
  } kind = Tuple;

  ir::Atom atom;
  bool weak = false;
  /// A shard_map's result: its placement, "sharded over 8 devices as [rows, _] (mesh
  /// rows=4, cols=2)", which the REPL's :type shows. Empty for other arrays.
  std::string sharding;
  int64_t i = 0;
  double f = 0;
  std::string s, s2;
  ir::DType dtype = ir::DType::F32;
  std::vector<ValueP> elems;
  bool isList = false;

  // Func
  enum FuncKind { Closure, Builtin, Grad } fkind = Closure;
  const ast::LambdaExpr *lambda = nullptr;
  std::string fname;          ///< for messages and builtins
  ScopeP env;                 ///< the defining scope (closures)
  ValueP inner;               ///< Grad: the differentiated function
  std::vector<int> argnums;   ///< Grad
  bool argnumsTuple = false;  ///< Grad: argnums given as a tuple
  bool withValue = false;     ///< value_and_grad

  // Mesh: each axis's name (where written) and size, major first
  std::vector<ast::Ident> meshAxes;
  std::vector<int64_t> meshSizes;

  bool isStatic() const;  ///< no Array inside
  bool isNumber() const { return kind == Int || kind == Float || kind == Bool; }
  ir::Type type() const { return atom.type(); }

  static ValueP array(ir::Atom a, bool weak = false);
  static ValueP integer(int64_t v);
  static ValueP floating(double v);
  static ValueP boolean(bool v);
  static ValueP string(std::string v);
  static ValueP tuple(std::vector<ValueP> e, bool isList = false);
};

/// How a value is described in messages: `f32[3]`, `static int`, `tuple of 2`.
std::string describe(const Value &v);

/// A lexical scope of variables. Closures keep their defining scope alive.
struct Scope {
  struct Binding {
    ValueP value;
    bool mutable_ = false;
    SrcRange loc;
  };
  std::map<std::string, Binding> vars;
  std::map<std::string, AxisP> axes;
  ScopeP parent;
  bool isFunctionBoundary = false;

  Binding *lookup(const std::string &n);
  AxisP lookupAxis(const std::string &n);
};

}  // namespace spmd::sema
