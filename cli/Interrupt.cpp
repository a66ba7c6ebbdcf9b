// ===- Interrupt.cpp - what Ctrl-C does: stop the run, or end the process ------===//
#include "Interrupt.h"

#include "Runtime.h"

#include <atomic>
#include <iostream>
#include <unistd.h>

namespace spmd::cli {

namespace {
std::atomic<bool> stopRuns{false};
std::atomic<bool> ttyStderr{false};  ///< then the tty echoed "^C": the message goes below it
static_assert(std::atomic<bool>::is_always_lock_free, "read in a signal handler");

void onSigint(int) {
  // Only atomics, write and _exit here: all async-signal-safe.
  if (stopRuns.load() && !rt::interruptRequested()) {
    rt::requestInterrupt();
    return;
  }
  static const char msg[] = "\nspmdrun: interrupted\n";
  int skip = ttyStderr.load() ? 0 : 1;
  ssize_t n = write(STDERR_FILENO, msg + skip, sizeof msg - 1 - skip);
  (void)n;
  _exit(rt::kInterrupted);
}
}  // namespace

void sayInterrupted(const char *what) {
  std::cout << std::flush;
  std::cerr << (isatty(STDERR_FILENO) ? "\n" : "") << what << "\n" << std::flush;
}

SigintHandler::SigintHandler() : old_{} {
  ttyStderr.store(isatty(STDERR_FILENO) != 0);
  // Started with SIGINT ignored (`cmd &` in a script, nohup): the terminal's Ctrl-C is not
  // meant for this process, so it stays ignored, as Unix programs and Python do.
  sigaction(SIGINT, nullptr, &old_);
  ignored_ = old_.sa_handler == SIG_IGN;
  if (ignored_) return;
  struct sigaction sa = {};
  sa.sa_handler = onSigint;
  sa.sa_flags = SA_RESTART;  // the run goes on to its next poll point; reads and writes resume
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_);
}

SigintHandler::~SigintHandler() {
  if (!ignored_) sigaction(SIGINT, &old_, nullptr);
}

StopRuns::StopRuns() : old_(stopRuns.load()) {
  rt::clearInterrupt();
  stopRuns.store(true);
}

StopRuns::~StopRuns() { stopRuns.store(old_); }

}  // namespace spmd::cli
