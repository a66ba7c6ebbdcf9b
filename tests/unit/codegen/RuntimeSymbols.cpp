// ===- RuntimeSymbols.cpp - keeps every runtime entry point in the test binary ===//
//
// Jitted code finds the runtime's C functions in the process (-rdynamic), but the
// linker only pulls in the objects of a static library that something references.
// This table references every entry point of spmdrt.def so all of them are linked.
#include "spmdrt.h"

/// Addresses of the runtime's entry points; never called through.
extern "C" void *const spmd_test_runtime_symbols[];
void *const spmd_test_runtime_symbols[] = {
#define SPMD_RT_FN(ret, name, params) (void *)&name,
// clang-format off
#define SPMD_RT_VAR(type, name) (void *)&name,
#include "spmdrt.def"
    // clang-format on
};
