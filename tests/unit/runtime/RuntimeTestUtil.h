// ===- RuntimeTestUtil.h - launching hand-written kernels in runtime tests ----===//
//
// Kernels in these tests are plain C++ functions with the spmd_kernel_fn signature,
// launched through the C ABI exactly as jitted code launches them. Kernels keep only
// trivially destructible locals: a failing collective unwinds them with longjmp.
#pragma once

#include "Runtime.h"
#include "spmdrt.h"

#include <cstdint>
#include <vector>

namespace spmd::rt::test {

/// One input of a launch: a host buffer and how it is split over the mesh.
struct In {
  void *ptr;
  int64_t bytes;
  uint32_t axes;  ///< the mesh axes it is split over (spmd_launch_desc::in_axes); 0 whole
};
/// One output: a host buffer, the bytes of one replica, the stacking mask.
struct Out {
  void *ptr;
  int64_t bytes;
  uint32_t axes;
};

/// Launches `fn` over `mesh` through spmd_launch; returns its result code.
inline int32_t launch(spmd_host *h, spmd_kernel_fn fn, const std::vector<int64_t> &mesh,
                      const std::vector<In> &ins, const std::vector<Out> &outs,
                      const char *name = "test kernel") {
  std::vector<void *> inPtrs, outPtrs;
  std::vector<int64_t> inBytes, outBytes;
  std::vector<uint32_t> inAxes;
  std::vector<uint32_t> outAxes;
  for (const In &i : ins) {
    inPtrs.push_back(i.ptr);
    inBytes.push_back(i.bytes);
    inAxes.push_back(i.axes);
  }
  for (const Out &o : outs) {
    outPtrs.push_back(o.ptr);
    outBytes.push_back(o.bytes);
    outAxes.push_back(o.axes);
  }
  spmd_launch_desc d{};
  d.fn = fn;
  d.name = name;
  d.mesh_rank = static_cast<int32_t>(mesh.size());
  d.mesh_shape = mesh.data();
  d.num_in = static_cast<int32_t>(ins.size());
  d.in_ptrs = inPtrs.data();
  d.in_bytes = inBytes.data();
  d.in_axes = inAxes.data();
  d.num_out = static_cast<int32_t>(outs.size());
  d.out_ptrs = outPtrs.data();
  d.out_bytes = outBytes.data();
  d.out_axes = outAxes.data();
  return spmd_launch(h, &d);
}

inline int64_t meshSize(const std::vector<int64_t> &mesh) {
  int64_t n = 1;
  for (int64_t s : mesh) n *= s;
  return n;
}

}  // namespace spmd::rt::test
