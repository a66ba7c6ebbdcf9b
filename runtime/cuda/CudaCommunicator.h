// ===- CudaCommunicator.h - collectives between CUDA devices of one process ---===//
//
// The CUDA backend's Communicator. Buffers are device memory of each member's own GPU
// and work is asynchronous on each member's stream, so a collective exchanges buffer
// addresses and events at a host barrier, then lets the streams order the copies
// (Note [CUDA collectives] in CudaCommunicator.cpp). Copies between GPUs use unified
// addressing (cuMemcpyAsync), so members may sit on different GPUs. allreduce and
// reduce_scatter reduce on the host, simply and in member order (generated code does
// not call them on GPUs: it lowers psum to all_gather plus a reduction kernel).
#pragma once

#include "Device.h"
#include "cuda/CudaApi.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace spmd::rt::cuda {

class CudaDevice;

class CudaCommunicator final : public Communicator {
public:
  /// A communicator between `devices` (by flat index; they outlive it).
  CudaCommunicator(const CudaApi &api, std::vector<CudaDevice *> devices);
  ~CudaCommunicator() override;

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

private:
  /// A reusable host barrier for the members of one group, with generations so that a
  /// fast member cannot overtake a slow one into the next round; abort() wakes it.
  struct Barrier {
    std::mutex mu;
    std::condition_variable cv;
    int64_t size = 1;
    int64_t arrived = 0;
    uint64_t generation = 0;
  };
  /// What one device publishes to its group for the collective in progress.
  struct Member {
    CUdeviceptr src = 0;             ///< its input on its GPU (a staged copy if it overlaps)
    CUevent ready = nullptr;         ///< recorded when `src` is ready
    CUevent done = nullptr;          ///< recorded when its reads of others' inputs are done
    const void *host = nullptr;      ///< host reductions: its input, staged in host memory
    std::vector<const void *> srcs;  ///< gathered host pointers, reused between calls
  };
  /// The groups of one axis mask (as in CpuCommunicator).
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
  /// B1: waits for all members of the group; false when the launch was aborted.
  bool sync(Barrier &b);
  /// B2: waits for all members even after an abort; then false when aborted.
  bool finish(Barrier &b);

  /// Copies `bytes` device bytes from `src` to `dst` (any GPUs) on dev's stream: the
  /// first error, or success.
  CUresult copyAsync(int64_t dev, CUdeviceptr dst, CUdeviceptr src, int64_t bytes);
  /// The exchange of Note [CUDA collectives] for member `dev` of `v`: publishes `in`
  /// (staged when it overlaps [out, out + outBytes)), meets the group, then calls
  /// `enqueue(stream)`, which enqueues this member's copies from the members' `src`.
  template <typename Enqueue>
  bool exchange(int64_t dev, const View &v, const void *in, int64_t inBytes, const void *out,
                int64_t outBytes, const char *what, Enqueue enqueue);
  /// A reduction on the host (allreduce, reduce_scatter): stages `inBytes` of `in` in
  /// host memory, meets the group, folds element range [first, first + count) of every
  /// member's input in group order and writes it to `out`.
  bool hostReduce(int64_t dev, const View &v, const void *in, int64_t inBytes, void *out,
                  int64_t first, int64_t count, DType dt, RedOp op, const char *what);

  const CudaApi &api_;
  std::vector<CudaDevice *> devices_;
  Mesh mesh_;
  std::vector<MaskGroups> masks_;  ///< indexed by axis mask, 2^rank entries
  std::vector<Member> members_;    ///< by flat device index
  std::atomic<bool> aborted_{false};
};

}  // namespace spmd::rt::cuda
