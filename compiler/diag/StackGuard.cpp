// ===- StackGuard.cpp - how much stack is left --------------------------------------===//
//
// Note [Stack guard]
// Limits on the syntax (Note [Nesting limits]) bound how deep one expression nests, but
// lowering inlines every call, so `fn f2(x) = f1(x) + 1.0`, `fn f3(x) = f2(x) + 1.0`, ...
// nests the bodies of all of them: 5,000 such functions overflowed the stack. Counting
// calls is not enough (each body may itself hold a 10,000-operator chain), so lowering
// asks how much stack is left, at every expression, statement and call, and stops with an
// error at the source location it reached. The reserve is a quarter of the stack (1 to 16
// MiB): on the 8 MiB main stack a release build compiles 2,500 nested calls of one-line
// functions and refuses the 2,800th (measured); the sanitizer runs' 64 MiB stack, with
// frames about three times larger, should allow a few thousand. 1,000 (as deep as Python
// lets a program recurse) compile, 10,000 are refused (tests/golden/robustness.sh).
// The bounds come from pthread_getattr_np once per thread; for the main thread glibc
// derives them from RLIMIT_STACK.
#include "diag/StackGuard.h"

#include <algorithm>
#include <cstdint>
#include <pthread.h>

namespace spmd {
namespace {

struct Bounds {
  uintptr_t low = 0;  ///< the lowest usable address (the stack grows down to it); 0: unknown
  size_t size = 0;
};

Bounds readBounds() {
  Bounds b;
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return b;
  void *addr = nullptr;
  size_t size = 0;
  if (pthread_attr_getstack(&attr, &addr, &size) == 0 && addr && size > 0) {
    size_t guard = 0;
    pthread_attr_getguardsize(&attr, &guard);
    b.low = reinterpret_cast<uintptr_t>(addr) + guard;
    b.size = size > guard ? size - guard : 0;
  }
  pthread_attr_destroy(&attr);
  return b;
}

const Bounds &bounds() {
  thread_local const Bounds b = readBounds();
  return b;
}

}  // namespace

size_t stackLeft() {
  const Bounds &b = bounds();
  if (b.low == 0) return SIZE_MAX;
  auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  return here > b.low ? here - b.low : 0;
}

void checkStack(SrcRange loc, const char *what) {
  const Bounds &b = bounds();
  if (b.low == 0) return;
  size_t reserve = std::clamp<size_t>(b.size / 4, size_t(1) << 20, size_t(16) << 20);
  if (stackLeft() >= reserve) return;
  userError(loc, std::string(what) + " nested too deeply for the compiler's stack",
            {{SrcRange{}, "each call of a function nests its body in the caller's expression; "
                          "nest fewer calls, or raise the stack limit (ulimit -s)"}});
}

}  // namespace spmd
