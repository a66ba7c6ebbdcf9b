// ===- Pipeline.h - the passes from lowered IR to the IR that code generation reads ===//
#pragma once
#include "ir/IR.h"

#include <functional>
#include <string>
#include <vector>

namespace spmd::transforms {

/// One pass over a whole module. Its name is what `--dump-after` and `--stats` call it.
struct Pass {
  const char *name;
  void (*run)(ir::Module &);
};

/// The passes after lowering, in order: every caller (the script driver, the REPL's run
/// and its :ir, the fuzz targets) runs exactly these, through runPipeline.
const std::vector<Pass> &pipeline();

/// "lower" (the stage before the pipeline, which sema runs) and then every pass's name.
std::vector<std::string> stageNames();

/// Runs a pass on behalf of runPipeline: the caller times, traces or dumps around `run`.
using PassHook = std::function<void(const Pass &, const std::function<void()> &run)>;

/// Runs every pass of pipeline() in order, verifying the module after each (a failure is
/// an InternalError); `hook`, when given, wraps each pass.
void runPipeline(ir::Module &m, const PassHook &hook = {});

/// The passes themselves (Vmap.h has the first).
/// Folds reshape and transpose chains (Note [Layout chains], Simplify.cpp).
void simplifyPass(ir::Module &m);

}  // namespace spmd::transforms
