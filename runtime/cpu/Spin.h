// ===- Spin.h - wait for a futex word, spinning briefly first ------------------===//
//
// Device threads and the host wait for each other on 32-bit words, sleeping in the futex
// itself (Linux; std::atomic::wait elsewhere). Sleeping at once costs a system call and a
// wake-up, several microseconds, even when the other side is a moment away; spinning
// first avoids that when every waiting thread has a core of its own, but burns the core
// another thread needs when the machine is busy. Note [Adaptive spinning] in
// CpuCommunicator.cpp. A word may come with a count of its sleepers, so that a wake with
// nobody asleep costs no system call.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace spmd::rt {

/// The most pause iterations a waiter spins before it sleeps: tens of microseconds.
inline constexpr int kMaxSpin = 2000;
/// The fewest: a waiter whose spins keep failing still looks briefly.
inline constexpr int kMinSpin = 8;

/// std::thread::hardware_concurrency(), asked once: glibc answers it by opening and
/// parsing /sys/devices/system/cpu/online every time, which cost a launch two of its
/// 16 µs on one device (strace of bench/micro_dispatch.spmd: 2 opens per pmap).
inline int64_t hardwareThreads() {
  static const int64_t n = std::max(1u, std::thread::hardware_concurrency());
  return n;
}

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

/// Wakes up to `count` of the threads sleeping on `word` (after it was changed).
inline void wakeSome(std::atomic<uint32_t> &word, int count) {
#if defined(__linux__)
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(&word), FUTEX_WAKE_PRIVATE, count, nullptr,
          nullptr, 0);
#else
  if (count == 1)
    word.notify_one();
  else
    word.notify_all();
#endif
}

/// Wakes every thread sleeping on `word` (after it was changed).
inline void wakeAll(std::atomic<uint32_t> &word) {
#if defined(__linux__)
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(&word), FUTEX_WAKE_PRIVATE, INT32_MAX, nullptr,
          nullptr, 0);
#else
  word.notify_all();
#endif
}

/// Sleeps until `word` may differ from `seen` (a futex wait: no spinning or sched_yield
/// first, unlike libstdc++'s std::atomic::wait, which yields a dozen times before it
/// sleeps and so switches threads on a busy machine), counted in `sleepers` for the while
/// (wakeSleepers).
inline void sleepWhile(const std::atomic<uint32_t> &word, uint32_t seen,
                       std::atomic<uint32_t> &sleepers) {
  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t));
  sleepers.fetch_add(1, std::memory_order_seq_cst);
  // seq_cst: ordered after the count (wakeSleepers).
  while (word.load(std::memory_order_seq_cst) == seen) {
#if defined(__linux__)
    syscall(SYS_futex, reinterpret_cast<const uint32_t *>(&word), FUTEX_WAIT_PRIVATE, seen,
            nullptr, nullptr, 0);
#else
    word.wait(seen, std::memory_order_acquire);
#endif
  }
  sleepers.fetch_sub(1, std::memory_order_release);
}

/// wakeAll, skipped when nobody counts in `sleepers`. `word` must have been changed by a
/// seq_cst read-modify-write before: in their single total order, either the sleeper's
/// check of `word` comes after the change and sees it, or its count comes before this
/// load, which then sees it and wakes.
inline void wakeSleepers(std::atomic<uint32_t> &word, const std::atomic<uint32_t> &sleepers) {
  if (sleepers.load(std::memory_order_seq_cst) != 0) wakeAll(word);
}

/// Spins up to `budget` iterations for `word` to differ from `seen`; true when it did. A
/// spin that sees the change grows the budget, one that runs out halves it (Note
/// [Adaptive spinning]).
inline bool spinFor(const std::atomic<uint32_t> &word, uint32_t seen, int &budget) {
  for (int k = 0; k < budget; ++k) {
    if (word.load(std::memory_order_acquire) != seen) {
      budget = std::min(kMaxSpin, budget + budget / 4 + kMinSpin);
      return true;
    }
    cpuRelax();
  }
  budget = std::max(kMinSpin, budget / 2);
  return false;
}

/// Waits until `word` differs from `seen`, first spinning (spinFor) when `spin` is set;
/// then sleeps on the futex (sleepWhile), counted in `sleepers`, woken by wakeSleepers.
inline void awaitChange(const std::atomic<uint32_t> &word, uint32_t seen, int &budget,
                             bool spin, std::atomic<uint32_t> &sleepers) {
  if (spin && spinFor(word, seen, budget)) return;
  sleepWhile(word, seen, sleepers);
}

}  // namespace spmd::rt
