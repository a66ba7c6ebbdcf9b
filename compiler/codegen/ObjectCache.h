// ===- ObjectCache.h - compiled programs kept on disk between runs ----------===//
//
// Note [Object cache]: compiling a program with LLVM (optimising, then emitting machine
// code, and PTX for GPUs) takes from a tenth of a second to several seconds; a second run
// of an unchanged script reuses the result of the first. An entry is one file, named by
// the SHA-256 of its key:
//
//   key = this executable's build ID (so a rebuilt spmdrun never reads an older one's
//         entries), LLVM's version, the host's target triple, CPU and features, the
//         optimisation level, the backend, and the module's fingerprint (every field of
//         the IR that codegen reads, exactly: Note [Module fingerprints]).
//
// The file holds a magic line, the key's digest, the host object files (one per part of
// the module, Note [Parallel compilation] in Jit.cpp), the PTX and the kernel names,
// then the SHA-256 of all that. An entry is used only when it reads back whole, its
// checksum matches and its digest is the key's: a truncated, corrupt or foreign file
// (an older format's magic line included) is a miss, and the next store replaces it. Entries are written to a
// temporary file and renamed into place, so processes compiling the same program at
// once (ctest -j, MPI ranks) never see a half-written one. The directory is trimmed to
// kMaxBytes, least recently used first. Any failure to read or write is a miss, never an
// error: the cache only ever saves time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace spmd::codegen {

/// What compiling a program produced, apart from the JIT that links it.
struct CompiledProgram {
  std::vector<std::string> objects;      ///< the host code, ELF relocatable objects
  std::string ptx;                       ///< Backend::Cuda: the kernels' PTX
  std::vector<std::string> kernelNames;  ///< the device programs' kernels
};

class ObjectCache {
public:
  /// The cache in directory `dir` (made on the first store).
  explicit ObjectCache(std::string dir) : dir_(std::move(dir)) {}

  /// The entry for `key`, if a whole, uncorrupted one is there.
  std::optional<CompiledProgram> load(const std::string &key) const;
  /// Writes the entry for `key` (best effort: false when it could not).
  bool store(const std::string &key, const CompiledProgram &p) const;

  /// $SPMDRUN_CACHE_DIR, else $XDG_CACHE_HOME/spmdrun, else $HOME/.cache/spmdrun ("" when
  /// none of them is set).
  static std::string defaultDir();
  /// The build ID of the running executable (its NT_GNU_BUILD_ID note, as hex), or ""
  /// when it has none: then nothing is cached, as entries could not be told apart from
  /// those of another build.
  static const std::string &compilerIdentity();

  static constexpr uint64_t kMaxBytes = uint64_t(512) << 20;

private:
  std::string pathOf(const std::string &key) const;
  void trim() const;
  std::string dir_;
};

}  // namespace spmd::codegen
