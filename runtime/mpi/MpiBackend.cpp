// ===- MpiBackend.cpp - the devices of every rank of an mpirun job -------------===//
#include "mpi/MpiBackend.h"

#include "Settings.h"
#include "Trace.h"
#include "cpu/CpuDevice.h"
#include "mpi/Mpi.h"
#include "mpi/MpiCommunicator.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <cstdlib>
#include <iomanip>
#include <map>
#include <optional>
#include <sstream>

namespace spmd::rt {

// Note [Ranks and devices]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// Under mpirun -np P with --devices cpu:K, the backend of every rank shows P*K devices:
// its own K (CPU threads, global indices r*K .. r*K+K-1) and P*K-K stand-ins for the
// devices of the other ranks, which start nothing. Every rank runs the whole host
// program, so host arrays are the same everywhere, and every launch on every rank: each
// rank runs its own devices' share and writes their results into its copy of the output
// buffers. What the other ranks wrote is recorded here as the buffer's shards (which
// rank wrote which bytes) and moved only when needed:
//   - when the host reads the buffer (Backend::gather, from spmd_host_sync), each rank
//     broadcasts the bytes it wrote, so every rank's host sees the same values (a print,
//     an if, a loop bound decide the same way everywhere);
//   - when a later launch reads it in place (same layout: Note [Sharded arrays]) and a
//     device would read bytes that another rank wrote (possible on a mesh of several
//     axes), the buffer is gathered first; on one axis each device reads exactly what it
//     wrote, and nothing moves.
// Every decision to move data is taken from the shard records and the launch's layout,
// which are the same on every rank, so the ranks always agree on which MPI calls follow.
// At the end of each launch the ranks exchange their outcome: if a device failed on any
// rank, every rank ends the run with the same message (the failing device of lowest
// index), as one process would.

namespace {

/// A device of another rank: this process runs nothing for it.
class RemoteDevice final : public Device {
public:
  void start(const DeviceWork &, spmd_dev *) override {}
  bool wait() override { return true; }
  void *scratch(int64_t) override { return nullptr; }
  bool launchKernel(spmd_dev *, const char *, int64_t, int32_t, void **) override { return false; }
  bool copy(spmd_dev *, void *, const void *, int64_t) override { return false; }
  bool read(spmd_dev *, const void *, int32_t, int64_t &) override { return false; }
  int gemm(spmd_dev *, int32_t, int64_t, int64_t, int64_t, int64_t, const void *, const void *,
           void *) override {
    return -1;
  }
  /// Never called: no kernel of this process runs on a remote device.
  [[noreturn]] void unwind() override { std::abort(); }
};

/// Bytes [offset, offset + bytes) of a buffer, written by `rank`.
struct Piece {
  int rank;
  int64_t offset, bytes;
};
struct Shards {
  int64_t bytes = 0;
  std::vector<Piece> pieces;  ///< ascending offsets
};

class MpiBackend final : public Backend {
public:
  MpiBackend(int perRank, GpuParts gpu)
      : rank_(mpi::rank()), ranks_(mpi::size()), perRank_(perRank), gpu_(std::move(gpu.backend)),
        link_(std::move(gpu.link)),
        comm_(rank_, ranks_, perRank, stats_, gpu_ ? &gpu_->communicator() : nullptr,
              link_.get()) {
    const mpi::Api &a = mpi::api();
    a.Comm_dup(a.world, &hostComm_);
    if (gpu_) return;
    devices_.reserve(perRank);
    for (int i = 0; i < perRank; ++i)
      devices_.push_back(std::make_unique<CpuDevice>(rank_ * perRank + i, done_, kernels_));
  }

  int deviceCount() const override { return ranks_ * perRank_; }
  std::string describe() const override {
    std::string procs = std::to_string(ranks_) + " MPI process" + (ranks_ == 1 ? "" : "es");
    if (gpu_)
      return std::to_string(ranks_ * perRank_) + " CUDA devices (" + procs + ", each " +
             gpu_->describe() + "; across processes: " + link_->pathText() + ")";
    return std::to_string(ranks_ * perRank_) + " CPU devices (" + procs + " of " +
           std::to_string(perRank_) + " thread" + (perRank_ == 1 ? "" : "s") + ")";
  }
  Device &device(int index) override {
    int local = index - rank_ * perRank_;
    if (local >= 0 && local < perRank_) return gpu_ ? gpu_->device(local) : *devices_[local];
    return remote_;
  }
  Communicator &communicator() override { return comm_; }
  /// This process's CPU devices are posted and then woken at once (Note [Dispatch]);
  /// their work stays on the device threads (the host thread is the one that talks MPI).
  void startAll(int64_t n, const DeviceWork *works, spmd_dev *contexts) override {
    if (gpu_) return Backend::startAll(n, works, contexts);
    bool any = false;
    for (int64_t i = 0; i < n; ++i) {
      int64_t local = i - int64_t(rank_) * perRank_;
      if (local < 0 || local >= perRank_) continue;
      devices_[local]->post(works[i], &contexts[i]);
      any = true;
    }
    if (any) CpuDevice::kick(done_);
  }
  void loadKernels(const std::string &ptx) override {
    if (gpu_) gpu_->loadKernels(ptx);
  }
  void loadHostKernels(const std::vector<std::pair<std::string, void *>> &kernels) override {
    {
      std::lock_guard<std::mutex> lock(kernels_.mu);
      for (const auto &[name, entry] : kernels)
        kernels_.byName[name] = reinterpret_cast<HostKernelFn>(entry);
    }
    kernels_.generation.fetch_add(1);
  }

  bool gather(void *host, int64_t bytes, std::string &why) override {
    // GPU devices: this rank's shards come to host memory first (and are dropped there).
    if (gpu_ && !gpu_->gather(host, bytes, why)) return false;
    char *lo = static_cast<char *>(host);
    auto it = shards_.lower_bound(lo);
    while (it != shards_.end() && it->first < lo + bytes) {
      gatherShards(it->first, it->second);
      it = shards_.erase(it);
    }
    return true;
  }
  void release(void *host, int64_t bytes) override {
    if (gpu_) gpu_->release(host, bytes);
    char *lo = static_cast<char *>(host);
    auto it = shards_.lower_bound(lo);
    while (it != shards_.end() && it->first < lo + bytes) it = shards_.erase(it);
  }
  void alias(void *dst, const void *src, int64_t bytes) override {
    if (gpu_) gpu_->alias(dst, src, bytes);  // releases dst's own GPU shards first
    releaseRecords(dst, bytes);
    const char *lo = static_cast<const char *>(src);
    std::vector<std::pair<char *, Shards>> copies;
    for (auto it = shards_.lower_bound(const_cast<char *>(lo));
         it != shards_.end() && it->first < lo + bytes; ++it)
      copies.emplace_back(static_cast<char *>(dst) + (it->first - lo), it->second);
    for (auto &[p, sh] : copies) shards_[p] = sh;
  }

  bool beginLaunch(const char *name, const Mesh &mesh, const std::vector<DeviceWork> &works,
                   ErrorState &errors, std::string &) override {
    comm_.setLaunch(name, ++seq_, &errors);
    comm_launch_ = name ? name : "a launch";
    // Inputs read in place: gather a buffer first when a device would read bytes that
    // another rank wrote (in the order the devices meet them: the same on every rank).
    std::vector<char *> needed;
    for (int64_t i = 0; i < mesh.size; ++i) {
      const DeviceWork &w = works[i];
      for (size_t k = 0; k < w.ins.size(); ++k) {
        char *p = static_cast<char *>(w.ins[k]);
        int64_t n = w.inBytes[k];
        if (n <= 0) continue;
        auto it = shards_.upper_bound(p);
        if (it != shards_.begin()) --it;
        for (; it != shards_.end() && it->first < p + n; ++it) {
          char *base = it->first;
          if (base + it->second.bytes <= p) continue;
          for (const Piece &pc : it->second.pieces)
            if (pc.rank != owner(i) && base + pc.offset < p + n &&
                base + pc.offset + pc.bytes > p &&
                std::find(needed.begin(), needed.end(), base) == needed.end())
              needed.push_back(base);
        }
      }
    }
    for (char *base : needed) {
      std::string why;
      if (gpu_ && !gpu_->gather(base, shards_[base].bytes, why)) {
        errors.record(why);
        return false;
      }
      gatherShards(base, shards_[base]);
      shards_.erase(base);
    }
    // Outputs: which rank writes which bytes.
    size_t outs = mesh.size > 0 ? works[0].outs.size() : 0;
    for (size_t k = 0; k < outs; ++k) {
      std::vector<std::pair<char *, int>> writes;
      for (int64_t i = 0; i < mesh.size; ++i)
        if (works[i].outs[k]) writes.emplace_back(static_cast<char *>(works[i].outs[k]), owner(i));
      int64_t each = works[0].outBytes[k];
      if (writes.empty() || each <= 0) continue;
      std::sort(writes.begin(), writes.end());
      char *base = writes.front().first;
      Shards sh;
      sh.bytes = writes.back().first + each - base;
      for (auto &[p, r] : writes) {
        int64_t off = p - base;
        if (!sh.pieces.empty() && sh.pieces.back().rank == r &&
            sh.pieces.back().offset + sh.pieces.back().bytes == off)
          sh.pieces.back().bytes += each;
        else
          sh.pieces.push_back({r, off, each});
      }
      releaseRecords(base, sh.bytes);
      auto before = shards_.lower_bound(base);  // an older record that reaches into the range
      if (before != shards_.begin() &&
          std::prev(before)->first + std::prev(before)->second.bytes > base)
        shards_.erase(std::prev(before));
      shards_[base] = std::move(sh);
    }
    return true;
  }

  bool endLaunch(bool ok, ErrorState &errors) override {
    const mpi::Api &a = mpi::api();
    struct Outcome {
      int64_t failed, device, length;
    };
    std::string message = ok ? std::string() : errors.message();
    Outcome mine{ok ? 0 : 1, ok ? INT64_MAX : errors.device(), int64_t(message.size())};
    if (!ok && mine.device < 0) mine.device = INT64_MAX;  // a placeholder, not a device's error
    std::vector<Outcome> all(ranks_);
    std::vector<mpi::Request> reqs(1);
    a.Iallgather(&mine, sizeof mine, a.byte, all.data(), sizeof mine, a.byte, hostComm_, &reqs[0]);
    std::string what = "the end of " + comm_launch_;
    mpi::waitAll(reqs, {what.c_str(), "the other ranks"});
    int winner = -1;
    for (int r = 0; r < ranks_; ++r)
      if (all[r].failed && (winner < 0 || all[r].device < all[winner].device)) winner = r;
    if (winner < 0) return true;
    if (all[winner].device == INT64_MAX) {
      errors.clear();
      errors.record("a device failed in " + comm_launch_);
      return false;
    }
    message.resize(size_t(all[winner].length));
    reqs.assign(1, nullptr);
    a.Ibcast(message.data(), int(all[winner].length), a.byte, winner, hostComm_, &reqs[0]);
    mpi::waitAll(reqs, {what.c_str(), "rank " + std::to_string(winner)});
    errors.clear();
    errors.recordFromDevice(message, all[winner].device);
    return false;
  }

  void sumAcrossProcesses(std::vector<int64_t> &values) override {
    std::vector<int64_t> all = allgather(values);
    for (size_t i = 0; i < values.size(); ++i) {
      values[i] = 0;
      for (int r = 0; r < ranks_; ++r) values[i] += all[r * values.size() + i];
    }
  }

  std::string extraStats() override {
    std::vector<int64_t> v;
    for (auto &s : stats_) {
      v.push_back(s.calls.load());
      v.push_back(s.within.load());
      v.push_back(s.across.load());
    }
    v.push_back(hostGathers_);
    v.push_back(hostAcross_);
    v.push_back(rank_ == 0 ? hostAcross_ : 0);
    sumAcrossProcesses(v);
    std::ostringstream os;
    os << "MPI: " << ranks_ << " processes x " << perRank_
       << " devices; bytes summed over all processes:\n";
    if (link_)
      os << "across processes: " << link_->pathText()
         << (link_->nccl() ? "; psum and psum_scatter: MPI through pinned host buffers" : "")
         << "\n";
    os << std::left << std::setw(14) << "collective" << std::right << std::setw(14)
       << "device calls" << std::setw(18) << "within process" << std::setw(18) << "across processes"
       << "\n";
    for (int k = 0; k < int(CollectiveKind::Count); ++k) {
      if (v[3 * k] == 0) continue;
      os << std::left << std::setw(14) << collectiveName(CollectiveKind(k)) << std::right
         << std::setw(14) << v[3 * k] << std::setw(18) << v[3 * k + 1] << std::setw(18)
         << v[3 * k + 2] << "\n";
    }
    size_t h = 3 * size_t(CollectiveKind::Count);
    os << "host reads of sharded results: " << v[h] / std::max(ranks_, 1) << ", " << v[h + 1]
       << " bytes across processes (" << v[h + 2] << " of them into rank 0)\n";
    return os.str();
  }

private:
  int owner(int64_t dev) const { return int(dev / perRank_); }
  /// Forgets which rank wrote the bytes of the records that start in the range.
  void releaseRecords(void *host, int64_t bytes) {
    char *lo = static_cast<char *>(host);
    auto it = shards_.lower_bound(lo);
    while (it != shards_.end() && it->first < lo + bytes) it = shards_.erase(it);
  }

  std::vector<int64_t> allgather(const std::vector<int64_t> &mine) {
    const mpi::Api &a = mpi::api();
    std::vector<int64_t> all(mine.size() * ranks_);
    std::vector<mpi::Request> reqs(1);
    int bytes = int(mine.size() * 8);
    a.Iallgather(mine.data(), bytes, a.byte, all.data(), bytes, a.byte, hostComm_, &reqs[0]);
    mpi::waitAll(reqs, {"the statistics", "the other ranks"});
    return all;
  }

  /// Makes every rank's copy of the buffer at `base` whole: each rank broadcasts the
  /// bytes it wrote. Called by every rank at the same point.
  void gatherShards(char *base, const Shards &sh) {
    const mpi::Api &a = mpi::api();
    std::optional<trace::Span> span;
    if (trace::enabled()) span.emplace("gather shards across processes", "sync");
    std::vector<mpi::Request> reqs;
    constexpr int64_t kPiece = int64_t(1) << 30;
    for (const Piece &pc : sh.pieces) {
      for (int64_t at = 0; at < pc.bytes; at += kPiece) {
        reqs.emplace_back();
        a.Ibcast(base + pc.offset + at, int(std::min(kPiece, pc.bytes - at)), a.byte, pc.rank,
                 hostComm_, &reqs.back());
      }
      if (pc.rank != rank_) hostAcross_ += pc.bytes;
    }
    ++hostGathers_;
    mpi::waitAll(reqs, {"a host read of a sharded result", "the ranks that hold its shards"});
  }

  int rank_, ranks_, perRank_;
  // GPU devices (null for CPU devices); before comm_, which uses both and goes first.
  std::unique_ptr<Backend> gpu_;
  std::unique_ptr<GpuLink> link_;
  MpiCollectiveStats stats_[int(CollectiveKind::Count)];
  int64_t hostGathers_ = 0, hostAcross_ = 0;
  mpi::Comm hostComm_ = nullptr;
  CpuCompletion done_;   ///< before the devices, which keep a reference to it
  HostKernels kernels_;  ///< likewise
  std::vector<std::unique_ptr<CpuDevice>> devices_;
  RemoteDevice remote_;
  MpiCommunicator comm_;
  std::map<char *, Shards> shards_;
  uint64_t seq_ = 0;
  std::string comm_launch_ = "a launch";
};

}  // namespace

namespace {

/// SPMD_MPI_STAGE=1 (for tests): CPU devices whose collectives across processes go
/// through separate staging buffers, as GPUs' do on the MPI path (Note [GPUs across
/// processes] in GpuLink.h), so that the staging steps run in CI, where there is no GPU.
/// The result buffers start as garbage: a byte the exchange fails to write shows.
class CpuStagingLink final : public GpuLink {
public:
  CpuStagingLink(int64_t first, int perRank) : first_(first), in_(perRank), out_(perRank) {}
  bool nccl() const override { return false; }
  std::string pathText() const override {
    return "MPI through host staging buffers (SPMD_MPI_STAGE=1)";
  }
  std::unique_ptr<GroupLink> makeGroup(const std::vector<int> &) override { return nullptr; }
  bool settle(int64_t) override { return true; }
  const void *stageIn(int64_t dev, const void *in, int64_t bytes) override {
    std::vector<char> &b = in_[size_t(dev - first_)];
    b.assign(size_t(std::max<int64_t>(bytes, 1)), 0);
    std::memcpy(b.data(), in, size_t(bytes));
    return b.data();
  }
  void *stageOut(int64_t dev, int64_t bytes) override {
    std::vector<char> &b = out_[size_t(dev - first_)];
    b.assign(size_t(std::max<int64_t>(bytes, 1)), char(0xA5));
    return b.data();
  }
  bool unstage(int64_t dev, void *out, int64_t bytes) override {
    std::memcpy(out, out_[size_t(dev - first_)].data(), size_t(bytes));
    return true;
  }

private:
  int64_t first_;
  std::vector<std::vector<char>> in_, out_;  ///< by local device
};

}  // namespace

std::unique_ptr<Backend> makeMpiBackend(int perRank) {
  GpuParts parts;
  if (settings::flag(settings::Id::MpiStage))
    parts.link = std::make_unique<CpuStagingLink>(int64_t(mpi::rank()) * perRank, perRank);
  return std::make_unique<MpiBackend>(perRank, std::move(parts));
}

std::unique_ptr<Backend> makeMpiBackend(int perRank, GpuParts gpu) {
  return std::make_unique<MpiBackend>(perRank, std::move(gpu));
}

}  // namespace spmd::rt
