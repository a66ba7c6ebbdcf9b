// ===- MpiCommunicator.cpp - collectives between devices of several processes -===//
#include "mpi/MpiCommunicator.h"

#include "Settings.h"
#include "Trace.h"
#include "cpu/Reduce.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace spmd::rt {

// Note [Cross-process collectives]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Rank r owns devices r*K .. r*K+K-1, and a group's members are ordered row-major over
// its axes, which keeps the order of flat indices; so the members of a group on one rank
// are a contiguous run of the group, and the runs come in rank order (segLo).
//
// A collective of a group that spans processes runs in three steps:
//   1. the local members publish their buffers in the group's Slot and wait; the last
//      to arrive becomes the leader (no member is released by an abort once the leader
//      has started: it reads their buffers);
//   2. the leader moves the data with nonblocking MPI on the group's communicator (made
//      once per mesh with MPI_Comm_create_group), polling under the deadline of
//      --collective-timeout and for abort notices from other ranks;
//   3. it writes every local member's output and releases them.
//
// Reductions keep the single-process order exactly: the CPU communicator computes
// ((x0 op x1) op x2) ... in group order, so here rank 0 of the group folds its members
// into a partial, sends it to rank 1, which folds its own members onto it, and so on
// (chained, a 1 MiB chunk at a time so that the ranks work in a pipeline); the last
// rank broadcasts the result (psum) or sends each rank its chunks (psum_scatter).
// MPI_Allreduce is never used: its order is unspecified, so its bits could differ.
// all_gather is one broadcast per rank of its members' inputs; all_to_all and ppermute
// are point-to-point messages, matched in the order they are posted (MPI keeps the order
// of messages between two ranks on one communicator and tag).
//
// Every buffer MPI reads or writes belongs to the Slot, not to a device, so a message
// still in flight when a launch is aborted cannot write into a device's freed memory.

namespace {
constexpr int64_t kChunkBytes = int64_t(1) << 20;
constexpr int kAbortTag = 7;
constexpr int kDataTag = 1;
}  // namespace

const char *collectiveName(CollectiveKind k) {
  switch (k) {
  case CollectiveKind::Psum: return "psum";
  case CollectiveKind::AllGather: return "all_gather";
  case CollectiveKind::Ppermute: return "ppermute";
  case CollectiveKind::AllToAll: return "all_to_all";
  case CollectiveKind::PsumScatter: return "psum_scatter";
  case CollectiveKind::Count: break;
  }
  return "?";
}

MpiCommunicator::MpiCommunicator(int rank, int ranks, int perRank, MpiCollectiveStats *stats,
                                 Communicator *local, GpuLink *gpu)
    : rank_(rank), ranks_(ranks), perRank_(perRank), stats_(stats),
      ownLocal_(local ? nullptr : std::make_unique<CpuCommunicator>(ranks * perRank)),
      local_(local ? local : ownLocal_.get()), gpu_(gpu) {
  const mpi::Api &a = mpi::api();
  a.Comm_dup(a.world, &abortComm_);
}

MpiCommunicator::~MpiCommunicator() = default;

void MpiCommunicator::setLaunch(const char *name, uint64_t seq, ErrorState *errors) {
  launch_ = name ? name : "a launch";
  seq_.store(seq);
  errors_ = errors;
  notified_.store(false);
}

MpiCommunicator::MeshState MpiCommunicator::makeMeshState(const Mesh &mesh) {
  const mpi::Api &a = mpi::api();
  MeshState st;
  for (int m = 0; m < mesh.rank; ++m)
    if (mesh.shape[m] > 1) st.live |= 1u << m;
  st.slots.resize(size_t(1) << mesh.rank);
  mpi::Group world = nullptr;
  a.Comm_group(a.world, &world);
  // SPMD_MPI_ALL_GROUPS=1 (for tests): every group of more than one member takes the
  // cross-process path, even inside one process, so that `mpirun -np 1` exercises it.
  size_t minRanks = settings::flag(settings::Id::MpiAllGroups) ? 1 : 2;
  // Every rank walks the groups in the same order and joins the communicators of those it
  // has members in: MPI_Comm_create_group is collective over the group's ranks only, and
  // a common order keeps those calls from waiting on each other in a cycle.
  for (uint32_t mask = 0; mask < st.slots.size(); ++mask) {
    if ((mask & st.live) != mask) continue;  // same groups as mask & live
    int64_t gsize = groupOf(mesh, 0, mask).size;
    int64_t groups = mesh.size / gsize;
    st.slots[mask].resize(groups);
    for (int64_t id = 0; id < groups; ++id) {
      std::vector<int> ranks;
      std::vector<int64_t> segLo;
      for (int64_t i = 0; i < gsize; ++i) {
        int r = int(memberOf(mesh, mask, id, i) / perRank_);
        if (ranks.empty() || ranks.back() != r) {
          ranks.push_back(r);
          segLo.push_back(i);
        }
      }
      segLo.push_back(gsize);
      if (ranks.size() < minRanks || gsize < 2) continue;
      // Collective over every rank when NCCL is up (ncclCommSplit), hence before the
      // test of membership.
      std::unique_ptr<GroupLink> link = gpu_ ? gpu_->makeGroup(ranks) : nullptr;
      auto me = std::find(ranks.begin(), ranks.end(), rank_);
      if (me == ranks.end()) continue;
      auto s = std::make_unique<Slot>();
      s->ranks = ranks;
      s->segLo = segLo;
      s->me = int(me - ranks.begin());
      s->size = gsize;
      s->localCount = segLo[s->me + 1] - segLo[s->me];
      s->pub.resize(s->localCount);
      s->link = std::move(link);
      mpi::Group g = nullptr;
      a.Group_incl(world, int(ranks.size()), ranks.data(), &g);
      a.Comm_create_group(a.world, g, 0, &s->comm);
      a.Group_free(&g);
      st.slots[mask][id] = std::move(s);
    }
  }
  a.Group_free(&world);
  return st;
}

void MpiCommunicator::begin(const Mesh &mesh) {
  aborted_.store(false);
  local_->begin(mesh);
  mesh_ = mesh;
  std::vector<int64_t> key(mesh.shape.begin(), mesh.shape.begin() + mesh.rank);
  auto it = meshes_.find(key);
  if (it == meshes_.end()) it = meshes_.emplace(key, makeMeshState(mesh)).first;
  cur_ = &it->second;
  for (auto &groups : cur_->slots)
    for (auto &s : groups)
      if (s) {
        std::lock_guard<std::mutex> lock(s->mu);
        s->arrived = 0;
        s->leading = false;
      }
}

void MpiCommunicator::abort() {
  aborted_.store(true);
  local_->abort();
  if (cur_)
    for (auto &groups : cur_->slots)
      for (auto &s : groups)
        if (s) {
          std::lock_guard<std::mutex> lock(s->mu);
          s->cv.notify_all();
        }
  // Tell the other ranks once per launch (a remote abort does not come back here).
  if (notified_.exchange(true)) return;
  const mpi::Api &a = mpi::api();
  static thread_local uint64_t payload;
  payload = seq_.load();
  for (int r = 0; r < ranks_; ++r) {
    if (r == rank_) continue;
    mpi::Request req = nullptr;
    a.Isend(&payload, 8, a.byte, r, kAbortTag, abortComm_, &req);
    a.Request_free(&req);
  }
}

bool MpiCommunicator::stopped() {
  if (aborted_.load()) return true;
  std::unique_lock<std::mutex> lock(probeMu_, std::try_to_lock);
  if (!lock.owns_lock()) return aborted_.load();
  const mpi::Api &a = mpi::api();
  int flag = 0;
  mpi::Message msg = nullptr;
  mpi::Status st;
  a.Improbe(-1 /* MPI_ANY_SOURCE */, kAbortTag, abortComm_, &flag, &msg, &st);
  if (!flag) return false;
  uint64_t seq = 0;
  a.Mrecv(&seq, 8, a.byte, &msg, &st);
  if (seq != seq_.load()) return false;  // a stale notice (cannot happen: runs end on abort)
  // A device of rank st.source failed; its error reaches every rank at the end of the
  // launch. Record a placeholder that any real error of this rank's devices replaces
  // (they have lower indices), so the devices released now record nothing of their own.
  if (errors_) errors_->recordFromDevice("aborted by rank " + std::to_string(st.source), INT64_MAX);
  notified_.store(true);
  abort();
  return true;
}

bool MpiCommunicator::wait(std::vector<mpi::Request> &reqs, const char *what,
                           const std::string &whom) {
  std::string w = std::string(what) + " in " + launch_;
  return mpi::waitAll(reqs, {w.c_str(), whom}, [this] { return stopped(); });
}

std::string MpiCommunicator::rankName(const Slot &s, int i) const {
  return "rank " + std::to_string(s.ranks[i]);
}

int MpiCommunicator::rankOfMember(const Slot &s, int64_t gi) const {
  return int(std::upper_bound(s.segLo.begin(), s.segLo.end(), gi) - s.segLo.begin()) - 1;
}

MpiCommunicator::Slot *MpiCommunicator::slotOf(int64_t dev, uint32_t axes, int64_t &li) {
  uint32_t mask = axes & ((1u << mesh_.rank) - 1) & cur_->live;
  Group g = groupOf(mesh_, dev, mask);
  Slot *s = cur_->slots[mask].empty() ? nullptr : cur_->slots[mask][g.id].get();
  if (s) li = g.index - s->segLo[s->me];
  return s;
}

MpiCommunicator::Role MpiCommunicator::arrive(Slot &s, int64_t li, Published p) {
  std::unique_lock<std::mutex> lock(s.mu);
  if (aborted_.load()) return Role::Aborted;
  s.pub[li] = p;
  uint64_t gen = s.generation;
  if (++s.arrived == s.localCount) {
    s.arrived = 0;
    s.leading = true;
    return Role::Leader;
  }
  for (;;) {
    s.cv.wait(lock);
    if (s.generation != gen) return s.lastOk ? Role::Done : Role::Aborted;
    if (aborted_.load() && !s.leading) {  // the round never completes: withdraw
      --s.arrived;
      return Role::Aborted;
    }
  }
}

void MpiCommunicator::release(Slot &s, bool ok) {
  std::lock_guard<std::mutex> lock(s.mu);
  s.leading = false;
  s.lastOk = ok;
  ++s.generation;
  s.cv.notify_all();
}

void MpiCommunicator::tally(CollectiveKind k, int64_t within, int64_t across) {
  MpiCollectiveStats &st = stats_[int(k)];
  st.calls.fetch_add(1, std::memory_order_relaxed);
  st.within.fetch_add(within, std::memory_order_relaxed);
  st.across.fetch_add(across, std::memory_order_relaxed);
}

static void tooLarge(const char *what, int64_t bytes) {
  mpi::fatal(std::string(what) + ": a message of " + std::to_string(bytes) +
             " bytes between processes is over MPI's 2 GiB limit");
}

bool MpiCommunicator::chainFold(Slot &s, const std::vector<const char *> &srcs, int64_t count,
                                DType dt, RedOp op, const char *what, int64_t &across) {
  const mpi::Api &a = mpi::api();
  int64_t esize = dtypeSize(int32_t(dt));
  s.a.resize(size_t(std::max<int64_t>(count * esize, 1)));
  char *acc = s.a.data();
  int64_t step = std::max<int64_t>(1, kChunkBytes / esize);
  int64_t chunks = (count + step - 1) / step;
  bool first = s.me == 0, last = s.me + 1 == int(s.ranks.size());
  // Receives from the previous rank, all posted at once (they match in order).
  std::vector<mpi::Request> recvs(first ? 0 : chunks), sends;
  for (int64_t c = 0; c < int64_t(recvs.size()); ++c) {
    int64_t at = c * step, n = std::min(step, count - at);
    a.Irecv(acc + at * esize, int(n * esize), a.byte, s.me - 1, kDataTag, s.comm, &recvs[c]);
  }
  std::vector<const void *> from(srcs.size() + 1);
  for (int64_t c = 0; c < chunks; ++c) {
    int64_t at = c * step, n = std::min(step, count - at);
    size_t k = 0;
    if (!first) {
      std::vector<mpi::Request> one{recvs[c]};
      if (!wait(one, what, rankName(s, s.me - 1))) return false;
      recvs[c] = one[0];
      across += n * esize;
      from[k++] = acc + at * esize;
    }
    for (const char *p : srcs) from[k++] = p + at * esize;
    reduceInto(acc + at * esize, from.data(), int64_t(k), 0, n, dt, op);
    if (!last) {
      sends.emplace_back();
      a.Isend(acc + at * esize, int(n * esize), a.byte, s.me + 1, kDataTag, s.comm, &sends.back());
    }
  }
  return wait(sends, what, rankName(s, last ? s.me : s.me + 1));
}

/// Broadcasts `bytes` at `p` from `root` of `comm` in pieces MPI's int counts can hold.
static void bcastBytes(mpi::Comm comm, char *p, int64_t bytes, int root,
                       std::vector<mpi::Request> &reqs) {
  const mpi::Api &a = mpi::api();
  constexpr int64_t kPiece = int64_t(1) << 30;
  for (int64_t at = 0; at < bytes; at += kPiece) {
    reqs.emplace_back();
    a.Ibcast(p + at, int(std::min(kPiece, bytes - at)), a.byte, root, comm, &reqs.back());
  }
}

static std::string allRanks(const std::vector<int> &ranks, int except) {
  std::string s;
  for (int r : ranks)
    if (r != except) s += (s.empty() ? "rank " : ", ") + std::to_string(r);
  return s;
}

bool MpiCommunicator::leadAllreduce(Slot &s, int64_t count, DType dt, RedOp op, int64_t &across) {
  int64_t esize = dtypeSize(int32_t(dt));
  std::vector<const char *> srcs;
  // Every input is read (into s.a) before any output is written: `in` may be `out`.
  for (auto &p : s.pub) srcs.push_back(static_cast<const char *>(p.in));
  if (!chainFold(s, srcs, count, dt, op, "psum", across)) return false;
  std::vector<mpi::Request> reqs;
  int root = int(s.ranks.size()) - 1;
  bcastBytes(s.comm, s.a.data(), count * esize, root, reqs);
  if (!wait(reqs, "psum", rankName(s, root))) return false;
  if (s.me != root) across += count * esize;
  for (auto &p : s.pub) std::memcpy(p.out, s.a.data(), size_t(count * esize));
  return true;
}

bool MpiCommunicator::leadAllGather(Slot &s, int64_t bytes, int64_t &across) {
  s.a.resize(size_t(std::max<int64_t>(s.size * bytes, 1)));
  char *full = s.a.data();
  int64_t lo = s.segLo[s.me];
  for (int64_t j = 0; j < s.localCount; ++j)
    std::memcpy(full + (lo + j) * bytes, s.pub[j].in, size_t(bytes));
  std::vector<mpi::Request> reqs;
  for (int r = 0; r < int(s.ranks.size()); ++r) {
    int64_t n = (s.segLo[r + 1] - s.segLo[r]) * bytes;
    bcastBytes(s.comm, full + s.segLo[r] * bytes, n, r, reqs);
    if (r != s.me) across += n;
  }
  if (!wait(reqs, "all_gather", allRanks(s.ranks, rank_))) return false;
  for (auto &p : s.pub) std::memcpy(p.out, full, size_t(s.size * bytes));
  return true;
}

/// The source of each destination of a ppermute over `size` members: the last pair
/// naming it wins (as on one process), -1 where none does (zeros).
static std::vector<int64_t> sourcesOf(int64_t size, int32_t npairs, const int32_t *pairs) {
  std::vector<int64_t> source(size, -1);
  for (int32_t p = 0; p < npairs; ++p)
    if (pairs[2 * p + 1] >= 0 && pairs[2 * p + 1] < size && pairs[2 * p] >= 0 &&
        pairs[2 * p] < size)
      source[pairs[2 * p + 1]] = pairs[2 * p];
  return source;
}

bool MpiCommunicator::leadPpermute(Slot &s, int64_t bytes, const std::vector<int64_t> &source,
                                   int64_t &across) {
  const mpi::Api &a = mpi::api();
  if (bytes > INT_MAX) tooLarge("ppermute", bytes);
  int64_t lo = s.segLo[s.me], hi = s.segLo[s.me + 1];
  s.a.resize(size_t(std::max<int64_t>(s.localCount * bytes, 1)));  // staged inputs
  s.b.resize(size_t(std::max<int64_t>(s.localCount * bytes, 1)));  // received
  for (int64_t j = 0; j < s.localCount; ++j)
    std::memcpy(s.a.data() + j * bytes, s.pub[j].in, size_t(bytes));
  std::vector<mpi::Request> reqs;
  for (int64_t d = 0; d < s.size; ++d) {  // ascending destinations on both sides
    int64_t src = source[d];
    if (src < 0) continue;
    bool dLocal = d >= lo && d < hi, sLocal = src >= lo && src < hi;
    if (dLocal && !sLocal) {
      reqs.emplace_back();
      a.Irecv(s.b.data() + (d - lo) * bytes, int(bytes), a.byte, rankOfMember(s, src), kDataTag,
              s.comm, &reqs.back());
      across += bytes;
    } else if (sLocal && !dLocal) {
      reqs.emplace_back();
      a.Isend(s.a.data() + (src - lo) * bytes, int(bytes), a.byte, rankOfMember(s, d), kDataTag,
              s.comm, &reqs.back());
    }
  }
  if (!wait(reqs, "ppermute", allRanks(s.ranks, rank_))) return false;
  for (int64_t d = lo; d < hi; ++d) {
    void *out = s.pub[d - lo].out;
    int64_t src = source[d];
    if (src < 0)
      std::memset(out, 0, size_t(bytes));
    else if (src >= lo && src < hi)
      std::memcpy(out, s.a.data() + (src - lo) * bytes, size_t(bytes));
    else
      std::memcpy(out, s.b.data() + (d - lo) * bytes, size_t(bytes));
  }
  return true;
}

bool MpiCommunicator::leadAllToAll(Slot &s, int64_t c, int64_t &across) {
  const mpi::Api &a = mpi::api();
  int64_t L = s.localCount, G = s.size, lo = s.segLo[s.me];
  int R = int(s.ranks.size());
  // a: the local inputs (L x G chunks); b: what goes to each rank, c: what comes from it,
  // both packed [rank's members][this rank's members] in group order.
  s.a.resize(size_t(std::max<int64_t>(L * G * c, 1)));
  for (int64_t j = 0; j < L; ++j) std::memcpy(s.a.data() + j * G * c, s.pub[j].in, size_t(G * c));
  int64_t remote = G - L;
  s.b.resize(size_t(std::max<int64_t>(L * remote * c, 1)));
  s.c.resize(size_t(std::max<int64_t>(L * remote * c, 1)));
  std::vector<int64_t> offset(R, 0);
  for (int r = 0, at = 0; r < R; ++r) {
    offset[r] = at;
    if (r != s.me) at += int(s.segLo[r + 1] - s.segLo[r]);
  }
  std::vector<mpi::Request> reqs;
  for (int r = 0; r < R; ++r) {
    if (r == s.me) continue;
    int64_t n = s.segLo[r + 1] - s.segLo[r];
    char *send = s.b.data() + offset[r] * L * c, *recv = s.c.data() + offset[r] * L * c;
    for (int64_t j = 0; j < L; ++j)
      for (int64_t i = 0; i < n; ++i)
        std::memcpy(send + (j * n + i) * c, s.a.data() + (j * G + s.segLo[r] + i) * c, size_t(c));
    if (n * L * c > INT_MAX) tooLarge("all_to_all", n * L * c);
    reqs.emplace_back();
    a.Irecv(recv, int(n * L * c), a.byte, r, kDataTag, s.comm, &reqs.back());
    reqs.emplace_back();
    a.Isend(send, int(n * L * c), a.byte, r, kDataTag, s.comm, &reqs.back());
    across += n * L * c;
  }
  if (!wait(reqs, "all_to_all", allRanks(s.ranks, rank_))) return false;
  for (int64_t j = 0; j < L; ++j) {
    char *out = static_cast<char *>(s.pub[j].out);
    for (int64_t i = 0; i < G; ++i) {
      int r = rankOfMember(s, i);
      const char *src = r == s.me ? s.a.data() + ((i - lo) * G + lo + j) * c
                                  : s.c.data() + (offset[r] * L + (i - s.segLo[r]) * L + j) * c;
      std::memcpy(out + i * c, src, size_t(c));
    }
  }
  return true;
}

bool MpiCommunicator::leadReduceScatter(Slot &s, int64_t count, DType dt, RedOp op,
                                        int64_t &across) {
  const mpi::Api &a = mpi::api();
  int64_t esize = dtypeSize(int32_t(dt));
  std::vector<const char *> srcs;
  for (auto &p : s.pub) srcs.push_back(static_cast<const char *>(p.in));
  if (!chainFold(s, srcs, s.size * count, dt, op, "psum_scatter", across)) return false;
  // The last rank holds every chunk; each rank gets its members' chunks.
  int R = int(s.ranks.size()), root = R - 1;
  std::vector<mpi::Request> reqs;
  for (int r = 0; r < R - 1; ++r) {
    if (r != s.me && s.me != root) continue;
    int64_t bytes = (s.segLo[r + 1] - s.segLo[r]) * count * esize;
    if (bytes > INT_MAX) tooLarge("psum_scatter", bytes);
    char *p = s.a.data() + s.segLo[r] * count * esize;
    reqs.emplace_back();
    if (s.me == root)
      a.Isend(p, int(bytes), a.byte, r, kDataTag, s.comm, &reqs.back());
    else {
      a.Irecv(p, int(bytes), a.byte, root, kDataTag, s.comm, &reqs.back());
      across += bytes;
    }
  }
  if (!wait(reqs, "psum_scatter", rankName(s, root))) return false;
  for (int64_t j = 0; j < s.localCount; ++j)
    std::memcpy(s.pub[j].out, s.a.data() + (s.segLo[s.me] + j) * count * esize,
                size_t(count * esize));
  return true;
}

// The entry points: groups inside this process go to the local communicator; the others
// meet locally, and the last member to arrive leads the exchange between processes.
// `within` is what each device receives from the other members of its process, by the
// same formula as the CPU communicator's bytesMoved.

template <typename Lead>
bool MpiCommunicator::meet(Slot &s, int64_t dev, int64_t li, const void *in, int64_t inBytes,
                           void *out, int64_t outBytes, bool direct, Lead lead) {
  Published p{in, out};
  if (gpu_ && direct) {
    if (!gpu_->settle(dev)) return false;
  } else if (gpu_) {
    p.in = gpu_->stageIn(dev, in, inBytes);
    p.out = p.in ? gpu_->stageOut(dev, outBytes) : nullptr;
    if (!p.out) return false;
  }
  Role role = arrive(s, li, p);
  if (role == Role::Leader) {
    bool ok = lead();
    release(s, ok);
    role = ok ? Role::Done : Role::Aborted;
  }
  if (role == Role::Aborted) return false;
  if (gpu_ && !direct) return gpu_->unstage(dev, out, outBytes);
  return true;
}

LinkGroup MpiCommunicator::linkGroup(Slot &s, const char *what, std::string &whatText) {
  whatText = std::string(what) + " in " + launch_;
  LinkGroup g{s.segLo, s.me, s.size, {}, {}, whatText.c_str(), [this] { return stopped(); }};
  for (auto &p : s.pub) {
    g.ins.push_back(p.in);
    g.outs.push_back(p.out);
  }
  return g;
}

bool MpiCommunicator::inProcess(CollectiveKind k, int64_t &bytesMoved,
                                const std::function<bool()> &call) {
  int64_t before = bytesMoved;
  bool ok = call();
  tally(k, bytesMoved - before, 0);
  return ok;
}

bool MpiCommunicator::acrossProcesses(CollectiveKind k, Slot &s, int64_t dev, int64_t li,
                                      const void *in, int64_t inBytes, void *out,
                                      int64_t outBytes, const MpiLead &viaMpi,
                                      const LinkLead &viaLink) {
  trace::Span span(std::string(collectiveName(k)) + " (across processes)", "collective",
                   trace::kDevicePid, int(dev));
  bool direct = viaLink && s.link;
  return meet(s, dev, li, in, inBytes, out, outBytes, direct, [&] {
    int64_t across = 0;
    std::string w;
    bool ok =
        direct ? viaLink(*s.link, linkGroup(s, collectiveName(k), w), across) : viaMpi(across);
    stats_[int(k)].across.fetch_add(across, std::memory_order_relaxed);
    return ok;
  });
}

bool MpiCommunicator::allreduce(int64_t dev, const void *in, void *out, int64_t count, DType dt,
                                RedOp op, uint32_t axes, int64_t &bytesMoved) {
  int64_t li = 0;
  Slot *s = slotOf(dev, axes, li);
  if (!s)
    return inProcess(CollectiveKind::Psum, bytesMoved, [&] {
      return local_->allreduce(dev, in, out, count, dt, op, axes, bytesMoved);
    });
  int64_t esize = dtypeSize(int32_t(dt));
  // Always through host memory: the chain keeps replica order (Note [GPUs across processes]).
  if (!acrossProcesses(CollectiveKind::Psum, *s, dev, li, in, count * esize, out, count * esize,
                       [&](int64_t &across) {
                         return count == 0 || leadAllreduce(*s, count, dt, op, across);
                       }))
    return false;
  bytesMoved += 2 * (s->size - 1) * count * esize / s->size;
  tally(CollectiveKind::Psum, 2 * (s->localCount - 1) * count * esize / s->size, 0);
  return true;
}

bool MpiCommunicator::allGather(int64_t dev, const void *in, void *out, int64_t bytes,
                                uint32_t axes, int64_t &bytesMoved) {
  int64_t li = 0;
  Slot *s = slotOf(dev, axes, li);
  if (!s)
    return inProcess(CollectiveKind::AllGather, bytesMoved, [&] {
      return local_->allGather(dev, in, out, bytes, axes, bytesMoved);
    });
  if (!acrossProcesses(
          CollectiveKind::AllGather, *s, dev, li, in, bytes, out, s->size * bytes,
          [&](int64_t &across) { return leadAllGather(*s, bytes, across); },
          [&](GroupLink &l, const LinkGroup &g, int64_t &across) {
            return l.allGather(g, bytes, across);
          }))
    return false;
  bytesMoved += (s->size - 1) * bytes;
  tally(CollectiveKind::AllGather, (s->localCount - 1) * bytes, 0);
  return true;
}

bool MpiCommunicator::ppermute(int64_t dev, const void *in, void *out, int64_t bytes, uint32_t axes,
                               int32_t npairs, const int32_t *pairs, int64_t &bytesMoved) {
  int64_t li = 0;
  Slot *s = slotOf(dev, axes, li);
  if (!s)
    return inProcess(CollectiveKind::Ppermute, bytesMoved, [&] {
      return local_->ppermute(dev, in, out, bytes, axes, npairs, pairs, bytesMoved);
    });
  std::vector<int64_t> source = sourcesOf(s->size, npairs, pairs);
  if (!acrossProcesses(
          CollectiveKind::Ppermute, *s, dev, li, in, bytes, out, bytes,
          [&](int64_t &across) { return leadPpermute(*s, bytes, source, across); },
          [&](GroupLink &l, const LinkGroup &g, int64_t &across) {
            return l.ppermute(g, bytes, source, across);
          }))
    return false;
  int64_t me = s->segLo[s->me] + li, from = source[me];
  if (from >= 0 && from != me) {
    bytesMoved += bytes;
    bool local = from >= s->segLo[s->me] && from < s->segLo[s->me + 1];
    tally(CollectiveKind::Ppermute, local ? bytes : 0, 0);
  } else {
    tally(CollectiveKind::Ppermute, 0, 0);
  }
  return true;
}

bool MpiCommunicator::allToAll(int64_t dev, const void *in, void *out, int64_t chunkBytes,
                               uint32_t axes, int64_t &bytesMoved) {
  int64_t li = 0;
  Slot *s = slotOf(dev, axes, li);
  if (!s)
    return inProcess(CollectiveKind::AllToAll, bytesMoved, [&] {
      return local_->allToAll(dev, in, out, chunkBytes, axes, bytesMoved);
    });
  int64_t total = s->size * chunkBytes;
  if (!acrossProcesses(
          CollectiveKind::AllToAll, *s, dev, li, in, total, out, total,
          [&](int64_t &across) { return leadAllToAll(*s, chunkBytes, across); },
          [&](GroupLink &l, const LinkGroup &g, int64_t &across) {
            return l.allToAll(g, chunkBytes, across);
          }))
    return false;
  bytesMoved += (s->size - 1) * chunkBytes;
  tally(CollectiveKind::AllToAll, (s->localCount - 1) * chunkBytes, 0);
  return true;
}

bool MpiCommunicator::reduceScatter(int64_t dev, const void *in, void *out, int64_t count_,
                                    DType dt, RedOp op, uint32_t axes, int64_t &bytesMoved) {
  int64_t li = 0;
  Slot *s = slotOf(dev, axes, li);
  if (!s)
    return inProcess(CollectiveKind::PsumScatter, bytesMoved, [&] {
      return local_->reduceScatter(dev, in, out, count_, dt, op, axes, bytesMoved);
    });
  int64_t esize = dtypeSize(int32_t(dt));
  if (!acrossProcesses(CollectiveKind::PsumScatter, *s, dev, li, in, s->size * count_ * esize, out,
                       count_ * esize, [&](int64_t &across) {
                         return leadReduceScatter(*s, count_, dt, op, across);
                       }))
    return false;
  bytesMoved += (s->size - 1) * count_ * esize;
  tally(CollectiveKind::PsumScatter, (s->localCount - 1) * count_ * esize, 0);
  return true;
}

}  // namespace spmd::rt
