// ===- CudaBackend.h - the CUDA backend: logical devices over the GPUs --------===//
//
// N logical devices spread evenly over the G GPUs of the machine, in blocks (logical
// device i runs on GPU i*G/N), each a host thread with its own stream (CudaDevice.h);
// the collectives between them (CudaCommunicator.h); the kernel modules loaded from
// the program's PTX; and the shard table that keeps launch results in device memory
// until the host needs them (CudaShared.h). makeCudaBackend() in Device.h builds one.
#pragma once

#include "Device.h"
#include "cuda/CudaCommunicator.h"
#include "cuda/CudaDevice.h"
#include "cuda/CudaShared.h"

#include <memory>
#include <string>
#include <vector>

namespace spmd::rt::cuda {

class CudaBackend final : public Backend {
public:
  /// `count` logical devices (0: one per GPU) on the driver `api`. Throws
  /// std::runtime_error naming the CUDA error when a GPU cannot be set up.
  CudaBackend(const CudaApi &api, int count);
  /// Under mpirun (Note [GPUs across processes] in mpi/GpuLink.h): `count` logical
  /// devices, all on GPU `ordinal`, whose global indices are firstIndex .. firstIndex +
  /// count - 1 of the job's `meshDevices`; device(i) is local device i.
  CudaBackend(const CudaApi &api, int count, int ordinal, int firstIndex, int meshDevices);
  ~CudaBackend() override;

  int deviceCount() const override { return int(devices_.size()); }
  /// E.g. "8 CUDA devices on 1 GPU (NVIDIA H100 80GB HBM3)".
  std::string describe() const override;
  Device &device(int index) override { return *devices_[index]; }
  Communicator &communicator() override { return *comm_; }

  /// Loads the PTX module on every GPU; throws std::runtime_error with the JIT log.
  void loadKernels(const std::string &ptx) override;
  bool gather(void *host, int64_t bytes, std::string &why) override;
  void release(void *host, int64_t bytes) override;
  void alias(void *dst, const void *src, int64_t bytes) override;

  /// Local device i (its global index is firstIndex + i).
  CudaDevice &cudaDevice(int i) { return *devices_[i]; }
  Gpu &gpu(int i) { return *shared_.gpus[i]; }

private:
  /// The constructors' work: `count` devices, device i on GPU gpuOf[i] (ascending).
  void setUp(const std::vector<int> &gpuOf, int firstIndex, int meshDevices);
  /// Sets up GPU `ordinal`: primary context, release stream, memory pool.
  void addGpu(int ordinal);
  /// Lets the GPUs read each other's memory where the hardware allows (optional).
  void connectGpus();
  /// Frees everything, in dependency order; also after a failed constructor.
  void teardown();

  CudaShared shared_;
  Completion done_;
  std::vector<std::unique_ptr<CudaDevice>> devices_;
  std::unique_ptr<CudaCommunicator> comm_;
};

}  // namespace spmd::rt::cuda
