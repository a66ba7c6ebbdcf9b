// ===- RuntimeSymbols.cpp - keeps every runtime entry point in the test binary ===//
//
// Jitted code finds the runtime's C functions in the process (-rdynamic), but the
// linker only pulls in the objects of a static library that something references.
// This table references every entry point of spmdrt.h so all of them are linked.
#include "spmdrt.h"

/// Addresses of the runtime's entry points; never called through.
extern "C" void *const spmd_test_runtime_symbols[];
void *const spmd_test_runtime_symbols[] = {
    (void *)&spmd_host_alloc, (void *)&spmd_host_free, (void *)&spmd_host_sync, (void *)&spmd_host_copy,
    (void *)&spmd_launch, (void *)&spmd_dev_index, (void *)&spmd_axis_index,
    (void *)&spmd_dev_alloc, (void *)&spmd_allreduce, (void *)&spmd_all_gather,
    (void *)&spmd_ppermute, (void *)&spmd_all_to_all, (void *)&spmd_reduce_scatter,
    (void *)&spmd_fail, (void *)&spmd_index_error, (void *)&spmd_print_str,
    (void *)&spmd_print_array, (void *)&spmd_print_render, (void *)&spmd_print_end,
    (void *)&spmd_assert_close, (void *)&spmd_poll, (void *)&spmd_interrupt_requested};
