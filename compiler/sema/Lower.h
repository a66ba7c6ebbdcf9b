// ===- Lower.h - type checking and lowering of the AST to the IR ---------------===//
#pragma once

#include "ast/Ast.h"
#include "ir/IR.h"

#include <map>
#include <string>
#include <vector>

namespace spmd::sema {

struct LowerOptions {
  int deviceCount = 1;  ///< for device_count() and the pmap check
  std::string devicesFlagHint = "--devices cpu:N";
  std::map<std::string, std::string> args;  ///< --arg NAME=VALUE
};

/// Type-checks `p` and lowers it to a Module whose `main` is the host-level program.
/// User errors are thrown as UserError (the first one); axis scoping is checked first
/// (all axis errors are collected and the first is thrown with the rest as notes is not
/// needed: call checkAxes yourself to report them all).
ir::Module lowerProgram(const SourceManager &sm, const ast::Program &p, const LowerOptions &o);

/// "file:line:col" of a location, for run-time error messages.
std::string locationText(const SourceManager &sm, SrcRange loc);

}  // namespace spmd::sema
