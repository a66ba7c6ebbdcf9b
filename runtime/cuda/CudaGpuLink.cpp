// ===- CudaGpuLink.cpp - GPUs of several processes: NCCL or MPI via host memory ===//
//
// The GpuLink of mpi/GpuLink.h for the CUDA backend (Note [GPUs across processes]
// there): picks the transport once at start-up, makes the NCCL communicators, stages
// device buffers through pinned host memory for the MPI path, and runs the NCCL
// exchanges of a group's leader. makeCudaMpiBackend() assembles the backend of a run
// under mpirun with --devices cuda:K.
#include "cuda/CudaBackend.h"
#include "mpi/GpuLink.h"
#include "mpi/Mpi.h"
#include "mpi/MpiBackend.h"
#include "nccl/NcclApi.h"
#include "Settings.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <unistd.h>

namespace spmd::rt::cuda {
namespace {

using nccl::NcclApi;
using nccl::ncclComm_t;
using nccl::ncclResult_t;

std::string secondsText(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

/// The NCCL communicator of one group and the device buffers its exchanges stage in.
class NcclGroup final : public GroupLink {
public:
  NcclGroup(const CudaApi &api, const NcclApi &nccl, Gpu &gpu, ncclComm_t comm,
            std::vector<int> ranks)
      : api_(api), nccl_(nccl), gpu_(gpu), comm_(comm), ranks_(std::move(ranks)) {
    ScopedContext scope(api_, gpu_.ctx);
    check(api_.cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "creating a NCCL stream");
  }
  ~NcclGroup() override {
    ScopedContext scope(api_, gpu_.ctx);
    if (!aborted_) {
      api_.cuStreamSynchronize(stream_);
      nccl_.ncclCommDestroy(comm_);
    }
    for (Buf &b : bufs_)
      if (b.ptr) api_.cuMemFree(b.ptr);
    api_.cuStreamDestroy(stream_);
  }

  bool allGather(const LinkGroup &g, int64_t bytes, int64_t &across) override {
    if (bytes == 0) return !g.stopped();
    ScopedContext scope(api_, gpu_.ctx);
    CUdeviceptr full = buffer(0, g.size * bytes);
    int64_t lo = g.segLo[g.me];
    for (size_t j = 0; j < g.ins.size(); ++j) copy(full + (lo + j) * bytes, g.ins[j], bytes);
    group(true);
    for (int r = 0; r < int(ranks_.size()); ++r) {
      int64_t n = (g.segLo[r + 1] - g.segLo[r]) * bytes;
      void *p = reinterpret_cast<void *>(full + g.segLo[r] * bytes);
      checkNccl(nccl_.ncclBroadcast(p, p, size_t(n), nccl::ncclUint8, r, comm_, stream_),
                g.what);
      if (r != g.me) across += n;
    }
    group(false);
    for (void *out : g.outs) copy(toDev(out), reinterpret_cast<void *>(full), g.size * bytes);
    return finish(g);
  }

  bool ppermute(const LinkGroup &g, int64_t bytes, const std::vector<int64_t> &source,
                int64_t &across) override {
    ScopedContext scope(api_, gpu_.ctx);
    int64_t lo = g.segLo[g.me], hi = g.segLo[g.me + 1], L = hi - lo;
    if (bytes == 0) return !g.stopped();
    CUdeviceptr a = buffer(0, L * bytes), b = buffer(1, L * bytes);
    for (int64_t j = 0; j < L; ++j) copy(a + j * bytes, g.ins[j], bytes);
    group(true);
    for (int64_t d = 0; d < g.size; ++d) {  // ascending destinations on every rank
      int64_t src = source[d];
      if (src < 0) continue;
      bool dLocal = d >= lo && d < hi, sLocal = src >= lo && src < hi;
      if (dLocal && !sLocal) {
        checkNccl(nccl_.ncclRecv(reinterpret_cast<void *>(b + (d - lo) * bytes), size_t(bytes),
                                 nccl::ncclUint8, rankOf(g, src), comm_, stream_),
                  g.what);
        across += bytes;
      } else if (sLocal && !dLocal) {
        checkNccl(nccl_.ncclSend(reinterpret_cast<void *>(a + (src - lo) * bytes), size_t(bytes),
                                 nccl::ncclUint8, rankOf(g, d), comm_, stream_),
                  g.what);
      }
    }
    group(false);
    for (int64_t d = lo; d < hi; ++d) {
      CUdeviceptr out = toDev(g.outs[d - lo]);
      int64_t src = source[d];
      if (src < 0)
        check(api_.cuMemsetD8Async(out, 0, size_t(bytes), stream_), g.what);
      else if (src >= lo && src < hi)
        copy(out, reinterpret_cast<void *>(a + (src - lo) * bytes), bytes);
      else
        copy(out, reinterpret_cast<void *>(b + (d - lo) * bytes), bytes);
    }
    return finish(g);
  }

  bool allToAll(const LinkGroup &g, int64_t c, int64_t &across) override {
    ScopedContext scope(api_, gpu_.ctx);
    int64_t G = g.size, lo = g.segLo[g.me], L = g.segLo[g.me + 1] - lo;
    int R = int(ranks_.size());
    if (c == 0) return !g.stopped();
    // As MpiCommunicator::leadAllToAll: a holds the local inputs (L x G chunks); b what
    // goes to each rank, cbuf what comes from it, packed [rank's members][local members].
    CUdeviceptr a = buffer(0, L * G * c), b = buffer(1, L * (G - L) * c),
                cb = buffer(2, L * (G - L) * c);
    for (int64_t j = 0; j < L; ++j) copy(a + j * G * c, g.ins[j], G * c);
    std::vector<int64_t> offset(size_t(R), 0);
    for (int r = 0, at = 0; r < R; ++r) {
      offset[r] = at;
      if (r != g.me) at += int(g.segLo[r + 1] - g.segLo[r]);
    }
    for (int r = 0; r < R; ++r) {
      if (r == g.me) continue;
      int64_t n = g.segLo[r + 1] - g.segLo[r];
      for (int64_t j = 0; j < L; ++j)
        for (int64_t i = 0; i < n; ++i)
          copy(b + (offset[r] * L + j * n + i) * c,
               reinterpret_cast<void *>(a + (j * G + g.segLo[r] + i) * c), c);
    }
    group(true);
    for (int r = 0; r < R; ++r) {
      if (r == g.me) continue;
      int64_t n = g.segLo[r + 1] - g.segLo[r];
      auto at = [&](CUdeviceptr base) { return reinterpret_cast<void *>(base + offset[r] * L * c); };
      checkNccl(nccl_.ncclRecv(at(cb), size_t(n * L * c), nccl::ncclUint8, r, comm_, stream_),
                g.what);
      checkNccl(nccl_.ncclSend(at(b), size_t(n * L * c), nccl::ncclUint8, r, comm_, stream_),
                g.what);
      across += n * L * c;
    }
    group(false);
    for (int64_t j = 0; j < L; ++j) {
      CUdeviceptr out = toDev(g.outs[j]);
      for (int64_t i = 0; i < G; ++i) {
        int r = rankOf(g, i);
        CUdeviceptr src = r == g.me ? a + ((i - lo) * G + lo + j) * c
                                    : cb + (offset[r] * L + (i - g.segLo[r]) * L + j) * c;
        copy(out + i * c, reinterpret_cast<void *>(src), c);
      }
    }
    return finish(g);
  }

private:
  struct Buf {
    CUdeviceptr ptr = 0;
    int64_t bytes = 0;
  };

  static CUdeviceptr toDev(const void *p) { return CUdeviceptr(reinterpret_cast<uintptr_t>(p)); }
  static int rankOf(const LinkGroup &g, int64_t member) {
    return int(std::upper_bound(g.segLo.begin(), g.segLo.end(), member) - g.segLo.begin()) - 1;
  }

  /// Ends the job on a CUDA error (the communicator may be mid-exchange).
  void check(CUresult r, const std::string &what) {
    if (r == CUDA_SUCCESS) return;
    abortComm();
    mpi::fatal(cudaErrorText(api_, r, what + " (NCCL path)"));
  }
  void checkNccl(ncclResult_t r, const std::string &what) {
    if (r == nccl::ncclSuccess || r == nccl::ncclInProgress) return;
    std::string message = nccl::ncclErrorText(nccl_, r, what + " (NCCL)");
    abortComm();
    mpi::fatal(message + "; the NCCL communicator was aborted");
  }
  void group(bool start) {
    checkNccl(start ? nccl_.ncclGroupStart() : nccl_.ncclGroupEnd(),
              start ? "ncclGroupStart" : "ncclGroupEnd");
  }
  void abortComm() {
    if (aborted_) return;
    aborted_ = true;
    nccl_.ncclCommAbort(comm_);
  }
  void copy(CUdeviceptr dst, const void *src, int64_t bytes) {
    if (bytes > 0)
      check(api_.cuMemcpyDtoDAsync(dst, toDev(src), size_t(bytes), stream_), "a device copy");
  }
  /// Staging buffer `which`, at least `bytes` long (kept; grown when too small).
  CUdeviceptr buffer(int which, int64_t bytes) {
    Buf &b = bufs_[which];
    if (b.bytes < bytes) {
      check(api_.cuStreamSynchronize(stream_), "waiting for the NCCL stream");
      if (b.ptr) api_.cuMemFree(b.ptr);
      b = Buf();
      check(api_.cuMemAlloc(&b.ptr, size_t(bytes)),
            "allocating " + std::to_string(bytes) + " bytes for a NCCL exchange");
      b.bytes = bytes;
    }
    return b.ptr;
  }
  /// Waits for the stream: polls it, the communicator's asynchronous error and the
  /// launch's abort, under --collective-timeout (Note [GPUs across processes]).
  bool finish(const LinkGroup &g) {
    if (aborted_) return false;
    double start = now(), limit = mpi::collectiveTimeout();
    for (int round = 0;; ++round) {
      CUresult r = api_.cuStreamQuery(stream_);
      if (r == CUDA_SUCCESS) return true;
      if (r != CUDA_ERROR_NOT_READY) check(r, g.what);
      ncclResult_t e = nccl::ncclSuccess;
      if (nccl_.ncclCommGetAsyncError(comm_, &e) == nccl::ncclSuccess &&
          e != nccl::ncclSuccess && e != nccl::ncclInProgress)
        checkNccl(e, g.what);
      if (g.stopped()) {  // another device or rank failed: its error ends the run
        abortComm();
        return false;
      }
      if (now() - start > limit) {
        std::string whom;
        for (size_t i = 0; i < ranks_.size(); ++i)
          if (int(i) != g.me) whom += (whom.empty() ? "rank " : ", ") + std::to_string(ranks_[i]);
        abortComm();
        mpi::fatal(std::string(g.what) + ": waited " + secondsText(limit) + " s for " + whom +
                   " in a NCCL exchange, which did not finish (a rank died or is stuck); the "
                   "NCCL communicator was aborted (--collective-timeout SECONDS sets the limit)");
      }
      mpi::detail::backoff(round);
    }
  }
  static double now() { return mpi::detail::now(); }

  const CudaApi &api_;
  const NcclApi &nccl_;
  Gpu &gpu_;
  ncclComm_t comm_;
  std::vector<int> ranks_;  ///< world ranks of the group; NCCL rank i is ranks_[i]
  CUstream stream_ = nullptr;
  Buf bufs_[3];
  bool aborted_ = false;
};

/// The GpuLink of this rank's CUDA backend.
class CudaGpuLink final : public GpuLink {
public:
  CudaGpuLink(CudaBackend &backend, int perRank)
      : backend_(backend), api_(sharedApi()),
        first_(int64_t(mpi::rank()) * perRank) {
    choose();
    if (path_.path == nccl::CrossPath::Nccl) initWorld();
  }
  ~CudaGpuLink() override {
    if (!world_) return;
    ScopedContext scope(api_, backend_.gpu(0).ctx);
    nccl_->ncclCommDestroy(world_);
  }

  bool nccl() const override { return path_.path == nccl::CrossPath::Nccl; }
  std::string pathText() const override {
    if (nccl()) return "NCCL " + nccl::versionText(nccl_->version) + " (" + path_.why + ")";
    return "MPI through pinned host buffers (" + path_.why + ")";
  }

  std::unique_ptr<GroupLink> makeGroup(const std::vector<int> &ranks) override {
    if (!nccl()) return nullptr;
    bool member = std::find(ranks.begin(), ranks.end(), mpi::rank()) != ranks.end();
    ncclComm_t comm = nullptr;
    {
      ScopedContext scope(api_, backend_.gpu(0).ctx);
      ncclResult_t r = nccl_->ncclCommSplit(world_, member ? 0 : nccl::NCCL_SPLIT_NOCOLOR,
                                            mpi::rank(), &comm, nullptr);
      if (r != nccl::ncclSuccess)
        mpi::fatal(nccl::ncclErrorText(*nccl_, r, "making a NCCL communicator (ncclCommSplit)"));
    }
    if (!member) return nullptr;
    return std::make_unique<NcclGroup>(api_, *nccl_, backend_.gpu(0), comm, ranks);
  }

  bool settle(int64_t dev) override {
    CudaDevice &d = device(dev);
    CUresult r = api_.cuStreamSynchronize(d.stream());
    return r == CUDA_SUCCESS || d.fail(r, "waiting for device " + std::to_string(dev));
  }
  const void *stageIn(int64_t dev, const void *in, int64_t bytes) override {
    CudaDevice &d = device(dev);
    CUresult r = d.hostStage().reserve(std::max<int64_t>(bytes, 1));
    if (r == CUDA_SUCCESS && bytes > 0)
      r = api_.cuMemcpyDtoHAsync(d.hostStage().data(), toDev(in), size_t(bytes), d.stream());
    if (r == CUDA_SUCCESS) r = api_.cuStreamSynchronize(d.stream());
    if (r != CUDA_SUCCESS) {
      d.fail(r, "staging a collective's input of device " + std::to_string(dev) + " in host memory");
      return nullptr;
    }
    return d.hostStage().data();
  }
  void *stageOut(int64_t dev, int64_t bytes) override {
    CudaDevice &d = device(dev);
    CUresult r = d.hostResult().reserve(std::max<int64_t>(bytes, 1));
    if (r != CUDA_SUCCESS) {
      d.fail(r, "pinned host memory for a collective's result on device " + std::to_string(dev));
      return nullptr;
    }
    return d.hostResult().data();
  }
  bool unstage(int64_t dev, void *out, int64_t bytes) override {
    CudaDevice &d = device(dev);
    CUresult r = CUDA_SUCCESS;
    if (bytes > 0)
      r = api_.cuMemcpyHtoDAsync(toDev(out), d.hostResult().data(), size_t(bytes), d.stream());
    if (r == CUDA_SUCCESS) r = api_.cuStreamSynchronize(d.stream());
    return r == CUDA_SUCCESS ||
           d.fail(r, "copying a collective's result to device " + std::to_string(dev));
  }

private:
  static CUdeviceptr toDev(const void *p) { return CUdeviceptr(reinterpret_cast<uintptr_t>(p)); }
  static const CudaApi &sharedApi() {
    std::string why;
    return *cudaApi(why);  // loaded: the backend exists
  }
  CudaDevice &device(int64_t dev) { return backend_.cudaDevice(int(dev - first_)); }

  /// "host/PCI bus id" of this rank's GPU, the same text for the same GPU on every rank.
  std::string gpuName() {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    Gpu &g = backend_.gpu(0);
    char bus[64] = {};
    if (!api_.cuDeviceGetPCIBusId ||
        api_.cuDeviceGetPCIBusId(bus, sizeof bus - 1, g.dev) != CUDA_SUCCESS)
      std::snprintf(bus, sizeof bus, "ordinal %d", g.ordinal);
    return std::string(host) + "/" + bus;
  }

  /// Every rank learns every rank's GPU and whether NCCL loaded there, then each
  /// computes the same choice (nccl::chooseCrossPath).
  void choose() {
    struct Entry {
      char gpu[248];
      int32_t ncclOk;
      int32_t pad;
    };
    std::string why;
    nccl_ = nccl::ncclApi(why);
    Entry mine{};
    std::snprintf(mine.gpu, sizeof mine.gpu, "%s", gpuName().c_str());
    mine.ncclOk = nccl_ ? 1 : 0;
    const mpi::Api &a = mpi::api();
    std::vector<Entry> all(size_t(mpi::size()));
    std::vector<mpi::Request> reqs(1);
    a.Iallgather(&mine, sizeof mine, a.byte, all.data(), sizeof mine, a.byte, a.world, &reqs[0]);
    mpi::waitAll(reqs, {"the start-up exchange of GPUs", "the other ranks"});
    std::vector<std::string> gpus;
    std::string missing;
    for (int r = 0; r < int(all.size()); ++r) {
      gpus.emplace_back(all[r].gpu);
      if (!all[r].ncclOk && missing.empty())
        missing = r == mpi::rank() ? why : "NCCL did not load on rank " + std::to_string(r);
    }
    path_ = nccl::chooseCrossPath(gpus, missing, !settings::flag(settings::Id::Nccl));
  }

  /// The world communicator: rank 0's unique id, broadcast with MPI.
  void initWorld() {
    nccl::ncclUniqueId id{};
    if (mpi::rank() == 0) {
      ncclResult_t r = nccl_->ncclGetUniqueId(&id);
      if (r != nccl::ncclSuccess) mpi::fatal(nccl::ncclErrorText(*nccl_, r, "ncclGetUniqueId"));
    }
    const mpi::Api &a = mpi::api();
    std::vector<mpi::Request> reqs(1);
    a.Ibcast(&id, int(sizeof id), a.byte, 0, a.world, &reqs[0]);
    mpi::waitAll(reqs, {"the NCCL unique id", "rank 0"});
    ScopedContext scope(api_, backend_.gpu(0).ctx);
    ncclResult_t r = nccl_->ncclCommInitRank(&world_, mpi::size(), id, mpi::rank());
    if (r != nccl::ncclSuccess)
      mpi::fatal(nccl::ncclErrorText(*nccl_, r, "making the NCCL world communicator"));
  }

  CudaBackend &backend_;
  const CudaApi &api_;
  int64_t first_;
  const NcclApi *nccl_ = nullptr;
  nccl::PathChoice path_;
  ncclComm_t world_ = nullptr;
};

}  // namespace
}  // namespace spmd::rt::cuda

namespace spmd::rt {

std::unique_ptr<Backend> makeCudaMpiBackend(int perRank) {
  std::string why;
  const cuda::CudaApi *api = cuda::cudaApi(why);
  if (!api) throw std::runtime_error(why);
  int gpus = 0;
  cuda::CUresult r = api->cuDeviceGetCount(&gpus);
  if (r != cuda::CUDA_SUCCESS) throw std::runtime_error(cuda::cudaErrorText(*api, r, "counting the GPUs"));
  if (gpus <= 0) throw std::runtime_error("the NVIDIA driver sees no GPU");
  int ordinal = nccl::gpuForLocalRank(mpi::localRank(), gpus);
  auto backend = std::make_unique<cuda::CudaBackend>(*api, perRank, ordinal, mpi::rank() * perRank,
                                                     mpi::size() * perRank);
  auto link = std::make_unique<cuda::CudaGpuLink>(*backend, perRank);
  return makeMpiBackend(perRank, GpuParts{std::move(backend), std::move(link)});
}

}  // namespace spmd::rt
