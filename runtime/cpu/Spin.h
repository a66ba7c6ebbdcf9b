// ===- Spin.h - wait for a futex word, spinning briefly first ------------------===//
//
// Device threads and the host wait for each other on 32-bit words (std::atomic::wait,
// a futex on Linux). Sleeping at once costs a system call and a wake-up, several
// microseconds, even when the other side is a moment away; spinning first avoids that
// when every waiting thread has a core of its own, but burns the core another thread
// needs when the machine is busy. Note [Adaptive spinning] in CpuCommunicator.cpp.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace spmd::rt {

/// The most pause iterations a waiter spins before it sleeps: tens of microseconds.
inline constexpr int kMaxSpin = 2000;
/// The fewest: a waiter whose spins keep failing still looks briefly.
inline constexpr int kMinSpin = 8;

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

/// Waits until `word` differs from `seen`. When `spin` is allowed, first spins up to
/// `budget` iterations; a spin that sees the change grows the budget, one that runs out
/// halves it (Note [Adaptive spinning]).
inline void awaitChange(const std::atomic<uint32_t> &word, uint32_t seen, int &budget,
                        bool spin) {
  if (spin) {
    for (int k = 0; k < budget; ++k) {
      if (word.load(std::memory_order_acquire) != seen) {
        budget = std::min(kMaxSpin, budget + budget / 4 + kMinSpin);
        return;
      }
      cpuRelax();
    }
    budget = std::max(kMinSpin, budget / 2);
  }
  word.wait(seen, std::memory_order_acquire);
}

}  // namespace spmd::rt
