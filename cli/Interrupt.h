// ===- Interrupt.h - what Ctrl-C does: stop the run, or end the process --------===//
//
// The runtime stops a run when asked (Note [Interrupts] in runtime/Runtime.h); this is
// the other half, the SIGINT handler, which belongs to the command line. While a
// SigintHandler lives, SIGINT
//   - during a StopRuns scope: asks the run to stop (rt::requestInterrupt), once; the
//     run then ends with rt::kInterrupted and the caller says so;
//   - otherwise, or a second time before the run has stopped: writes
//     "spmdrun: interrupted" to stderr and ends the process at once with exit code 130.
// A script installs one for its whole life (compiling is not worth keeping); the REPL
// one per input, so that Ctrl-C while a line is read stays the line reader's. A process
// started with SIGINT ignored (a background job of a script, nohup) keeps ignoring it.
#pragma once

#include <signal.h>

namespace spmd::cli {

/// Writes `what` ("interrupted") on its own line of stderr, after flushing stdout; on
/// a terminal, below the "^C" that the tty echoed.
void sayInterrupted(const char *what);

class SigintHandler {
public:
  SigintHandler();
  ~SigintHandler();  ///< restores the handler that was there before
  SigintHandler(const SigintHandler &) = delete;
  SigintHandler &operator=(const SigintHandler &) = delete;

private:
  struct sigaction old_;
  bool ignored_ = false;
};

/// While alive (under a SigintHandler), the first SIGINT stops the run instead of the
/// process. Clears any earlier request when it starts.
class StopRuns {
public:
  StopRuns();
  ~StopRuns();
  StopRuns(const StopRuns &) = delete;
  StopRuns &operator=(const StopRuns &) = delete;

private:
  bool old_;
};

}  // namespace spmd::cli
