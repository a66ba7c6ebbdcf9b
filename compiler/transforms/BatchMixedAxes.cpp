// ===- BatchMixedAxes.cpp - collectives over the vmap's axis and other axes at once -===//
//
// Note [Mixed axis tuples]: a collective over a tuple of axes works on the product
// axis, linearised row-major in the order the tuple gives (JAX's `axis_index`): for
// `(pre.., v, post..)` with v the vmap's axis of size N, A the product of the sizes
// before v and B after it, the replica (a, j, b) has index L = a*N*B + j*B + b. The
// other axes R = (pre.., post..) name a smaller product axis with index r = a*B + b, on
// which every "device" holds the whole batch j = 0..N-1. Each rule below is one
// collective over R (which the vmap pass of an outer vmap, or the pmap, then handles)
// plus local reshapes and transposes along the batch dimension, so no more data moves
// between replicas than the collective over the product axis itself moves:
//
// - axis_index: L from axis_index(R) and an iota over the batch.
// - all_to_all: split the chunk index as (a, j, b), send chunk (a, ., b) with every
//   example's part for every j in one all_to_all over R, then deal the received blocks
//   out to the examples locally (JAX's batcher does a major and a minor all_to_all).
// - psum_scatter: sum over the batch first, then one reduce_scatter over R whose
//   blocks carry every example's block (j) of the (a, ., b) part.
// - ppermute: each (source, destination) pair becomes a pair (r_s -> r_d) over R and a
//   pair of batch slots (j_s -> j_d). Pairs whose slot pairs share one permutation of R
//   travel together: one ppermute over R of those slots stacked (none when it keeps every
//   value on its replica). A destination slot fed by several such groups picks its value
//   per replica with a select on a static table indexed by axis_index(R).
// - all_gather: one all_gather over R, then a transpose to the order (a, j, b).
#include "transforms/BatchRules.h"

#include <algorithm>
#include <map>
#include <optional>

namespace spmd::transforms::batching {
using namespace ir;

namespace {

/// The parameter naming `names`: one name as a string, several as a tuple.
Param axesParam(const std::vector<std::string> &names) {
  if (names.size() == 1) return Param::ofStr(names[0]);
  std::vector<Param> p;
  for (auto &n : names) p.push_back(Param::ofStr(n));
  return Param::tuple(p);
}

int64_t productOf(const Batcher &bt, const std::vector<std::string> &names) {
  int64_t n = 1;
  for (auto &a : names) n *= bt.sizeOf(a);
  return n;
}

std::vector<int64_t> iotaPerm(size_t n) {
  std::vector<int64_t> p(n);
  for (size_t k = 0; k < n; ++k) p[k] = int64_t(k);
  return p;
}

/// Zeros of `t` with a leading dimension of `n` (keys: the words (0, 0)).
Atom zerosLike(Builder &b, const Type &t, int64_t n) {
  Shape s = prepend(n, t.shape);
  if (t.dtype != DType::Key) return b.fill(t.dtype, s, 0);
  s.push_back(2);
  return b.emit1(Op::RandomWrap, {b.fill(DType::U32, s, 0)});
}

/// x[lo:hi] along dimension 0.
Atom sliceRows(Builder &b, Atom x, int64_t lo, int64_t hi) {
  const Shape &s = x.type().shape;
  if (lo == 0 && hi == s[0]) return x;
  Shape st(s.size(), 0), li = s;
  st[0] = lo;
  li[0] = hi;
  return b.emit1(Op::Slice, {x},
                 {{"start_indices", Param::ints(st)},
                  {"limit_indices", Param::ints(li)},
                  {"strides", Param::none()}});
}

Atom concatRows(Builder &b, const std::vector<Atom> &xs) {
  if (xs.size() == 1) return xs[0];
  return b.emit1(Op::Concatenate, xs, {{"dimension", Param::of(0)}});
}

/// The rows `rows` of x (dimension 0), consecutive runs taken as one slice.
Atom takeRows(Builder &b, Atom x, const std::vector<int64_t> &rows) {
  std::vector<Atom> pieces;
  for (size_t k = 0; k < rows.size();) {
    size_t len = 1;
    while (k + len < rows.size() && rows[k + len] == rows[k] + int64_t(len)) ++len;
    pieces.push_back(sliceRows(b, x, rows[k], rows[k] + int64_t(len)));
    k += len;
  }
  return concatRows(b, pieces);
}

}  // namespace

std::vector<BVal> mixedAxisIndex(Batcher &bt, const Eqn &, const MixedAxes &m) {
  Builder &b = bt.b;
  int64_t N = bt.size, B = productOf(bt, m.post);
  Atom r = b.emit1(Op::AxisIndex, {}, {{"axis_name", axesParam(m.rest())}});  // a*B + b
  Atom base = r;                                                              // a*N*B + b
  if (!m.pre.empty()) {
    if (m.post.empty())
      base = b.binary(Op::Mul, r, b.lit(DType::I32, double(N)));
    else
      base = b.binary(Op::Add,
                      b.binary(Op::Mul, b.binary(Op::Div, r, b.lit(DType::I32, double(B))),
                               b.lit(DType::I32, double(N * B))),
                      b.binary(Op::Rem, r, b.lit(DType::I32, double(B))));
  }
  Atom j = b.emit1(Op::Iota, {},
                   {{"dtype", Param::ofDType(DType::I32)},
                    {"shape", Param::ints({N})},
                    {"dimension", Param::of(0)}});
  if (B != 1) j = b.binary(Op::Mul, j, b.lit(DType::I32, double(B)));
  return {BVal{b.binary(Op::Add, j, b.broadcastInDim(base, {N}, {})), 0}};
}

std::vector<BVal> mixedAllGather(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins,
                                 const MixedAxes &m) {
  Builder &b = bt.b;
  int64_t N = bt.size, A = productOf(bt, m.pre), B = productOf(bt, m.post);
  int d = int(e.intParam("all_gather_dimension"));
  Atom x = bt.moveTo(ins[0], d);  // every example's value, stacked at d
  Params p = e.params;
  p["axis_name"] = axesParam(m.rest());
  p["axis_size"] = Param::of(A * B);
  p["tiled"] = Param::ofBool(false);
  x = b.emit1(Op::AllGather, {x}, p);  // [.., (a, b) at d, j, ..]
  if (B != 1) {                        // [.., a, b, j, ..] -> [.., a, j, b, ..]
    Shape s = x.type().shape;
    s[size_t(d)] = B;
    s.insert(s.begin() + d, A);
    auto perm = iotaPerm(s.size());
    std::swap(perm[size_t(d) + 1], perm[size_t(d) + 2]);
    x = b.transpose(b.reshape(x, s), perm);
  }
  Shape s = bt.exampleType(ins[0]).shape;
  if (e.param("tiled").i)
    s[size_t(d)] *= N * A * B;
  else
    s.insert(s.begin() + d, N * A * B);
  if (x.type().shape != s) x = b.reshape(x, s);
  return {BVal{x, kNotMapped}};
}

std::vector<BVal> mixedAllToAll(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins,
                                const MixedAxes &m) {
  Builder &b = bt.b;
  int64_t N = bt.size, A = productOf(bt, m.pre), B = productOf(bt, m.post), G = A * N * B;
  int sa = int(e.intParam("split_axis")), ca = int(e.intParam("concat_axis"));
  Shape p = bt.exampleType(ins[0]).shape, q = p;
  int r = int(p.size());
  q[size_t(sa)] /= G;  // the chunk
  // [j, .., (a, kj, b, c) at sa, ..]: the chunk index split as (a, kj, b).
  Shape s1{N};
  std::vector<int64_t> pos(static_cast<size_t>(r));
  int64_t apos = 0;
  for (int d = 0; d < r; ++d) {
    if (d == sa) {
      apos = int64_t(s1.size());
      s1.insert(s1.end(), {A, N, B, q[size_t(d)]});
    } else {
      pos[size_t(d)] = int64_t(s1.size());
      s1.push_back(p[size_t(d)]);
    }
  }
  Atom x = b.reshape(bt.at0(ins[0]), s1);
  // [a, b, j, kj, q..]: row (a, b) goes to replica a*B + b of R, with every j and kj.
  std::vector<int64_t> perm{apos, apos + 2, 0, apos + 1};
  for (int d = 0; d < r; ++d) perm.push_back(d == sa ? apos + 3 : pos[size_t(d)]);
  x = b.transpose(x, perm);
  x = b.reshape(x, {A * B, x.type().numel() / (A * B)});
  Params ap = e.params;
  ap["axis_name"] = axesParam(m.rest());
  ap["axis_size"] = Param::of(A * B);
  ap["split_axis"] = Param::of(0);
  ap["concat_axis"] = Param::of(0);
  x = b.emit1(Op::AllToAll, {x}, ap);  // row (a, b): what replica (a, b) of R sent here
  Shape s2{A, B, N, N};
  s2.insert(s2.end(), q.begin(), q.end());
  x = b.reshape(x, s2);
  // Example kj's concat axis holds the senders (a, j, b) in order, each block of q[ca].
  std::vector<int64_t> perm2{3};
  for (int d = 0; d < r; ++d) {
    if (d == ca) perm2.insert(perm2.end(), {0, 2, 1});
    perm2.push_back(4 + d);
  }
  Shape out = q;
  out[size_t(ca)] *= G;
  return {BVal{b.reshape(b.transpose(x, perm2), prepend(N, out)), 0}};
}

std::vector<BVal> mixedReduceScatter(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins,
                                     const MixedAxes &m, Atom total) {
  Builder &b = bt.b;
  int64_t N = bt.size, A = productOf(bt, m.pre), B = productOf(bt, m.post), G = A * N * B;
  int d = int(e.intParam("scatter_dimension"));
  bool tiled = e.param("tiled").i;
  Shape p = bt.exampleType(ins[0]).shape, q = p;
  if (G == 0) {  // a vmap of size 0, untiled (Note [Splitting over an empty axis]): no examples
    Shape s = p;
    s.erase(s.begin() + d);
    return {BVal{b.fill(bt.exampleType(ins[0]).dtype, prepend(0, s), 0), 0}};
  }
  q[size_t(d)] /= G;  // the block (1 when untiled)
  int r = int(p.size());
  // The sum over the batch, its dimension d split as (a, kj, b, c).
  Shape s1 = p;
  s1[size_t(d)] = q[size_t(d)];
  s1.insert(s1.begin() + d, {A, N, B});
  Atom x = b.reshape(total, s1);
  std::vector<int64_t> perm{d, d + 2, d + 1};
  for (int k = 0; k < r; ++k) perm.push_back(k < d ? k : k + 3);
  x = b.transpose(x, perm);  // [a, b, kj, q..]
  Shape s2{A * B, N};
  s2.insert(s2.end(), q.begin(), q.end());
  x = b.reshape(x, s2);
  Params rp = e.params;
  rp["axis_name"] = axesParam(m.rest());
  rp["axis_size"] = Param::of(A * B);
  rp["scatter_dimension"] = Param::of(0);
  rp["tiled"] = Param::ofBool(false);
  x = b.emit1(Op::ReduceScatter, {x}, rp);  // [kj, q..]: example kj's block (a, kj, b)
  if (!tiled) {
    Shape s = p;
    s.erase(s.begin() + d);
    x = b.reshape(x, prepend(N, s));
  }
  return {BVal{x, 0}};
}

std::vector<BVal> mixedPpermute(Batcher &bt, const Eqn &e, const std::vector<BVal> &ins,
                                const MixedAxes &m) {
  Builder &b = bt.b;
  int64_t N = bt.size, A = productOf(bt, m.pre), B = productOf(bt, m.post), RS = A * B;
  if (N == 0) return {BVal{bt.at0(ins[0]), 0}};  // a vmap of size 0: nothing to move
  auto restOf = [&](int64_t L) { return (L / (N * B)) * B + L % B; };
  auto slotOf = [&](int64_t L) { return (L / B) % N; };
  // The pairs over R of each slot pair (j_s, j_d), then the slot pairs of each such permutation.
  using Pairs = std::vector<std::pair<int64_t, int64_t>>;
  std::map<std::pair<int64_t, int64_t>, Pairs> bySlots;
  for (auto &pair : e.param("perm").elems) {
    auto sd = pair.toInts();
    bySlots[{slotOf(sd[0]), slotOf(sd[1])}].push_back({restOf(sd[0]), restOf(sd[1])});
  }
  std::map<Pairs, Pairs> byPerm;
  for (auto &[slots, rp] : bySlots) {
    std::sort(rp.begin(), rp.end());
    byPerm[rp].push_back(slots);
  }
  Atom x = bt.at0(ins[0]);
  Type ex = bt.exampleType(ins[0]);
  struct Group {
    Atom moved;                ///< its slots, stacked in the order of their destination slots
    Pairs recv;                ///< the pairs over R it was moved by
    std::optional<Atom> pred;  ///< bool[]: whether this replica of R receives it
  };
  std::vector<Group> groups;
  struct Piece {
    size_t group;
    int64_t row;  ///< the group's row for this destination slot
  };
  std::vector<std::vector<Piece>> into(static_cast<size_t>(N));
  for (auto &[rp, slots] : byPerm) {
    std::sort(slots.begin(), slots.end(), [](auto &p, auto &q) { return p.second < q.second; });
    std::vector<int64_t> src;
    for (auto &sl : slots) src.push_back(sl.first);
    Atom moved = takeRows(b, x, src);
    bool stays = std::all_of(rp.begin(), rp.end(), [](auto &pr) { return pr.first == pr.second; });
    if (!stays) {
      std::vector<Param> pp;
      for (auto &[s, d] : rp) pp.push_back(Param::tuple({Param::of(s), Param::of(d)}));
      moved = b.emit1(Op::Ppermute, {moved},
                      {{"axis_name", axesParam(m.rest())}, {"perm", Param::tuple(pp)}});
    }
    for (size_t k = 0; k < slots.size(); ++k)
      into[size_t(slots[k].second)].push_back({groups.size(), int64_t(k)});
    groups.push_back({moved, rp, std::nullopt});
  }
  std::optional<Atom> r;  // axis_index(R), made when first needed
  auto predOf = [&](Group &g) {
    if (g.pred) return *g.pred;
    std::vector<Param> table(static_cast<size_t>(RS), Param::of(0));  // 1 where the group arrives
    for (auto &pr : g.recv) table[size_t(pr.second)] = Param::of(1);
    Atom tab = b.emit1(Op::Constant, {},
                       {{"value", Param::list(table)},
                        {"dtype", Param::ofDType(DType::I32)},
                        {"shape", Param::ints({RS})}});
    if (!r) r = b.emit1(Op::AxisIndex, {}, {{"axis_name", axesParam(m.rest())}});
    Atom hit = b.emit1(Op::DynamicSlice, {tab, *r}, {{"slice_sizes", Param::ints({1})}});
    g.pred = b.reshape(b.binary(Op::Ne, hit, b.lit(DType::I32, 0)), {});
    return *g.pred;
  };
  // Runs of destination slots fed alike (the same groups, at consecutive rows) are done
  // at once: the rows of the one group every replica of R receives, or a select per
  // replica of R among the groups' rows (zeros where none arrives).
  std::vector<Atom> pieces;
  for (int64_t jd = 0; jd < N;) {
    auto &ps = into[size_t(jd)];
    int64_t len = 1;
    auto alike = [&](const std::vector<Piece> &qs) {
      if (qs.size() != ps.size()) return false;
      for (size_t c = 0; c < ps.size(); ++c)
        if (qs[c].group != ps[c].group || qs[c].row != ps[c].row + len) return false;
      return true;
    };
    while (jd + len < N && alike(into[size_t(jd + len)])) ++len;
    if (ps.size() == 1 && int64_t(groups[ps[0].group].recv.size()) == RS) {
      pieces.push_back(sliceRows(b, groups[ps[0].group].moved, ps[0].row, ps[0].row + len));
    } else {
      // When the groups reach every replica of R between them, the first is the default.
      int64_t reached = 0;
      for (auto &pc : ps) reached += int64_t(groups[pc.group].recv.size());
      bool covered = !ps.empty() && reached == RS;
      Atom acc = covered ? sliceRows(b, groups[ps[0].group].moved, ps[0].row, ps[0].row + len)
                         : zerosLike(b, ex, len);
      for (size_t c = covered ? 1 : 0; c < ps.size(); ++c) {
        const Piece &pc = ps[c];
        Group &g = groups[pc.group];
        Atom pred = b.broadcastInDim(predOf(g), prepend(len, ex.shape), {});
        acc = b.emit1(Op::Select, {pred, acc, sliceRows(b, g.moved, pc.row, pc.row + len)});
      }
      pieces.push_back(acc);
    }
    jd += len;
  }
  return {BVal{concatRows(b, pieces), 0}};
}

}  // namespace spmd::transforms::batching
