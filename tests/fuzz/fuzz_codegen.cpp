// ===- fuzz_codegen.cpp - libFuzzer target: checked IR -> LLVM modules and PTX -----===//
//
// Every input that compiles to IR (FuzzCommon.h) is lowered to LLVM three ways, at -O0
// so an input costs milliseconds: for CPU devices (--dump=llvm), through the
// device-program/kernel split on CPU devices (--split-kernels), and to PTX for NVIDIA
// GPUs (--dump=ptx; the NVPTX back end runs, nothing is loaded). The LLVM verifier checks
// each module (codegen/Jit.cpp). Nothing is JIT compiled or run. See tests/fuzz/README.md.
#include "FuzzCommon.h"
#include "FuzzMutator.h"
#include "codegen/Codegen.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace spmd;
  SourceManager sm;
  int file = sm.add("fuzz.spmd", std::string(reinterpret_cast<const char *>(data), size));
  auto m = fuzz::compileToIR(sm, file);
  if (!m) return 0;
  codegen::Options co;
  co.optLevel = 0;
  co.where = [&](const SrcRange &r) { return m->where(r); };
  try {
    co.backend = codegen::Backend::Cpu;
    (void)codegen::emitLLVM(*m, co);
    co.backend = codegen::Backend::CpuSplit;
    (void)codegen::emitLLVM(*m, co);
  } catch (const UserError &) {
    // Code generation may still find a user error (a static size it cannot lay out).
  } catch (const InternalError &e) { fuzz::bug(e.what()); }
  try {
    co.backend = codegen::Backend::Cuda;
    (void)codegen::emitPTX(*m, co);
  } catch (const UserError &) {
  } catch (const InternalError &e) {
    // Kernels calling f64 libdevice functions need the CUDA toolkit at build time: not a bug.
    if (std::string(e.what()).find("libdevice.10.bc") == std::string::npos) fuzz::bug(e.what());
  }
  return 0;
}
