// ===- MpiBackend.h - the devices of every rank of an mpirun job ---------------===//
//
// The backend of a run under mpirun with CPU devices: this rank's K device threads, the
// other ranks' devices as stand-ins, the MpiCommunicator between them all, and the
// records of which rank wrote which bytes of a sharded result (Note [Ranks and devices]
// in MpiBackend.cpp). mpi::init() must have run.
#pragma once

#include "Device.h"

#include <memory>

namespace spmd::rt {

/// `perRank` CPU devices on each of the mpi::size() ranks.
std::unique_ptr<Backend> makeMpiBackend(int perRank);

}  // namespace spmd::rt
