// ===- test_fibers.cpp - CPU devices on fibers (Note [Fibers]) ----------------===//
//
// A launch with more devices than cores runs each device on a fiber: a device waiting
// in a collective switches to another device on the same thread instead of sleeping.
// These tests need more devices than cores; every launch here uses 8 devices, so on a
// machine with 8 or more cores they check only that the results are right.
#include "Device.h"
#include "RuntimeTestUtil.h"
#include "cpu/CpuDevice.h"
#include "cpu/Fiber.h"
#include "cpu/Spin.h"

#include <catch2/catch.hpp>

#include <alloca.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <set>
#include <thread>

using namespace spmd::rt;
using namespace spmd::rt::test;

namespace {

uint64_t threadId() { return std::hash<std::thread::id>()(std::this_thread::get_id()); }

/// outs[0]: the thread the device started on; outs[1]: the one it finished on; outs[2]:
/// the allreduce over all 8 devices of 1 + device index (36). Every device waits in the
/// allreduce until all 8 have arrived.
void threadKernel(spmd_dev *d, void **ins, void **outs) {
  *static_cast<uint64_t *>(outs[0]) = threadId();
  float v = float(1 + spmd_dev_index(d));
  spmd_allreduce(d, &v, 1, 3, 0, 1);
  *static_cast<uint64_t *>(outs[1]) = threadId();
  *static_cast<float *>(outs[2]) = v;
}

/// Restores the environment's fiber setting however the test ends.
struct FiberSetting {
  explicit FiberSetting(int on) { CpuDevice::setFibers(on); }
  ~FiberSetting() { CpuDevice::setFibers(-1); }
};

}  // namespace

TEST_CASE("a device waiting in a collective does not hold its thread (fibers)", "[runtime]") {
  auto host = Host::create({"cpu", 8});
  uint64_t first[8], last[8];
  float sums[8];
  auto run = [&] {
    std::memset(first, 0, sizeof first);
    std::memset(last, 0, sizeof last);
    REQUIRE(launch(host->handle(), threadKernel, {8}, {},
                   {{first, 8, 1}, {last, 8, 1}, {sums, 4, 1}}) == 0);
    for (float s : sums) CHECK(s == 36.0f);
    std::set<uint64_t> threads(first, first + 8);
    threads.insert(last, last + 8);
    return threads.size();
  };
  if (hardwareThreads() >= 8) {
    run();
    SUCCEED("as many cores as devices: no fibers");
    return;
  }
  {
    // All 8 devices are in the allreduce at once: on threads, each on its own.
    FiberSetting off(0);
    CHECK(run() == 8);
  }
  // On fibers, the workers are the host and the threads woken for the launch (one per
  // other core; a thread still awake from the launch before may join too), so some
  // thread runs a device while another it started waits in the allreduce. A few launches
  // first let the 8 threads of the launch above go back to sleep.
  FiberSetting on(1);
  for (int rep = 0; rep < 5; ++rep) run();
  size_t most = 0;
  for (int rep = 0; rep < 50; ++rep) {
    size_t threads = run();
    CHECK(threads < 8);
    most = std::max(most, threads);
  }
  INFO("threads per launch on fibers: at most " << most);
}

namespace {
/// On a 4x2 mesh, `rounds` allreduces alternating between the axes (the groups of one
/// round are not those of the next, so a device may wait for one that is parked in the
/// previous round's collective), each device busy for a while of its own before each.
void alternatingKernel(spmd_dev *d, void **ins, void **outs) {
  int32_t rounds = *static_cast<int32_t *>(ins[0]);
  int32_t dev = spmd_dev_index(d);
  float acc = float(dev);
  for (int32_t r = 0; r < rounds; ++r) {
    volatile int32_t busy = 0;
    for (int32_t k = 0; k < (dev * 7 + r * 3) % 11 * 200; ++k) busy = busy + 1;
    spmd_allreduce(d, &acc, 1, 3, 0, (r & 1) ? 2u : 1u);
    acc = std::fmod(acc, 1000.0f);
  }
  *static_cast<float *>(outs[0]) = acc;
}
}  // namespace

TEST_CASE("fibers: collectives over alternating groups finish with the right sums",
          "[runtime]") {
  auto host = Host::create({"cpu", 8});
  int32_t rounds = 300;
  float got[8];
  for (int fibers : {1, 0}) {
    FiberSetting setting(fibers);
    for (int rep = 0; rep < 5; ++rep) {
      REQUIRE(launch(host->handle(), alternatingKernel, {4, 2}, {{&rounds, 4, 0}},
                     {{got, 4, 3}}) == 0);
      // The same rounds on the host: device i0 * 2 + i1; axis 0 groups share i1.
      float want[8];
      for (int i = 0; i < 8; ++i) want[i] = float(i);
      for (int r = 0; r < rounds; ++r) {
        float next[8];
        for (int i = 0; i < 8; ++i) {
          float s = 0;
          for (int j = 0; j < 8; ++j)
            if ((r & 1) ? j / 2 == i / 2 : j % 2 == i % 2) s += want[j];
          next[i] = std::fmod(s, 1000.0f);
        }
        std::memcpy(want, next, sizeof want);
      }
      for (int i = 0; i < 8; ++i) CHECK(got[i] == want[i]);
    }
  }
}

namespace {
/// Uses 6 MiB of stack (an alloca, every page touched), then an allreduce.
void bigStackKernel(spmd_dev *d, void **ins, void **outs) {
  size_t bytes = size_t(6) << 20;
  auto *p = static_cast<volatile char *>(alloca(bytes));
  for (size_t k = 0; k < bytes; k += 4096) p[k] = char(k >> 12);
  float v = 0;
  for (size_t k = 0; k < bytes; k += 4096) v += float(uint8_t(p[k]));
  spmd_allreduce(d, &v, 1, 3, 0, 1);
  *static_cast<float *>(outs[0]) = v;
}
}  // namespace

TEST_CASE("a fiber's stack holds what a thread's does", "[runtime]") {
  // Note [Fiber stacks]: at least glibc's default thread stack, 8 MiB.
  CHECK(Fiber::stackBytes() >= Fiber::kMinStackBytes);
  auto host = Host::create({"cpu", 8});
  float got[8];
  REQUIRE(launch(host->handle(), bigStackKernel, {8}, {}, {{got, 4, 1}}) == 0);
  float one = 0;
  for (size_t k = 0; k < (size_t(6) << 20); k += 4096) one += float(uint8_t(k >> 12));
  for (float g : got) CHECK(g == 8 * one);
}

TEST_CASE("the fiber switch round-trips", "[runtime]") { CHECK(fiberSwitchNanos(1000) > 0); }

// Not run by default: `test_runtime "[.perf]" -s` prints the cost of one switch.
TEST_CASE("fiber switch against ucontext", "[.perf]") {
  for (int rep = 0; rep < 3; ++rep) {
    double fiber = fiberSwitchNanos(1000000), uc = ucontextSwitchNanos(1000000);
    WARN("one switch: fiber " << fiber << " ns, swapcontext " << uc << " ns");
  }
}
