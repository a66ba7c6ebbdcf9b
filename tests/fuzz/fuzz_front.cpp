// ===- fuzz_front.cpp - libFuzzer target: source text -> AST -> checked IR -------===//
//
// The parser (ANTLR lexer and parser, AST builder), the axis checker, lowering with its
// type checks and static evaluation, the IR verifier and the vmap pass; plus the AST dump
// and the IR printer (--dump=ast,ir). See tests/fuzz/README.md.
#include "FuzzCommon.h"
#include "FuzzMutator.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace spmd;
  SourceManager sm;
  int file = sm.add("fuzz.spmd", std::string(reinterpret_cast<const char *>(data), size));
  try {
    std::vector<Diagnostic> errs;
    ast::Program prog = parseProgram(sm, file, errs);
    if (errs.empty()) (void)ast::dumpAst(prog);
  } catch (const InternalError &e) { fuzz::bug(e.what()); }
  if (auto m = fuzz::compileToIR(sm, file)) {
    try {
      (void)ir::print(*m);
    } catch (const InternalError &e) { fuzz::bug(e.what()); }
  }
  return 0;
}
