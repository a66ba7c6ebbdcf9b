// ===- Interrupt.cpp - the interrupt flag and spmd_poll (Note [Interrupts]) ---===//
//
// The flag is a plain int32_t with C linkage, so that jitted code finds it by name as it
// finds the entry points; every access from C++ goes through std::atomic_ref, and
// generated code reads it with an atomic load of its own.
#include "HostState.h"

#include <atomic>

extern "C" {
alignas(4) int32_t spmd_interrupt_requested = 0;
}

namespace spmd::rt {

namespace {
std::atomic_ref<int32_t> flag() { return std::atomic_ref<int32_t>(spmd_interrupt_requested); }
static_assert(std::atomic_ref<int32_t>::is_always_lock_free, "a signal handler sets the flag");
}  // namespace

void requestInterrupt() { flag().store(1); }
bool interruptRequested() { return flag().load() != 0; }
void clearInterrupt() { flag().store(0); }

}  // namespace spmd::rt

using namespace spmd::rt;

extern "C" void spmd_poll(spmd_host *h, spmd_dev *d) {
  if (!interruptRequested()) return;
  spmd_fail(h, d, "interrupted");
}
