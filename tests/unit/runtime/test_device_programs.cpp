// ===- test_device_programs.cpp - device programs on CPU devices --------------===//
//
// The entry points of spmdrt.h's "device programs" section on CPU devices, where a
// program's kernels are host functions (Host::loadHostKernels, --split-kernels):
// launching them in place, their index errors, copies, reads, gemm (never BLAS here),
// and a kernel nobody loaded. tests/unit/cuda runs the same entry points on a GPU.
#include "Device.h"
#include "RuntimeTestUtil.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

using namespace spmd::rt;
using namespace spmd::rt::test;

namespace {

/// A host kernel in codegen's Split::Host convention: out[i] = 2 * in[i] (f32).
void scale2(spmd_kernel_error *err, int64_t n, void **params) {
  const float *in = *static_cast<const float **>(params[0]);
  float *out = *static_cast<float **>(params[1]);
  for (int64_t i = 0; i < n; ++i) out[i] = 2 * in[i];
}

const char *kWhere = "prog.spmd:3:14";

/// Records index idx[i] when it is not below `size`, as generated kernels do.
void checkIndex(spmd_kernel_error *err, int64_t n, void **params) {
  const int64_t *idx = *static_cast<const int64_t **>(params[0]);
  int64_t size = *static_cast<const int64_t *>(params[1]);
  for (int64_t i = 0; i < n; ++i) {
    if (uint64_t(idx[i]) < uint64_t(size) || err->flag) continue;
    err->flag = 1;
    err->index = idx[i];
    err->size = size;
    err->where = reinterpret_cast<uintptr_t>(kWhere);
  }
}

int64_t gCount = 0;
int64_t gRead[8];
int32_t gGemm[8];

void scaleProgram(spmd_dev *d, void **ins, void **outs) {
  void *tmp = spmd_dev_alloc(d, gCount * 4);
  spmd_dev_copy(d, tmp, ins[0], gCount * 4);
  void *out = outs[0];
  void *params[2] = {&tmp, &out};
  spmd_kernel_launch(d, "scale2", gCount, 2, params);
  gRead[spmd_dev_index(d)] = spmd_dev_read(d, out, 4);
  gGemm[spmd_dev_index(d)] = spmd_gemm(d, 3, 1, 1, 1, 1, out, out, tmp);
}

void indexProgram(spmd_dev *d, void **ins, void **outs) {
  void *idx = ins[0];
  int64_t size = 5;
  void *params[2] = {&idx, &size};
  spmd_kernel_launch(d, "check_index", gCount, 2, params);
}

void missingProgram(spmd_dev *d, void **ins, void **outs) {
  spmd_kernel_launch(d, "not_loaded", 1, 0, nullptr);
}

}  // namespace

TEST_CASE("CPU devices run a device program's host kernels in place", "[runtime]") {
  auto host = Host::create({"cpu", 4});
  host->loadHostKernels({{"scale2", reinterpret_cast<void *>(&scale2)},
                         {"check_index", reinterpret_cast<void *>(&checkIndex)}});
  gCount = 100;
  std::vector<float> x(4 * gCount), y(4 * gCount, -1);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.5f * float(i) - 7;
  REQUIRE(launch(host->handle(), scaleProgram, {4}, {{x.data(), int64_t(x.size()) * 4, 1}},
                 {{y.data(), gCount * 4, 1}}) == 0);
  for (size_t i = 0; i < x.size(); ++i) REQUIRE(y[i] == 2 * x[i]);
  for (int i = 0; i < 4; ++i) {
    float first;
    std::memcpy(&first, &gRead[i], 4);
    CHECK(first == 2 * x[i * gCount]);
    CHECK(gGemm[i] == 1);  // no BLAS on CPU devices
  }

  gCount = 3;
  std::vector<int64_t> idx = {0, 4, 1, 2, 9, 3};  // 9 on device 1
  CHECK(launch(host->handle(), indexProgram, {2}, {{idx.data(), 48, 1}}, {}) != 0);
  CHECK(host->lastError() == "prog.spmd:3:14: index 9 is out of range for size 5");
  idx[4] = 4;
  CHECK(launch(host->handle(), indexProgram, {2}, {{idx.data(), 48, 1}}, {}) == 0);

  CHECK(launch(host->handle(), missingProgram, {1}, {}, {}) != 0);
  CHECK(host->lastError().find("no kernel named 'not_loaded'") != std::string::npos);
}
