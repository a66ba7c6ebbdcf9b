// NCCL's loader and the choice of path between GPUs of different processes
// (runtime/nccl/NcclApi.h). Needs no GPU: ncclGetVersion runs without one.
#include "nccl/NcclApi.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

using namespace spmd::rt::nccl;

namespace {
bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}
/// Sets an environment variable for the lifetime of the object.
struct ScopedEnv {
  std::string name;
  std::string old;
  bool had;
  ScopedEnv(const char *n, const char *value) : name(n) {
    const char *o = std::getenv(n);
    had = o != nullptr;
    if (o) old = o;
    setenv(n, value, 1);
  }
  ~ScopedEnv() {
    if (had)
      setenv(name.c_str(), old.c_str(), 1);
    else
      unsetenv(name.c_str());
  }
};
}  // namespace

TEST_CASE("NCCL's loader says clearly when no library is found", "[nccl]") {
  std::string why;
  const NcclApi *api = loadNcclFrom({"/nonexistent/dir/libnccl.so.2", "libspmd_no_such_nccl.so.2"}, why);
  CHECK(api == nullptr);
  CHECK(contains(why, "NCCL not found"));
  CHECK(contains(why, "nvidia-nccl-cu13"));
  CHECK(contains(why, "SPMD_NCCL_PATH"));
  CHECK(contains(why, "libspmd_no_such_nccl.so.2"));  // dlerror of the soname tried
}

TEST_CASE("NCCL's loader refuses a library without NCCL's functions", "[nccl]") {
  std::string why;
  CHECK(loadNcclFrom({"libc.so.6"}, why) == nullptr);
  CHECK(contains(why, "libc.so.6 lacks ncclGetVersion"));
}

TEST_CASE("NCCL's search path: the soname, SPMD_NCCL_PATH, the pip wheel, the toolkit", "[nccl]") {
  ScopedEnv path("SPMD_NCCL_PATH", "/opt/a:/opt/b");
  ScopedEnv venv("VIRTUAL_ENV", "/tmp");
  std::vector<std::string> c = ncclCandidates();
  REQUIRE(c.size() >= 4);
  CHECK(c[0] == "libnccl.so.2");
  CHECK(c[1] == "/opt/a/libnccl.so.2");
  CHECK(c[2] == "/opt/b/libnccl.so.2");
  CHECK(std::find(c.begin(), c.end(), "/usr/local/cuda/lib64/libnccl.so.2") != c.end());
  CHECK(std::find(c.begin(), c.end(), "/usr/lib/python3/dist-packages/nvidia/nccl/lib/libnccl.so.2") !=
        c.end());
}

TEST_CASE("NCCL loads where it is installed, and ncclGetVersion needs no GPU", "[nccl]") {
  // The build machine has it in /usr/local/cuda-13.0/lib; elsewhere the message is clear.
  const std::string installed = "/usr/local/cuda-13.0/lib/libnccl.so.2";
  std::string why;
  const NcclApi *api = ncclApi(why);
  if (!std::filesystem::exists(installed) && !api) {
    CHECK(contains(why, "NCCL not found"));
    return;
  }
  REQUIRE(api != nullptr);
  CHECK(!api->path.empty());
  CHECK(api->version >= 21800);  // ncclCommSplit and friends: 2.18 or later
  int v = 0;
  REQUIRE(api->ncclGetVersion(&v) == ncclSuccess);
  CHECK(v == api->version);
  CHECK(contains(ncclErrorText(*api, 5, "ncclSend"), "ncclSend: "));
  CHECK(contains(ncclErrorText(*api, 5, "ncclSend"), "(NCCL error 5)"));
  // The explicit path loads too (the search's directories are real).
  std::string why2;
  if (std::filesystem::exists(installed)) CHECK(loadNcclFrom({installed}, why2) != nullptr);
}

TEST_CASE("versionText decodes NCCL's version codes", "[nccl]") {
  CHECK(versionText(22703) == "2.27.3");
  CHECK(versionText(21805) == "2.18.5");
  CHECK(versionText(2708) == "2.7.8");
}

TEST_CASE("The cross-process path: NCCL only with one GPU per rank", "[nccl]") {
  SECTION("every rank its own GPU, NCCL loaded: NCCL") {
    PathChoice c = chooseCrossPath({"n0/0000:19:00.0", "n0/0000:3b:00.0", "n1/0000:19:00.0"}, "", false);
    CHECK(c.path == CrossPath::Nccl);
    CHECK(c.why == "one GPU per rank");
  }
  SECTION("one rank (the -np 1 case of a one-GPU machine): NCCL") {
    CHECK(chooseCrossPath({"n0/0000:19:00.0"}, "", false).path == CrossPath::Nccl);
  }
  SECTION("two ranks on the same GPU: MPI through host memory, naming them") {
    PathChoice c = chooseCrossPath({"n0/0000:19:00.0", "n0/0000:19:00.0"}, "", false);
    CHECK(c.path == CrossPath::MpiHost);
    CHECK(c.why == "ranks 0 and 1 share GPU n0/0000:19:00.0, which NCCL refuses");
  }
  SECTION("the first shared GPU is named") {
    PathChoice c = chooseCrossPath({"a/1", "a/2", "a/3", "a/2", "a/1"}, "", false);
    CHECK(c.path == CrossPath::MpiHost);
    CHECK(c.why == "ranks 1 and 3 share GPU a/2, which NCCL refuses");
  }
  SECTION("the same bus id on two hosts is two GPUs") {
    CHECK(chooseCrossPath({"n0/0000:19:00.0", "n1/0000:19:00.0"}, "", false).path ==
          CrossPath::Nccl);
  }
  SECTION("NCCL missing on some rank: MPI, with the reason") {
    PathChoice c = chooseCrossPath({"a/1", "a/2"}, "NCCL did not load on rank 1", false);
    CHECK(c.path == CrossPath::MpiHost);
    CHECK(c.why == "NCCL did not load on rank 1");
  }
  SECTION("SPMD_NCCL=0: MPI") {
    PathChoice c = chooseCrossPath({"a/1", "a/2"}, "", true);
    CHECK(c.path == CrossPath::MpiHost);
    CHECK(c.why == "SPMD_NCCL=0");
  }
}

TEST_CASE("A rank's GPU: its local rank modulo the GPUs it sees", "[nccl]") {
  CHECK(gpuForLocalRank(0, 1) == 0);
  CHECK(gpuForLocalRank(1, 1) == 0);  // two ranks, one GPU: they share it
  CHECK(gpuForLocalRank(3, 2) == 1);
  CHECK(gpuForLocalRank(5, 8) == 5);
  CHECK(gpuForLocalRank(2, 0) == 0);
}
