// ===- Trace.cpp - a Chrome trace-event recording of a run (--trace FILE) ------===//
//
// Events are appended under a mutex (device threads record concurrently) and written
// once, at finish(). Track names are added for every track that has an event.
#include "Trace.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <vector>

namespace spmd::rt::trace {

namespace {
struct Event {
  int pid, tid;
  std::string name, args;
  const char *cat;
  double ts, dur;
};

struct State {
  std::atomic<bool> on{false};
  std::mutex mu;
  std::vector<Event> events;
  std::string path;
  std::chrono::steady_clock::time_point t0;
  std::string launch;
  int rank = -1;  ///< under mpirun (setRank)
};

State &state() {
  static State s;
  return s;
}

/// `s` as a JSON string literal.
std::string quote(const std::string &s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      o += buf;
    } else
      o += c;
  }
  return o + "\"";
}
}  // namespace

bool start(const std::string &path, std::string *error) {
  {
    errno = 0;
    std::ofstream probe(path, std::ios::out | std::ios::trunc);
    if (!probe) {
      std::error_code ec;
      bool dir = std::filesystem::is_directory(path, ec);
      if (error)
        *error = "cannot write the trace file '" + path + "': " +
                 (dir     ? std::string("is a directory")
                  : errno ? std::string(std::strerror(errno))
                          : "cannot create it");
      return false;
    }
  }
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.path = path;
  s.events.clear();
  s.t0 = s.rank >= 0 ? std::chrono::steady_clock::time_point() : std::chrono::steady_clock::now();
  s.on.store(true);
  return true;
}

void setRank(int rank) { state().rank = rank; }

bool enabled() { return state().on.load(std::memory_order_relaxed); }

double nowMicros() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - state().t0)
      .count();
}

void complete(int pid, int tid, const std::string &name, const char *cat, double tsUs, double durUs,
              const std::string &args) {
  State &s = state();
  if (!s.on.load(std::memory_order_relaxed)) return;
  std::lock_guard<std::mutex> lock(s.mu);
  s.events.push_back({pid, tid, name, args, cat, tsUs, durUs});
}

void setCurrentLaunch(const char *name) {
  if (enabled()) state().launch = name ? name : "kernel";
}
const std::string &currentLaunch() { return state().launch; }

bool finish(std::string *error) {
  State &s = state();
  if (!s.on.exchange(false)) return true;
  std::lock_guard<std::mutex> lock(s.mu);
  std::ofstream out(s.path);
  if (!out) {
    if (error) *error = "cannot write the trace file '" + s.path + "'";
    return false;
  }
  // Under mpirun each rank's two processes get their own ids (setRank).
  int offset = s.rank >= 0 ? 2 * s.rank : 0;
  std::string prefix = s.rank >= 0 ? "rank " + std::to_string(s.rank) + " " : "";
  for (auto &e : s.events) e.pid += offset;
  std::set<std::pair<int, int>> tracks;
  for (auto &e : s.events) tracks.insert({e.pid, e.tid});
  tracks.insert({kHostPid + offset, 0});
  out << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  bool first = true;
  auto sep = [&] {
    out << (first ? "" : ",\n");
    first = false;
  };
  std::set<int> pids;
  for (auto &[pid, tid] : tracks) {
    if (pids.insert(pid).second) {
      sep();
      out << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << pid
          << ",\"tid\":0,\"args\":{\"name\":"
          << quote(prefix + (pid - offset == kHostPid ? "host" : "devices")) << "}}";
      sep();
      out << "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" << pid
          << ",\"tid\":0,\"args\":{\"sort_index\":" << pid << "}}";
    }
    std::string tname = pid - offset == kHostPid
                            ? (tid == 0 ? "main thread" : "host " + std::to_string(tid))
                            : "device " + std::to_string(tid);
    sep();
    out << "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" << pid << ",\"tid\":" << tid
        << ",\"args\":{\"name\":" << quote(tname) << "}}";
    sep();
    out << "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":" << pid << ",\"tid\":" << tid
        << ",\"args\":{\"sort_index\":" << tid << "}}";
  }
  char num[64];
  for (auto &e : s.events) {
    sep();
    out << "{\"ph\":\"X\",\"name\":" << quote(e.name) << ",\"cat\":" << quote(e.cat)
        << ",\"pid\":" << e.pid << ",\"tid\":" << e.tid;
    std::snprintf(num, sizeof num, ",\"ts\":%.3f,\"dur\":%.3f", e.ts, e.dur);
    out << num;
    if (!e.args.empty()) out << ",\"args\":{" << e.args << "}";
    out << "}";
  }
  out << "\n]}\n";
  s.events.clear();
  // Most of the text is still in the stream's buffer: a full disk shows only when it is
  // written out, at close.
  errno = 0;
  out.close();
  if (!out) {
    if (error)
      *error = "cannot write the trace file '" + s.path + "'" +
               (errno ? std::string(": ") + std::strerror(errno) : "");
    return false;
  }
  return true;
}

Span::Span(std::string_view name, const char *cat, int pid, int tid, std::string_view args)
    : on_(enabled()), cat_(cat), pid_(pid), tid_(tid) {
  if (!on_) return;
  name_ = name;
  args_ = args;
  t0_ = nowMicros();
}

Span::~Span() {
  if (on_) complete(pid_, tid_, name_, cat_, t0_, nowMicros() - t0_, args_);
}

}  // namespace spmd::rt::trace
