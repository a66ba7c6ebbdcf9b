// ===- Mpi.cpp - loading Open MPI, start-up checks, deadlines ----------------===//
#include "mpi/Mpi.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdexcept>
#include <thread>
#include <unistd.h>

namespace spmd::rt::mpi {

namespace {
struct World {
  Api api{};
  bool active = false;
  int rank = 0, size = 1;
  double timeout = 60;
  int errFd = 2;  ///< the original standard error, for fatal()
};
World &world() {
  static World w;
  return w;
}

const char *env(const char *name) {
  const char *v = std::getenv(name);
  return v && *v ? v : nullptr;
}

template <typename F>
void bind(void *lib, F &f, const char *name) {
  void *p = dlsym(lib, name);
  if (!p)
    throw std::runtime_error(std::string("libmpi.so.40 has no ") + name +
                             " (not Open MPI 4 or 5?)");
  f = reinterpret_cast<F>(p);
}
void *global(void *lib, const char *name) {
  void *p = dlsym(lib, name);
  if (!p)
    throw std::runtime_error(std::string("libmpi.so.40 has no ") + name +
                             " (not Open MPI 4 or 5?)");
  return p;
}
}  // namespace

bool launchedByMpi() {
  return env("OMPI_COMM_WORLD_SIZE") || env("PMIX_RANK") || env("PMI_RANK") || env("PMI_SIZE");
}

void init(double collectiveTimeoutSeconds) {
  World &w = world();
  w.timeout = collectiveTimeoutSeconds;
  // RTLD_GLOBAL: Open MPI's own plugins, which it opens in turn, resolve against it.
  void *lib = dlopen("libmpi.so.40", RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    const char *why = dlerror();
    throw std::runtime_error(
        std::string("started by an MPI launcher, but Open MPI cannot be loaded (") +
        (why ? why : "libmpi.so.40") + "); install Open MPI 4 or 5 (libopenmpi3 on Debian)");
  }
  Api &a = w.api;
  bind(lib, a.Init_thread, "MPI_Init_thread");
  bind(lib, a.Finalize, "MPI_Finalize");
  bind(lib, a.Abort, "MPI_Abort");
  bind(lib, a.Comm_rank, "MPI_Comm_rank");
  bind(lib, a.Comm_size, "MPI_Comm_size");
  bind(lib, a.Comm_dup, "MPI_Comm_dup");
  bind(lib, a.Comm_group, "MPI_Comm_group");
  bind(lib, a.Group_incl, "MPI_Group_incl");
  bind(lib, a.Group_free, "MPI_Group_free");
  bind(lib, a.Comm_create_group, "MPI_Comm_create_group");
  bind(lib, a.Isend, "MPI_Isend");
  bind(lib, a.Irecv, "MPI_Irecv");
  bind(lib, a.Ibcast, "MPI_Ibcast");
  bind(lib, a.Iallgather, "MPI_Iallgather");
  bind(lib, a.Testall, "MPI_Testall");
  bind(lib, a.Request_free, "MPI_Request_free");
  bind(lib, a.Improbe, "MPI_Improbe");
  bind(lib, a.Mrecv, "MPI_Mrecv");
  a.world = global(lib, "ompi_mpi_comm_world");
  a.byte = global(lib, "ompi_mpi_byte");
  a.requestNull = global(lib, "ompi_request_null");
  constexpr int kThreadMultiple = 3;
  int provided = 0;
  if (a.Init_thread(nullptr, nullptr, kThreadMultiple, &provided) != 0)
    throw std::runtime_error("MPI_Init_thread failed");
  w.active = true;
  a.Comm_rank(a.world, &w.rank);
  a.Comm_size(a.world, &w.size);
  if (provided < kThreadMultiple)
    fatal("this Open MPI does not support MPI_THREAD_MULTIPLE, which spmdrun needs (each device is "
          "a thread)");
  // A launcher of another MPI (MPICH's hydra, say) starts processes that Open MPI sees as
  // singletons: P runs of one process each, silently. Refuse that.
  const char *expect = env("OMPI_COMM_WORLD_SIZE") ? env("OMPI_COMM_WORLD_SIZE") : env("PMI_SIZE");
  if (expect && std::atoi(expect) != w.size)
    fatal("the launcher started " + std::string(expect) +
          " processes but Open MPI sees a world of " + std::to_string(w.size) +
          " (a launcher of another MPI? use Open MPI's mpirun)");
}

bool active() { return world().active; }
int rank() { return world().rank; }
int size() { return world().size; }
const Api &api() { return world().api; }
double collectiveTimeout() { return world().timeout; }

int localSize() {
  const char *v = env("OMPI_COMM_WORLD_LOCAL_SIZE");
  int n = v ? std::atoi(v) : 1;
  return n > 0 ? n : 1;
}

int localRank() {
  const char *v = env("OMPI_COMM_WORLD_LOCAL_RANK");
  return v ? std::max(std::atoi(v), 0) : rank();
}

std::string checkSameStart(const std::vector<std::pair<std::string, std::string>> &fields) {
  const Api &a = api();
  World &w = world();
  // Everyone's values: first the lengths (allgather), then each rank's blob (a bcast
  // from each root), all under the deadline.
  std::string blob;
  for (auto &[name, value] : fields) {
    blob += name;
    blob += '\0';
    blob += value;
    blob += '\0';
  }
  std::vector<int64_t> lengths(w.size);
  int64_t mine = int64_t(blob.size());
  std::vector<Request> reqs(1);
  a.Iallgather(&mine, 8, a.byte, lengths.data(), 8, a.byte, a.world, &reqs[0]);
  waitAll(reqs, {"the start-up check", "every rank"});
  std::vector<std::string> blobs(w.size);
  reqs.assign(w.size, nullptr);
  for (int r = 0; r < w.size; ++r) {
    blobs[r] = r == w.rank ? blob : std::string(size_t(lengths[r]), '\0');
    if (lengths[r] > (int64_t(1) << 30)) fatal("the start-up check: options too long");
    a.Ibcast(blobs[r].data(), int(lengths[r]), a.byte, r, a.world, &reqs[r]);
  }
  waitAll(reqs, {"the start-up check", "every rank"});
  auto parse = [](const std::string &b) {
    std::vector<std::pair<std::string, std::string>> out;
    size_t at = 0;
    while (at < b.size()) {
      size_t e1 = b.find('\0', at), e2 = b.find('\0', e1 + 1);
      out.emplace_back(b.substr(at, e1 - at), b.substr(e1 + 1, e2 - e1 - 1));
      at = e2 + 1;
    }
    return out;
  };
  auto zero = parse(blobs[0]);
  auto show = [](const std::string &v) { return v.empty() ? std::string("none") : "'" + v + "'"; };
  for (int r = 1; r < w.size; ++r) {
    auto other = parse(blobs[r]);
    for (size_t i = 0; i < std::max(zero.size(), other.size()); ++i) {
      std::string n0 = i < zero.size() ? zero[i].first : other[i].first;
      std::string v0 = i < zero.size() ? zero[i].second : "";
      std::string v1 = i < other.size() ? other[i].second : "";
      if (i < other.size() && i < zero.size() && other[i].first != n0)
        return "the ranks were started differently: rank 0 has " + n0 + ", rank " +
               std::to_string(r) + " has " + other[i].first;
      if (v0 != v1)
        return "the ranks were started differently: " + n0 + " is " + show(v0) + " on rank 0 but " +
               show(v1) + " on rank " + std::to_string(r) +
               " (every rank must run the same script with the same options)";
    }
  }
  return "";
}

void quietUnlessRankZero() {
  World &w = world();
  w.errFd = dup(2);
  if (w.errFd < 0) w.errFd = 2;
  if (w.rank == 0) return;
  std::fflush(stdout);
  std::fflush(stderr);
  int null = open("/dev/null", O_WRONLY);
  if (null < 0) return;
  dup2(null, 1);
  dup2(null, 2);
  close(null);
}

void finalize() {
  World &w = world();
  if (!w.active) return;
  std::fflush(stdout);
  std::fflush(stderr);
  w.api.Finalize();
  w.active = false;
}

void fatal(const std::string &message) {
  World &w = world();
  std::fflush(stdout);
  std::string line = "error: rank " + std::to_string(w.rank) + ": " + message + "\n";
  ssize_t ignored = write(w.errFd, line.data(), line.size());
  (void)ignored;
  if (w.active) w.api.Abort(w.api.world, 1);
  _exit(1);
}

bool waitAll(std::vector<Request> &requests, const WaitInfo &info) {
  return waitAll(requests, info, [] { return false; });
}

namespace detail {

bool testAll(std::vector<Request> &requests) {
  if (requests.empty()) return true;
  int done = 0;
  api().Testall(int(requests.size()), requests.data(), &done, nullptr);
  return done != 0;
}

void backoff(int round) {
  // Spin briefly (a reply is often there at once), then sleep longer and longer, up to
  // half a millisecond: many device threads share few cores, and MPI progresses only
  // while someone polls.
  if (round < 16) {
    std::this_thread::yield();
    return;
  }
  int us = round < 64 ? 5 : round < 256 ? 50 : round < 1024 ? 200 : 500;
  std::this_thread::sleep_for(std::chrono::microseconds(us));
}

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void timedOut(const WaitInfo &info) {
  char secs[32];
  std::snprintf(secs, sizeof secs, "%g", collectiveTimeout());
  fatal(std::string(info.what) + ": waited " + secs + " s for " + info.whom +
        ", which did not arrive (a rank died or is stuck); stopping every rank "
        "(--collective-timeout SECONDS sets the limit)");
}

}  // namespace detail
}  // namespace spmd::rt::mpi
