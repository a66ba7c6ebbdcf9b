// ===- ReplSession.h - compiling and running REPL inputs, one module each ------===//
//
// The engine under the REPL's loop (Repl.cpp): one SourceManager, one sema::Session
// (the kept top-level scope), one JIT and one Host for the whole session. Each input is
// parsed, axis checked, lowered over the kept scope, batched (vmap), JIT compiled as a
// module of its own and run; the arrays it binds stay in host buffers that later inputs
// read (Note [Persistent values] in sema/Session.h). An error in any step is reported
// and leaves the session as it was before the input.
#pragma once

#include "Driver.h"

#include "codegen/Codegen.h"
#include "sema/AxisCheck.h"
#include "sema/Session.h"
#include "Runtime.h"

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace spmd::cli {

/// Times of the last input, for `:time` and the report.
struct InputTimes {
  double frontSeconds = 0;  ///< parse, axis check, lower, vmap
  double jitSeconds = 0;    ///< LLVM codegen, optimisation, machine code
  double runSeconds = 0;
};

class ReplSession {
public:
  /// Starts the devices of `cfg`; throws std::runtime_error when they cannot start.
  explicit ReplSession(const Config &cfg);
  ~ReplSession();

  /// Compiles and runs one complete input named `name`; with `echo`, expression
  /// statements print their values. Reports errors to stderr; false after one.
  /// Ctrl-C during the input stops it (the compile finishes, the run stops at its next
  /// poll point: Note [Interrupts] in runtime/Runtime.h), says "interrupted" and leaves
  /// the session as it was before the input, as an error does; false then too, and
  /// interrupted() tells the two apart.
  bool run(const std::string &text, const std::string &name, bool echo = true);
  /// Whether the last run() was stopped by Ctrl-C.
  bool interrupted() const { return interrupted_; }
  /// `:type EXPR`: the type of an expression (and a pmap result's layout over devices).
  bool type(const std::string &text);
  /// `:ir`, `:llvm`, `:ptx` of an expression, or of a function by name (instantiated at
  /// its latest call's argument types). `stage` is "ir", "llvm" or "ptx".
  bool dump(const std::string &stage, const std::string &text);
  /// "8 CPU devices (threads)".
  std::string devices() const;
  const InputTimes &lastTimes() const { return times_; }

private:
  /// Parses, checks and lowers one input (exprOnly: one expression, its value an
  /// output); reports errors and returns nothing after one.
  std::optional<sema::LoweredInput> lower(const std::string &text, const std::string &name,
                                          bool echo, bool exprOnly);
  /// The layout text of kept or just computed value `id` ("" when not sharded).
  std::string layoutOf(int id, const ir::Jaxpr *main) const;
  std::string typeText(const sema::Value &v, const ir::Jaxpr &main) const;
  void collectGarbage();
  void report(const UserError &e);

  Config cfg_;
  SourceManager sm_;
  DiagEngine diags_;
  std::deque<ast::Program> programs_;  ///< every input's AST: closures point into them
  sema::MeshNames meshNames_;          ///< meshes bound by earlier inputs, for the axis check
  std::unique_ptr<rt::Host> host_;
  std::unique_ptr<sema::Session> session_;
  std::unique_ptr<codegen::Jit> jit_;
  codegen::Options codegenOpts_;
  std::map<int, void *> buffers_;       ///< kept Var id -> its host buffer
  std::map<int, std::string> layouts_;  ///< kept Var id -> its layout over devices
  InputTimes times_;
  bool interrupted_ = false;
};

}  // namespace spmd::cli
