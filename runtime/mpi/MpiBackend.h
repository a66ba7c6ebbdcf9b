// ===- MpiBackend.h - the devices of every rank of an mpirun job ---------------===//
//
// The backend of a run under mpirun: this rank's K devices (CPU threads, or GPU devices
// of a CUDA backend: Note [GPUs across processes] in GpuLink.h), the
// other ranks' devices as stand-ins, the MpiCommunicator between them all, and the
// records of which rank wrote which bytes of a sharded result (Note [Ranks and devices]
// in MpiBackend.cpp). mpi::init() must have run.
#pragma once

#include "Device.h"
#include "mpi/GpuLink.h"

#include <memory>

namespace spmd::rt {

/// `perRank` CPU devices on each of the mpi::size() ranks.
std::unique_ptr<Backend> makeMpiBackend(int perRank);

/// This rank's GPU devices, for a run under mpirun with --devices cuda:K.
struct GpuParts {
  /// The CUDA backend of this rank's K devices (device(i) is global device r*K + i).
  std::unique_ptr<Backend> backend;
  /// Its link to the cross-process collectives (Note [GPUs across processes]).
  std::unique_ptr<GpuLink> link;
};
/// `perRank` GPU devices on each rank, from `gpu` (made by makeCudaMpiBackend).
std::unique_ptr<Backend> makeMpiBackend(int perRank, GpuParts gpu);
/// `perRank` CUDA devices on each of the mpi::size() ranks, all on one GPU of this rank
/// (cuda/CudaGpuLink.cpp). Throws std::runtime_error when the GPU cannot be set up.
std::unique_ptr<Backend> makeCudaMpiBackend(int perRank);

}  // namespace spmd::rt
