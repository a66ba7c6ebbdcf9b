// ===- LowerTestUtil.h - running the front end and the lowering on a string -----===//
//
// The type checker's tests compile small sources through the same steps as the driver
// (parseProgram -> checkAxes -> lowerProgram -> verify) and assert on either the first
// diagnostic, rendered "LINE:COL: message", or the printed IR of the lowered module.
#pragma once

#include "ast/Parse.h"
#include "ir/IR.h"
#include "sema/AxisCheck.h"
#include "sema/Lower.h"

#include <map>
#include <string>
#include <vector>

namespace spmd::lowertest {

/// The options of a test compile: the devices (for device_count() and the pmap check)
/// and --arg values.
struct Opts {
  int devices = 8;
  std::map<std::string, std::string> args;
  Opts(int d = 8, std::map<std::string, std::string> a = {}) : devices(d), args(std::move(a)) {}
};

/// The outcome of compiling one source: every diagnostic (axis errors are collected
/// together; a parse or lowering error is one), or the lowered and verified module.
struct Compiled {
  std::vector<Diagnostic> errors;
  ir::Module module;
  bool ok() const { return errors.empty(); }
  /// "L:C: message" of diagnostic k ("" when there is none).
  std::string error(size_t k = 0) const {
    if (k >= errors.size()) return "";
    const Diagnostic &d = errors[k];
    return std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " + d.message;
  }
  /// The notes of the first diagnostic, joined by " | ".
  std::string notes() const {
    std::string s;
    if (errors.empty()) return s;
    for (auto &[loc, text] : errors[0].notes) s += (s.empty() ? "" : " | ") + text;
    return s;
  }
  std::string ir() const { return ir::print(module); }
};

/// Compiles `src` as the driver does up to (and including) the first verify.
/// InternalError (a compiler bug) is not caught: it fails the test loudly.
inline Compiled compile(const std::string &src, const Opts &o = {}) {
  Compiled c;
  SourceManager sm;
  int file = sm.add("test.spmd", src);
  ast::Program prog = parseProgram(sm, file, c.errors);
  if (!c.errors.empty()) return c;
  sema::checkAxes(prog, c.errors);
  if (!c.errors.empty()) return c;
  sema::LowerOptions lo;
  lo.deviceCount = o.devices;
  lo.args = o.args;
  try {
    c.module = sema::lowerProgram(sm, prog, lo);
  } catch (const UserError &e) {
    c.errors.push_back(e.diag);
    return c;
  }
  ir::verify(c.module);
  return c;
}

/// The first error of `src` as "L:C: message", or "OK" when it compiles.
inline std::string err(const std::string &src, const Opts &o = {}) {
  Compiled c = compile(src, o);
  return c.ok() ? "OK" : c.error();
}

/// The printed IR of `src`, or "ERROR L:C: message" when it does not compile.
inline std::string irOf(const std::string &src, const Opts &o = {}) {
  Compiled c = compile(src, o);
  return c.ok() ? c.ir() : "ERROR " + c.error();
}

/// True when `text` contains `part` (for IR and message assertions with context).
inline bool has(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

}  // namespace spmd::lowertest
