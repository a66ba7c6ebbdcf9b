// ===- CpuCommunicator.cpp - collectives between device threads ---------------===//
#include "cpu/CpuCommunicator.h"
#include "Trace.h"

#include "cpu/Reduce.h"
#include "cpu/Spin.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <thread>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace spmd::rt {

// Note [Collective protocol]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// A collective of a group of G > 1 members takes one of two paths, chosen by the size
// of each member's input (the same on every member: all run the same program).
//
// Large inputs (pointer path), three phases:
//
//   1. publish: each member stores a pointer to its input in its Member slot (a
//      staged copy when the input overlaps its own output, so that writing the output
//      cannot corrupt what others still read; allreduce publishes its input and its
//      output, which is either the input itself (in place) or disjoint from it);
//   2. barrier B1, then each member reads the others' published inputs and writes
//      outputs. allreduce: each member owns a 1/G slice [lo, hi) of the buffers (empty
//      when count < G); it folds that slice of every member's input in group order,
//      a cache-sized chunk at a time into a private buffer, and writes the chunk into
//      every member's output: a reduce-scatter and an all-gather in one pass, reading
//      the inputs and writing the outputs where they are, with no staging copy (G
//      reads and G writes of each byte in all, the fewest an all-reduce can do). No
//      other member reads or writes [lo, hi) of any buffer, and a chunk is read from
//      every input before it is written to any output, so in place works too, and the
//      work is split G ways;
//   3. barrier B2, after which nobody reads or writes another member's memory, so every
//      member may return and reuse its buffers.
//
// Only B1 gives way to an abort: a member that failed before the collective never
// arrives there. B2 does not, because every member that passed B1 reaches B2 in a
// bounded time (phase 2 cannot fail or wait), and a member released early could unwind
// while others still read its buffers or write into them (they may be on its stack).
// A member's stage buffer is rewritten only before B1 of its next collective, when
// every reader of the previous one (whatever group comes next) has passed B2.
//
// Small inputs (at most kMailboxBytes; mailbox path), one barrier: each member that
// someone will read copies its input into the next of its two mailboxes (used in
// turn), sets the mailbox's `readers` to the number of members that will read it, and
// leaves a pointer to it in the group barrier's `posted[g % 2]`, g being the barrier
// generation of this round (the same on every member: the previous round ended before
// any member could arrive at this one). After the barrier each member reads what it
// needs from the posted mailboxes, decrements their `readers`, and returns at once:
// its input and output are free to reuse, since nobody else touches them.
//  - `posted[g % 2]` is written again for round g + 2 only after round g + 1 ended,
//    that is after every member arrived there, done with round g.
//  - Before writing a mailbox again, its owner waits until the readers of its previous
//    use are done. The wait is bounded: the owner passed that round's barrier, so every
//    reader did too, and a reader that passed a barrier reads and decrements without
//    failing or waiting. With two mailboxes the wait is rarely a real one.
//  - A round aborted at its barrier leaves `readers` set; the aborting launch does no
//    further collectives, and begin() clears them.
// Groups of other masks (or, under MPI, collectives across processes, which never come
// here) may come in between on some members and not others: nothing above counts
// collectives per device.
//
// Reductions fold members in group order from the operation's identity (Reduce.h) on
// both paths, so results are bit-identical whatever the timing and whichever path, and
// those of XLA:CPU. Groups of one member fold too, except when the whole launch has one
// device (then they copy, as XLA, Note [Fold from the identity]).

CpuCommunicator::Buffer::~Buffer() {
  if (data) ::operator delete(data, std::align_val_t(64));
}

bool CpuCommunicator::Buffer::reserve(int64_t bytes) {
  if (bytes <= capacity) return true;
  int64_t want = std::max<int64_t>(bytes, capacity * 2);
  void *p = ::operator new(static_cast<size_t>(want), std::align_val_t(64), std::nothrow);
  if (!p) return false;
  if (data) ::operator delete(data, std::align_val_t(64));
  data = p;
  capacity = want;
  return true;
}

CpuCommunicator::CpuCommunicator(int devices) : members_(devices) {}
CpuCommunicator::~CpuCommunicator() = default;

// Note [Adaptive spinning]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// A waiter that sleeps on the futex at once pays a system call and a wake-up (several
// microseconds) per collective even when its peers arrive a moment later; spinning
// avoids that when every device has a core of its own, but burns the core a peer is
// waiting for when the machine is busy (other processes, or a launch whose threads are
// still waking up). So each device keeps a spin budget: a spin that sees the word
// change grows it, one that runs out halves it, and only launches with no more devices
// than cores spin at all. bench/notes.md (2026-11-23) has the measurements.

void CpuCommunicator::await(const std::atomic<uint32_t> &word, uint32_t seen, int &spin,
                            std::atomic<uint32_t> &sleepers) const {
  if (spin_ && spinFor(word, seen, spin)) return;
  if (parkHook_ && parkHook_(fiberArg_, word, seen)) return;  // resumed: look again
  if (sleepHook_) sleepHook_(sleepArg_);
  sleepWhile(word, seen, sleepers);
}

void CpuCommunicator::begin(const Mesh &mesh) {
  aborted_.store(false);
  spin_ = mesh.size <= hardwareThreads();
  for (Member &m : members_)
    for (Mailbox &box : m.mail) box.readers.store(0);
  if (!(mesh == mesh_) || masks_.empty()) {
    mesh_ = mesh;
    masks_.clear();
    masks_.resize(size_t(1) << mesh.rank);
    for (uint32_t mask = 0; mask < masks_.size(); ++mask) {
      MaskGroups &mg = masks_[mask];
      mg.groupSize = groupOf(mesh, 0, mask).size;
      int64_t groups = mesh.size / mg.groupSize;
      mg.members.resize(mesh.size);
      for (int64_t id = 0; id < groups; ++id) {
        auto b = std::make_unique<Barrier>();
        b->size = mg.groupSize;
        for (auto &posted : b->posted) posted.assign(size_t(mg.groupSize), nullptr);
        mg.barriers.push_back(std::move(b));
        for (int64_t i = 0; i < mg.groupSize; ++i)
          mg.members[id * mg.groupSize + i] = memberOf(mesh, mask, id, i);
      }
    }
  }
  // A previous launch may have been aborted in the middle of a barrier.
  for (MaskGroups &mg : masks_)
    for (auto &b : mg.barriers) b->arrived = 0;
}

void CpuCommunicator::abort() {
  aborted_.store(true);
  for (MaskGroups &mg : masks_) {
    for (auto &b : mg.barriers) {
      b->wake.fetch_add(1);  // a waiter that read `wake` before the flag wakes up
      released(b->wake, b->sleepers);
    }
  }
}

CpuCommunicator::View CpuCommunicator::view(int64_t dev, uint32_t axes) {
  uint32_t mask = axes & ((1u << mesh_.rank) - 1);
  Group g = groupOf(mesh_, dev, mask);
  MaskGroups &mg = masks_[mask];
  return {mg.barriers[g.id].get(), &mg.members[g.id * g.size], g.size, g.index};
}

std::optional<uint32_t> CpuCommunicator::arrive(Barrier &b) {
  uint32_t gen = b.generation.load();
  if (b.arrived.fetch_add(1) + 1 < b.size) return gen;
  b.arrived.store(0);  // before the release: nobody arrives for the next round earlier
  b.generation.fetch_add(1);
  b.wake.fetch_add(1);
  released(b.wake, b.sleepers);
  return std::nullopt;
}

void CpuCommunicator::released(std::atomic<uint32_t> &word, const std::atomic<uint32_t> &sleepers) {
  wakeSleepers(word, sleepers);
  if (notifyHook_) notifyHook_(fiberArg_);
}

bool CpuCommunicator::sync(Barrier &b, int &spin) {
  if (aborted_.load()) return false;
  std::optional<uint32_t> gen = arrive(b);
  if (!gen) return true;
  for (;;) {
    uint32_t seen = b.wake.load();
    if (b.generation.load() != *gen) return true;
    if (aborted_.load()) return false;
    await(b.wake, seen, spin, b.sleepers);
  }
}

bool CpuCommunicator::finish(Barrier &b, int &spin) {
  if (std::optional<uint32_t> gen = arrive(b)) {
    for (;;) {
      uint32_t seen = b.wake.load();
      if (b.generation.load() != *gen) break;
      await(b.wake, seen, spin, b.sleepers);
    }
  }
  return !aborted_.load();
}

static bool overlaps(const void *a, int64_t an, const void *b, int64_t bn) {
  auto pa = reinterpret_cast<uintptr_t>(a), pb = reinterpret_cast<uintptr_t>(b);
  return an > 0 && bn > 0 && pa < pb + uint64_t(bn) && pb < pa + uint64_t(an);
}

bool CpuCommunicator::publish(Member &me, const void *in, int64_t inBytes, const void *out,
                              int64_t outBytes) {
  me.src = in;
  if (!overlaps(in, inBytes, out, outBytes)) return true;
  if (!me.stage.reserve(inBytes)) return false;
  std::memcpy(me.stage.data, in, inBytes);
  me.src = me.stage.data;
  return true;
}

bool CpuCommunicator::post(int64_t dev, const View &v, const void *in, int64_t bytes,
                           uint32_t readers) {
  if (aborted_.load()) return false;
  Member &me = members_[dev];
  // This round's generation: the previous round of the group ended (this member saw
  // it end), and this one cannot end before this member arrives.
  uint32_t slot = v.barrier->generation.load() & 1;
  Mailbox *box = nullptr;
  if (readers > 0) {
    box = &me.mail[me.posts++ & 1];
    // Its readers two posts ago (Note [Collective protocol]).
    for (uint32_t r; (r = box->readers.load(std::memory_order_acquire)) != 0;)
      await(box->readers, r, me.spin, box->sleepers);
    if (!box->data.reserve(std::max<int64_t>(bytes, 64))) return false;
    if (bytes > 0) std::memcpy(box->data.data, in, size_t(bytes));
    box->readers.store(readers, std::memory_order_relaxed);  // published by the barrier
  }
  v.barrier->posted[slot][v.index] = box;
  if (!sync(*v.barrier, me.spin)) return false;
  me.boxes.resize(v.size);
  me.srcs.resize(v.size);
  for (int64_t j = 0; j < v.size; ++j) {
    me.boxes[j] = v.barrier->posted[slot][j];
    me.srcs[j] = me.boxes[j] ? me.boxes[j]->data.data : nullptr;
  }
  return true;
}

void CpuCommunicator::doneReading(Mailbox *box) {
  // seq_cst, before wakeSleepers (Spin.h).
  if (box->readers.fetch_sub(1, std::memory_order_seq_cst) == 1)
    released(box->readers, box->sleepers);
}

// Note [Streaming stores]
// ~~~~~~~~~~~~~~~~~~~~~~~
// An ordinary store to a line that is not in the cache first reads the line from memory
// (to own it), so an all-reduce whose outputs miss the cache moves 3 x G bytes per output
// byte instead of 2 x G: G reads of the inputs, G reads of the outputs' old contents and
// G write-backs. When the group's outputs together are at least kStreamBytes (16 MiB, half
// the L3 cache that one core complex of this machine's AMD EPYC shares; sysconf reports
// the whole package's 320 MiB, which no thread gets), so that they would not stay cached
// for the next kernel anyway, the folded chunk is written with non-temporal stores (x86
// SSE2 `movntdq`), which write whole lines without reading them; an `sfence` before B2
// makes them visible to the members that read the outputs after it. Smaller outputs keep
// ordinary stores and stay in the cache. The stored values are the same either way.
// bench/notes.md (2026-11-24) has the measurements. f32 sums skip the chunk buffer
// (Note [Fold and stream in one pass]).

static std::atomic<int64_t> &streamSetting() {
  static std::atomic<int64_t> bytes{-1};
  return bytes;
}

int64_t CpuCommunicator::streamBytes() {
  int64_t set = streamSetting().load(std::memory_order_relaxed);
  return set >= 0 ? set : kStreamBytes;
}

void CpuCommunicator::setStreamBytes(int64_t bytes) {
  streamSetting().store(bytes, std::memory_order_relaxed);
}

/// memcpy with non-temporal stores where the target has them (Note [Streaming stores]).
static void streamCopy(char *dst, const char *src, size_t n) {
#if defined(__x86_64__)
  size_t head = (16 - (reinterpret_cast<uintptr_t>(dst) & 15)) & 15;
  if (head >= n) {
    std::memcpy(dst, src, n);
    return;
  }
  std::memcpy(dst, src, head);
  dst += head;
  src += head;
  n -= head;
  size_t k = 0;
  for (; k + 64 <= n; k += 64) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + k));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + k + 16));
    __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + k + 32));
    __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + k + 48));
    _mm_stream_si128(reinterpret_cast<__m128i *>(dst + k), a);
    _mm_stream_si128(reinterpret_cast<__m128i *>(dst + k + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i *>(dst + k + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i *>(dst + k + 48), d);
  }
  for (; k + 16 <= n; k += 16)
    _mm_stream_si128(reinterpret_cast<__m128i *>(dst + k),
                     _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + k)));
  std::memcpy(dst + k, src + k, n - k);
#else
  std::memcpy(dst, src, n);
#endif
}

#if defined(__x86_64__)
/// Note [Fold and stream in one pass]: with streaming outputs, folding a 16 KiB chunk
/// into a buffer and then copying the buffer to the G outputs alternates a phase that
/// only reads memory (the fold) with one that only writes it (the copies), each core in
/// turn leaving half of the memory system idle. Instead, each 64-byte line of the slice
/// is folded in registers, in the same member order as fold and from the same +0 (so the
/// same bits, Note [Fold from the identity] in Reduce.h), and
/// written at once to every output with non-temporal stores (each output's line whole,
/// so no write-combining buffer is left partly filled). Sums only, f32 (micro_psum and
/// the gradients' pmean); other types and ops keep the chunked path.
/// `dsts[j] + at * 4` must be 64-byte aligned for every j.
static void foldStreamF32(char *const *dsts, const void *const *srcs, int64_t nsrc, int64_t at,
                          int64_t n) {
  for (int64_t i = at; i < at + n; i += 16) {
    __m128 a0 = _mm_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    for (int64_t j = 0; j < nsrc; ++j) {
      const float *s = static_cast<const float *>(srcs[j]) + i;
      a0 = _mm_add_ps(a0, _mm_loadu_ps(s));
      a1 = _mm_add_ps(a1, _mm_loadu_ps(s + 4));
      a2 = _mm_add_ps(a2, _mm_loadu_ps(s + 8));
      a3 = _mm_add_ps(a3, _mm_loadu_ps(s + 12));
    }
    for (int64_t j = 0; j < nsrc; ++j) {
      float *d = reinterpret_cast<float *>(dsts[j]) + i;
      _mm_stream_ps(d, a0);
      _mm_stream_ps(d + 4, a1);
      _mm_stream_ps(d + 8, a2);
      _mm_stream_ps(d + 12, a3);
    }
  }
}
#endif

/// Orders the streaming stores before what follows (a barrier's atomics).
static void storeFence() {
#if defined(__x86_64__)
  _mm_sfence();
#endif
}

bool CpuCommunicator::allreduce(int64_t dev, const void *in, void *out, int64_t count, DType dt,
                                RedOp op, uint32_t axes, int64_t &bytesMoved) {
  trace::Span span("psum (allreduce)", "collective", trace::kDevicePid, int(dev));
  View v = view(dev, axes);
  int64_t esize = dtypeSize(int32_t(dt)), bytes = count * esize;
  if (count == 0) return !aborted_.load();
  if (v.size == 1) {
    // XLA drops an all-reduce when the program runs on one device (`psum` of -0.0 stays
    // -0.0 there) and keeps one over a group of one device in a larger mesh (+0.0): Note
    // [Fold from the identity] in Reduce.h.
    if (mesh_.size == 1) {
      if (in != out) std::memmove(out, in, size_t(bytes));
    } else {
      reduceInto(out, &in, 1, 0, count, dt, op);
    }
    return !aborted_.load();
  }
  Member &me = members_[dev];
  // What a ring allreduce moves into each device (NCCL's "bus bytes").
  int64_t moved = 2 * (v.size - 1) * bytes / v.size;
  if (bytes <= kMailboxBytes) {
    if (!post(dev, v, in, bytes, uint32_t(v.size))) return false;
    reduceInto(out, me.srcs.data(), v.size, 0, count, dt, op);
    for (int64_t j = 0; j < v.size; ++j) doneReading(me.boxes[j]);
    bytesMoved += moved;
    return true;
  }
  me.src = in;
  me.dst = out;
  if (!sync(*v.barrier, me.spin)) return false;
  // Member `index` alone reads elements [lo, hi) of every input and writes them in every
  // output (Note [Collective protocol]), a chunk at a time through a small buffer that
  // stays in cache: each chunk is folded from all inputs before any output is written,
  // so an input that is its member's output (in place) is read before it is overwritten.
  int64_t lo = count * v.index / v.size, hi = count * (v.index + 1) / v.size;
  me.srcs.resize(v.size);
  for (int64_t j = 0; j < v.size; ++j) me.srcs[j] = members_[v.members[j]].src;
  me.dsts.resize(v.size);
  for (int64_t j = 0; j < v.size; ++j) me.dsts[j] = static_cast<char *>(members_[v.members[j]].dst);
  // Outputs too large to stay in the cache are written past it (Note [Streaming stores]).
  bool stream = bytes * v.size >= streamBytes();
  alignas(64) char chunk[kReduceChunkBytes];
  int64_t step = kReduceChunkBytes / esize;
#if defined(__x86_64__)
  // Whole lines in one pass (Note [Fold and stream in one pass]), the ragged ends below.
  if (stream && dt == DType::F32 && op == RedOp::Sum) {
    auto misalign = [&](int64_t at) {
      return reinterpret_cast<uintptr_t>(me.dsts[0] + at * 4) & 63;
    };
    bool same = true;
    for (int64_t j = 1; j < v.size; ++j)
      same &= (reinterpret_cast<uintptr_t>(me.dsts[j]) & 63) ==
              (reinterpret_cast<uintptr_t>(me.dsts[0]) & 63);
    int64_t first = lo;
    while (first < hi && misalign(first) != 0 && misalign(first) % 4 == 0) ++first;
    int64_t last = first + (hi - first) / 16 * 16;
    if (same && misalign(first) == 0 && last > first) {
      foldStreamF32(me.dsts.data(), me.srcs.data(), v.size, first, last - first);
      // The ragged ends through the chunk, as below.
      for (auto [a, b] : {std::pair{lo, first}, std::pair{last, hi}}) {
        if (a >= b) continue;
        reduceInto(chunk, me.srcs.data(), v.size, a, b - a, dt, op);
        for (int64_t j = 0; j < v.size; ++j)
          std::memcpy(me.dsts[j] + a * esize, chunk, size_t((b - a) * esize));
      }
      storeFence();
      if (!finish(*v.barrier, me.spin)) return false;
      bytesMoved += moved;
      return true;
    }
  }
#endif
  for (int64_t at = lo; at < hi; at += step) {
    int64_t n = std::min(step, hi - at);
    reduceInto(chunk, me.srcs.data(), v.size, at, n, dt, op);
    for (int64_t j = 0; j < v.size; ++j) {
      if (stream)
        streamCopy(me.dsts[j] + at * esize, chunk, size_t(n * esize));
      else
        std::memcpy(me.dsts[j] + at * esize, chunk, size_t(n * esize));
    }
  }
  if (stream) storeFence();  // before B2: others read these outputs after it
  if (!finish(*v.barrier, me.spin)) return false;
  bytesMoved += moved;
  return true;
}

bool CpuCommunicator::allGather(int64_t dev, const void *in, void *out, int64_t bytes,
                                uint32_t axes, int64_t &bytesMoved) {
  trace::Span span("all_gather", "collective", trace::kDevicePid, int(dev));
  View v = view(dev, axes);
  if (v.size == 1) {
    std::memmove(out, in, bytes);
    return !aborted_.load();
  }
  Member &me = members_[dev];
  if (bytes <= kMailboxBytes) {
    if (!post(dev, v, in, bytes, uint32_t(v.size))) return false;
    for (int64_t j = 0; j < v.size; ++j) {
      std::memcpy(static_cast<char *>(out) + j * bytes, me.srcs[j], size_t(bytes));
      doneReading(me.boxes[j]);
    }
    bytesMoved += (v.size - 1) * bytes;
    return true;
  }
  if (!publish(me, in, bytes, out, bytes * v.size)) return false;
  if (!sync(*v.barrier, me.spin)) return false;
  for (int64_t j = 0; j < v.size; ++j)
    std::memcpy(static_cast<char *>(out) + j * bytes, members_[v.members[j]].src, bytes);
  if (!finish(*v.barrier, me.spin)) return false;
  bytesMoved += (v.size - 1) * bytes;
  return true;
}

bool CpuCommunicator::ppermute(int64_t dev, const void *in, void *out, int64_t bytes, uint32_t axes,
                               int32_t npairs, const int32_t *pairs, int64_t &bytesMoved) {
  trace::Span span("ppermute", "collective", trace::kDevicePid, int(dev));
  View v = view(dev, axes);
  int64_t source = -1;
  for (int32_t p = 0; p < npairs; ++p)
    if (pairs[2 * p + 1] == v.index && pairs[2 * p] >= 0 && pairs[2 * p] < v.size)
      source = pairs[2 * p];
  if (v.size == 1) {
    if (source == 0)
      std::memmove(out, in, bytes);
    else
      std::memset(out, 0, bytes);
    return !aborted_.load();
  }
  Member &me = members_[dev];
  if (bytes <= kMailboxBytes) {
    // Every member reads the source of its own destination: count this member's readers.
    me.sources.assign(size_t(v.size), -1);
    for (int32_t p = 0; p < npairs; ++p) {
      int32_t s = pairs[2 * p], t = pairs[2 * p + 1];
      if (s >= 0 && s < v.size && t >= 0 && t < v.size) me.sources[t] = s;
    }
    uint32_t readers = uint32_t(std::count(me.sources.begin(), me.sources.end(), v.index));
    if (!post(dev, v, in, bytes, readers)) return false;
    if (source >= 0) {
      std::memcpy(out, me.srcs[source], size_t(bytes));
      doneReading(me.boxes[source]);
      if (source != v.index) bytesMoved += bytes;
    } else {
      std::memset(out, 0, size_t(bytes));
    }
    return true;
  }
  if (!publish(me, in, bytes, out, bytes)) return false;
  if (!sync(*v.barrier, me.spin)) return false;
  if (source >= 0)
    std::memcpy(out, members_[v.members[source]].src, bytes);
  else
    std::memset(out, 0, bytes);
  if (!finish(*v.barrier, me.spin)) return false;
  if (source >= 0 && source != v.index) bytesMoved += bytes;
  return true;
}

bool CpuCommunicator::allToAll(int64_t dev, const void *in, void *out, int64_t chunkBytes,
                               uint32_t axes, int64_t &bytesMoved) {
  trace::Span span("all_to_all", "collective", trace::kDevicePid, int(dev));
  View v = view(dev, axes);
  if (v.size == 1) {
    std::memmove(out, in, chunkBytes);
    return !aborted_.load();
  }
  Member &me = members_[dev];
  int64_t total = chunkBytes * v.size;
  if (total <= kMailboxBytes) {
    if (!post(dev, v, in, total, uint32_t(v.size))) return false;
    for (int64_t j = 0; j < v.size; ++j) {
      std::memcpy(static_cast<char *>(out) + j * chunkBytes,
                  static_cast<const char *>(me.srcs[j]) + v.index * chunkBytes, size_t(chunkBytes));
      doneReading(me.boxes[j]);
    }
    bytesMoved += (v.size - 1) * chunkBytes;
    return true;
  }
  if (!publish(me, in, total, out, total)) return false;
  if (!sync(*v.barrier, me.spin)) return false;
  for (int64_t j = 0; j < v.size; ++j)
    std::memcpy(static_cast<char *>(out) + j * chunkBytes,
                static_cast<const char *>(members_[v.members[j]].src) + v.index * chunkBytes,
                chunkBytes);
  if (!finish(*v.barrier, me.spin)) return false;
  bytesMoved += (v.size - 1) * chunkBytes;
  return true;
}

bool CpuCommunicator::reduceScatter(int64_t dev, const void *in, void *out, int64_t count, DType dt,
                                    RedOp op, uint32_t axes, int64_t &bytesMoved) {
  trace::Span span("psum_scatter", "collective", trace::kDevicePid, int(dev));
  View v = view(dev, axes);
  int64_t esize = dtypeSize(int32_t(dt));
  if (v.size == 1) {
    const void *src = in;
    reduceInto(out, &src, 1, 0, count, dt, op);
    return !aborted_.load();
  }
  Member &me = members_[dev];
  if (count * esize * v.size <= kMailboxBytes) {
    if (!post(dev, v, in, count * esize * v.size, uint32_t(v.size))) return false;
    reduceInto(out, me.srcs.data(), v.size, count * v.index, count, dt, op);
    for (int64_t j = 0; j < v.size; ++j) doneReading(me.boxes[j]);
    bytesMoved += (v.size - 1) * count * esize;
    return true;
  }
  if (!publish(me, in, count * esize * v.size, out, count * esize)) return false;
  if (!sync(*v.barrier, me.spin)) return false;
  me.srcs.resize(v.size);
  for (int64_t j = 0; j < v.size; ++j) me.srcs[j] = members_[v.members[j]].src;
  reduceInto(out, me.srcs.data(), v.size, count * v.index, count, dt, op);
  if (!finish(*v.barrier, me.spin)) return false;
  bytesMoved += (v.size - 1) * count * esize;
  return true;
}

}  // namespace spmd::rt
