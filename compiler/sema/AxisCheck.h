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
void checkAxes(const ast::Program &p, std::vector<Diagnostic> &errors);

/// The builtin collectives and which of their positional arguments (or keyword) name
/// axes: psum(x, axes) -> 1, axis_index(axis) -> 0, ... Returns -1 for other names.
int axisArgumentIndex(const std::string &callee);

} // namespace spmd::sema
