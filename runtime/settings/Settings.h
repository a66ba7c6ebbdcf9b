#pragma once
// The settings spmdrun reads from the environment: one table, read by the command line's
// check and by every reader (header-only: codegen reads SPMD_SUM_HOST, the runtime the
// rest; neither depends on the other for it).

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

namespace spmd::settings {

// Note [Settings in the environment]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The runtime and codegen read a few settings from the environment, each where it is used
// and once. A value its reader did not understand used to be taken as unset in silence
// (SPMD_MEMORY_LIMIT=12abc ran with no cap), so spmdrun's main() checks every one first
// and refuses a malformed one as the command line refuses a malformed option: a message
// naming the variable and the value, exit 2 (cli/spmdrun.cpp, checkEnvironment). An empty
// value is unset, as for SPMDRUN_CACHE_DIR (`VAR= spmdrun ...` is how a shell clears one
// for one command).
//
// Each setting's name, its values and what a user is told to give are written once, in
// kSettings; the check walks the table and each reader asks it through value(), flag()
// or bytes(). A reader that runs without the check (a unit test, a library user) reads an
// invalid value as unset: the table's default.

enum class Id { MemoryLimit, SumHost, BlisArch, CpuFibers, Nccl, MpiAllGroups, MpiStage };

struct Setting {
  Id id;
  const char *name;
  /// The values accepted, or none for a whole number of bytes (at most 4).
  const char *values[4];
  /// For a 0-or-1 switch: its value when unset (or, unchecked, invalid).
  bool onByDefault;
  /// Who reads it and what it does (for the reader of this table).
  const char *what;
};

inline constexpr Setting kSettings[] = {
    {Id::MemoryLimit, "SPMD_MEMORY_LIMIT", {}, false,
     "cap on the bytes the buffer pools hold (runtime/BufferPool.h)"},
    {Id::SumHost, "SPMD_SUM_HOST", {"avx512", "avx2"}, false,
     "the host kind whose XLA reduction order codegen follows (compiler/codegen/XlaSum.cpp)"},
    {Id::BlisArch, "SPMD_BLIS_ARCH", {"skx", "zen3", "haswell"}, false,
     "BLIS's kernel family when the CPU has it (runtime/cpu/CpuGemm.cpp)"},
    {Id::CpuFibers, "SPMD_CPU_FIBERS", {"0", "1"}, true,
     "device threads run kernels on fibers (runtime/cpu/CpuDevice.cpp)"},
    {Id::Nccl, "SPMD_NCCL", {"0", "1"}, true,
     "0: collectives across GPUs go through MPI, not NCCL (runtime/cuda/CudaGpuLink.cpp)"},
    {Id::MpiAllGroups, "SPMD_MPI_ALL_GROUPS", {"0", "1"}, false,
     "1 (tests): every group takes the cross-process path (runtime/mpi/MpiCommunicator.cpp)"},
    {Id::MpiStage, "SPMD_MPI_STAGE", {"0", "1"}, false,
     "1 (tests): GPU buffers cross processes staged through host memory "
     "(runtime/mpi/MpiBackend.cpp)"},
};

inline constexpr const Setting &get(Id id) {
  for (const Setting &s : kSettings)
    if (s.id == id) return s;
  return kSettings[0];  // unreachable: every Id has a row
}

/// A whole number of bytes: digits only (strtoll would take " 12", "+12" and "-1", and
/// stop at "12abc" or "1e9"), no overflow.
inline bool parseBytes(const char *text, int64_t &bytes) {
  int64_t v = 0;
  for (const char *c = text; *c; ++c) {
    if (*c < '0' || *c > '9') return false;
    if (v > (INT64_MAX - (*c - '0')) / 10) return false;
    v = v * 10 + (*c - '0');
  }
  bytes = v;
  return *text != 0;
}

/// Whether `v` (non-empty) is a value `s` accepts.
inline bool accepts(const Setting &s, const char *v) {
  if (!s.values[0]) {
    int64_t bytes;
    return parseBytes(v, bytes);
  }
  for (const char *w : s.values)
    if (w && std::strcmp(w, v) == 0) return true;
  return false;
}

/// What to give, as a message says it: "a whole number of bytes, such as 300000000",
/// "0 or 1", "skx, zen3 or haswell".
inline std::string wanted(const Setting &s) {
  if (!s.values[0]) return "a whole number of bytes, such as 300000000";
  int n = 0;
  while (n < 4 && s.values[n]) ++n;
  std::string out;
  for (int i = 0; i < n; ++i) {
    if (i) out += i + 1 == n ? " or " : ", ";
    out += s.values[i];
  }
  return out;
}

/// The setting's value when set to one it accepts, else nullptr (unset).
inline const char *value(Id id) {
  const Setting &s = get(id);
  const char *v = std::getenv(s.name);
  return v && *v && accepts(s, v) ? v : nullptr;
}

/// A 0-or-1 switch.
inline bool flag(Id id) {
  const char *v = value(id);
  return v ? v[0] == '1' : get(id).onByDefault;
}

/// A number of bytes, or -1 when unset.
inline int64_t bytes(Id id) {
  int64_t b = -1;
  if (const char *v = value(id)) parseBytes(v, b);
  return b;
}

}  // namespace spmd::settings
