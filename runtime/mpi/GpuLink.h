// ===- GpuLink.h - what the cross-process collectives need from GPU devices ----===//
//
// MpiCommunicator (mpi/MpiCommunicator.h) moves the data of a group that spans
// processes. With CPU devices the members' buffers are host memory; with GPUs they are
// device memory, and the CUDA side (cuda/CudaGpuLink.cpp) implements this interface so
// that the MPI code needs no CUDA and the CUDA code no MPI bookkeeping.
//
// Note [GPUs across processes]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// `mpirun -np P spmdrun --devices cuda:K`: rank r runs devices r*K .. r*K+K-1 on one
// GPU, ordinal (local rank mod the GPUs it sees; CUDA_VISIBLE_DEVICES applies). A group
// inside the process uses the CUDA communicator as in one process. A group that spans
// processes meets as in Note [Cross-process collectives] (MpiCommunicator.cpp): its
// local members publish, the last to arrive leads; the leader's transport is one of
//   - NCCL, when every rank has a GPU of its own and libnccl.so.2 loads on every rank:
//     all_gather, ppermute and all_to_all move device memory with ncclBroadcast and
//     ncclSend/ncclRecv on the group's own communicator (ncclCommSplit of a world
//     communicator whose unique id rank 0 broadcasts with MPI), made once per mesh;
//   - MPI through pinned host buffers otherwise (NCCL refuses two ranks on one GPU):
//     each member copies its input to its pinned staging buffer, the leader runs the
//     CPU devices' MPI exchange on the staged copies, each member copies its result back.
// psum and psum_scatter always take the second way, also when NCCL is up: their fold
// keeps replica order exactly (the chain of MpiCommunicator), which NCCL's reductions
// (unspecified order) cannot promise; generated GPU code lowers psum to all_gather and
// a reduction kernel anyway, so these are rare on GPUs. Data movement has no order, so
// both transports give the same bits as one process.
//
// Faults: the leader of a NCCL exchange polls its stream, ncclCommGetAsyncError and the
// abort notices of other ranks; an error or --collective-timeout aborts the communicator
// (ncclCommAbort) and ends the job with a message and exit 1 (mpi::fatal); an abort from
// elsewhere aborts it too, and the run ends with that error.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace spmd::rt {

/// One group's members on this rank, for a NCCL exchange: the group has `size` members,
/// rank i of the group owns members [segLo[i], segLo[i+1]) and this rank is `me`.
/// `ins`/`outs` are the local members' device buffers, by local index.
struct LinkGroup {
  const std::vector<int64_t> &segLo;
  int me;
  int64_t size;
  std::vector<const void *> ins;
  std::vector<void *> outs;
  const char *what;                ///< "all_gather in pmap i @ f.spmd:3:5", for messages
  std::function<bool()> stopped;   ///< true once the launch is aborted elsewhere
};

/// The NCCL communicator of one group that spans processes (this rank is a member).
/// Each call is made by the group's leader on this rank, while the local members wait
/// with their inputs ready. False when the launch was aborted meanwhile; a NCCL or CUDA
/// error or the timeout ends the job (mpi::fatal). `across` += bytes received from
/// other ranks.
class GroupLink {
public:
  virtual ~GroupLink() = default;
  virtual bool allGather(const LinkGroup &g, int64_t bytes, int64_t &across) = 0;
  /// `source[d]`: the group index whose input member d receives, or -1 (zeros).
  virtual bool ppermute(const LinkGroup &g, int64_t bytes, const std::vector<int64_t> &source,
                        int64_t &across) = 0;
  virtual bool allToAll(const LinkGroup &g, int64_t chunkBytes, int64_t &across) = 0;
};

/// The GPU side of a run under mpirun with CUDA devices.
class GpuLink {
public:
  virtual ~GpuLink() = default;
  /// Whether NCCL carries all_gather, ppermute and all_to_all between processes.
  virtual bool nccl() const = 0;
  /// "NCCL 2.27.3 (one GPU per rank)" or "MPI through pinned host buffers (ranks 0 and
  /// 1 share GPU ...)", for --stats and describe().
  virtual std::string pathText() const = 0;
  /// Called by every rank in the same order for every group that spans processes (a
  /// collective call over all ranks when NCCL is up). Returns the group's link when NCCL
  /// is up and this rank is in `ranks` (world ranks, ascending), else null.
  virtual std::unique_ptr<GroupLink> makeGroup(const std::vector<int> &ranks) = 0;

  // Per member, on the device's own thread (flat index `dev`). On failure they record
  // the device's error (aborting the launch) and return false / null.
  /// Waits until the device's queued work is done, so its input may be read (NCCL path).
  virtual bool settle(int64_t dev) = 0;
  /// A host copy of `bytes` of device buffer `in` (the device's pinned staging buffer).
  virtual const void *stageIn(int64_t dev, const void *in, int64_t bytes) = 0;
  /// A host buffer of `bytes` for the device's result (pinned, distinct from stageIn's).
  virtual void *stageOut(int64_t dev, int64_t bytes) = 0;
  /// Copies the staged result into device buffer `out` and waits for the copy.
  virtual bool unstage(int64_t dev, void *out, int64_t bytes) = 0;
};

}  // namespace spmd::rt
