// The environment's settings (runtime/settings/Settings.h, Note [Settings in the
// environment]): the table's checks and readers, and that no reader goes around it.

#include "Settings.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace spmd;

namespace {

/// Sets (or, for nullptr, unsets) a variable for one scope.
struct ScopedEnv {
  std::string name;
  std::string old;
  bool had;
  ScopedEnv(const char *n, const char *v) : name(n) {
    const char *o = std::getenv(n);
    had = o != nullptr;
    if (had) old = o;
    if (v) setenv(n, v, 1);
    else unsetenv(n);
  }
  ~ScopedEnv() {
    if (had) setenv(name.c_str(), old.c_str(), 1);
    else unsetenv(name.c_str());
  }
};

}  // namespace

TEST_CASE("settings: what a user is told to give", "[settings]") {
  using settings::Id;
  CHECK(settings::wanted(settings::get(Id::MemoryLimit)) ==
        "a whole number of bytes, such as 300000000");
  CHECK(settings::wanted(settings::get(Id::SumHost)) == "avx512 or avx2");
  CHECK(settings::wanted(settings::get(Id::BlisArch)) == "skx, zen3 or haswell");
  CHECK(settings::wanted(settings::get(Id::CpuFibers)) == "0 or 1");
  // Every Id has its own row, and get() finds it.
  for (const settings::Setting &s : settings::kSettings) CHECK(&settings::get(s.id) == &s);
}

TEST_CASE("settings: values accepted", "[settings]") {
  using settings::Id;
  const auto &mem = settings::get(Id::MemoryLimit);
  CHECK(settings::accepts(mem, "0"));
  CHECK(settings::accepts(mem, "300000000"));
  CHECK(settings::accepts(mem, "9223372036854775807"));
  for (const char *bad : {"12abc", "abc", "-1", "1e9", " 12", "+5", "9223372036854775808"})
    CHECK_FALSE(settings::accepts(mem, bad));
  const auto &host = settings::get(Id::SumHost);
  CHECK(settings::accepts(host, "avx2"));
  CHECK_FALSE(settings::accepts(host, "avx-512"));
  CHECK_FALSE(settings::accepts(settings::get(Id::Nccl), "false"));
}

TEST_CASE("settings: readers", "[settings]") {
  using settings::Id;
  {
    ScopedEnv e("SPMD_CPU_FIBERS", nullptr);
    CHECK(settings::flag(Id::CpuFibers));  // on by default
  }
  {
    ScopedEnv e("SPMD_CPU_FIBERS", "0");
    CHECK_FALSE(settings::flag(Id::CpuFibers));
  }
  {
    // Unchecked and invalid reads as unset: the default.
    ScopedEnv e("SPMD_MPI_STAGE", "yes");
    CHECK_FALSE(settings::flag(Id::MpiStage));
    ScopedEnv f("SPMD_MPI_ALL_GROUPS", "1");
    CHECK(settings::flag(Id::MpiAllGroups));
  }
  {
    ScopedEnv e("SPMD_MEMORY_LIMIT", "");
    CHECK(settings::bytes(Id::MemoryLimit) == -1);
  }
  {
    ScopedEnv e("SPMD_MEMORY_LIMIT", "4096");
    CHECK(settings::bytes(Id::MemoryLimit) == 4096);
  }
  {
    ScopedEnv e("SPMD_SUM_HOST", "avx2");
    CHECK(std::string(settings::value(Id::SumHost)) == "avx2");
  }
  {
    ScopedEnv e("SPMD_BLIS_ARCH", "zen4");
    CHECK(settings::value(Id::BlisArch) == nullptr);
  }
}

// One place per fact: a reader that called getenv itself would keep its own idea of the
// values (the check above would no longer be the reader's). Every source file of the
// compiler, runtime and command line names a setting only through the table.
TEST_CASE("settings: every reader goes through the table", "[settings]") {
  const char *root = std::getenv("SPMD_SOURCE_DIR");
  if (!root) {
    WARN("SPMD_SOURCE_DIR not set (CTest sets it): sources not scanned");
    return;
  }
  namespace fs = std::filesystem;
  int scanned = 0;
  for (const char *dir : {"compiler", "runtime", "cli"}) {
    for (const auto &entry : fs::recursive_directory_iterator(fs::path(root) / dir)) {
      if (!entry.is_regular_file()) continue;
      auto ext = entry.path().extension();
      if (ext != ".cpp" && ext != ".h") continue;
      if (entry.path().filename() == "Settings.h") continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      ++scanned;
      for (const settings::Setting &s : settings::kSettings) {
        std::string call = std::string("getenv(\"") + s.name + "\")";
        INFO(entry.path().string() << " reads " << s.name << " itself");
        CHECK(text.str().find(call) == std::string::npos);
      }
    }
  }
  CHECK(scanned > 50);
}
