// ===- Launch.cpp - spmd_launch: one kernel over the devices of a mesh --------===//
//
// Turns a spmd_launch_desc into one DeviceWork per device of the mesh (which slice of
// each input it sees, where its part of each output goes), runs it on the backend's
// devices, waits for all of them and counts the launch in the stats.
#include "HostState.h"
#include "Trace.h"

#include <algorithm>
#include <chrono>
#include <csetjmp>
#include <optional>
#include <string>

namespace spmd::rt {

// Note [Launch layout]
// ~~~~~~~~~~~~~~~~~~~~
// Device i of the mesh has coordinates c (row-major, so device (r, c) of an R x C mesh
// is r*C + c). Input k is split over the mesh axes in the mask in_axes[k] (0: each
// device sees the whole array): the array is that many blocks stacked row-major over
// the masked axes, and the device reads block (row-major index of c over the masked
// axes), of in_bytes[k] / (product of their sizes) bytes; the devices that differ only on
// the other axes read the same block. A nested pmap whose inner pmaps take their slices
// of an outer input as they are (in_axes 0 all the way down) splits it over every axis
// of that chain, so each device reads exactly its own block. For output k, each replica's result is
// out_bytes[k] long and stacked row-major over the mesh axes in the mask out_axes[k]: the device
// writes at
//   out_ptrs[k] + (row-major index of c over the masked axes) * out_bytes[k]
// when its coordinate on every other axis is 0; the other devices compute the same
// replica, and write it to scratch, so each result is written exactly once.
// The addresses are host addresses: the CPU backend uses them in place, a backend with
// device memory copies the inputs in and the written outputs back, which is what the
// host_to_device / device_to_host counters measure.

namespace {

/// Records why a launch cannot run and returns 1.
int32_t badLaunch(spmd_host *h, const spmd_launch_desc &d, const std::string &why) {
  h->errors.record(std::string("launch of ") + (d.name ? d.name : "a kernel") + ": " + why);
  return 1;
}

int32_t launch(spmd_host *h, const spmd_launch_desc &d) {
  Backend &be = *h->backend;
  // Inside a run an error ends the run; outside (tests, embedding) each launch reports
  // its own first error.
  if (!h->inRun) h->errors.clear();
  if (d.mesh_rank < 1 || d.mesh_rank > kMaxMeshRank)
    return badLaunch(h, d,
                     "a mesh of rank " + std::to_string(d.mesh_rank) + " (1 to " +
                         std::to_string(kMaxMeshRank) + " axes)");
  for (int m = 0; m < d.mesh_rank; ++m)
    if (d.mesh_shape[m] < 1)
      return badLaunch(
          h, d, "mesh axis " + std::to_string(m) + " has size " + std::to_string(d.mesh_shape[m]));
  // Between launches is where a host program of launches alone stops (Note [Interrupts]).
  if (h->inRun && interruptRequested()) {
    h->errors.record("interrupted");
    return 1;
  }
  Mesh mesh(d.mesh_rank, d.mesh_shape);
  if (mesh.size > be.deviceCount())
    return badLaunch(h, d,
                     "needs " + std::to_string(mesh.size) + " devices, but only " +
                         std::to_string(be.deviceCount()) + " are available");
  h->mesh = mesh;

  // Inputs: a sharded result mapped over the same layout is read in place; one with
  // another layout is gathered first; host arrays are sent (Note [Sharded arrays]).
  int64_t inBytes = 0;
  std::vector<int64_t> meshShape(d.mesh_shape, d.mesh_shape + d.mesh_rank);
  std::vector<bool> inPlace(d.num_in, false);
  for (int k = 0; k < d.num_in; ++k) {
    auto it = h->resident.find(d.in_ptrs[k]);
    if (it == h->resident.end()) continue;
    const auto &l = it->second;
    if (d.in_axes[k] != 0 && l.meshShape == meshShape && l.axes == d.in_axes[k]) {
      inPlace[k] = true;
    } else {
      // Into host memory, from where the devices take it like any host array.
      h->countGather(l, l.bytes);
      int64_t sharded = l.bytes;
      h->resident.erase(it);
      std::string why;
      if (!be.gather(d.in_ptrs[k], sharded, why)) return badLaunch(h, d, why);
    }
  }
  h->works.resize(mesh.size);
  h->contexts.resize(mesh.size);
  for (int64_t i = 0; i < mesh.size; ++i) {
    auto c = mesh.coords(i);
    DeviceWork &w = h->works[i];
    w.fn = d.fn;
    w.ins.resize(d.num_in);
    w.inBytes.resize(d.num_in);
    for (int k = 0; k < d.num_in; ++k) {
      int64_t blocks = 1, slot = 0;
      for (int m = 0; m < mesh.rank; ++m)
        if (d.in_axes[k] & (1u << m)) {
          blocks *= mesh.shape[m];
          slot = slot * mesh.shape[m] + c[m];
        }
      w.inBytes[k] = d.in_bytes[k] / blocks;
      w.ins[k] = static_cast<char *>(d.in_ptrs[k]) + slot * w.inBytes[k];
      if (!inPlace[k]) inBytes += w.inBytes[k];
    }
    w.outs.resize(d.num_out);
    w.outBytes.assign(d.out_bytes, d.out_bytes + d.num_out);
    for (int k = 0; k < d.num_out; ++k) {
      uint32_t mask = d.out_axes[k];
      bool writes = true;
      int64_t slot = 0;
      for (int m = 0; m < mesh.rank; ++m) {
        if (mask & (1u << m))
          slot = slot * mesh.shape[m] + c[m];
        else if (c[m] != 0)
          writes = false;
      }
      w.outs[k] = writes ? static_cast<char *>(d.out_ptrs[k]) + slot * d.out_bytes[k] : nullptr;
    }
    spmd_dev &ctx = h->contexts[i];
    ctx.device = &be.device(static_cast<int>(i));
    ctx.comm = &be.communicator();
    ctx.errors = &h->errors;
    ctx.mesh = &h->mesh;
    ctx.index = i;
    ctx.collectiveBytes = 0;
    ctx.launch = d.name;
  }

  auto t0 = std::chrono::steady_clock::now();
  std::optional<trace::Span> span;
  if (trace::enabled())
    span.emplace(std::string("launch ") + (d.name ? d.name : "kernel"), "launch", trace::kHostPid,
                 0, "\"devices\":" + std::to_string(mesh.size));
  trace::setCurrentLaunch(d.name);
  {
    std::string why;
    if (!be.beginLaunch(d.name, mesh, h->works, h->errors, why)) return badLaunch(h, d, why);
  }
  be.communicator().begin(mesh);
  be.startAll(mesh.size, h->works.data(), h->contexts.data());
  bool ok = true;
  for (int64_t i = 0; i < mesh.size; ++i) ok &= be.device(int(i)).wait();
  ok = be.endLaunch(ok, h->errors);  // over all processes (MPI)
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  int64_t collective = 0;
  for (int64_t i = 0; i < mesh.size; ++i) collective += h->contexts[i].collectiveBytes;
  Host::Stats &s = h->stats;
  std::string name = d.name ? d.name : "<kernel>";
  auto [it, fresh] = h->statIndex.try_emplace(name, s.launches.size());
  if (fresh) s.launches.push_back({name, 0, 0, 0});
  Host::LaunchStats &ls = s.launches[it->second];
  s.host_to_device_bytes += inBytes;
  s.collective_bytes += collective;
  ls.launches += 1;
  ls.seconds += seconds;
  ls.collective_bytes += collective;
  ls.host_to_device_bytes += inBytes;
  double deviceSeconds = -1;  // the slowest device, when the backend measures its own time
  for (int64_t i = 0; i < mesh.size; ++i)
    deviceSeconds = std::max(deviceSeconds, be.device(int(i)).deviceSeconds());
  if (deviceSeconds >= 0) ls.device_seconds = std::max(ls.device_seconds, 0.0) + deviceSeconds;
  // Results stay on the devices, as shards, until the host reads them.
  for (int k = 0; k < d.num_out; ++k) {
    int64_t stacked = 1;
    for (int m = 0; m < mesh.rank; ++m)
      if (d.out_axes[k] & (1u << m)) stacked *= mesh.shape[m];
    h->resident[d.out_ptrs[k]] =
        spmd_host::Layout{meshShape, d.out_axes[k], stacked * d.out_bytes[k], it->second};
  }

  if (ok) return 0;
  h->errors.record(std::string("a device failed in ") + name);  // kept only if first
  return 1;
}

}  // namespace
}  // namespace spmd::rt

extern "C" int32_t spmd_launch(spmd_host *h, const spmd_launch_desc *d) {
  int32_t rc = spmd::rt::launch(h, *d);
  // Inside a run, a failed launch ends the run here, whatever the caller does with rc.
  if (rc != 0 && h->inRun) spmd::rt::unwindHost(h);
  return rc;
}
