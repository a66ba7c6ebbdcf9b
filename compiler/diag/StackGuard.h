// ===- StackGuard.h - recursion that would overflow the stack becomes an error ---===//
//
// The compiler recurses over the program (lowering follows calls into function bodies),
// and a program can nest deeper through calls than any limit on one expression bounds:
// a chain of 5,000 functions each calling the previous one overflowed the 8 MiB stack.
// checkStack() measures what is left of the calling thread's stack and turns the
// recursion into a diagnostic before it runs out (Note [Stack guard]).
#pragma once

#include "diag/Diagnostics.h"

#include <cstddef>

namespace spmd {

/// Bytes of stack left below the caller's frame on this thread, or SIZE_MAX when the
/// thread's stack bounds cannot be read.
size_t stackLeft();

/// A user error at loc ("WHAT nested too deeply ...") when less than a reserve (a quarter
/// of the stack, at least 1 MiB and at most 16 MiB) is left: enough for the deepest
/// unchecked recursion between two checks and for reporting the error.
void checkStack(SrcRange loc, const char *what);

}  // namespace spmd
