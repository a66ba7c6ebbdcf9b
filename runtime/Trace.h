// ===- Trace.h - a Chrome trace-event recording of a run (--trace FILE) --------===//
//
// When started, the runtime and the driver record complete events ("ph":"X") on tracks:
// process 0 is the host (its main thread: compile phases, launches, host syncs),
// process 1 the devices (one thread per device: kernel executions and collectives).
// finish() writes {"traceEvents":[...]} with process/thread name metadata, the format
// that Perfetto and chrome://tracing open. When not started, every call is a cheap
// no-op (one relaxed atomic load), so the hooks stay in the hot paths.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace spmd::rt::trace {

constexpr int kHostPid = 0;    ///< the host process: tid 0 is its main thread
constexpr int kDevicePid = 1;  ///< the devices: tid i is device i

/// Starts recording; finish() writes the events to `path`. Creates (or empties) the
/// file at once, so that a path that cannot be written fails here, before the run:
/// returns false (with `error` set, recording off) then.
bool start(const std::string &path, std::string *error = nullptr);
/// Under mpirun: this process is rank `rank`. Its tracks become processes 2*rank (host)
/// and 2*rank+1 (devices), named "rank R host" and "rank R devices", and times count from
/// the machine's monotonic clock origin rather than from start(), so that the ranks'
/// files concatenate into one trace whose processes line up side by side (exactly on one
/// machine). Call it before start().
void setRank(int rank);
/// Whether recording is on.
bool enabled();
/// Microseconds since start().
double nowMicros();
/// Records a complete event of `durUs` microseconds from `tsUs` on track (pid, tid);
/// `args` is a JSON object's members without braces (e.g. `"bytes":64`), or empty.
void complete(int pid, int tid, const std::string &name, const char *cat, double tsUs, double durUs,
              const std::string &args = "");
/// Writes the trace file and stops recording. Returns false (with `error` set) when
/// the file cannot be written.
bool finish(std::string *error = nullptr);

/// The name of the launch now running on the devices (set by spmd_launch, read by the
/// device threads for their kernel events).
void setCurrentLaunch(const char *name);
const std::string &currentLaunch();

/// Records the lifetime of a scope as a complete event (host main thread by default).
class Span {
public:
  Span(std::string_view name, const char *cat, int pid = kHostPid, int tid = 0,
       std::string_view args = {});
  ~Span();
  Span(const Span &) = delete;
  Span &operator=(const Span &) = delete;

private:
  bool on_;
  std::string name_, args_;
  const char *cat_;
  int pid_, tid_;
  double t0_ = 0;
};

}  // namespace spmd::rt::trace
