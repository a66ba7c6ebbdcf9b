// ===- AxisCheck.h - lexical checking of named axes ----------------------------===//
#pragma once
#include "ast/Ast.h"

#include <vector>

namespace spmd::sema {

/// Note [Axis scoping]: axis names are bound lexically, by pmap/vmap blocks (in their
/// body, including functions and lambdas defined there) and by a function's axis
/// parameters (in its body). Every use of an axis name (a collective's axis argument,
/// `axis_index`, `axis_size`, the axes passed in `f[i](x)`) must be bound by an enclosing
/// binder at the place it is written, whether or not the function is ever called, and an
/// inner binder may not rebind a name already in scope. Axis names live in their own
/// namespace, apart from variables. This pass checks all of it before any type checking
/// and appends one diagnostic per problem to `errors`.
///
/// A shard_map may name its mesh, `shard_map m (...)`, bound earlier by
/// `let m = mesh(rows=4, cols=2)`: the mesh's axes are then bound in its body. Meshes are
/// tracked lexically here like axes (a later `let m = ...` of anything else hides one);
/// `meshes`, when given, holds the top-level ones across calls (the REPL's entries).
struct MeshNames {
  /// Innermost last; an empty list marks a name that is bound, but not to a mesh.
  using Bound = std::vector<std::pair<std::string, std::vector<ast::Ident>>>;
  Bound bound;
};
void checkAxes(const ast::Program &p, std::vector<Diagnostic> &errors, MeshNames *meshes = nullptr);

/// What an argument of a call to the builtin `callee` is: the positional argument number
/// `pos` when `keyword` is empty, else the argument `keyword=`. Read from the builtin table
/// (sema/BuiltinTable.h): only the parameter at BuiltinDef::axisParam names axes, by position
/// or by its name there (psum(x, axes): position 1 or axes=; axis_index(axis_name): position
/// 0 or axis_name=). A keyword the builtin has no parameter for is Unknown: neither checked
/// nor evaluated, since binding the call reports it. Other names answer Value.
enum class BuiltinArg { Value, Axes, Unknown };
BuiltinArg builtinArgKind(const std::string &callee, int pos, const std::string &keyword);

}  // namespace spmd::sema
