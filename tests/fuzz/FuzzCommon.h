// ===- FuzzCommon.h - the compile pipeline the fuzz targets share ---------------===//
//
// Both libFuzzer targets (tests/fuzz/README.md) take the input bytes as a script and run
// the front half of spmdrun's pipeline on it, as cli/Driver.cpp's compileToIR does: parse,
// check axes, lower (type check), verify, vmap, verify. A user error (UserError, or the
// parser's and axis checker's diagnostics) is the expected answer to most inputs and is
// rendered, so the diagnostic printer runs too. An InternalError (internal_assert) is a
// bug: the target aborts, and libFuzzer saves the input as a crash. So does any other
// exception escaping (std::length_error, std::bad_alloc), a signal or a sanitizer report.
#pragma once

#include "ast/Parse.h"
#include "diag/Diagnostics.h"
#include "ir/IR.h"
#include "sema/AxisCheck.h"
#include "sema/Lower.h"
#include "transforms/Pipeline.h"

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace spmd::fuzz {

/// Ends the process on a compiler bug, naming it, so libFuzzer keeps the input.
[[noreturn]] inline void bug(const char *what) {
  std::fprintf(stderr, "fuzz: internal compiler error: %s\n", what);
  std::abort();
}

/// Renders every diagnostic (exercising the caret printer on odd text) into a string.
inline void render(const SourceManager &sm, const std::vector<Diagnostic> &errs) {
  DiagEngine diags(sm);
  std::string sink;
  for (auto &e : errs) sink += diags.format(e);
}

/// Compiles `text` to verified, vmapped IR with 8 devices (what the goldens use). Returns
/// nothing when the program has a user error.
inline std::optional<ir::Module> compileToIR(SourceManager &sm, int file) {
  try {
    std::vector<Diagnostic> errs;
    ast::Program prog = parseProgram(sm, file, errs);
    if (!errs.empty()) return render(sm, errs), std::nullopt;
    sema::checkAxes(prog, errs);
    if (!errs.empty()) return render(sm, errs), std::nullopt;
    sema::LowerOptions lo;
    lo.deviceCount = 8;
    ir::Module m = sema::lowerProgram(sm, prog, lo);
    transforms::runPipeline(m);
    return m;
  } catch (const UserError &e) {
    render(sm, {e.diag});
    return std::nullopt;
  } catch (const InternalError &e) { bug(e.what()); }
}

}  // namespace spmd::fuzz
