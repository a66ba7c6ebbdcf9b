// ===- BuiltinsRandom.cpp - random numbers -----------------------------------------===//
//
// JAX's PRNG: keys, split, fold_in, uniform, normal, bernoulli, randint (threefry2x32;
// see docs/prng.md).
#include "sema/BuiltinTable.h"

#include "Threefry2x32.h"
#include <cmath>

namespace spmd::sema::builtins {

// ---- random numbers (JAX's threefry2x32; see docs/prng.md) ---------------------------------

/// The key argument of a random function. As in jax.random, every one but key_data takes
/// a single key (a key array is mapped with vmap); `single` is false for key_data.
Atom keyArg(AstLowering &L, const ArgV &a, const char *fn, bool single = true) {
  ValueP v = a.value;
  if (v->kind != Value::Array || v->type().dtype != DType::Key)
    userError(a.loc,
              std::string(fn) + "() needs a key (from key(seed) or split), not a " + describe(*v));
  if (single && v->type().rank() != 0)
    userError(
        a.loc, std::string(fn) + "() needs a single key, not " + v->type().str(),
        {{SrcRange{}, std::string("as in JAX, map it over a batch of keys: vmap (k in keys) { ") +
                          fn + "(k, ...) }"}});
  return v->atom;
}

/// JAX's `_random_bits` then the float construction of `uniform` for f32:
/// bits >> 9 | 0x3F800000, bitcast to f32, minus 1 -> [0, 1), scaled to [lo, hi).
/// lo and hi are f32 literals, or f32 arrays of the result's shape (run-time bounds).
Atom uniformBits(AstLowering &L, Atom key, const ir::Shape &shape, Atom lo, Atom hi) {
  Atom bits =
      L.emit1(Op::RandomBits, {key}, {{"bit_width", Param::of(32)}, {"shape", Param::ints(shape)}});
  Atom sh = L.emit1(Op::ShiftRightLogical, {bits, L.b().lit(DType::U32, 9)});
  Atom ored = L.emit1(Op::Or, {sh, L.b().lit(DType::U32, 0x3F800000)});
  Atom fl = L.emit1(Op::BitcastConvert, {ored}, {{"new_dtype", Param::ofDType(DType::F32)}});
  Atom f = L.emit1(Op::Sub, {fl, L.b().lit(DType::F32, 1.0)});
  // Note [Uniform's bounds]
  // hi - lo in f32, as JAX computes maxval - minval: at the bounds' own (broadcast) shape,
  // and each use of a bound broadcast on its own, as in jax.random's _uniform. The values
  // are the same either way; the gradient with respect to a bound is not: JAX sums each
  // use's cotangent over the broadcast, then adds the sums (max's, the add's, then minus
  // the span's), where one broadcast shared by the three would add per element first and
  // sum once (`grad(fn (lo) = sum(uniform(k, [4], lo, 2.0) ** 2))`, which cancels, was
  // 20 ulp off).
  Atom span;
  if (lo.isLit && hi.isLit) {
    span = L.b().lit(DType::F32, float(hi.lit.f) - float(lo.lit.f));
  } else {
    const ir::Shape &ls = lo.type().shape, &hs = hi.type().shape;
    ir::Shape bs(std::max(ls.size(), hs.size()), 1);
    for (size_t k = 0; k < bs.size(); ++k) {
      int64_t a = k < bs.size() - ls.size() ? 1 : ls[k - (bs.size() - ls.size())];
      int64_t b = k < bs.size() - hs.size() ? 1 : hs[k - (bs.size() - hs.size())];
      bs[k] = std::max(a, b);
    }
    span = L.emit1(Op::Sub, {L.broadcast(hi, bs), L.broadcast(lo, bs)});
    span = L.broadcast(span, shape);
  }
  // f * (hi - lo) + lo with one rounding: XLA fuses this multiply-add (docs/prng.md).
  Atom scaled = L.emit1(Op::Fma, {f, span, lo.isLit ? lo : L.broadcast(lo, shape)});
  // jnp.maximum(lo, ...) as JAX does (keeps values >= lo after rounding).
  return L.emit1(Op::Max, {L.broadcast(lo, shape), L.broadcast(scaled, shape)});
}
Atom uniformBits(AstLowering &L, Atom key, const ir::Shape &shape, double lo, double hi) {
  return uniformBits(L, key, shape, L.b().lit(DType::F32, float(lo)),
                     L.b().lit(DType::F32, float(hi)));
}

/// A bound of uniform() or randint() (JAX's minval/maxval): a static number becomes a
/// literal of dtype `d`; an array is converted to `d` and broadcast to the result's
/// shape `s`, as JAX's broadcast_to_rank and arithmetic do, or a type error here.
Atom randomBound(AstLowering &L, const ArgV &a, DType d, const ir::Shape &s, const char *fn,
                 const char *what) {
  if (a.value->isNumber()) {
    if (d == DType::F32) return L.b().lit(d, float(floatStatic(L, a, 0, what)));
    return L.b().lit(d, double(L.staticInt(a.value, a.loc, what)));
  }
  ValueP v = arr(L, a);
  L.rejectKeys(*v, a.loc, std::string("the bounds of ") + fn + "()");
  ir::Shape bs = v->type().shape;
  bool ok = bs.size() <= s.size();
  for (size_t k = 0; ok && k < bs.size(); ++k)
    ok = bs[k] == 1 || bs[k] == s[s.size() - bs.size() + k];
  if (!ok)
    userError(a.loc, std::string(fn) + "() needs its bounds to broadcast to the shape " +
                         ir::Type{d, s}.str().substr(3) + ", but " + what + " is " +
                         v->type().str());
  if (d == DType::I32 && v->type().dtype == DType::U32)
    userError(a.loc, "randint() needs i32 bounds, not " + v->type().str(),
              {{SrcRange{}, "convert them with i32(...)"}});
  // Not broadcast to `s` here: each use broadcasts it (Note [Uniform's bounds]).
  return L.castTo(v->atom, d);
}

// JAX's _randint: two 32-bit draws of the result's shape, `higher` and `lower`, from the
// two keys of split(key); span = hi <= lo ? 1 : u32(hi - lo), multiplier = (2^16 % span)^2
// % span; the result lo + i32(((higher % span) * multiplier + lower % span) % span), in
// wrapping u32. randintDraws and randintOffset are its two halves, for static and
// run-time bounds alike.

/// `higher` and `lower` of shape s.
std::pair<Atom, Atom> randintDraws(AstLowering &L, Atom key, const ir::Shape &s) {
  Atom ks = L.emit1(Op::RandomSplit, {key}, {{"shape", Param::ints({2})}});
  auto pick = [&](int i) {
    Atom x = L.emit1(Op::Slice, {ks},
                     {{"start_indices", Param::ints({i})},
                      {"limit_indices", Param::ints({i + 1})},
                      {"strides", Param::none()}});
    return Atom(L.emit1(Op::Reshape, {x},
                        {{"new_sizes", Param::tuple({})}, {"dimensions", Param::none()}}));
  };
  Atom hb =
      L.emit1(Op::RandomBits, {pick(0)}, {{"bit_width", Param::of(32)}, {"shape", Param::ints(s)}});
  Atom lb =
      L.emit1(Op::RandomBits, {pick(1)}, {{"bit_width", Param::of(32)}, {"shape", Param::ints(s)}});
  return {hb, lb};
}

/// The offset from lo, i32: ((higher % span) * multiplier + lower % span) % span.
Atom randintOffset(AstLowering &L, Atom hb, Atom lb, Atom sp, Atom mult) {
  Atom off = L.emit1(
      Op::Add, {L.emit1(Op::Mul, {L.emit1(Op::Rem, {hb, sp}), mult}), L.emit1(Op::Rem, {lb, sp})});
  off = L.emit1(Op::Rem, {off, sp});
  return L.castTo(off, DType::I32);
}

/// randint with run-time bounds (i32 literals or i32 arrays of shape s).
Atom randintArrays(AstLowering &L, Atom key, const ir::Shape &s, Atom lo, Atom hi) {
  auto [hb, lb] = randintDraws(L, key, s);
  lo = L.broadcast(lo, s), hi = L.broadcast(hi, s);
  Atom diff = L.castTo(L.emit1(Op::Sub, {hi, lo}), DType::U32);
  Atom sp = L.emit1(Op::Select,
                    {L.emit1(Op::Le, {hi, lo}), diff, L.broadcast(L.b().lit(DType::U32, 1), s)});
  Atom m16 = L.emit1(Op::Rem, {L.broadcast(L.b().lit(DType::U32, 65536), s), sp});
  Atom mult = L.emit1(Op::Rem, {L.emit1(Op::Mul, {m16, m16}), sp});
  return L.emit1(Op::Add, {lo, randintOffset(L, hb, lb, sp, mult)});
}

/// keys and the random functions
void addRandomBuiltins(Table &m) {
  // -- random numbers --
  m["key"] = {
      {"seed"}, 1, [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
        ValueP s = a[0].value;
        if (s->kind == Value::Int) {
          // A static seed: the key words are computed here, exactly as jax.random.key(seed).
          auto k = prng::seed(s->i);
          Atom words = L.constant({double(k[0]), double(k[1])}, DType::U32, {2});
          return Value::array(L.emit1(Op::RandomWrap, {words}, {{"impl", Param::ofStr("fry")}}));
        }
        ValueP v = arr(L, a[0]);
        if (v->type().rank() != 0 || !ir::isInt(v->type().dtype))
          userError(a[0].loc, "key() needs an integer scalar seed, not " + v->type().str());
        return Value::array(L.emit1(Op::RandomSeed, {v->atom}, {{"impl", Param::ofStr("fry")}}));
      }};
  m["split"] = {{"key", "num"}, 1, [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
                  Atom k = keyArg(L, a[0], "split");
                  int64_t n =
                      a.has(1) ? L.staticInt(a[1].value, a[1].loc, "the number of keys") : 2;
                  // As jax.random.split: num >= 0 (split(k, 0) is an empty key array).
                  if (n < 0)
                    userError(a[1].loc, "split() needs a non-negative number of keys, not " +
                                            std::to_string(n));
                  ir::Shape s = L.checkedShape({n}, DType::Key, a.has(1) ? a[1].loc : loc);
                  return Value::array(L.emit1(Op::RandomSplit, {k}, {{"shape", Param::ints(s)}}));
                }};
  m["fold_in"] = {
      {"key", "data"}, 2, [](AstLowering &L, Bound &a, auto &, SrcRange) {
        Atom k = keyArg(L, a[0], "fold_in");
        // As jax.random.fold_in: one key and one scalar, converted to u32.
        // A static datum in 0..2^32-1 is a u32 (JAX converts it with jnp.uint32).
        if (a[1].value->kind == Value::Int && a[1].value->i > INT32_MAX &&
            a[1].value->i <= int64_t(UINT32_MAX)) {
          Atom d =
              L.emit1(Op::Reshape, {L.broadcast(L.b().lit(DType::U32, double(a[1].value->i)), {})},
                      {{"new_sizes", Param::tuple({})}, {"dimensions", Param::none()}});
          return Value::array(L.emit1(Op::RandomFoldIn, {k, d}));
        }
        if (a[1].value->kind == Value::Int &&
            (a[1].value->i < 0 || a[1].value->i > int64_t(UINT32_MAX)))
          userError(a[1].loc, "fold_in() data must fit in u32 (0 to 4294967295), not " +
                                  std::to_string(a[1].value->i));
        ValueP dv = arr(L, a[1]);
        L.rejectKeys(*dv, a[1].loc, "the data of fold_in()");
        if (dv->type().rank() != 0)
          userError(
              a[1].loc, "fold_in() needs a scalar to fold in, not " + dv->type().str(),
              {{SrcRange{},
                "as in JAX, map it over an array of data: vmap (d in data) { fold_in(k, d) }"}});
        if (a[1].value->kind == Value::Int &&
            (a[1].value->i < 0 || a[1].value->i > int64_t(UINT32_MAX)))
          userError(a[1].loc, "fold_in() data must fit in u32 (0 to 4294967295), not " +
                                  std::to_string(a[1].value->i));
        Atom d = L.castTo(dv->atom, DType::U32);
        if (d.isLit)
          d = L.broadcast(d, {}),
          d = L.emit1(Op::Reshape, {d},
                      {{"new_sizes", Param::tuple({})}, {"dimensions", Param::none()}});
        return Value::array(L.emit1(Op::RandomFoldIn, {k, d}));
      }};
  m["key_data"] = {{"keys"}, 1, [](AstLowering &L, Bound &a, auto &, SrcRange) {
                     return Value::array(
                         L.emit1(Op::RandomUnwrap, {keyArg(L, a[0], "key_data", false)}));
                   }};
  m["uniform"] = {{"key", "shape", "lo", "hi"},  // minval, maxval: Note [Keyword aliases]
                  1,
                  [](AstLowering &L, Bound &a, auto &, SrcRange) {
                    Atom k = keyArg(L, a[0], "uniform");
                    ir::Shape s = a.has(1) ? L.staticShape(a[1], DType::F32) : ir::Shape{};
                    // lo/hi: static numbers or arrays that broadcast to the shape.
                    auto bound = [&](int pos, double dflt, const char *what) {
                      if (!a.has(pos)) return L.b().lit(DType::F32, dflt);
                      return randomBound(L, a[pos], DType::F32, s, "uniform", what);
                    };
                    Atom lo = bound(2, 0.0, "lo"), hi = bound(3, 1.0, "hi");
                    return Value::array(uniformBits(L, k, s, lo, hi));
                  }};
  m["normal"] = {
      {"key", "shape"}, 1, [](AstLowering &L, Bound &a, auto &, SrcRange) {
        Atom k = keyArg(L, a[0], "normal");
        ir::Shape s = a.has(1) ? L.staticShape(a[1], DType::F32) : ir::Shape{};
        // JAX: u ~ uniform[nextafter(-1, 0), 1); sqrt(2) * erf_inv(u).
        double lo = std::nextafter(-1.0f, 0.0f);
        Atom u = uniformBits(L, k, s, lo, 1.0);
        Atom e = L.emit1(Op::ErfInv, {u});
        return Value::array(L.emit1(Op::Mul, {e, L.b().lit(DType::F32, float(std::sqrt(2.0)))}));
      }};
  m["bernoulli"] = {
      {"key", "p", "shape"}, 1, [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
        Atom k = keyArg(L, a[0], "bernoulli");
        // As jax.random.bernoulli: p is a float array; the shape defaults to p's,
        // and a given shape must be what p broadcasts to with it.
        Atom p = L.b().lit(DType::F32, 0.5);
        if (a.has(1)) {
          ValueP pv = arr(L, a[1]);
          L.rejectKeys(*pv, a[1].loc, "the probability of bernoulli()");
          if (!ir::isFloat(pv->type().dtype))
            userError(a[1].loc, "bernoulli() needs a float probability p, not " + pv->type().str() +
                                    (pv->weak ? " (write 1.0 for a literal)" : ""));
          p = L.castTo(pv->atom, DType::F32);
        }
        ir::Shape ps = p.type().shape;
        ir::Shape s = a.has(2) ? L.staticShape(a[2], DType::F32) : ps;
        bool ok = ps.size() <= s.size();
        for (size_t k = 0; ok && k < ps.size(); ++k)
          ok = ps[k] == 1 || ps[k] == s[s.size() - ps.size() + k];
        if (!ok)
          userError(a[1].loc, "bernoulli() needs p to broadcast to the shape argument " +
                                  ir::Type{DType::F32, s}.str().substr(3) + ", but p is " +
                                  p.type().str());
        Atom u = uniformBits(L, k, s, 0.0, 1.0);
        if (!p.isLit) p = L.broadcast(p, s);
        return Value::array(L.emit1(Op::Lt, {u, p}));
      }};
  m["randint"] = {
      {"key", "shape", "lo", "hi"}, 4, [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
        Atom k = keyArg(L, a[0], "randint");
        ir::Shape s = L.staticShape(a[1], DType::I32);
        if (!a[2].value->isNumber() || !a[3].value->isNumber())
          return Value::array(randintArrays(L, k, s,
                                            randomBound(L, a[2], DType::I32, s, "randint", "lo"),
                                            randomBound(L, a[3], DType::I32, s, "randint", "hi")));
        int64_t lo = L.staticInt(a[2].value, a[2].loc, "randint() lo");
        int64_t hi = L.staticInt(a[3].value, a[3].loc, "randint() hi");
        // The bounds are i32 (JAX with x64 off rejects larger Python ints); hi <= lo
        // gives lo everywhere, as JAX does (span 1).
        for (auto [v, at] : {std::pair{lo, &a[2]}, std::pair{hi, &a[3]}})
          if (v < INT32_MIN || v > INT32_MAX)
            userError(at->loc, "randint() bounds must fit in i32, not " + std::to_string(v));
        if (hi <= lo) hi = lo + 1;
        // JAX's randint (randintDraws), the span and multiplier known here (in wrapping
        // u32, the multiplier is 0 for spans above 2^16).
        auto [hb, lb] = randintDraws(L, k, s);
        uint32_t span = uint32_t(hi - lo);
        uint32_t m16 = (uint32_t(1) << 16) % span;
        uint32_t mult = uint32_t(m16 * m16) % span;
        Atom off =
            randintOffset(L, hb, lb, L.b().lit(DType::U32, span), L.b().lit(DType::U32, mult));
        return Value::array(L.emit1(Op::Add, {off, L.b().lit(DType::I32, double(lo))}));
      }};
  m["one_hot"] = {
      {"labels", "n", "dtype"}, 2, [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
        ValueP v = arr(L, a[0]);
        L.rejectKeys(*v, a[0].loc, "one_hot()");
        int64_t n = L.staticInt(a[1].value, a[1].loc, "the number of classes");
        if (n < 0)
          userError(a[1].loc,
                    "one_hot() needs a non-negative number of classes, not " + std::to_string(n));
        ir::Shape s = v->type().shape;
        s.push_back(n);
        // jax.nn.one_hot's dtype= (f32 by default): one_hot(y, 10, dtype=i32).
        DType od = a.has(2) ? L.dtypeFrom(a[2].value, a[2].loc) : DType::F32;
        if (od == DType::Key) userError(a[2].loc, "one_hot() cannot make keys");
        L.checkedShape(s, od, loc);
        // As jax.nn.one_hot: labels == iota in the labels' dtype (1.5 matches no
        // class), bools as i32.
        DType ld = ir::isFloat(v->type().dtype) ? v->type().dtype : DType::I32;
        Atom lab = L.castTo(v->atom, ld);
        std::vector<int64_t> dims;
        for (int k = 0; k < v->type().rank(); ++k) dims.push_back(k);
        Atom lb = L.emit1(Op::BroadcastInDim, {lab},
                          {{"shape", Param::ints(s)}, {"broadcast_dimensions", Param::ints(dims)}});
        Atom io = L.emit1(Op::Iota, {},
                          {{"dtype", Param::ofDType(ld)},
                           {"shape", Param::ints(s)},
                           {"dimension", Param::of(int64_t(s.size()) - 1)},
                           {"sharding", Param::none()}});
        return Value::array(L.castTo(L.emit1(Op::Eq, {lb, io}), od));
      }};
}

}  // namespace spmd::sema::builtins
