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

/// The builtin collectives and which of their positional arguments (or keyword) name
/// axes: psum(x, axes) -> 1, axis_index(axis) -> 0, ... Returns -1 for other names.
/// Read from the builtin table (BuiltinDef::axisParam, sema/BuiltinTable.h).
int axisArgumentIndex(const std::string &callee);

}  // namespace spmd::sema
