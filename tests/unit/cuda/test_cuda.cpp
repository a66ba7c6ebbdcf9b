// ===- test_cuda.cpp - the CUDA backend of the runtime, on a real GPU ---------===//
//
// Device programs written by hand (C++ functions with the kernel signature, which only
// pass device addresses to the runtime, never dereference them) launch a hand-written
// PTX module through the C ABI, as jitted code does: placement of inputs and outputs,
// results kept on the GPU as shards and gathered by spmd_host_sync, the sharded-array
// hooks (host copies, writes, frees), copies, reads, scratch, gemm, every collective on
// 1, 2, 3 and 8 logical devices and a 4x2 mesh against the CPU backend running the same
// programs (same bits), out-of-memory and kernel index errors, and a failing device
// releasing the others. Without a usable GPU the executable prints why and exits 77,
// which CTest reports as skipped (label gpu).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "Device.h"
#include "Runtime.h"
#include "../runtime/RuntimeTestUtil.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

using namespace spmd::rt;
using namespace spmd::rt::test;

int main(int argc, char **argv) {
  std::string why;
  if (cudaDeviceCount(why) == 0) {
    std::printf("skipped: no usable CUDA GPU (%s)\n", why.c_str());
    return 77;
  }
  return Catch::Session().run(argc, argv);
}

namespace {

/// Two kernels in the calling convention of spmdrt.h (error record, n, then params):
/// scale2 writes out[i] = 2 * in[i] (f32); check_index records index idx[i] (i64) when
/// it is not below `size`, with the location "test.spmd:7:3".
const char *kPtx = R"(.version 8.0
.target sm_90
.address_size 64

.global .align 1 .b8 where_str[14] = {116, 101, 115, 116, 46, 115, 112, 109, 100, 58, 55, 58, 51, 0};

.visible .entry scale2(.param .u64 err, .param .u64 n, .param .u64 in, .param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<5>;
  .reg .b64 %rd<10>;
  .reg .f32 %f<3>;
  ld.param.u64 %rd1, [n];
  ld.param.u64 %rd2, [in];
  ld.param.u64 %rd3, [out];
  cvta.to.global.u64 %rd2, %rd2;
  cvta.to.global.u64 %rd3, %rd3;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %nctaid.x;
  mul.wide.u32 %rd4, %r1, %r2;
  cvt.u64.u32 %rd5, %r3;
  add.u64 %rd4, %rd4, %rd5;
  mul.wide.u32 %rd6, %r4, %r2;
LOOP:
  setp.ge.u64 %p1, %rd4, %rd1;
  @%p1 bra DONE;
  shl.b64 %rd7, %rd4, 2;
  add.u64 %rd8, %rd2, %rd7;
  ld.global.f32 %f1, [%rd8];
  add.f32 %f2, %f1, %f1;
  add.u64 %rd9, %rd3, %rd7;
  st.global.f32 [%rd9], %f2;
  add.u64 %rd4, %rd4, %rd6;
  bra LOOP;
DONE:
  ret;
}

.visible .entry check_index(.param .u64 err, .param .u64 n, .param .u64 idx, .param .u64 size)
{
  .reg .pred %p<3>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd10, [err];
  ld.param.u64 %rd1, [n];
  ld.param.u64 %rd2, [idx];
  ld.param.u64 %rd3, [size];
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %nctaid.x;
  mul.wide.u32 %rd4, %r1, %r2;
  cvt.u64.u32 %rd5, %r3;
  add.u64 %rd4, %rd4, %rd5;
  mul.wide.u32 %rd6, %r4, %r2;
LOOP:
  setp.ge.u64 %p1, %rd4, %rd1;
  @%p1 bra DONE;
  shl.b64 %rd7, %rd4, 3;
  add.u64 %rd8, %rd2, %rd7;
  ld.global.u64 %rd9, [%rd8];
  setp.lt.u64 %p2, %rd9, %rd3;
  @%p2 bra NEXT;
  atom.cas.b32 %r5, [%rd10], 0, 1;
  setp.ne.u32 %p2, %r5, 0;
  @%p2 bra NEXT;
  st.u64 [%rd10+8], %rd9;
  st.u64 [%rd10+16], %rd3;
  mov.u64 %rd11, where_str;
  cvta.global.u64 %rd11, %rd11;
  st.u64 [%rd10+24], %rd11;
NEXT:
  add.u64 %rd4, %rd4, %rd6;
  bra LOOP;
DONE:
  ret;
}
)";

/// A CUDA host with the test module loaded.
std::unique_ptr<Host> cudaHost(int n) {
  auto host = Host::create({"cuda", n});
  host->loadKernels(kPtx);
  return host;
}

// Programs read their parameters from these globals (host memory: a device program is
// host code), never from their device buffers.
int64_t gCount = 0;     ///< elements per device
int64_t gRead[64];      ///< per device: what spmd_dev_read returned
int32_t gGemm[64];      ///< per device: spmd_gemm's answer
int64_t gGemmShape[4];  ///< batch, m, n, k
int32_t gGemmDtype = 3;
int64_t gAlloc = 0;    ///< bytes the alloc program asks for
int64_t gBadSize = 0;  ///< check_index's bound

/// outs[0] = 2 * ins[0] through a scratch copy; reads back element 0 of the result.
void scaleProgram(spmd_dev *d, void **ins, void **outs) {
  int64_t bytes = gCount * 4;
  void *tmp = spmd_dev_alloc(d, bytes);
  spmd_dev_copy(d, tmp, ins[0], bytes);
  void *out = outs[0];
  void *params[2] = {&tmp, &out};
  spmd_kernel_launch(d, "scale2", gCount, 2, params);
  gRead[spmd_dev_index(d)] = spmd_dev_read(d, out, 4);
}

void allocProgram(spmd_dev *d, void **ins, void **outs) { spmd_dev_alloc(d, gAlloc); }

void badIndexProgram(spmd_dev *d, void **ins, void **outs) {
  void *idx = ins[0];
  void *params[2] = {&idx, &gBadSize};
  spmd_kernel_launch(d, "check_index", gCount, 2, params);
}

void unknownKernelProgram(spmd_dev *d, void **ins, void **outs) {
  spmd_kernel_launch(d, "no_such_kernel", 1, 0, nullptr);
}

void gemmProgram(spmd_dev *d, void **ins, void **outs) {
  gGemm[spmd_dev_index(d)] = spmd_gemm(d, gGemmDtype, gGemmShape[0], gGemmShape[1], gGemmShape[2],
                                       gGemmShape[3], ins[0], ins[1], outs[0]);
}

std::vector<float> iota(int64_t n, float scale) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = scale * float(i) + 0.25f;
  return v;
}

}  // namespace

TEST_CASE("CUDA hosts of 1, 2, 3 and 8 logical devices", "[cuda]") {
  std::string why;
  int gpus = cudaDeviceCount(why);
  REQUIRE(gpus >= 1);
  CHECK(Host::create({"cuda", 0})->deviceCount() == gpus);
  for (int n : {1, 2, 3, 8}) {
    auto host = cudaHost(n);
    CHECK(host->deviceCount() == n);
    CHECK(host->describe().find(std::to_string(n) + " CUDA device") == 0);
  }
  CHECK_THROWS_WITH(cudaHost(1)->loadKernels(".version 8.0\n.target sm_90\nnonsense"),
                    Catch::Contains("do not load"));
}

TEST_CASE("a device program launches kernels; results stay on the GPU until synced", "[cuda]") {
  for (int n : {1, 2, 3, 8}) {
    auto host = cudaHost(n);
    spmd_host *h = host->handle();
    gCount = 1000;
    std::vector<float> x = iota(n * gCount, 0.5f), y(n * gCount, -1), z(n * gCount, -1);
    int64_t bytes = n * gCount * 4;
    REQUIRE(launch(h, scaleProgram, {n}, {{x.data(), bytes, 1}}, {{y.data(), gCount * 4, 1}}) == 0);
    for (int i = 0; i < n; ++i) {
      float first;
      std::memcpy(&first, &gRead[i], 4);
      CHECK(first == 2 * x[i * gCount]);
    }
    CHECK(y[0] == -1);  // still on the GPU
    // A second launch reads y in place: nothing more goes to the devices.
    int64_t sent = host->stats().host_to_device_bytes;
    REQUIRE(launch(h, scaleProgram, {n}, {{y.data(), bytes, 1}}, {{z.data(), gCount * 4, 1}}) == 0);
    CHECK(host->stats().host_to_device_bytes == sent);
    spmd_host_sync(h, z.data(), bytes);
    spmd_host_sync(h, y.data(), bytes);
    for (int64_t i = 0; i < n * gCount; ++i) {
      REQUIRE(y[i] == 2 * x[i]);
      REQUIRE(z[i] == 4 * x[i]);
    }
  }
}

TEST_CASE("host copies, writes and frees of sharded results", "[cuda]") {
  auto host = cudaHost(4);
  spmd_host *h = host->handle();
  gCount = 256;
  int64_t bytes = 4 * gCount * 4;
  auto *x = static_cast<float *>(spmd_host_alloc(h, bytes));
  auto *y = static_cast<float *>(spmd_host_alloc(h, bytes));
  auto *z = static_cast<float *>(spmd_host_alloc(h, bytes));
  std::vector<float> ref = iota(4 * gCount, 1.5f);
  std::memcpy(x, ref.data(), bytes);
  REQUIRE(launch(h, scaleProgram, {4}, {{x, bytes, 1}}, {{y, gCount * 4, 1}}) == 0);
  spmd_host_copy(h, z, y, bytes);  // z shares y's shards
  spmd_host_free(h, y);
  REQUIRE(launch(h, scaleProgram, {4}, {{z, bytes, 1}}, {{x, gCount * 4, 1}}) == 0);
  spmd_host_sync(h, z, bytes);
  spmd_host_sync(h, x, bytes);
  for (int64_t i = 0; i < 4 * gCount; ++i) {
    REQUIRE(z[i] == 2 * ref[i]);
    REQUIRE(x[i] == 4 * ref[i]);
  }
  // Host data copied over a sharded result replaces its shards.
  REQUIRE(launch(h, scaleProgram, {4}, {{x, bytes, 1}}, {{z, gCount * 4, 1}}) == 0);
  std::vector<float> ones(4 * gCount, 1.0f);
  spmd_host_copy(h, z, ones.data(), bytes);
  REQUIRE(launch(h, scaleProgram, {4}, {{z, bytes, 1}}, {{x, gCount * 4, 1}}) == 0);
  // A launch over another mesh gathers its sharded inputs first (x: 2.0 on 4 devices).
  gCount = 2 * 256;
  REQUIRE(launch(h, scaleProgram, {2}, {{x, bytes, 1}}, {{z, gCount * 4, 1}}) == 0);
  gCount = 4 * 256;
  REQUIRE(launch(h, scaleProgram, {1}, {{z, bytes, 0}}, {{x, bytes, 1}}) == 0);
  spmd_host_sync(h, x, bytes);
  for (int64_t i = 0; i < 4 * 256; ++i) REQUIRE(x[i] == 8.0f);
}

TEST_CASE("gemm with cuBLAS, or unavailable", "[cuda]") {
  auto host = cudaHost(2);
  const int64_t B = 2, M = 3, N = 5, K = 4;
  for (int32_t dtype : {3, 4}) {
    int64_t es = dtype == 3 ? 4 : 8;
    std::vector<char> a(2 * B * M * K * es), b(2 * B * K * N * es), c(2 * B * M * N * es);
    auto put = [&](std::vector<char> &v, int64_t i, double x) {
      if (dtype == 3)
        reinterpret_cast<float *>(v.data())[i] = float(x);
      else
        reinterpret_cast<double *>(v.data())[i] = x;
    };
    auto get = [&](const std::vector<char> &v, int64_t i) {
      return dtype == 3 ? double(reinterpret_cast<const float *>(v.data())[i])
                        : reinterpret_cast<const double *>(v.data())[i];
    };
    for (int64_t i = 0; i < 2 * B * M * K; ++i) put(a, i, double(i % 7) - 3);
    for (int64_t i = 0; i < 2 * B * K * N; ++i) put(b, i, double(i % 5) - 1);
    gGemmDtype = dtype;
    gGemmShape[0] = B, gGemmShape[1] = M, gGemmShape[2] = N, gGemmShape[3] = K;
    REQUIRE(launch(host->handle(), gemmProgram, {2},
                   {{a.data(), int64_t(a.size()), 1}, {b.data(), int64_t(b.size()), 1}},
                   {{c.data(), B * M * N * es, 1}}) == 0);
    spmd_host_sync(host->handle(), c.data(), int64_t(c.size()));
    if (gGemm[0] == 1) {
      WARN("cuBLAS is not available: spmd_gemm answered 1");
      continue;
    }
    REQUIRE(gGemm[0] == 0);
    REQUIRE(gGemm[1] == 0);
    for (int64_t dv = 0; dv < 2; ++dv)
      for (int64_t bi = 0; bi < B; ++bi)
        for (int64_t i = 0; i < M; ++i)
          for (int64_t j = 0; j < N; ++j) {
            double s = 0;
            for (int64_t k = 0; k < K; ++k)
              s +=
                  get(a, ((dv * B + bi) * M + i) * K + k) * get(b, ((dv * B + bi) * K + k) * N + j);
            REQUIRE(get(c, ((dv * B + bi) * M + i) * N + j) == s);
          }
  }
  gGemmDtype = 1;  // i32: never BLAS
  std::vector<int32_t> a(1), b(1), c(1);
  gGemmShape[0] = gGemmShape[1] = gGemmShape[2] = gGemmShape[3] = 1;
  REQUIRE(launch(host->handle(), gemmProgram, {1}, {{a.data(), 4, 0}, {b.data(), 4, 0}},
                 {{c.data(), 4, 0}}) == 0);
  CHECK(gGemm[0] == 1);
}

TEST_CASE("out of device memory is a clear error, and the devices go on", "[cuda]") {
  auto host = cudaHost(2);
  gAlloc = int64_t(1) << 50;
  CHECK(launch(host->handle(), allocProgram, {2}, {}, {}) != 0);
  CHECK(host->lastError().find(
            "is out of memory (allocating 1125899906842624 bytes: CUDA_ERROR_OUT_OF_MEMORY)") !=
        std::string::npos);
  gAlloc = 1 << 20;
  CHECK(launch(host->handle(), allocProgram, {2}, {}, {}) == 0);
  CHECK(host->lastError() == "");
}

TEST_CASE("a kernel's index error is reported as on the CPU", "[cuda]") {
  auto host = cudaHost(3);
  gCount = 4;
  gBadSize = 5;
  std::vector<int64_t> idx = {0, 1, 2, 3, 0, 4, 1, 2, 7, 1, 3, 0};  // 7 on device 2
  CHECK(launch(host->handle(), badIndexProgram, {3}, {{idx.data(), 96, 1}}, {}) != 0);
  CHECK(host->lastError() == "test.spmd:7:3: index 7 is out of range for size 5");
  idx[8] = 4;
  CHECK(launch(host->handle(), badIndexProgram, {3}, {{idx.data(), 96, 1}}, {}) == 0);
  CHECK(launch(host->handle(), unknownKernelProgram, {1}, {}, {}) != 0);
  CHECK(host->lastError().find("no GPU kernel named 'no_such_kernel'") != std::string::npos);
}

// ---- collectives against the CPU backend -------------------------------------------

namespace {

uint32_t gAxes = 1;     ///< the mask every collective of collectiveProgram uses
int32_t gGroup = 1;     ///< the group size for that mask
int32_t gFailing = -1;  ///< a device that fails before its collectives, or -1
constexpr int kOuts = 8;

/// Device i takes its `gCount` f32 from ins[0] + i * gCount * 4 and writes, for the
/// group of gAxes: outs[0] all_gather, outs[1] ppermute (i -> i+1, so member 0 gets
/// zeros), outs[2] all_to_all, outs[3] psum, outs[4] pmax, outs[5] psum_scatter,
/// outs[6] all_gather in place (input inside the output), outs[7] ppermute in place.
void collectiveProgram(spmd_dev *d, void **ins, void **outs) {
  int64_t i = spmd_dev_index(d), bytes = gCount * 4;
  char *in = static_cast<char *>(ins[0]) + i * bytes;
  if (i == gFailing) spmd_fail(nullptr, d, "device failed on purpose");
  int32_t pairs[2 * 64];
  for (int32_t g = 0; g + 1 < gGroup; ++g) pairs[2 * g] = g, pairs[2 * g + 1] = g + 1;
  spmd_all_gather(d, in, outs[0], bytes, gAxes);
  spmd_ppermute(d, in, outs[1], bytes, gAxes, gGroup - 1, pairs);
  spmd_all_to_all(d, in, outs[2], bytes / gGroup, gAxes);
  spmd_dev_copy(d, outs[3], in, bytes);
  spmd_allreduce(d, outs[3], gCount, 3, 0, gAxes);
  spmd_dev_copy(d, outs[4], in, bytes);
  spmd_allreduce(d, outs[4], gCount, 3, 1, gAxes);
  spmd_reduce_scatter(d, in, outs[5], gCount / gGroup, 3, 0, gAxes);
  int32_t me = spmd_axis_index(d, gAxes);
  char *slot = static_cast<char *>(outs[6]) + me * bytes;
  spmd_dev_copy(d, slot, in, bytes);
  spmd_all_gather(d, slot, outs[6], bytes, gAxes);
  spmd_dev_copy(d, outs[7], in, bytes);
  spmd_ppermute(d, outs[7], outs[7], bytes, gAxes, gGroup - 1, pairs);
}

/// Runs collectiveProgram on `host` over `mesh`; returns every device's outputs.
std::vector<std::vector<char>> runCollectives(Host &host, const std::vector<int64_t> &mesh,
                                              const std::vector<float> &x) {
  int64_t n = meshSize(mesh), bytes = gCount * 4;
  int64_t outBytes[kOuts] = {bytes * gGroup, bytes,          bytes,          bytes,
                             bytes,          bytes / gGroup, bytes * gGroup, bytes};
  std::vector<std::vector<char>> outs(kOuts);
  std::vector<Out> o;
  uint32_t all = (1u << mesh.size()) - 1;
  for (int k = 0; k < kOuts; ++k) {
    outs[k].assign(n * outBytes[k], 0x55);
    o.push_back({outs[k].data(), outBytes[k], all});
  }
  std::vector<float> in = x;
  REQUIRE(launch(host.handle(), collectiveProgram, mesh, {{in.data(), n * bytes, 0}}, o) == 0);
  for (int k = 0; k < kOuts; ++k)
    spmd_host_sync(host.handle(), outs[k].data(), int64_t(outs[k].size()));
  return outs;
}

}  // namespace

TEST_CASE("every collective gives the CPU backend's bits", "[cuda]") {
  struct Case {
    std::vector<int64_t> mesh;
    uint32_t axes;
  };
  for (const Case &c : {Case{{1}, 1}, Case{{2}, 1}, Case{{3}, 1}, Case{{8}, 1}, Case{{4, 2}, 1},
                        Case{{4, 2}, 2}, Case{{4, 2}, 3}}) {
    int64_t n = meshSize(c.mesh);
    gAxes = c.axes;
    gGroup = int32_t(groupOf(Mesh(int(c.mesh.size()), c.mesh.data()), 0, c.axes).size);
    gCount = 24 * 97;  // divisible by every group size here
    std::vector<float> x(n * gCount);
    for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(float(i)) * 1000.0f / float(1 + i % 13);
    auto cpu = Host::create({"cpu", int(n)});
    auto gpu = cudaHost(int(n));
    auto want = runCollectives(*cpu, c.mesh, x);
    auto got = runCollectives(*gpu, c.mesh, x);
    for (int k = 0; k < kOuts; ++k) {
      INFO("mesh of " << n << " devices, axes " << c.axes << ", output " << k);
      CHECK(std::memcmp(want[k].data(), got[k].data(), want[k].size()) == 0);
    }
    CHECK(gpu->stats().collective_bytes == cpu->stats().collective_bytes);
  }
}

TEST_CASE("a failing device releases the others from collectives", "[cuda]") {
  auto host = cudaHost(8);
  gAxes = 1;
  gGroup = 8;
  gCount = 64;
  std::vector<float> x(8 * gCount, 1.0f);
  for (int32_t bad : {0, 5}) {
    gFailing = bad;
    std::vector<std::vector<char>> outs(kOuts, std::vector<char>(8 * 8 * gCount * 4));
    std::vector<Out> o;
    for (int k = 0; k < kOuts; ++k) o.push_back({outs[k].data(), 8 * gCount * 4, 1});
    auto t0 = std::chrono::steady_clock::now();
    CHECK(launch(host->handle(), collectiveProgram, {8}, {{x.data(), 8 * gCount * 4, 0}}, o) != 0);
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));
    CHECK(host->lastError() == "device failed on purpose");
  }
  gFailing = -1;
  auto cpu = Host::create({"cpu", 8});
  auto want = runCollectives(*cpu, {8}, x);
  auto got = runCollectives(*host, {8}, x);
  for (int k = 0; k < kOuts; ++k) CHECK(want[k] == got[k]);
}
