// ===- MpiCommunicator.h - collectives between devices of several processes ---===//
//
// The Communicator of a run under mpirun. A collective whose group lies inside this
// process goes to a CpuCommunicator, as in a single-process run. A group that spans
// processes meets first inside each process (its local members publish their buffers;
// the last to arrive leads), then the leaders of the ranks exchange data over MPI on the
// group's own communicator, made once per mesh (Note [Cross-process collectives] in
// MpiCommunicator.cpp). Reductions fold the members in group order across processes,
// so a run over P processes of K devices gives the same bits as one process of P*K.
#pragma once

#include "Device.h"
#include "cpu/CpuCommunicator.h"
#include "mpi/GpuLink.h"
#include "mpi/Mpi.h"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace spmd::rt {

/// Bytes moved by the collectives of one kind (summed over this rank's devices).
struct MpiCollectiveStats {
  std::atomic<int64_t> calls{0};   ///< device calls
  std::atomic<int64_t> within{0};  ///< bytes devices received from devices of this process
  std::atomic<int64_t> across{0};  ///< bytes this process received over MPI
};
enum class CollectiveKind { Psum, AllGather, Ppermute, AllToAll, PsumScatter, Count };
const char *collectiveName(CollectiveKind k);

class MpiCommunicator final : public Communicator {
public:
  /// Rank `rank` of `ranks`, each with `perRank` devices (flat device d lives on rank
  /// d / perRank); `stats` is updated by every collective. CPU devices: `local` and
  /// `gpu` null (a CpuCommunicator is made). GPUs: `local` is the CUDA communicator of
  /// this rank's devices and `gpu` their link (Note [GPUs across processes]); both
  /// outlive this object.
  MpiCommunicator(int rank, int ranks, int perRank, MpiCollectiveStats *stats,
                  Communicator *local = nullptr, GpuLink *gpu = nullptr);
  ~MpiCommunicator() override;

  /// The launch about to begin: its name (messages), a sequence number that every rank
  /// counts alike (abort notices carry it), and the run's errors.
  void setLaunch(const char *name, uint64_t seq, ErrorState *errors);

  void begin(const Mesh &mesh) override;
  /// A device of this process failed: releases the local waiters and tells every other
  /// rank, whose waits in this launch's collectives then give up too.
  void abort() override;

  bool allreduce(int64_t dev, const void *in, void *out, int64_t count, DType dt, RedOp op,
                 uint32_t axes, int64_t &bytesMoved) override;
  bool allGather(int64_t dev, const void *in, void *out, int64_t bytes, uint32_t axes,
                 int64_t &bytesMoved) override;
  bool ppermute(int64_t dev, const void *in, void *out, int64_t bytes, uint32_t axes,
                int32_t npairs, const int32_t *pairs, int64_t &bytesMoved) override;
  bool allToAll(int64_t dev, const void *in, void *out, int64_t chunkBytes, uint32_t axes,
                int64_t &bytesMoved) override;
  bool reduceScatter(int64_t dev, const void *in, void *out, int64_t count, DType dt, RedOp op,
                     uint32_t axes, int64_t &bytesMoved) override;

private:
  /// What a local member hands its leader.
  struct Published {
    const void *in = nullptr;
    void *out = nullptr;
  };
  /// One group that spans processes, seen from this rank.
  struct Slot {
    mpi::Comm comm = nullptr;
    int me = 0;                  ///< this rank's index in `ranks`
    std::vector<int> ranks;      ///< world ranks of the members, ascending
    std::vector<int64_t> segLo;  ///< ranks.size()+1 bounds: rank i owns [segLo[i], segLo[i+1])
    int64_t size = 0;            ///< members in the group
    int64_t localCount = 0;      ///< members on this rank
    // The local meeting (guarded by mu).
    std::mutex mu;
    std::condition_variable cv;
    int64_t arrived = 0;
    uint64_t generation = 0;
    bool leading = false, lastOk = true;
    std::vector<Published> pub;  ///< by local index
    // Buffers for MPI, owned here so that a send or receive still in flight after an
    // abort never touches a device's memory.
    std::vector<char> a, b, c;
    std::unique_ptr<GroupLink> link;  ///< the group's NCCL communicator, when NCCL is up
  };
  struct MeshState {
    std::vector<std::vector<std::unique_ptr<Slot>>> slots;  ///< [canonical mask][group id]
    uint32_t live = 0;                                      ///< axes of size > 1
  };
  enum class Role { Leader, Done, Aborted };

  /// The slot of `dev`'s group for `axes`, or null when the group is inside this process.
  Slot *slotOf(int64_t dev, uint32_t axes, int64_t &localIndex);
  MeshState makeMeshState(const Mesh &mesh);
  Role arrive(Slot &s, int64_t li, Published p);
  void release(Slot &s, bool ok);
  /// Polls the abort notices of other ranks; true once the launch is aborted.
  bool stopped();
  bool wait(std::vector<mpi::Request> &reqs, const char *what, const std::string &whom);
  std::string rankName(const Slot &s, int i) const;
  int rankOfMember(const Slot &s, int64_t groupIndex) const;
  /// The fold of every member's buffer (`srcs` are the local members') in group order,
  /// chained through the ranks; on return the last rank of the group holds the result
  /// in s.a. `what` names the collective.
  bool chainFold(Slot &s, const std::vector<const char *> &srcs, int64_t count, DType dt, RedOp op,
                 const char *what, int64_t &across);
  void tally(CollectiveKind k, int64_t within, int64_t across);
  /// Steps 1 and 3 of Note [Cross-process collectives] for member `dev` (local index
  /// `li`) of `s`, with `lead` as step 2. GPU devices stage `in` (`inBytes`) and `out`
  /// (`outBytes`) through host memory unless `direct` (the NCCL path: the leader reads
  /// and writes device memory; the members only settle their streams first).
  template <typename Lead>
  bool meet(Slot &s, int64_t dev, int64_t li, const void *in, int64_t inBytes, void *out,
            int64_t outBytes, bool direct, Lead lead);
  /// The LinkGroup of `s` for its leader on the NCCL path.
  LinkGroup linkGroup(Slot &s, const char *what, std::string &whatText);
  /// A collective of a group inside this process: `call` runs it on the local
  /// communicator, adding to bytesMoved; what it adds is tallied as moved within.
  bool inProcess(CollectiveKind k, int64_t &bytesMoved, const std::function<bool()> &call);
  /// Step 2 by MPI (the lead* below) or over the group's NCCL link; each adds the bytes
  /// this process received to `across`.
  using MpiLead = std::function<bool(int64_t &across)>;
  using LinkLead = std::function<bool(GroupLink &, const LinkGroup &, int64_t &across)>;
  /// A collective of kind k of a group that spans processes, for member `dev`: `meet`,
  /// its leader moving the data over the group's NCCL link when it has one and `viaLink`
  /// is given (psum and psum_scatter always go through host memory), else by `viaMpi`;
  /// the bytes received from other processes are tallied under k.
  bool acrossProcesses(CollectiveKind k, Slot &s, int64_t dev, int64_t li, const void *in,
                       int64_t inBytes, void *out, int64_t outBytes, const MpiLead &viaMpi,
                       const LinkLead &viaLink = nullptr);

  bool leadAllreduce(Slot &s, int64_t count, DType dt, RedOp op, int64_t &across);
  bool leadAllGather(Slot &s, int64_t bytes, int64_t &across);
  bool leadPpermute(Slot &s, int64_t bytes, const std::vector<int64_t> &source, int64_t &across);
  bool leadAllToAll(Slot &s, int64_t chunkBytes, int64_t &across);
  bool leadReduceScatter(Slot &s, int64_t count, DType dt, RedOp op, int64_t &across);

  int rank_, ranks_, perRank_;
  MpiCollectiveStats *stats_;
  std::unique_ptr<CpuCommunicator> ownLocal_;  ///< CPU devices' (null with GPUs)
  Communicator *local_;                        ///< groups inside this process
  GpuLink *gpu_;                               ///< null for CPU devices
  mpi::Comm abortComm_ = nullptr;
  Mesh mesh_;
  std::map<std::vector<int64_t>, MeshState> meshes_;
  MeshState *cur_ = nullptr;
  std::atomic<bool> aborted_{false};
  std::atomic<bool> notified_{false};
  std::atomic<uint64_t> seq_{0};
  std::string launch_ = "a launch";
  ErrorState *errors_ = nullptr;
  std::mutex probeMu_;  ///< one thread at a time polls the abort notices
};

}  // namespace spmd::rt
