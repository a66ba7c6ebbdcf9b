// ===- NcclApi.h - NCCL, loaded at run time, and the choice of cross-process path ===//
//
// GPUs of different processes (`mpirun -np P spmdrun --devices cuda:K`) exchange data
// through NCCL when every rank has a GPU of its own, and through MPI via pinned host
// buffers otherwise (Note [GPUs across processes] in mpi/GpuLink.h). NCCL is opened
// like the CUDA driver (cuda/CudaApi.h): with dlopen, never linked, and with our own
// declarations of the few types and functions used, so that nccl.h is not needed to
// build and a machine without NCCL runs everything else. The values below are copied
// from nccl.h of NCCL 2.x, whose ABI (soname libnccl.so.2) keeps them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace spmd::rt::nccl {

typedef int ncclResult_t;
typedef struct ncclComm *ncclComm_t;
typedef void *cudaStream_t;  ///< a stream: the driver's CUstream (a pointer)
constexpr int kUniqueIdBytes = 128;
struct ncclUniqueId {
  char internal[kUniqueIdBytes];
};
constexpr ncclResult_t ncclSuccess = 0;
constexpr ncclResult_t ncclInProgress = 7;
constexpr int ncclUint8 = 1;  ///< ncclDataType_t: bytes (every exchange here moves bytes)
constexpr int NCCL_SPLIT_NOCOLOR = -1;

/// The entry points used, resolved from libnccl.so.2; all non-null in a loaded NcclApi.
struct NcclApi {
  ncclResult_t (*ncclGetVersion)(int *version);
  ncclResult_t (*ncclGetUniqueId)(ncclUniqueId *id);
  ncclResult_t (*ncclCommInitRank)(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank);
  /// config null: the parent's configuration.
  ncclResult_t (*ncclCommSplit)(ncclComm_t comm, int color, int key, ncclComm_t *newcomm,
                                void *config);
  ncclResult_t (*ncclCommDestroy)(ncclComm_t comm);
  ncclResult_t (*ncclCommAbort)(ncclComm_t comm);
  ncclResult_t (*ncclCommGetAsyncError)(ncclComm_t comm, ncclResult_t *error);
  const char *(*ncclGetErrorString)(ncclResult_t result);
  ncclResult_t (*ncclBroadcast)(const void *send, void *recv, size_t count, int datatype, int root,
                                ncclComm_t comm, cudaStream_t stream);
  ncclResult_t (*ncclSend)(const void *send, size_t count, int datatype, int peer, ncclComm_t comm,
                           cudaStream_t stream);
  ncclResult_t (*ncclRecv)(void *recv, size_t count, int datatype, int peer, ncclComm_t comm,
                           cudaStream_t stream);
  ncclResult_t (*ncclGroupStart)();
  ncclResult_t (*ncclGroupEnd)();
  std::string path;  ///< the library that was opened
  int version = 0;   ///< ncclGetVersion's code, e.g. 22703 for 2.27.3
};

/// The places searched for libnccl.so.2, in order (Note [Finding NCCL] in NcclApi.cpp).
std::vector<std::string> ncclCandidates();
/// NCCL, loaded on first use (Note [Finding NCCL]); null with the reason in `why` ("NCCL
/// not found: tried ..."). Thread-safe; the answer never changes.
const NcclApi *ncclApi(std::string &why);
/// Loads NCCL from exactly `candidates` (each a soname or a file); for tests. Null with
/// the reason when none loads.
const NcclApi *loadNcclFrom(const std::vector<std::string> &candidates, std::string &why);
/// "2.27.3" for a version code.
std::string versionText(int code);
/// "<what>: <NCCL error text> (NCCL error N)".
std::string ncclErrorText(const NcclApi &api, ncclResult_t r, const std::string &what);

// ---- which path the GPUs of different processes take --------------------------------
enum class CrossPath { Nccl, MpiHost };
struct PathChoice {
  CrossPath path = CrossPath::MpiHost;
  std::string why;  ///< why this path, for --stats ("ranks 0 and 1 share GPU ...")
};
/// The path for a job whose rank r uses the GPU `gpuOfRank[r]` (a name that is equal
/// for equal GPUs: "host/PCI bus id"). NCCL refuses two ranks on one GPU, so any GPU
/// used by two ranks means MPI through host memory; so does a NCCL that did not load
/// (`ncclMissing`: the reason, empty when it loaded) or `forceHost` (SPMD_NCCL=0).
/// Every rank computes the same answer from the same inputs.
PathChoice chooseCrossPath(const std::vector<std::string> &gpuOfRank,
                           const std::string &ncclMissing, bool forceHost);
/// The GPU ordinal rank `localRank` of a node uses when the node shows `gpus` GPUs
/// (after CUDA_VISIBLE_DEVICES): localRank mod gpus.
int gpuForLocalRank(int localRank, int gpus);

}  // namespace spmd::rt::nccl
