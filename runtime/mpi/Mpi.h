// ===- Mpi.h - the MPI world of a run started by mpirun (libmpi.so.40 by dlopen) ===//
//
// `mpirun -np P spmdrun --devices cpu:K F.spmd` runs one program over P*K logical
// devices; rank r owns devices r*K .. r*K+K-1 (Note [Ranks and devices] in
// MpiBackend.cpp). This header is the process-level part: finding out whether an MPI
// launcher started us (environment only, so a plain run loads nothing), loading Open
// MPI with dlopen (the shipped binary needs only glibc), MPI_Init_thread with
// MPI_THREAD_MULTIPLE, the start-up check that every rank was started the same way, and
// the deadline every wait for another rank runs under (--collective-timeout): when it
// passes, the rank prints why and calls MPI_Abort, so no rank ever hangs.
//
// The handles are Open MPI's (MPI_COMM_WORLD is the address of `ompi_mpi_comm_world`,
// and so on), so only Open MPI (4.x, 5.x: soname libmpi.so.40) is supported.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace spmd::rt::mpi {

// Open MPI's handle types: pointers to its internal structures.
using Comm = void *;
using Datatype = void *;
using Request = void *;
using Group = void *;
using Message = void *;
/// Open MPI's MPI_Status (the public fields, then two private ones).
struct Status {
  int source = 0, tag = 0, error = 0, cancelled = 0;
  size_t ucount = 0;
};

/// The entry points and predefined handles used, found with dlsym.
struct Api {
  int (*Init_thread)(int *, char ***, int, int *);
  int (*Finalize)();
  int (*Abort)(Comm, int);
  int (*Comm_rank)(Comm, int *);
  int (*Comm_size)(Comm, int *);
  int (*Comm_dup)(Comm, Comm *);
  int (*Comm_group)(Comm, Group *);
  int (*Group_incl)(Group, int, const int *, Group *);
  int (*Group_free)(Group *);
  int (*Comm_create_group)(Comm, Group, int, Comm *);
  int (*Isend)(const void *, int, Datatype, int, int, Comm, Request *);
  int (*Irecv)(void *, int, Datatype, int, int, Comm, Request *);
  int (*Ibcast)(void *, int, Datatype, int, Comm, Request *);
  int (*Iallgather)(const void *, int, Datatype, void *, int, Datatype, Comm, Request *);
  int (*Testall)(int, Request *, int *, Status *);
  int (*Request_free)(Request *);
  int (*Improbe)(int, int, Comm, int *, Message *, Status *);
  int (*Mrecv)(void *, int, Datatype, Message *, Status *);
  Comm world = nullptr;
  Datatype byte = nullptr;
  Request requestNull = nullptr;
};

/// True when an MPI launcher started this process (OMPI_COMM_WORLD_SIZE, PMIX_RANK,
/// PMI_RANK or PMI_SIZE in the environment). Reads the environment only.
bool launchedByMpi();

/// Loads libmpi.so.40 and initialises MPI for threads. Throws std::runtime_error with
/// the reason (no Open MPI, no thread support, a launcher of another MPI whose world
/// size Open MPI does not see).
void init(double collectiveTimeoutSeconds);
/// Whether init() ran: the run is distributed (even with one rank).
bool active();
int rank();
int size();
/// The ranks on this node (for the default number of CPU devices), at least 1.
int localSize();
/// This rank's index among the ranks of its node (OMPI_COMM_WORLD_LOCAL_RANK; rank()
/// when the launcher does not say), for the GPU it uses.
int localRank();
const Api &api();
/// Seconds any wait for another rank may take before the run is aborted.
double collectiveTimeout();

/// Compares `fields` (name, value: the script, --devices, each --arg, ...) across the
/// ranks; every rank calls it once, after init. Returns "" when all agree, else a
/// message naming the first field that differs and the values of rank 0 and of the
/// first rank that differs (the same message on every rank).
std::string checkSameStart(const std::vector<std::pair<std::string, std::string>> &fields);

/// Sends this rank's standard output and error to /dev/null unless it is rank 0 (its
/// output would repeat rank 0's); fatal() still reaches the original standard error.
void quietUnlessRankZero();

/// Ends MPI (every rank calls it before exiting normally).
void finalize();

/// Prints "error: rank R: <message>" to the original standard error and ends every
/// process of the job with exit code 1 (MPI_Abort).
[[noreturn]] void fatal(const std::string &message);

/// What a wait is for, for the message when it times out.
struct WaitInfo {
  const char *what;  ///< "psum", "the end of a launch", ...
  std::string whom;  ///< "rank 1", "ranks 1, 2", ...
};

/// Polls `requests` until all complete. Returns true when done; false as soon as
/// `stop()` says so (the launch was aborted): the requests are then left in flight,
/// which is safe because their buffers belong to the communicator and the run ends
/// after an aborted launch. After collectiveTimeout() seconds: fatal(). Sleeps between
/// polls (devices share few cores).
template <typename Stop>
bool waitAll(std::vector<Request> &requests, const WaitInfo &info, Stop stop);

/// The same without a stop condition (host-side waits).
bool waitAll(std::vector<Request> &requests, const WaitInfo &info);

namespace detail {
/// One poll: true when all requests are done.
bool testAll(std::vector<Request> &requests);
/// Sleeps a little more each time (`round` counts polls).
void backoff(int round);
double now();
[[noreturn]] void timedOut(const WaitInfo &info);
}  // namespace detail

template <typename Stop>
bool waitAll(std::vector<Request> &requests, const WaitInfo &info, Stop stop) {
  double deadline = detail::now() + collectiveTimeout();
  for (int round = 0;; ++round) {
    if (detail::testAll(requests)) return true;
    if (stop()) return false;
    if (detail::now() > deadline) detail::timedOut(info);
    detail::backoff(round);
  }
}

}  // namespace spmd::rt::mpi
