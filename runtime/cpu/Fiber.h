// ===- Fiber.h - user-level contexts for CPU devices ---------------------------===//
//
// A Fiber is a stack and a saved context on which one CPU device's work runs when a
// launch has more devices than cores (Note [Fibers] in CpuDevice.cpp): a device that
// would wait in a collective switches to its worker's scheduler instead of putting the
// thread to sleep. The switch is a few instructions on x86-64 (callee-saved registers,
// MXCSR and the x87 control word; Note [Fiber switch] in Fiber.cpp) and ucontext's
// swapcontext elsewhere. Under AddressSanitizer every switch is announced to it
// (__sanitizer_start_switch_fiber / __sanitizer_finish_switch_fiber).
#pragma once

#include <cstddef>
#include <cstdint>

namespace spmd::rt {

/// A saved context: where a switch resumes. Opaque outside Fiber.cpp.
struct FiberContext {
  FiberContext() = default;
  FiberContext(const FiberContext &) = delete;
  FiberContext &operator=(const FiberContext &) = delete;
  ~FiberContext();
  void *sp = nullptr;       ///< x86-64: the saved stack pointer
  void *impl = nullptr;     ///< fallback: a ucontext_t
  void *fakeStack = nullptr;  ///< ASan's fake stack of the context switched away from
  const void *stackBottom = nullptr;  ///< ASan: the bounds of this context's stack
  size_t stackSize = 0;
};

class Fiber {
public:
  /// Bytes of stack per fiber, plus one guard page: what glibc gives a new thread
  /// (RLIMIT_STACK, 8 MiB here), at least kMinStackBytes (Note [Fiber stacks] in
  /// Fiber.cpp).
  static size_t stackBytes();
  static constexpr size_t kMinStackBytes = size_t(8) << 20;

  Fiber() = default;
  Fiber(const Fiber &) = delete;
  Fiber &operator=(const Fiber &) = delete;
  ~Fiber();

  /// Prepares the fiber to run entry(arg) from the top of its stack at the next switchIn
  /// (mapping the stack on first use). False when the stack cannot be mapped.
  bool reset(void (*entry)(void *), void *arg);
  /// The stack's usable bytes, from the lowest address up (tests).
  void *stackBottom() const { return const_cast<void *>(self_.stackBottom); }
  /// Saves the calling context in `from` and runs this fiber until it calls switchOut().
  /// Any thread may switch in a fiber that is not running (a fiber may move between
  /// threads while it is switched out).
  void switchIn(FiberContext &from);
  /// From inside this fiber: saves it and resumes the context that switched it in last.
  /// `finished`: it will not be resumed again before the next reset (ASan drops its fake
  /// stack).
  void switchOut(bool finished = false);
  /// Called first thing in the entry: completes the switch that started the fiber.
  void started();

private:
  FiberContext self_;
  FiberContext *resumer_ = nullptr;  ///< the context switchOut returns to
  void *stack_ = nullptr;  ///< the mapping, guard page first
  size_t mapped_ = 0;
};

/// Nanoseconds per switch (one direction) of the fiber switch in use, and of ucontext's
/// swapcontext, measured over `rounds` round trips (tests and bench/notes.md); -1 for
/// swapcontext under ASan.
double fiberSwitchNanos(int rounds);
double ucontextSwitchNanos(int rounds);

}  // namespace spmd::rt
