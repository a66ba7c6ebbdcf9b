// ===- CpuCommunicator.h - collectives between device threads -----------------===//
//
// The CPU backend's Communicator. Devices are threads of one process. A large collective
// exchanges pointers, not bytes: every member publishes its input, waits at the group's
// barrier, reads what it needs straight from the other members' buffers, and waits
// again before returning. A small one goes through mailboxes: every member copies its
// input into one of its two mailboxes, waits at the barrier once, reads the others'
// mailboxes and returns (Note [Collective protocol] in CpuCommunicator.cpp). Waiting
// threads spin for an adaptive while when the launch has no more devices than the
// machine has cores (Note [Adaptive spinning]), then sleep on a futex: many devices may
// share few cores.
#pragma once

#include "Device.h"

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

namespace spmd::rt {

class CpuCommunicator final : public Communicator {
public:
  /// A communicator for launches over up to `devices` devices.
  explicit CpuCommunicator(int devices);
  ~CpuCommunicator() override;

  void begin(const Mesh &mesh) override;
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

  /// Group output bytes (G x each member's) from which a large allreduce writes its
  /// outputs with streaming stores (Note [Streaming stores]): kStreamBytes, or what
  /// setStreamBytes set last (tests; negative: back to kStreamBytes).
  static int64_t streamBytes();
  static void setStreamBytes(int64_t bytes);

  /// Called with `arg` by a device thread about to sleep in a collective (after its spin),
  /// so that the backend can hand the devices it has not started yet to another thread
  /// (Note [Dispatch] in CpuDevice.cpp). None by default.
  using SleepHook = void (*)(void *arg);
  void setSleepHook(SleepHook hook, void *arg) {
    sleepHook_ = hook;
    sleepArg_ = arg;
  }
  /// Fibers (Note [Fibers] in CpuDevice.cpp). `park(arg, word, seen)` is called by a
  /// device about to wait for `word` to differ from `seen`; when the device runs on a
  /// fiber it switches to its worker's scheduler, returns true once resumed (the caller
  /// looks again), and false otherwise (the caller sleeps as before). `notify(arg)` is
  /// called after every change of a word that a parked device may wait for (a barrier's
  /// release, an abort, a mailbox's last read), so that a scheduler asleep can look.
  using ParkHook = bool (*)(void *arg, const std::atomic<uint32_t> &word, uint32_t seen);
  using NotifyHook = void (*)(void *arg);
  void setFiberHooks(ParkHook park, NotifyHook notify, void *arg) {
    parkHook_ = park;
    notifyHook_ = notify;
    fiberArg_ = arg;
  }

private:
  /// allreduce folds this many bytes at a time into a buffer on the stack.
  static constexpr int64_t kReduceChunkBytes = 16384;
  /// allreduce's outputs, G x each member's, from which it streams (Note [Streaming stores]).
  static constexpr int64_t kStreamBytes = int64_t(16) << 20;
  /// Collectives whose input is at most this many bytes per member go through mailboxes.
  static constexpr int64_t kMailboxBytes = 16384;
  /// A growable 64-byte-aligned buffer owned by one member.
  struct Buffer {
    void *data = nullptr;
    int64_t capacity = 0;
    ~Buffer();
    bool reserve(int64_t bytes);
  };
  /// A copy of a member's input for one small collective, read by `readers` members.
  struct Mailbox {
    Buffer data;
    std::atomic<uint32_t> readers{0};  ///< members that have yet to read it
    std::atomic<uint32_t> sleepers{0};  ///< its owner, asleep until `readers` is 0
  };
  /// A reusable barrier for the members of one group; counts generations so that a
  /// fast thread cannot overtake a slow one into the next round. Waiters sleep on the
  /// futex word `wake` (Spin.h), which every release and every abort bumps, counted in
  /// `sleepers` so that a release with nobody asleep makes no system call.
  struct Barrier {
    int64_t size = 1;
    std::atomic<int64_t> arrived{0};
    std::atomic<uint32_t> generation{0};
    std::atomic<uint32_t> wake{0};
    std::atomic<uint32_t> sleepers{0};
    /// Mailbox path: posted[g % 2][index] is the mailbox member `index` posted for the
    /// round of generation g (null when nobody reads it).
    std::vector<Mailbox *> posted[2];
  };
  /// What one device publishes to its group for the collective in progress.
  struct Member {
    const void *src = nullptr;       ///< its input (or a staged copy of it)
    void *dst = nullptr;             ///< allreduce: its output, which others write
    Buffer stage;                    ///< the staged copy of an input that overlaps the output
    std::vector<const void *> srcs;  ///< gathered pointers, reused between calls
    std::vector<char *> dsts;        ///< allreduce: the members' outputs, reused
    std::vector<Mailbox *> boxes;    ///< mailbox path: the members' mailboxes, reused
    std::vector<int64_t> sources;    ///< ppermute: the source of each destination
    Mailbox mail[2];                 ///< used in turn
    uint64_t posts = 0;              ///< mailboxes written so far
    int spin = 64;                   ///< spin budget (Note [Adaptive spinning])
  };
  /// The groups of one axis mask: barrier per group, flat device of each member.
  struct MaskGroups {
    int64_t groupSize = 1;
    std::vector<std::unique_ptr<Barrier>> barriers;  ///< by group id
    std::vector<int64_t> members;                    ///< [id * groupSize + index]
  };

  /// The group of `dev` for `axes`: its barrier, members and own index.
  struct View {
    Barrier *barrier;
    const int64_t *members;
    int64_t size, index;
  };
  View view(int64_t dev, uint32_t axes);
  /// Arrives at `b`; the last member releases the round. The generation current at
  /// arrival, to wait for its end; none when this member released the round.
  std::optional<uint32_t> arrive(Barrier &b);
  /// B1: waits for all members of the group; false when the launch was aborted.
  bool sync(Barrier &b, int &spin);
  /// B2: waits for all members even after an abort; then false when aborted.
  bool finish(Barrier &b, int &spin);
  /// Publishes `in`, staged through a private copy when it overlaps `out`.
  bool publish(Member &me, const void *in, int64_t inBytes, const void *out, int64_t outBytes);
  /// The mailbox protocol's one barrier: copies `bytes` of `in` into dev's next mailbox
  /// for `readers` members to read (nothing when none will), waits for the group, then
  /// points me.boxes[j] at member j's mailbox of this round and me.srcs[j] at its data.
  /// False when aborted or out of memory.
  bool post(int64_t dev, const View &v, const void *in, int64_t bytes, uint32_t readers);
  /// Tells the owner of `box` that this device has read it.
  void doneReading(Mailbox *box);
  /// After `word` was changed (seq_cst): wakes its sleepers and tells parked devices.
  void released(std::atomic<uint32_t> &word, const std::atomic<uint32_t> &sleepers);
  /// Waits until `word` differs from `seen`, first spinning up to `spin` iterations when
  /// spin_ is set (adapting the device's budget, Note [Adaptive spinning]), then asleep on
  /// the futex, counted in `sleepers` (woken by wakeSleepers, Spin.h).
  void await(const std::atomic<uint32_t> &word, uint32_t seen, int &spin,
             std::atomic<uint32_t> &sleepers) const;

  Mesh mesh_;
  std::vector<MaskGroups> masks_;  ///< indexed by axis mask, 2^rank entries
  std::vector<Member> members_;    ///< by flat device index
  std::atomic<bool> aborted_{false};
  bool spin_ = false;  ///< no more devices than cores: spin briefly before sleeping
  SleepHook sleepHook_ = nullptr;
  void *sleepArg_ = nullptr;
  ParkHook parkHook_ = nullptr;
  NotifyHook notifyHook_ = nullptr;
  void *fiberArg_ = nullptr;
};

}  // namespace spmd::rt
