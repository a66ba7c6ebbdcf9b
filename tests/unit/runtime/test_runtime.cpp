// ===- test_runtime.cpp - the host: devices, launches, errors, output, stats --===//
//
// Launch layout (which slice each device sees, where each replica's result lands),
// scratch memory, errors on devices and on the host (the run ends with a message and
// never hangs), printing, assert_close, stats and --devices parsing.
#include "Device.h"
#include "RuntimeTestUtil.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstring>
#include <numeric>
#include <sstream>
#include <stdexcept>

using namespace spmd::rt;
using namespace spmd::rt::test;

namespace {

/// On a 4x2 mesh: ins = {A sliced by axis 0 (4 x i32), B sliced by axis 1 (2 x i32),
/// C broadcast (i32)}. Writes 1000*A + 100*B + C to outs[0] (stacked over both axes),
/// the device index to outs[1] (over axis 0), outs[2] (over axis 1) and outs[3] (one
/// replica).
void layoutKernel(spmd_dev *d, void **ins, void **outs) {
  int32_t a = *static_cast<int32_t *>(ins[0]);
  int32_t b = *static_cast<int32_t *>(ins[1]);
  int32_t c = *static_cast<int32_t *>(ins[2]);
  *static_cast<int32_t *>(outs[0]) = 1000 * a + 100 * b + c;
  for (int k = 1; k <= 3; ++k) *static_cast<int32_t *>(outs[k]) = spmd_dev_index(d);
}

}  // namespace

TEST_CASE("a launch slices inputs and stacks outputs per the mesh", "[runtime]") {
  auto host = Host::create({"cpu", 8});
  int32_t A[4] = {1, 2, 3, 4}, B[2] = {5, 6}, C = 7;
  int32_t out0[8], out1[4], out2[2], out3[1];
  std::fill(std::begin(out1), std::end(out1), -1);
  REQUIRE(launch(host->handle(), layoutKernel, {4, 2},
                 {{A, sizeof A, 1}, {B, sizeof B, 2}, {&C, sizeof C, 0}},
                 {{out0, 4, 3}, {out1, 4, 1}, {out2, 4, 2}, {out3, 4, 0}}) == 0);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 2; ++c) CHECK(out0[r * 2 + c] == 1000 * A[r] + 100 * B[c] + 7);
  // Written by devices (r, 0), (0, c) and (0, 0) only.
  CHECK(std::vector<int32_t>(out1, out1 + 4) == std::vector<int32_t>{0, 2, 4, 6});
  CHECK(std::vector<int32_t>(out2, out2 + 2) == std::vector<int32_t>{0, 1});
  CHECK(out3[0] == 0);
}

TEST_CASE("a launch may use fewer devices than the host has, but not more", "[runtime]") {
  auto host = Host::create({"cpu", 3});
  int32_t out[8] = {};
  int32_t zero = 0;
  REQUIRE(launch(host->handle(), layoutKernel, {2}, {{&zero, 4, 0}, {&zero, 4, 0}, {&zero, 4, 0}},
                 {{out, 4, 1}, {out + 2, 4, 1}, {out + 4, 4, 1}, {out + 6, 4, 1}}) == 0);
  CHECK(out[3] == 1);
  CHECK(launch(host->handle(), layoutKernel, {2, 2}, {}, {}, "pmap i @ f.spmd:3:9") != 0);
  CHECK(host->lastError().find("needs 4 devices, but only 3") != std::string::npos);
  CHECK(host->lastError().find("pmap i @ f.spmd:3:9") != std::string::npos);
}

namespace {
/// Allocates scratch (ins[0] = bytes of the big buffer), checks alignment and that
/// allocations do not overlap, touches both ends of the big one.
void allocKernel(spmd_dev *d, void **ins, void **outs) {
  int64_t big = *static_cast<int64_t *>(ins[0]);
  char *p[5];
  int32_t ok = 1;
  for (int k = 0; k < 4; ++k) {
    p[k] = static_cast<char *>(spmd_dev_alloc(d, k * 1000 + 1));
    std::memset(p[k], k + 1, k * 1000 + 1);
  }
  p[4] = static_cast<char *>(spmd_dev_alloc(d, big));
  p[4][0] = 9;
  p[4][big - 1] = 9;
  for (int k = 0; k < 5; ++k) ok &= reinterpret_cast<uintptr_t>(p[k]) % 64 == 0;
  for (int k = 0; k < 4; ++k)
    for (int e = 0; e < k * 1000 + 1; ++e) ok &= p[k][e] == k + 1;
  *static_cast<int32_t *>(outs[0]) = ok;
}
}  // namespace

TEST_CASE("spmd_dev_alloc gives aligned scratch of any size, freed per launch", "[runtime]") {
  auto host = Host::create({"cpu", 2});
  int32_t ok[2] = {0, 0};
  int64_t big = int64_t(1) << 30;  // 1 GiB per device, barely touched
  REQUIRE(launch(host->handle(), allocKernel, {2}, {{&big, 8, 0}}, {{ok, 4, 1}}) == 0);
  CHECK(ok[0] == 1);
  CHECK(ok[1] == 1);
  big = 100;  // and again, reusing the arenas
  for (int rep = 0; rep < 100; ++rep)
    REQUIRE(launch(host->handle(), allocKernel, {2}, {{&big, 8, 0}}, {{ok, 4, 1}}) == 0);
  CHECK(ok[0] + ok[1] == 2);
}

namespace {
/// Device ins[0] fails (spmd_fail, or an index error when ins[1] is non-zero) after
/// `ins[2]` rounds of allreduce; the others go on calling allreduce forever.
void failingKernel(spmd_dev *d, void **ins, void **outs) {
  int32_t bad = *static_cast<int32_t *>(ins[0]);
  int32_t useIndex = *static_cast<int32_t *>(ins[1]);
  int32_t rounds = *static_cast<int32_t *>(ins[2]);
  float v = 1;
  for (int32_t it = 0;; ++it) {
    if (spmd_dev_index(d) == bad && it == rounds) {
      if (useIndex) spmd_check_error(nullptr, d, SPMD_INDEX_ERROR, 12, 8, "f.spmd:4:7");
      spmd_fail(nullptr, d, "f.spmd:2:3: device failure");
    }
    spmd_allreduce(d, &v, 1, 3, 0, 1);
  }
}
}  // namespace

TEST_CASE("a device error releases the others and the launch fails", "[runtime]") {
  auto host = Host::create({"cpu", 8});
  // On 4x2 the allreduce is over axis 0: the group without the failing device keeps
  // completing rounds until it sees the abort.
  for (const std::vector<int64_t> &mesh : {std::vector<int64_t>{8}, {4, 2}}) {
    for (int32_t bad : {0, 5, 7}) {
      for (int32_t rounds : {0, 3, 40}) {
        int32_t useIndex = bad == 5;
        auto t0 = std::chrono::steady_clock::now();
        int32_t rc = launch(host->handle(), failingKernel, mesh,
                            {{&bad, 4, 0}, {&useIndex, 4, 0}, {&rounds, 4, 0}}, {});
        CHECK(rc != 0);
        CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
        if (useIndex)
          CHECK(host->lastError() == "f.spmd:4:7: index 12 is out of range for size 8");
        else
          CHECK(host->lastError() == "f.spmd:2:3: device failure");
      }
    }
  }
  // The devices and the communicator work again afterwards.
  float buf[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8];
  auto sum = [](spmd_dev *d, void **ins, void **outs) {
    float v = static_cast<float *>(ins[0])[0];
    spmd_allreduce(d, &v, 1, 3, 0, 1);
    *static_cast<float *>(outs[0]) = v;
  };
  REQUIRE(launch(host->handle(), sum, {8}, {{buf, sizeof buf, 1}}, {{out, 4, 1}}) == 0);
  for (float o : out) CHECK(o == 36.0f);
  CHECK(host->lastError() == "");
}

namespace {
spmd_kernel_fn gKernel;  ///< what the host programs below launch

void hostLaunches(spmd_host *h) {
  int32_t bad = 2, useIndex = 0, rounds = 1;
  void *ins[3] = {&bad, &useIndex, &rounds};
  int64_t bytes[3] = {4, 4, 4};
  uint32_t axes[3] = {0, 0, 0};
  int64_t mesh[1] = {4};
  spmd_print_str(h, "before");
  spmd_print_end(h);
  spmd_launch_desc d{gKernel, "k", 1, mesh, 3, ins, bytes, axes, 0, nullptr, nullptr, nullptr};
  spmd_launch(h, &d);
  spmd_print_str(h, "after");  // not reached: a failed launch ends the run
  spmd_print_end(h);
}

void hostFails(spmd_host *h) {
  spmd_print_str(h, "partial ");
  spmd_fail(h, nullptr, "f.spmd:9:1: host failure");
}

void hostIndexError(spmd_host *h) {
  spmd_check_error(h, nullptr, SPMD_INDEX_ERROR, -1, 3, "f.spmd:1:2");
}

void hostCheckError(spmd_host *h) {
  spmd_check_error(h, nullptr, "got f({0}, {1}), {0} again; {2} and { stay", -5, 7, "f.spmd:3:4");
}

void hostPrints(spmd_host *h) {
  int32_t a[3] = {1, 2, 3};
  int64_t shape[1] = {3};
  spmd_print_str(h, "x =");
  spmd_print_str(h, " ");
  spmd_print_array(h, a, 1, 1, shape);
  spmd_print_end(h);
  uint8_t b[5] = {1, 0, 1, 1, 0};
  spmd_print_render(h, b, 5, "#", ".");
  spmd_print_end(h);
  spmd_print_render(h, b, 2, "\xe2\x96\x88", " ");
  spmd_print_end(h);
}

void hostAssertClose(spmd_host *h) {
  float a[3] = {1.0f, 2.0f, 3.0f}, b[3] = {1.0f, 2.000001f, 3.0f}, c[3] = {1.0f, 2.5f, 3.0f};
  spmd_assert_close(h, a, b, 3, 3, 1e-5, 1e-6, "f.spmd:5:1");
  spmd_print_str(h, "close");
  spmd_print_end(h);
  spmd_assert_close(h, a, c, 3, 3, 1e-5, 1e-6, "f.spmd:6:1");
  spmd_print_str(h, "not reached");
  spmd_print_end(h);
}
}  // namespace

TEST_CASE("Host::run reports run-time errors and returns 1", "[runtime]") {
  auto host = Host::create({"cpu", 4});
  std::ostringstream out, err;
  host->setOutput(&out);
  host->setErrorOutput(&err);

  gKernel = failingKernel;
  CHECK(host->run(hostLaunches) == 1);
  CHECK(out.str() == "before\n");
  CHECK(err.str() == "error: f.spmd:2:3: device failure\n");

  out.str("");
  err.str("");
  CHECK(host->run(hostFails) == 1);
  CHECK(out.str() == "");  // the cut-short line is not printed
  CHECK(err.str() == "error: f.spmd:9:1: host failure\n");

  err.str("");
  CHECK(host->run(hostIndexError) == 1);
  CHECK(err.str() == "error: f.spmd:1:2: index -1 is out of range for size 3\n");

  err.str("");
  CHECK(host->run(hostCheckError) == 1);
  CHECK(err.str() == "error: f.spmd:3:4: got f(-5, 7), -5 again; {2} and { stay\n");

  err.str("");
  CHECK(host->run(hostAssertClose) == 1);
  CHECK(out.str() == "close\n");
  CHECK(err.str().rfind("error: f.spmd:6:1: assert_close failed: 1 of 3 elements differ", 0) == 0);

  out.str("");
  err.str("");
  CHECK(host->run(hostPrints) == 0);
  CHECK(out.str() == "x = [1 2 3]\n#.##.\n\xe2\x96\x88 \n");
  CHECK(err.str() == "");
  CHECK(host->lastError() == "");
}

TEST_CASE("host memory is aligned and freed", "[runtime]") {
  auto host = Host::create({"cpu", 1});
  spmd_host *h = host->handle();
  void *p = spmd_host_alloc(h, 100), *q = spmd_host_alloc(h, 0);
  CHECK(reinterpret_cast<uintptr_t>(p) % 64 == 0);
  CHECK(q != nullptr);
  CHECK(p != q);
  spmd_host_sync(h, p, 100);
  spmd_host_free(h, p);
  spmd_host_free(h, nullptr);
  // q is freed with the host
}

namespace {
void statsKernel(spmd_dev *d, void **ins, void **outs) {
  double v[4] = {1, 2, 3, 4};
  spmd_allreduce(d, v, 4, 4, 0, 1);
  std::memcpy(outs[0], v, sizeof v);
}
}  // namespace

TEST_CASE("stats count launches, transfers and collective bytes", "[runtime]") {
  auto host = Host::create({"cpu", 4});
  double in[8] = {}, out[4 * 4];
  for (int rep = 0; rep < 3; ++rep)
    REQUIRE(launch(host->handle(), statsKernel, {4}, {{in, sizeof in, 1}, {in, 8, 0}},
                   {{out, 32, 1}}, "pmap i @ s.spmd:1:1") == 0);
  REQUIRE(launch(host->handle(), statsKernel, {1}, {}, {{out, 32, 1}}, "other") == 0);
  CHECK(out[3] == 4.0);  // a group of one
  Host::Stats s = host->stats();
  REQUIRE(s.launches.size() == 2);
  CHECK(s.launches[0].name == "pmap i @ s.spmd:1:1");
  CHECK(s.launches[0].launches == 3);
  CHECK(s.launches[1].launches == 1);
  CHECK(s.launches[1].collective_bytes == 0);
  // Per launch: 4 slices of 16 bytes plus 4 broadcasts of 8. Results stay on the devices
  // (Note [Sharded arrays]) until the host reads them.
  CHECK(s.host_to_device_bytes == 3 * (64 + 32));
  CHECK(s.device_to_host_bytes == 0);
  spmd_host_sync(host->handle(), out, 32);
  CHECK(host->stats().device_to_host_bytes == 32);
  spmd_host_sync(host->handle(), out, 32);  // already on the host: nothing moves
  CHECK(host->stats().device_to_host_bytes == 32);
  // Ring allreduce of 32 bytes over 4 devices: 2 * 3/4 * 32 = 48 bytes per device.
  CHECK(s.launches[0].collective_bytes == 3 * 4 * 48);
  CHECK(s.collective_bytes == 3 * 4 * 48);
  std::string table = host->formatStats();
  CHECK(table.find("pmap i @ s.spmd:1:1") != std::string::npos);
  CHECK(table.find("4 CPU devices (threads)") != std::string::npos);
  host->resetStats();
  CHECK(host->stats().launches.empty());
}

TEST_CASE("a chain of launches over the same sharded array moves nothing through the host",
          "[runtime]") {
  auto host = Host::create({"cpu", 4});
  double in[8] = {}, mid[4 * 4], out[4 * 4];
  REQUIRE(launch(host->handle(), statsKernel, {4}, {{in, sizeof in, 1}, {in, 8, 0}}, {{mid, 32, 1}},
                 "a") == 0);
  int64_t sent = host->stats().host_to_device_bytes;
  // `mid` is mapped over the same mesh axis it was stacked over: read in place.
  REQUIRE(launch(host->handle(), statsKernel, {4}, {{mid, sizeof mid, 1}, {in, 8, 0}},
                 {{out, 32, 1}}, "b") == 0);
  CHECK(host->stats().host_to_device_bytes == sent + 4 * 8);  // only the broadcast input
  CHECK(host->stats().device_to_host_bytes == 0);
  // Broadcasting it instead needs a gather first, then a copy to every device.
  REQUIRE(launch(host->handle(), statsKernel, {4}, {{in, sizeof in, 1}, {mid, sizeof mid, 0}},
                 {{out, 32, 1}}, "c") == 0);
  CHECK(host->stats().device_to_host_bytes == int64_t(sizeof mid));
}

namespace {
/// outs[0] = 10 * ins[0][0] + the device index: which block of the input it was given.
void blockKernel(spmd_dev *d, void **ins, void **outs) {
  *static_cast<int32_t *>(outs[0]) = 10 * *static_cast<int32_t *>(ins[0]) + spmd_dev_index(d);
}
}  // namespace

TEST_CASE("an input split over two mesh axes gives each device its own block, in place",
          "[runtime]") {
  auto host = Host::create({"cpu", 8});
  int32_t x[8] = {0, 1, 2, 3, 4, 5, 6, 7}, rows[4] = {0, 1, 2, 3}, y[8], z[8];
  // Over both axes of a 4 x 2 mesh: device (r, c) reads block r * 2 + c.
  REQUIRE(launch(host->handle(), blockKernel, {4, 2}, {{x, sizeof x, 3}}, {{y, 4, 3}}, "a") == 0);
  for (int i = 0; i < 8; ++i) CHECK(y[i] == 10 * i + i);
  int64_t sent = host->stats().host_to_device_bytes;
  CHECK(sent == int64_t(sizeof x));  // each block once
  // Over the outer axis only: devices (r, 0) and (r, 1) read the same block.
  REQUIRE(launch(host->handle(), blockKernel, {4, 2}, {{rows, sizeof rows, 1}}, {{z, 4, 3}}, "b") ==
          0);
  for (int i = 0; i < 8; ++i) CHECK(z[i] == 10 * (i / 2) + i);
  // y, stacked over both axes, read back over both axes: in place, nothing sent.
  sent = host->stats().host_to_device_bytes;
  REQUIRE(launch(host->handle(), blockKernel, {4, 2}, {{y, sizeof y, 3}}, {{z, 4, 3}}, "c") == 0);
  CHECK(host->stats().host_to_device_bytes == sent);
  CHECK(host->stats().device_to_host_bytes == 0);
  for (int i = 0; i < 8; ++i) CHECK(z[i] == 10 * (11 * i) + i);
  // z read over the outer axis only: another layout, so gathered first.
  REQUIRE(launch(host->handle(), blockKernel, {4, 2}, {{z, sizeof z, 1}}, {{y, 4, 3}}, "d") == 0);
  CHECK(host->stats().device_to_host_bytes == int64_t(sizeof z));
}

TEST_CASE("--devices values parse, and cuda needs a usable GPU", "[runtime]") {
  CHECK(parseDeviceSpec("cpu").kind == "cpu");
  CHECK(parseDeviceSpec("cpu").count == 0);
  CHECK(parseDeviceSpec("cpu:8").count == 8);
  CHECK(parseDeviceSpec("cuda").kind == "cuda");
  CHECK(parseDeviceSpec("cuda:2").count == 2);
  for (const char *bad : {"cpu:", "cpu:0", "cpu:-1", "cpu:x", "gpu", "", "cpu:1:2", "cpu:9999999",
                          "cpu:100000", "cpu:4097"})
    CHECK_THROWS_AS(parseDeviceSpec(bad), std::invalid_argument);
  // Without a GPU (no driver, or none it sees) cuda is refused, saying why and what to do;
  // tests/unit/cuda covers the GPU itself.
  std::string why;
  if (cudaDeviceCount(why) == 0) {
    CHECK(!why.empty());
    CHECK_THROWS_WITH(Host::create(parseDeviceSpec("cuda")),
                      Catch::Contains("no usable CUDA GPU (" + why + "); run with --devices cpu"));
  }
  auto host = Host::create(parseDeviceSpec("cpu"));
  CHECK(host->deviceCount() >= 1);
  CHECK(Host::create({"cpu", 1})->describe() == "1 CPU device (threads)");
}
