// ===- HostState.h - what spmd_host holds (private to the runtime) ------------===//
//
// `spmd_host` is opaque in spmdrt.h; this is its definition, shared by the files that
// implement the host-side entry points (Runtime.cpp, Launch.cpp, HostIO.cpp). `Host`
// (Runtime.h) is a thin owner of one of these.
#pragma once

#include "Device.h"
#include "Runtime.h"

#include <csetjmp>
#include <iosfwd>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

struct spmd_host {
  std::unique_ptr<spmd::rt::Backend> backend;
  spmd::rt::ErrorState errors;

  /// Inside Host::run: a host-side failure longjmps to `jump` (Note [Unwinding kernels]).
  bool inRun = false;
  /// Whether the jitted main runs with denormals flushed (CPU devices: Note [Denormals]).
  bool flushDenormals = false;
  std::jmp_buf jump;

  /// The line being printed; written out by spmd_print_end.
  std::string line;
  std::ostream *out = nullptr;  ///< null: stdout
  std::ostream *err = nullptr;  ///< null: stderr

  /// Live spmd_host_alloc buffers, freed with the host.
  std::unordered_set<void *> allocations;

  /// Note [Sharded arrays]: a launch's results stay on the devices that computed them,
  /// as shards, until the host reads them (spmd_host_sync). `resident` maps such a buffer
  /// to its layout: the mesh it was computed on and the mesh axes it is stacked over. A
  /// later launch that maps it over the same layout reads the shards in place (nothing
  /// moves); any other use gathers it first. On CPU devices the shards live in the host
  /// buffer itself, so only the accounting (for --stats) differs; a backend with its own
  /// device memory (CUDA) moves the bytes these counters count: it keeps each device's
  /// result keyed by the host address it stands for, and the host tells it whenever the
  /// host side touches such a buffer (Backend::gather before a read or a launch with
  /// another layout, release when the buffer is freed or overwritten, alias when it is
  /// copied).
  struct Layout {
    std::vector<int64_t> meshShape;
    uint32_t axes = 0;
    int64_t bytes = 0;
    size_t region = SIZE_MAX;  ///< stats.launches index of the launch that made it
  };
  /// Counts a gather of `l` (device -> host) for --stats, in total and for its region.
  void countGather(const Layout &l, int64_t bytes) {
    stats.device_to_host_bytes += bytes;
    if (l.region < stats.launches.size()) stats.launches[l.region].device_to_host_bytes += bytes;
  }
  std::unordered_map<void *, Layout> resident;

  spmd::rt::Host::Stats stats;
  std::unordered_map<std::string, size_t> statIndex;  ///< name -> stats.launches index

  /// Per-launch state, kept to reuse its memory between launches.
  spmd::rt::Mesh mesh;
  std::vector<spmd::rt::DeviceWork> works;
  std::vector<spmd_dev> contexts;
};

namespace spmd::rt {
/// Records a host-side error (unless one is recorded) and, inside Host::run, longjmps
/// back to it; outside a run it throws std::runtime_error (only C++ callers are there).
[[noreturn]] void failHost(spmd_host *h, const char *message);
/// Leaves the run after an error that is already recorded.
[[noreturn]] void unwindHost(spmd_host *h);
}  // namespace spmd::rt
