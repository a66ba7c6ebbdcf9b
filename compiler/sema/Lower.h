// ===- Lower.h - type checking and lowering of the AST to the IR ---------------===//
#pragma once

#include "ast/Ast.h"
#include "ir/IR.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace spmd::sema {

struct LowerOptions {
  int deviceCount = 1;  ///< for device_count() and the pmap check
  std::string devicesFlagHint = "--devices cpu:N";
  std::map<std::string, std::string> args;  ///< --arg NAME=VALUE
  /// When set, every name arg() is called with while lowering is added to it.
  std::set<std::string> *argsRead = nullptr;
};

/// Type-checks `p` and lowers it to a Module whose `main` is the host-level program.
/// User errors are thrown as UserError (the first one); axis scoping is checked first
/// (all axis errors are collected and the first is thrown with the rest as notes is not
/// needed: call checkAxes yourself to report them all).
ir::Module lowerProgram(const SourceManager &sm, const ast::Program &p, const LowerOptions &o);

/// The names of the `arg("NAME", ...)` calls anywhere in `p` whose name is a string
/// literal, in branches and functions lowering may never reach (ArgNames.cpp).
std::set<std::string> argNamesInSource(const ast::Program &p);

/// "file:line:col" of a location, for run-time error messages.
std::string locationText(const SourceManager &sm, SrcRange loc);

}  // namespace spmd::sema
