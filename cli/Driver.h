// ===- Driver.h - the compile pipeline shared by the batch driver and the REPL --===//
#pragma once

#include "diag/Diagnostics.h"
#include "ir/IR.h"

#include <istream>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <string>

namespace spmd::rt {
class Host;
}

namespace spmd::cli {

/// What the user asked for on the command line.
struct Config {
  std::string devices;  ///< "cpu", "cpu:N", "cuda", "cuda:N" (resolved)
  int deviceCount = 0;  ///< resolved from `devices`
  /// CPU devices run pmap bodies as device programs plus kernels, as GPUs do
  /// (--split-kernels; Note [Device programs] in codegen/EmitDevice.cpp).
  bool splitKernels = false;
  /// The devices, created before compiling (null with --no-run).
  std::shared_ptr<rt::Host> host;
  std::map<std::string, std::string> args;  ///< --arg NAME=VALUE
  std::set<std::string> dumps;              ///< --dump=ast,ir,llvm,ptx
  std::set<std::string> dumpAfter;          ///< --dump-after=lower,vmap
  bool noRun = false;
  bool stats = false;
  bool noCache = false;  ///< --no-cache: no on-disk object cache
  int optLevel = 2;
};

/// Thrown by compileToIR after it has reported several errors itself.
struct ErrorsReported {};
/// Thrown by compileToIR when an --arg names an argument the script never reads
/// (Note [Arguments nobody reads] in Driver.cpp): command-line misuse, exit 2.
struct UnreadArguments {
  std::string message;  ///< "--arg stpes=5: the script never reads ..."
};

/// Compiles buffer `file` of `sm` through the whole pipeline (parse, axis check, lower,
/// vmap, verify), printing the requested dumps to `out`. Throws UserError for an error in
/// the program, ErrorsReported after reporting several through `diags`, InternalError for bugs.
ir::Module compileToIR(SourceManager &sm, int file, const Config &cfg, DiagEngine &diags,
                       std::ostream &out, std::map<std::string, double> *passSeconds = nullptr);

/// Reads a script from `in` into `text`, stopping early at a NUL byte and refusing one
/// larger than kMaxScriptBytes (Note [Reading a script] in Driver.cpp). False, with the
/// reason in `why` ("larger than 8 MiB ..."), when it is refused or cannot be read.
bool readScript(std::istream &in, std::string &text, std::string &why);
constexpr size_t kMaxScriptBytes = size_t(8) << 20;

/// Runs a whole script: compile, dumps, JIT, run. Returns the process exit code.
int runScript(SourceManager &sm, int file, const Config &cfg);

/// The interactive loop (see Repl.cpp).
int runRepl(const Config &cfg);

}  // namespace spmd::cli
