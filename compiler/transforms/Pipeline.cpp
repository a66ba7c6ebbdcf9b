// ===- Pipeline.cpp - the pass list, in one place --------------------------------===//
#include "transforms/Pipeline.h"

#include "transforms/Vmap.h"

namespace spmd::transforms {

const std::vector<Pass> &pipeline() {
  static const std::vector<Pass> passes = {
      {"vmap", vmapPass},          // batching: no vmap is left
      {"simplify", simplifyPass},  // layout chains folded, so shards stay in place
  };
  return passes;
}

std::vector<std::string> stageNames() {
  std::vector<std::string> names = {"lower"};
  for (auto &p : pipeline()) names.push_back(p.name);
  return names;
}

void runPipeline(ir::Module &m, const PassHook &hook) {
  ir::verify(m);
  for (auto &p : pipeline()) {
    auto run = [&] { p.run(m); };
    if (hook)
      hook(p, run);
    else
      run();
    ir::verify(m);
  }
}

}  // namespace spmd::transforms
