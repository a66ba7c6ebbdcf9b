// ===- test_collectives.cpp - the CPU collectives against plain references ----===//
//
// Every collective of spmdrt.h runs on meshes of 1, 2, 3 and 8 devices and on nested
// meshes (4x2, 2x4, 2x2x2) with every axis mask, for several sizes and dtypes; each
// device's result is compared with a reference computed here from the definition
// (groups found by brute force over coordinates, reductions folded in group order,
// so float results must match bit for bit).
#include "Device.h"
#include "RuntimeTestUtil.h"
#include "cpu/CpuCommunicator.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <thread>

using namespace spmd::rt;
using namespace spmd::rt::test;

namespace {

enum Kind : int32_t { AllReduce, AllGather, Ppermute, AllToAll, ReduceScatter, AxisIndex };

/// Broadcast to every device: which collective and its arguments.
struct Params {
  int32_t kind;
  int64_t count;  ///< elements (reductions) or bytes per member chunk (data movement)
  int32_t dtype, op;
  uint32_t axes;
  int64_t inBytes;   ///< each device's input size
  int64_t outBytes;  ///< each device's output size
  int32_t npairs;
  int32_t pairs[2 * 64];
  int32_t inPlace;  ///< pass the output buffer as the input (after copying into it)
};

/// Device i takes its input from ins[0] + i * inBytes and writes outs[0] (its own slot).
void collectiveKernel(spmd_dev *d, void **ins, void **outs) {
  const Params *p = static_cast<const Params *>(ins[1]);
  int64_t i = spmd_dev_index(d);
  const char *in = static_cast<const char *>(ins[0]) + i * p->inBytes;
  char *out = static_cast<char *>(outs[0]);
  if (p->inPlace) {
    std::memcpy(out, in, p->inBytes);
    in = out;
  }
  switch (p->kind) {
  case AllReduce:  // in place, or out of place reading the inputs where they are
    if (p->inPlace)
      spmd_allreduce(d, out, p->count, p->dtype, p->op, p->axes);
    else
      spmd_allreduce_to(d, in, out, p->count, p->dtype, p->op, p->axes);
    break;
  case AllGather: spmd_all_gather(d, in, out, p->count, p->axes); break;
  case Ppermute: spmd_ppermute(d, in, out, p->count, p->axes, p->npairs, p->pairs); break;
  case AllToAll: spmd_all_to_all(d, in, out, p->count, p->axes); break;
  case ReduceScatter: spmd_reduce_scatter(d, in, out, p->count, p->dtype, p->op, p->axes); break;
  case AxisIndex: {
    int32_t v = spmd_axis_index(d, p->axes);
    std::memcpy(out, &v, 4);
    break;
  }
  }
}

std::vector<int64_t> coordsOf(const std::vector<int64_t> &mesh, int64_t flat) {
  std::vector<int64_t> c(mesh.size());
  for (int m = int(mesh.size()) - 1; m >= 0; --m) {
    c[m] = flat % mesh[m];
    flat /= mesh[m];
  }
  return c;
}

/// The members of device i's group (flat indices in group order) by brute force.
std::vector<int64_t> groupMembers(const std::vector<int64_t> &mesh, uint32_t axes, int64_t i) {
  std::vector<int64_t> members;
  auto ci = coordsOf(mesh, i);
  for (int64_t j = 0; j < meshSize(mesh); ++j) {
    auto cj = coordsOf(mesh, j);
    bool same = true;
    for (size_t m = 0; m < mesh.size(); ++m)
      if (!(axes & (1u << m)) && cj[m] != ci[m]) same = false;
    if (same) members.push_back(j);  // row-major over the masked axes = by flat index
  }
  return members;
}

int64_t positionIn(const std::vector<int64_t> &members, int64_t i) {
  for (size_t k = 0; k < members.size(); ++k)
    if (members[k] == i) return int64_t(k);
  return -1;
}

template <typename T>
T refOp(int32_t op, T a, T b) {
  switch (op) {
  case 0: return T(a + b);
  case 1: return a < b ? b : a;
  case 2: return b < a ? b : a;
  default: return T(a * b);
  }
}

/// dst[e] = fold over srcs of element e, as the definition says, for one dtype.
template <typename T>
void refReduce(std::vector<const char *> srcs, char *dst, int64_t count, int32_t op) {
  for (int64_t e = 0; e < count; ++e) {
    T acc;
    std::memcpy(&acc, srcs[0] + e * sizeof(T), sizeof(T));
    for (size_t j = 1; j < srcs.size(); ++j) {
      T v;
      std::memcpy(&v, srcs[j] + e * sizeof(T), sizeof(T));
      acc = refOp(op, acc, v);
    }
    std::memcpy(dst + e * sizeof(T), &acc, sizeof(T));
  }
}

void refReduceAny(int32_t dtype, std::vector<const char *> srcs, char *dst, int64_t count,
                  int32_t op) {
  switch (dtype) {
  case 0:
    for (int64_t e = 0; e < count; ++e) {
      bool any = false, all = true;
      for (const char *s : srcs) any |= s[e] != 0, all &= s[e] != 0;
      dst[e] = (op == 0 || op == 1) ? any : all;
    }
    break;
  case 1:  // sums and products wrap: do them unsigned; compare signed
    if (op == 1 || op == 2) return refReduce<int32_t>(srcs, dst, count, op);
    return refReduce<uint32_t>(srcs, dst, count, op);
  case 2: return refReduce<uint32_t>(srcs, dst, count, op);
  case 3: return refReduce<float>(srcs, dst, count, op);
  case 4: return refReduce<double>(srcs, dst, count, op);
  }
}

/// Random elements that keep products and sums finite.
std::vector<char> randomData(int32_t dtype, int64_t elems, uint32_t seed) {
  std::mt19937 rng(seed);
  int64_t es = dtype == 0 ? 1 : dtype == 4 ? 8 : 4;
  std::vector<char> data(elems * es);
  for (int64_t e = 0; e < elems; ++e) {
    char *p = data.data() + e * es;
    if (dtype == 0) *p = char(rng() % 2);
    if (dtype == 1) {
      int32_t v = int32_t(rng() % 7) - 3;
      std::memcpy(p, &v, 4);
    }
    if (dtype == 2) {
      uint32_t v = rng() % 5;
      std::memcpy(p, &v, 4);
    }
    if (dtype == 3) {
      float v = 0.5f + float(rng() % 1000) / 1000.0f;
      std::memcpy(p, &v, 4);
    }
    if (dtype == 4) {
      double v = 0.5 + double(rng() % 100000) / 1e5;
      std::memcpy(p, &v, 8);
    }
  }
  return data;
}

/// Runs one collective on `mesh`, returns all devices' outputs (concatenated).
std::vector<char> runCollective(Host &host, const std::vector<int64_t> &mesh, Params p,
                                const std::vector<char> &input) {
  int64_t n = meshSize(mesh);
  std::vector<char> out(n * p.outBytes + 1, char(0x5a));
  uint32_t all = (1u << mesh.size()) - 1;
  int32_t rc =
      launch(host.handle(), collectiveKernel, mesh,
             {{const_cast<char *>(input.data()), int64_t(input.size()), 0}, {&p, sizeof p, 0}},
             {{out.data(), p.outBytes, all}});
  REQUIRE(rc == 0);
  REQUIRE(out.back() == char(0x5a));  // nothing written past the stacked outputs
  out.pop_back();
  return out;
}

const std::vector<std::vector<int64_t>> kMeshes = {{1}, {2}, {3}, {8}, {4, 2}, {2, 4}, {2, 2, 2}};
const int64_t kSizes[] = {1, 3, 7, 1001};

std::string label(const std::vector<int64_t> &mesh, uint32_t axes, int64_t count, int dtype,
                  int op) {
  std::string s = "mesh";
  for (int64_t m : mesh) s += " " + std::to_string(m);
  return s + " axes " + std::to_string(axes) + " count " + std::to_string(count) + " dtype " +
         std::to_string(dtype) + " op " + std::to_string(op);
}

}  // namespace

TEST_CASE("allreduce and reduce_scatter match a fold in group order", "[collectives]") {
  auto host = Host::create({"cpu", 8});
  for (const auto &mesh : kMeshes) {
    int64_t n = meshSize(mesh);
    for (uint32_t axes = 0; axes < (1u << mesh.size()); ++axes) {
      for (int64_t count : kSizes) {
        for (int32_t dtype = 0; dtype <= 4; ++dtype) {
          for (int32_t op = 0; op <= 3; ++op) {
            int64_t es = dtypeSize(dtype);
            int64_t g = int64_t(groupMembers(mesh, axes, 0).size());
            INFO(label(mesh, axes, count, dtype, op));
            // allreduce: each device contributes `count` elements.
            Params p{};
            p.kind = AllReduce;
            p.count = count;
            p.dtype = dtype;
            p.op = op;
            p.axes = axes;
            p.inBytes = p.outBytes = count * es;
            p.inPlace = op % 2;  // both forms for every mesh, mask, size and dtype
            auto input = randomData(dtype, n * count, uint32_t(count * 131 + dtype * 7 + op));
            auto got = runCollective(*host, mesh, p, input);
            std::vector<char> want(got.size());
            for (int64_t i = 0; i < n; ++i) {
              std::vector<const char *> srcs;
              for (int64_t j : groupMembers(mesh, axes, i))
                srcs.push_back(input.data() + j * p.inBytes);
              refReduceAny(dtype, srcs, want.data() + i * p.outBytes, count, op);
            }
            CHECK(got == want);
            // reduce_scatter: each device contributes g chunks of `count` elements.
            p.kind = ReduceScatter;
            p.inPlace = 0;
            p.inBytes = g * count * es;
            p.outBytes = count * es;
            input = randomData(dtype, n * g * count, uint32_t(count * 17 + dtype + op * 3));
            got = runCollective(*host, mesh, p, input);
            for (int64_t i = 0; i < n; ++i) {
              auto members = groupMembers(mesh, axes, i);
              int64_t me = positionIn(members, i);
              std::vector<const char *> srcs;
              for (int64_t j : members)
                srcs.push_back(input.data() + j * p.inBytes + me * p.outBytes);
              refReduceAny(dtype, srcs, want.data() + i * p.outBytes, count, op);
            }
            want.resize(got.size());
            CHECK(got == want);
          }
        }
      }
    }
  }
}

TEST_CASE("all_gather, all_to_all, ppermute and axis_index move the right bytes", "[collectives]") {
  auto host = Host::create({"cpu", 8});
  for (const auto &mesh : kMeshes) {
    int64_t n = meshSize(mesh);
    for (uint32_t axes = 0; axes < (1u << mesh.size()); ++axes) {
      int64_t g = int64_t(groupMembers(mesh, axes, 0).size());
      for (int64_t bytes : {int64_t(1), int64_t(12), int64_t(4003)}) {
        for (int inPlace = 0; inPlace <= 1; ++inPlace) {
          INFO(label(mesh, axes, bytes, -1, -1) + " in place " + std::to_string(inPlace));
          Params p{};
          p.axes = axes;
          p.count = bytes;
          p.inPlace = inPlace;
          // all_gather: out = members' inputs in group order.
          p.kind = AllGather;
          p.inBytes = bytes;
          p.outBytes = g * bytes;
          auto input = randomData(2, (n * bytes + 3) / 4, uint32_t(bytes + axes));
          input.resize(n * bytes);
          auto got = runCollective(*host, mesh, p, input);
          std::vector<char> want;
          for (int64_t i = 0; i < n; ++i)
            for (int64_t j : groupMembers(mesh, axes, i))
              want.insert(want.end(), input.begin() + j * bytes, input.begin() + (j + 1) * bytes);
          CHECK(got == want);
          // all_to_all: out chunk j = member j's chunk `my index`.
          p.kind = AllToAll;
          p.inBytes = p.outBytes = g * bytes;
          input = randomData(0, n * g * bytes, uint32_t(bytes * 3 + axes));
          for (size_t e = 0; e < input.size(); ++e) input[e] = char(e * 7 + (e >> 8));
          got = runCollective(*host, mesh, p, input);
          want.clear();
          for (int64_t i = 0; i < n; ++i) {
            auto members = groupMembers(mesh, axes, i);
            int64_t me = positionIn(members, i);
            for (int64_t j : members) {
              auto from = input.begin() + j * p.inBytes + me * bytes;
              want.insert(want.end(), from, from + bytes);
            }
          }
          CHECK(got == want);
          // ppermute: a shift by one with the last member left out, so member 0 gets
          // zeros (and with g == 1 there are no pairs at all).
          p.kind = Ppermute;
          p.inBytes = p.outBytes = bytes;
          p.npairs = int32_t(g - 1);
          for (int32_t k = 0; k + 1 < g; ++k) {
            p.pairs[2 * k] = k;
            p.pairs[2 * k + 1] = k + 1;
          }
          for (size_t e = 0; e < input.size(); ++e) input[e] = char(1 + e % 250);
          input.resize(n * bytes);
          got = runCollective(*host, mesh, p, input);
          want.assign(n * bytes, 0);
          for (int64_t i = 0; i < n; ++i) {
            auto members = groupMembers(mesh, axes, i);
            int64_t me = positionIn(members, i);
            if (me > 0)
              std::memcpy(want.data() + i * bytes, input.data() + members[me - 1] * bytes, bytes);
          }
          CHECK(got == want);
        }
      }
      // axis_index: the position in the group.
      Params p{};
      p.kind = AxisIndex;
      p.axes = axes;
      p.outBytes = 4;
      auto got = runCollective(*host, mesh, p, {});
      for (int64_t i = 0; i < n; ++i) {
        int32_t v;
        std::memcpy(&v, got.data() + 4 * i, 4);
        CHECK(v == positionIn(groupMembers(mesh, axes, i), i));
      }
    }
  }
}

TEST_CASE("ppermute with a full rotation and a swap", "[collectives]") {
  auto host = Host::create({"cpu", 8});
  std::vector<int64_t> mesh = {8};
  Params p{};
  p.kind = Ppermute;
  p.axes = 1;
  p.count = p.inBytes = p.outBytes = 4;
  p.npairs = 8;
  for (int k = 0; k < 8; ++k) {
    p.pairs[2 * k] = k;
    p.pairs[2 * k + 1] = (k + 3) % 8;
  }
  std::vector<int32_t> vals = {10, 11, 12, 13, 14, 15, 16, 17};
  std::vector<char> input(32);
  std::memcpy(input.data(), vals.data(), 32);
  auto got = runCollective(*host, mesh, p, input);
  std::vector<int32_t> out(8);
  std::memcpy(out.data(), got.data(), 32);
  CHECK(out == std::vector<int32_t>{15, 16, 17, 10, 11, 12, 13, 14});
}

TEST_CASE("float sums are bit-identical from run to run", "[collectives]") {
  auto host = Host::create({"cpu", 8});
  std::vector<int64_t> mesh = {8};
  // Values of very different magnitudes, so that the order of additions shows.
  std::vector<char> input(8 * 4096 * 4);
  std::mt19937 rng(7);
  for (int64_t e = 0; e < 8 * 4096; ++e) {
    float v = std::ldexp(float(rng() % 10000) - 5000.0f, int(rng() % 40) - 20);
    std::memcpy(input.data() + 4 * e, &v, 4);
  }
  Params p{};
  p.kind = AllReduce;
  p.count = 4096;
  p.dtype = 3;
  p.op = 0;
  p.axes = 1;
  p.inBytes = p.outBytes = 4096 * 4;
  auto first = runCollective(*host, mesh, p, input);
  for (int rep = 0; rep < 20; ++rep) REQUIRE(runCollective(*host, mesh, p, input) == first);
  // Every device holds the same sum.
  for (int i = 1; i < 8; ++i)
    CHECK(std::memcmp(first.data(), first.data() + i * p.outBytes, p.outBytes) == 0);
}

TEST_CASE("reductions start from the identity, as XLA's all-reduce: -0.0 sums to +0.0",
          "[collectives]") {
  // Note [Fold from the identity] (Reduce.h): XLA:CPU folds every member into 0 (sums),
  // -inf (max), so psum of members that are all -0.0 is +0.0 and a group of one member
  // in a launch of several devices folds too (JAX 0.10.2: tests/golden/psum_negzero.py);
  // a launch of one device copies. Every path: the mailbox (small), the chunks (large,
  // ordinary and streaming stores) and the one-pass streaming f32 fold (count a multiple
  // of 16 per member), in place and out of place, f32 and f64, and reduce_scatter.
  auto host = Host::create({"cpu", 8});
  struct Restore {
    ~Restore() { CpuCommunicator::setStreamBytes(-1); }
  } restore;
  auto negZeros = [](int32_t dtype, int64_t elems) {
    std::vector<char> data(size_t(elems * dtypeSize(dtype)));
    for (int64_t e = 0; e < elems; ++e) {
      if (dtype == 3) {
        float v = -0.0f;
        std::memcpy(data.data() + 4 * e, &v, 4);
      } else {
        double v = -0.0;
        std::memcpy(data.data() + 8 * e, &v, 8);
      }
    }
    return data;
  };
  // Sign bits set in the outputs (each element's last byte, little-endian).
  auto negatives = [](const std::vector<char> &out, int32_t dtype) {
    int64_t es = dtypeSize(dtype), n = 0;
    for (size_t e = 0; e < out.size() / size_t(es); ++e) n += (out[e * es + es - 1] & 0x80) != 0;
    return n;
  };
  for (bool streaming : {false, true}) {
    CpuCommunicator::setStreamBytes(streaming ? 0 : int64_t(1) << 62);
    for (int64_t count : {int64_t(5), int64_t(3 * 8 * 4096 + 48), int64_t(3 * 8 * 4096 + 13)}) {
      for (int32_t dtype : {3, 4}) {
        for (auto mesh : std::vector<std::vector<int64_t>>{{8}, {4, 2}, {8, 1}}) {
          for (uint32_t axes = 1; axes < (1u << mesh.size()); ++axes) {
            for (int32_t inPlace : {0, 1}) {
              INFO(label(mesh, axes, count, dtype, 0) + " in place " + std::to_string(inPlace) +
                   " streaming " + std::to_string(streaming));
              int64_t n = meshSize(mesh), es = dtypeSize(dtype);
              Params p{};
              p.kind = AllReduce;
              p.count = count;
              p.dtype = dtype;
              p.op = 0;
              p.axes = axes;
              p.inPlace = inPlace;
              p.inBytes = p.outBytes = count * es;
              auto got = runCollective(*host, mesh, p, negZeros(dtype, n * count));
              CHECK(negatives(got, dtype) == 0);
              int64_t g = int64_t(groupMembers(mesh, axes, 0).size());
              p.kind = ReduceScatter;
              p.inPlace = 0;
              p.inBytes = g * count * es;
              got = runCollective(*host, mesh, p, negZeros(dtype, n * g * count));
              CHECK(negatives(got, dtype) == 0);
            }
          }
        }
      }
    }
  }
  // A group of one: folded (+0.0, and pmax of NaN is -inf) in a launch of 8 devices,
  // copied in a launch of one.
  for (auto mesh : std::vector<std::vector<int64_t>>{{8, 1}, {1}}) {
    bool one = meshSize(mesh) == 1;
    int64_t n = meshSize(mesh);
    std::vector<float> vals;
    for (int64_t i = 0; i < n; ++i) {
      vals.push_back(-0.0f);
      vals.push_back(std::nanf(""));
    }
    std::vector<char> input(vals.size() * 4);
    std::memcpy(input.data(), vals.data(), input.size());
    for (int32_t op : {0, 1}) {
      INFO("mesh size " << n << " op " << op);
      Params p{};
      p.kind = AllReduce;
      p.count = 2;
      p.dtype = 3;
      p.op = op;
      p.axes = one ? 1u : 2u;
      p.inBytes = p.outBytes = 8;
      auto got = runCollective(*host, mesh, p, input);
      std::vector<float> out(got.size() / 4);
      std::memcpy(out.data(), got.data(), got.size());
      for (int64_t i = 0; i < n; ++i) {
        CHECK(std::signbit(out[2 * i]) == (one || op == 1));  // pmax keeps -0.0
        if (op == 0) CHECK(std::isnan(out[2 * i + 1]));
        if (op == 1) CHECK((one ? std::isnan(out[2 * i + 1]) : out[2 * i + 1] == -INFINITY));
      }
      p.kind = ReduceScatter;  // never dropped by XLA: +0.0 even on one device
      got = runCollective(*host, mesh, p, input);
      std::memcpy(out.data(), got.data(), got.size());
      for (int64_t i = 0; i < n; ++i) CHECK(std::signbit(out[2 * i]) == (op == 1));
    }
  }
}

namespace {
/// Many collectives over alternating groups of an 8x8 mesh inside one kernel.
void manyCollectivesKernel(spmd_dev *d, void **ins, void **outs) {
  float *buf = static_cast<float *>(spmd_dev_alloc(d, 256 * sizeof(float)));
  float *gathered = static_cast<float *>(spmd_dev_alloc(d, 8 * 256 * sizeof(float)));
  for (int e = 0; e < 256; ++e) buf[e] = float(spmd_dev_index(d) + e);
  for (int it = 0; it < 50; ++it) {
    uint32_t axes = 1u + uint32_t(it % 3);  // axis 0, axis 1, both
    spmd_allreduce(d, buf, 256, 3, 1, axes);
    spmd_all_gather(d, buf, gathered, 256 * sizeof(float), it % 2 ? 1u : 2u);
  }
  std::memcpy(outs[0], buf, 256 * sizeof(float));
}
}  // namespace

TEST_CASE("64 devices on few cores finish quickly", "[collectives]") {
  auto host = Host::create({"cpu", 64});
  REQUIRE(host->deviceCount() == 64);
  std::vector<float> out(64 * 256);
  auto t0 = std::chrono::steady_clock::now();
  for (int rep = 0; rep < 3; ++rep) {
    REQUIRE(launch(host->handle(), manyCollectivesKernel, {8, 8}, {},
                   {{out.data(), 256 * sizeof(float), 3}}) == 0);
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // After a max over both axes every device holds the global max: 63 + e.
  for (int i = 0; i < 64; ++i)
    for (int e = 0; e < 256; e += 51) CHECK(out[i * 256 + e] == float(63 + e));
  CHECK(s < 10.0);
}

TEST_CASE("allreduce of buffers much larger than its reduction chunk", "[collectives]") {
  // Each member reduces its slice a chunk (16 KiB) at a time straight from the other
  // members' buffers: slices of several chunks, with a ragged end, in every dtype,
  // written with ordinary stores and with streaming stores (Note [Streaming stores]:
  // forced on here, since the buffers are smaller than the cache; the slices start at
  // offsets that are not multiples of 16 bytes, so the unaligned heads are covered).
  // With 48 extra elements every member's output is a multiple of 64 bytes long, so all
  // outputs share their alignment and a streaming f32 sum takes the one-pass fold (Note
  // [Fold and stream in one pass]), with ragged heads and tails; with 13 it cannot.
  auto host = Host::create({"cpu", 8});
  const int64_t count = 3 * 8 * 4096 + GENERATE(13, 48);
  struct Restore {
    ~Restore() { CpuCommunicator::setStreamBytes(-1); }
  } restore;
  const bool streaming = GENERATE(false, true);
  CpuCommunicator::setStreamBytes(streaming ? 0 : int64_t(1) << 62);
  INFO("streaming stores " << streaming);
  for (const auto &mesh : std::vector<std::vector<int64_t>>{{8}, {4, 2}}) {
    int64_t n = meshSize(mesh);
    for (uint32_t axes = 1; axes < (1u << mesh.size()); ++axes) {
      for (int32_t dtype = 0; dtype <= 4; ++dtype) {
        for (int32_t op : {0, 1}) {
          for (int32_t inPlace : {0, 1}) {
            INFO(label(mesh, axes, count, dtype, op) + " in place " + std::to_string(inPlace));
            Params p{};
            p.kind = AllReduce;
            p.count = count;
            p.dtype = dtype;
            p.op = op;
            p.axes = axes;
            p.inPlace = inPlace;
            p.inBytes = p.outBytes = count * dtypeSize(dtype);
            auto input = randomData(dtype, n * count, uint32_t(dtype * 5 + op + axes * 11));
            auto got = runCollective(*host, mesh, p, input);
            std::vector<char> want(got.size());
            for (int64_t i = 0; i < n; ++i) {
              std::vector<const char *> srcs;
              for (int64_t j : groupMembers(mesh, axes, i))
                srcs.push_back(input.data() + j * p.inBytes);
              refReduceAny(dtype, srcs, want.data() + i * p.outBytes, count, op);
            }
            CHECK(got == want);
          }
        }
      }
    }
  }
}

namespace {
/// Arguments of sequenceKernel.
struct SeqParams {
  int64_t len;  ///< elements per device
  int32_t iters;
};

/// Group sizes of the 4 x 2 mesh used below, by axis mask.
int64_t groupSize42(uint32_t axes) { return (axes & 1 ? 4 : 1) * (axes & 2 ? 2 : 1); }

/// A chain of collectives over alternating groups, each step's result feeding the next:
/// allreduce (sum or max), a local mix that makes the devices differ again, then a
/// ppermute shift on another group, added in. Exercises mailboxes reused across rounds
/// of different groups, members that run ahead of slow readers, and members nobody
/// reads (Note [Collective protocol]).
void sequenceKernel(spmd_dev *d, void **ins, void **outs) {
  const SeqParams *p = static_cast<const SeqParams *>(ins[0]);
  int64_t dev = spmd_dev_index(d);
  uint32_t *v = static_cast<uint32_t *>(outs[0]);
  uint32_t *w = static_cast<uint32_t *>(spmd_dev_alloc(d, p->len * 4 + 4));
  int32_t pairs[2 * 8];
  for (int64_t e = 0; e < p->len; ++e) v[e] = uint32_t(dev * 7 + e);
  for (int32_t it = 0; it < p->iters; ++it) {
    uint32_t axes = 1u + uint32_t(it % 3);
    spmd_allreduce(d, v, p->len, 2, it % 2 ? 1 : 0, axes);
    for (int64_t e = 0; e < p->len; ++e) v[e] = v[e] * 3u + uint32_t(dev + e);
    uint32_t shiftAxes = it % 2 ? 1u : 2u;
    int64_t g = groupSize42(shiftAxes);
    for (int32_t k = 0; k + 1 < g; ++k) pairs[2 * k] = k, pairs[2 * k + 1] = k + 1;
    spmd_ppermute(d, v, w, p->len * 4, shiftAxes, int32_t(g - 1), pairs);
    for (int64_t e = 0; e < p->len; ++e) v[e] += w[e];
  }
}
}  // namespace

TEST_CASE("chains of collectives over alternating groups, either side of the mailbox size",
          "[collectives]") {
  auto host = Host::create({"cpu", 8});
  std::vector<int64_t> mesh = {4, 2};
  // 4096 elements are exactly the mailbox size (16 KiB), 4097 just over it.
  for (int64_t len : {int64_t(1), int64_t(5), int64_t(4096), int64_t(4097), int64_t(10001)}) {
    INFO("len " << len);
    SeqParams p{len, 40};
    std::vector<uint32_t> got(8 * len);
    REQUIRE(launch(host->handle(), sequenceKernel, mesh, {{&p, sizeof p, 0}},
                   {{got.data(), len * 4, 3}}) == 0);
    // The same chain on the host.
    std::vector<std::vector<uint32_t>> v(8, std::vector<uint32_t>(len));
    for (int64_t i = 0; i < 8; ++i)
      for (int64_t e = 0; e < len; ++e) v[i][e] = uint32_t(i * 7 + e);
    for (int32_t it = 0; it < p.iters; ++it) {
      uint32_t axes = 1u + uint32_t(it % 3);
      auto r = v;
      for (int64_t i = 0; i < 8; ++i) {
        auto members = groupMembers(mesh, axes, i);
        for (int64_t e = 0; e < len; ++e) {
          uint32_t acc = v[members[0]][e];
          for (size_t j = 1; j < members.size(); ++j)
            acc = it % 2 ? std::max(acc, v[members[j]][e]) : acc + v[members[j]][e];
          r[i][e] = acc * 3u + uint32_t(i + e);
        }
      }
      uint32_t shiftAxes = it % 2 ? 1u : 2u;
      for (int64_t i = 0; i < 8; ++i) {
        auto members = groupMembers(mesh, shiftAxes, i);
        int64_t me = positionIn(members, i);
        for (int64_t e = 0; e < len; ++e) v[i][e] = r[i][e] + (me > 0 ? r[members[me - 1]][e] : 0u);
      }
    }
    bool same = true;
    for (int64_t i = 0; i < 8; ++i)
      same = same && std::memcmp(got.data() + i * len, v[i].data(), len * 4) == 0;
    CHECK(same);
  }
}

TEST_CASE("CpuCommunicator: groups whose members ran different numbers of collectives",
          "[collectives]") {
  // Under MPI a process's CpuCommunicator sees only the collectives of groups inside the
  // process, so on a 2 x 2 mesh devices 0 and 1 may run collectives over axis 1 that
  // devices 2 and 3 run elsewhere; then a group over axis 0 pairs device 0 with 2.
  CpuCommunicator comm(4);
  int64_t shape[] = {2, 2};
  Mesh mesh(2, shape);
  for (int64_t count : {int64_t(3), int64_t(5000)}) {  // the mailbox and the pointer path
    INFO("count " << count);
    comm.begin(mesh);
    std::vector<std::vector<int32_t>> bufs(4, std::vector<int32_t>(count));
    std::vector<int> ok(4, 0);
    std::vector<std::thread> threads;
    for (int64_t dev = 0; dev < 4; ++dev) {
      threads.emplace_back([&, dev] {
        std::vector<int32_t> &b = bufs[dev];
        for (int64_t e = 0; e < count; ++e) b[e] = int32_t(dev * 100 + e);
        int64_t moved = 0;
        bool good = true;
        if (dev < 2) {
          for (int rep = 0; rep < 3; ++rep)  // over axis 1: {0, 1}; sums double each time
            good = good && comm.allreduce(dev, b.data(), b.data(), count, DType::I32, RedOp::Sum,
                                          2u, moved);
        }
        // Over axis 0: {0, 2} and {1, 3}.
        good = good &&
               comm.allreduce(dev, b.data(), b.data(), count, DType::I32, RedOp::Sum, 1u, moved);
        ok[dev] = good;
      });
    }
    for (auto &t : threads) t.join();
    CHECK(ok == std::vector<int>{1, 1, 1, 1});
    for (int64_t e = 0; e < count; e += 997) {
      // After three sums over {0, 1}, devices 0 and 1 hold 4 * (100 + 2e).
      int32_t first = 4 * (100 + 2 * int32_t(e));
      CHECK(bufs[0][e] == first + 200 + int32_t(e));
      CHECK(bufs[1][e] == first + 300 + int32_t(e));
      CHECK(bufs[2][e] == bufs[0][e]);
      CHECK(bufs[3][e] == bufs[1][e]);
    }
  }
}
