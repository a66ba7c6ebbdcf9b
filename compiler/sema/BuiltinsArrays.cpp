// ===- BuiltinsArrays.cpp - creation and shapes ------------------------------------===//
//
// The builtins that make arrays (zeros, arange, linspace, eye, ...) and change their
// shape (reshape, transpose, concat, ...): Builtins.cpp's table registers them here.
#include "sema/BuiltinTable.h"

#include <cmath>

namespace spmd::sema::builtins {

// Note [XLA linspace]
// jnp.linspace(lo, hi, n) is a jitted function of lo and hi, so an eager call runs code that
// XLA:CPU compiles for any lo and hi: with r = f32(1 / div) (Note [Division by a constant])
// and hr = hi * r, point k is lo * (1 - k * r) + k * hr, one loop that LLVM compiles with
// fused multiply-adds wherever a multiply feeds an add or a subtraction. Which multiply
// fuses depends on how the loop is vectorised, so the digits depend on the size (measured
// against JAX 0.10.2, every point of 20 (lo, hi) pairs at 28 sizes from 2 to 40,000, with
// endpoint and without; tests/conformance/conf8a/linspace_sizes.py):
// - div <= 351: the loop is unrolled and 1 - k * r folds to a constant rounded twice:
//   fma(k, hr, lo * (1 - k * r)); but for div <= 33, point 1 (k * hr folded to hr) fuses the
//   other multiply: fma(lo, 1 - r, hr).
// - n <= 4442 (n points in all): the vector loop over the first div / 32 * 32 points
//   fuses the subtraction too, fma(k, hr, lo * fma(-k, r, 1)); the remaining points are
//   folded constants as above.
// - more: one loop whose every point is fma(k, hr, lo * fma(-k, r, 1)) when div is even,
//   and fma(lo, fma(-k, r, 1), k * hr) when div is odd.
// Inside a jitted function (a pmap body), JAX's linspace of constants is folded by XLA's
// constant folder instead, without fusion; spmdrun computes the eager digits everywhere.
constexpr int64_t kLinspaceLoopMax = 4442;

/// Point k (< div) of linspace as XLA:CPU computes it eagerly (Note [XLA linspace]).
static float linspacePoint(float lo, float hr, float r, int64_t div, int64_t k) {
  volatile float i = float(k);  // volatile: each step rounded to f32, none fused here
  if (div <= 351 || k >= div / 32 * 32) {
    volatile float st = i * r;
    volatile float a0 = lo * (1.0f - st);
    if (div <= 33 && k == 1) return std::fmaf(lo, 1.0f - st, hr);
    return std::fmaf(i, hr, a0);
  }
  volatile float om = std::fmaf(-i, r, 1.0f);
  volatile float a1 = lo * om;
  return std::fmaf(i, hr, a1);
}

/// creation, then shapes
void addArrayBuiltins(Table &m) {
  // -- creation --
  m["zeros"] = {{"shape", "dtype"}, 1, [](AstLowering &L, Bound &a, auto &, SrcRange) {
                  return filled(L, a[0], 0,
                                a.has(1) ? L.dtypeFrom(a[1].value, a[1].loc) : DType::F32);
                }};
  m["ones"] = {{"shape", "dtype"}, 1, [](AstLowering &L, Bound &a, auto &, SrcRange) {
                 return filled(L, a[0], 1,
                               a.has(1) ? L.dtypeFrom(a[1].value, a[1].loc) : DType::F32);
               }};
  m["full"] = {{"shape", "value", "dtype"}, 2, [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
                 bool weak;
                 // A static integer converts directly, wrapped as jnp.full wraps it
                 // (full(s, 4294967295, u32); full(s, -1, u32) is 4294967295 too).
                 if (a[1].value->kind == Value::Int) {
                   DType d = a.has(2) ? L.dtypeFrom(a[2].value, a[2].loc) : DType::I32;
                   Atom v = staticIntAs(L, a[1].value->i, d, a[1].loc);
                   return Value::array(L.broadcast(v, L.staticShape(a[0], d)), !a.has(2));
                 }
                 Atom v = L.toAtom(a[1].value, a[1].loc, &weak);
                 if (a.has(2)) {
                   DType d = L.dtypeFrom(a[2].value, a[2].loc);
                   if (v.type().dtype == DType::Key)
                     L.rejectKeys(*Value::array(v), a[1].loc, "full() with dtype=");
                   v = L.castTo(v, d);
                 }
                 ir::Shape s = L.staticShape(a[0], v.type().dtype);
                 // As jnp.full, an array value broadcasts to the shape (NumPy's rules).
                 if (v.type().rank() != 0) {
                   ir::Shape vs = v.type().shape;
                   bool ok = vs.size() <= s.size();
                   for (size_t k = 0; ok && k < vs.size(); ++k)
                     ok = vs[k] == 1 || vs[k] == s[s.size() - vs.size() + k];
                   if (!ok)
                     userError(a[1].loc, "full() cannot broadcast a value of type " +
                                             v.type().str() + " to shape " +
                                             Param::ints(s).str());
                 }
                 // Weakly typed as its value without a dtype, as jnp.full.
                 return Value::array(L.broadcast(v, s), weak && !a.has(2));
               }};
  // Note [arange's signed zero]
  // jnp.arange with static bounds is NumPy's start + i * step, so element 0 is
  // start + 0 * step: with start = 0.0 and a negative step that is 0.0 + -0.0 = +0.0, and
  // with start = -0.0 and a positive step -0.0 + 0.0 = +0.0 (only start = -0.0 with a
  // negative step keeps -0.0). Leaving the add of a zero start out gave -0.0 for
  // arange(0.0, -1.0, -0.5) (difftest18, builtin p1800656). In floats x + (+0.0) is not
  // the identity (it turns -0 into +0); x + (-0.0) is, and so is x + 0.0 where x is never
  // -0 (i * step with step > 0). Golden arange_signed_zero.
  m["arange"] = {
      {"start", "stop", "step", "dtype"}, 1, [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
        const Value *vs[3] = {a[0].value.get(), a.has(1) ? a[1].value.get() : nullptr,
                              a.has(2) ? a[2].value.get() : nullptr};
        bool isFloat = false;
        // A scalar literal (`f32(n * 4)`, `i32(3)`) is as static as the number it holds,
        // as jnp.arange(jnp.float32(32)) is concrete; its dtype picks the result's.
        auto lit = [](const Value *v) {
          return v->kind == Value::Array && v->atom.isLit && v->type().dtype != DType::Bool &&
                 v->type().dtype != DType::Key;
        };
        for (auto *v : vs) {
          if (!v) continue;
          if (v->kind == Value::Float || (lit(v) && ir::isFloat(v->type().dtype)))
            isFloat = true;
          else if (v->kind != Value::Int && !lit(v))
            userError(loc, "arange() bounds must be numbers known at compile time");
        }
        auto num = [&](const Value *v) {
          return lit(v) ? v->atom.lit.asDouble() : v->kind == Value::Float ? v->f : double(v->i);
        };
        double start = 0, stop, step = 1;
        // arange(stop), arange(start, stop), and the step (also as arange(stop, step=s)).
        if (vs[1]) {
          start = num(vs[0]);
          stop = num(vs[1]);
        } else
          stop = num(vs[0]);
        if (vs[2]) step = num(vs[2]);
        if (step == 0) userError(a[2].loc, "arange() step cannot be zero");
        DType d = a.has(3) ? L.dtypeFrom(a[3].value, a[3].loc) : isFloat ? DType::F32 : DType::I32;
        if (d == DType::Bool)
          userError(a[3].loc, "arange() cannot make bool values (as JAX's iota)");
        // NumPy's length, ceil((stop - start) / step), computed in double: a NaN or
        // a length beyond any array is an error here, not a cast that wraps.
        double len = std::ceil((stop - start) / step);
        if (std::isnan(len)) userError(loc, "arange() cannot compute its length from these bounds");
        if (len > double(int64_t(1) << 62)) {
          char buf[64];
          snprintf(buf, sizeof buf, "%.3g", len);
          userError(loc, std::string("arange() would make ") + buf +
                             " elements: too many for an array (at most 2^48 bytes)");
        }
        int64_t n = len > 0 ? int64_t(len) : 0;
        L.checkedShape({n}, d, loc);
        Atom io = L.emit1(Op::Iota, {},
                          {{"dtype", Param::ofDType(d)},
                           {"shape", Param::ints({n})},
                           {"dimension", Param::of(0)},
                           {"sharding", Param::none()}});
        if (step != 1) io = L.emit1(Op::Mul, {io, L.b().lit(d, step)});
        // start + i * step, as jnp.arange computes it (NumPy's fill): the add is left out
        // only where it is the identity. Note [arange's signed zero].
        bool addIsIdentity = start == 0 && (!ir::isFloat(d) || std::signbit(start) || step > 0);
        if (!addIsIdentity) io = L.emit1(Op::Add, {io, L.b().lit(d, start)});
        return Value::array(io);
      }};
  m["linspace"] = {
      {"start", "stop", "num", "endpoint", "dtype"},
      3,
      [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
        double lo = floatStatic(L, a[0], 0, "linspace() start"),
               hi = floatStatic(L, a[1], 0, "linspace() stop");
        int64_t n = L.staticInt(a[2].value, a[2].loc, "linspace() num");
        if (n < 0)
          userError(a[2].loc,
                    "linspace() needs a non-negative number of samples, not " + std::to_string(n));
        L.checkedShape({n}, DType::F32, a[2].loc);
        bool endpoint = boolArg(L, a[3], true);
        // As jnp.linspace computes it, in f32: s = i / div for the first div points, then
        // start * (1 - s) + stop * s, with stop appended for the endpoint; and as XLA:CPU
        // compiles that for an eager call: Note [XLA linspace].
        int64_t div = endpoint ? n - 1 : n,
                pts = n > 1 ? div : n;  // points before the appended stop
        float flo = float(lo), fhi = float(hi), recip = div > 0 ? 1.0f / float(div) : 0.0f;
        float hr = fhi * recip;
        if (n > kLinspaceLoopMax) {
          // One formula for every point: computed on the device, instead of an n-element
          // constant that the compiler must carry. om = fma(-i, r, 1), rounded once.
          Atom io = L.emit1(Op::Iota, {},
                            {{"dtype", Param::ofDType(DType::F32)},
                             {"shape", Param::ints({pts})},
                             {"dimension", Param::of(0)},
                             {"sharding", Param::none()}});
          Atom om = L.emit1(Op::Fma, {io, L.b().lit(DType::F32, double(-recip)),
                                      L.b().lit(DType::F32, 1.0)});
          Atom v = div % 2 != 0
                       ? L.emit1(Op::Fma, {L.b().lit(DType::F32, double(flo)), om,
                                           L.emit1(Op::Mul, {io, L.b().lit(DType::F32, double(hr))})})
                       : L.emit1(Op::Fma, {io, L.b().lit(DType::F32, double(hr)),
                                           L.emit1(Op::Mul, {L.b().lit(DType::F32, double(flo)), om})});
          if (pts < n) {
            Atom last = L.broadcast(L.b().lit(DType::F32, double(fhi)), {1});
            v = L.emit1(Op::Concatenate, {v, last}, {{"dimension", Param::of(0)}});
          }
          return Value::array(v);
        }
        std::vector<double> data(n);
        for (int64_t k = 0; k < pts; ++k)
          data[k] = n > 1 ? double(linspacePoint(flo, hr, recip, div, k)) : double(flo);
        if (pts < n) data[n - 1] = double(fhi);
        return Value::array(L.constant(data, DType::F32, {n}));
      }};
  // jnp.eye(N, M, k, dtype): k= shifts the diagonal. The spec's third positional argument
  // is the dtype; a number there is jnp.eye's positional k (the binder's Note [eye's
  // positional k] in Builtins.cpp).
  m["eye"] = {{"n", "m", "dtype", "k"}, 1, [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
                int64_t n = L.staticInt(a[0].value, a[0].loc, "eye() size");
                if (n < 0)
                  userError(a[0].loc, "eye() needs a non-negative size, not " + std::to_string(n));
                int64_t mm = a.has(1) ? L.staticInt(a[1].value, a[1].loc, "eye() size") : n;
                if (mm < 0)
                  userError(a[1].loc, "eye() needs a non-negative size, not " + std::to_string(mm));
                DType d = a.has(2) ? L.dtypeFrom(a[2].value, a[2].loc) : DType::F32;
                L.checkedShape({n, mm}, d, loc);
                auto io = [&](int dim) {
                  return Atom(L.emit1(Op::Iota, {},
                                      {{"dtype", Param::ofDType(DType::I32)},
                                       {"shape", Param::ints({n, mm})},
                                       {"dimension", Param::of(dim)},
                                       {"sharding", Param::none()}}));
                };
                int64_t k = a.has(3) ? L.staticInt(a[3].value, a[3].loc, "eye()'s k") : 0;
                Atom rows = io(0);
                if (k != 0) {
                  // Past every column either way: no diagonal, and no i32 overflow.
                  k = std::clamp<int64_t>(k, -n - 1, mm + 1);
                  rows = L.emit1(Op::Add, {rows, L.b().lit(DType::I32, double(k))});
                }
                return Value::array(L.castTo(L.emit1(Op::Eq, {rows, io(1)}), d));
              }};
  // -- shapes --
  m["reshape"] = {
      {"x", "shape"}, 2, [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
        ValueP v = arr(L, a[0]);
        auto s = L.staticInts(a[1], "a shape");
        int64_t known = 1, unknown = -1;
        bool overflow = false;
        for (size_t k = 0; k < s.size(); ++k) {
          if (s[k] == -1) {
            if (unknown >= 0) userError(a[1].loc, "reshape() allows only one -1");
            unknown = int64_t(k);
          } else if (s[k] < 0)
            userError(a[1].loc, "a shape cannot have a negative size");
          else if (__builtin_mul_overflow(known, s[k], &known))
            overflow = true;
        }
        int64_t n = v->type().numel();
        if (unknown >= 0) {
          if (overflow || known == 0 || n % known)
            userError(a[1].loc,
                      "cannot reshape " + v->type().str() + " into " + Param::ints(s).str());
          s[unknown] = n / known;
        }
        // Sizes whose product overflows (or an empty array into huge sizes) are
        // an error here, before the element counts are compared.
        L.checkedShape(s, v->type().dtype, a[1].loc);
        ir::Type nt{v->type().dtype, s};
        if (nt.numel() != n)
          userError(a[1].loc, "cannot reshape " + v->type().str() + " (" + std::to_string(n) +
                                  " elements) into shape " + Param::ints(s).str());
        Atom x = v->atom.isLit ? L.broadcast(v->atom, {}) : v->atom;
        return Value::array(L.emit1(Op::Reshape, {x},
                                    {{"new_sizes", Param::ints(s)}, {"dimensions", Param::none()}}),
                            v->weak);
      }};
  m["ravel"] = {{"x"}, 1, [](AstLowering &L, Bound &a, auto &, SrcRange) {
                  ValueP v = arr(L, a[0]);
                  Atom x = v->atom.isLit ? L.broadcast(v->atom, {}) : v->atom;
                  return Value::array(L.emit1(Op::Reshape, {x},
                                              {{"new_sizes", Param::ints({v->type().numel()})},
                                               {"dimensions", Param::none()}}),
                                      v->weak);
                }};
  m["transpose"] = {
      {"x", "axes"}, 1, [](AstLowering &L, Bound &a, auto &, SrcRange) {
        ValueP v = arr(L, a[0]);
        int r = v->type().rank();
        std::vector<int64_t> perm;
        if (a.has(1)) {
          perm = L.staticInts(a[1], "a permutation");
          std::vector<int64_t> sorted = perm;
          for (auto &p : sorted)
            if (p < 0) p += r;
          std::sort(sorted.begin(), sorted.end());
          for (int k = 0; k < r; ++k)
            if (int(sorted.size()) != r || sorted[k] != k)
              userError(a[1].loc, "transpose() needs a permutation of 0.." + std::to_string(r - 1));
          for (auto &p : perm)
            if (p < 0) p += r;
        } else {
          for (int k = r - 1; k >= 0; --k) perm.push_back(k);
        }
        if (r == 0) return v;
        return Value::array(L.emit1(Op::Transpose, {v->atom}, {{"permutation", Param::ints(perm)}}),
                            v->weak);
      }};
  auto concatLike = [](bool stack) {
    return BuiltinDef{
        {"arrays", "axis"}, 1, [stack](AstLowering &L, Bound &a, auto &, SrcRange loc) {
          ValueP lst = a[0].value;
          if (lst->kind != Value::Tuple || lst->elems.empty())
            userError(a[0].loc, std::string(stack ? "stack" : "concat") +
                                    "() needs a non-empty list of arrays");
          DType d;
          bool weak;
          // Promote dtypes without broadcasting shapes.
          std::vector<ValueP> arrs;
          for (auto &e : lst->elems) arrs.push_back(L.toArray(e, a[0].loc));
          std::vector<ValueP> scalars;
          for (auto &x : arrs)
            scalars.push_back(Value::array(L.b().lit(x->type().dtype, 0), x->weak));
          // Keys join with keys (as jnp.concatenate and jnp.stack of key arrays).
          size_t nkeys = std::count_if(arrs.begin(), arrs.end(), [](const ValueP &x) {
            return x->type().dtype == DType::Key;
          });
          if (nkeys == arrs.size())
            d = DType::Key, weak = false;
          else
            L.unify(scalars, loc, &d, &weak, stack ? "stack()" : "concat()");
          int r = arrs[0]->type().rank() + (stack ? 1 : 0);
          int64_t ax = a.has(1) ? L.staticInt(a[1].value, a[1].loc, "an axis") : 0;
          if (ax < 0) ax += r;
          if (!stack && r == 0)
            userError(a[0].loc, "concat() cannot join scalars (" + arrs[0]->type().str() +
                                    "); stack() makes a new axis");
          if (ax < 0 || ax >= r)
            userError(a.has(1) ? a[1].loc : loc,
                      "axis " + std::to_string(a.has(1) ? L.staticInt(a[1].value, a[1].loc, "an axis") : 0) +
                          " is out of range for " + (stack ? "stacking arrays of rank "
                                                           : "joining arrays of rank ") +
                          std::to_string(stack ? r - 1 : r));
          std::vector<Atom> parts;
          for (auto &x : arrs) {
            Atom p = L.castTo(x->atom, d);
            if (p.isLit)
              p = L.broadcast(p, {}),
              p = L.emit1(Op::Reshape, {p},
                          {{"new_sizes", Param::tuple({})}, {"dimensions", Param::none()}});
            ir::Shape s = p.type().shape;
            if (stack) {
              if (int(s.size()) != r - 1)  // before the insert: ax may be past a scalar's end
                userError(a[0].loc, "arrays of different ranks cannot be joined: " +
                                        arrs[0]->type().str() + " and " + x->type().str());
              s.insert(s.begin() + ax, 1);
              p = L.emit1(Op::Reshape, {p},
                          {{"new_sizes", Param::ints(s)}, {"dimensions", Param::none()}});
            }
            ir::Shape s0 = parts.empty() ? s : parts[0].type().shape;
            if (int(s.size()) != int(s0.size()))
              userError(a[0].loc, "arrays of different ranks cannot be joined: " +
                                      parts[0].type().str() + " and " + p.type().str());
            for (size_t k = 0; k < s.size(); ++k)
              if (int64_t(k) != ax && s[k] != s0[k]) {
                // stack's message names the arrays as written, not their reshaped parts.
                if (stack)
                  userError(a[0].loc, "stack() needs arrays of the same shape: " +
                                          arrs[0]->type().str() + " and " + x->type().str());
                userError(a[0].loc, "arrays to join must agree except along the axis: " +
                                        parts[0].type().str() + " and " + p.type().str());
              }
            parts.push_back(p);
          }
          if (parts.size() == 1) return Value::array(parts[0], weak);
          return Value::array(L.emit1(Op::Concatenate, parts, {{"dimension", Param::of(ax)}}),
                              weak);
        }};
  };
  m["concat"] = concatLike(false);
  m["stack"] = concatLike(true);
  m["broadcast_to"] = {{"x", "shape"}, 2, [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
                         ValueP v = arr(L, a[0]);
                         ir::Shape s = L.staticShape(a[1], v->type().dtype);
                         ir::Shape vs = v->type().shape;
                         bool ok = vs.size() <= s.size();
                         for (size_t k = 0; ok && k < vs.size(); ++k) {
                           int64_t t = s[s.size() - vs.size() + k];
                           ok = vs[k] == t || vs[k] == 1;
                         }
                         if (!ok)
                           userError(loc, "cannot broadcast " + v->type().str() + " to shape " +
                                              Param::ints(s).str());
                         return Value::array(L.broadcast(v->atom, s), v->weak);
                       }};
  // As jnp.expand_dims, axis may be a tuple: each is a position in the result
  // (expand_dims(x, (0, 2)) of f32[2, 3] is f32[1, 2, 1, 3]).
  m["expand_dims"] = {{"x", "axis"}, 2, [](AstLowering &L, Bound &a, auto &, SrcRange) {
                        ValueP v = arr(L, a[0]);
                        ir::Shape s = v->type().shape;
                        if (a[1].value->kind == Value::Tuple) {
                          auto axes = L.staticInts(a[1], "an axis");
                          int64_t r = int64_t(s.size() + axes.size());
                          std::vector<bool> isNew(size_t(r), false);
                          for (int64_t ax : axes) {
                            int64_t k = ax < 0 ? ax + r : ax;
                            if (k < 0 || k >= r)
                              userError(a[1].loc, "axis " + std::to_string(ax) +
                                                      " is out of range for expand_dims of " +
                                                      v->type().str() + " (a result of rank " +
                                                      std::to_string(r) + ")");
                            if (isNew[size_t(k)])
                              userError(a[1].loc, "repeated axis " + std::to_string(ax));
                            isNew[size_t(k)] = true;
                          }
                          ir::Shape out;
                          size_t j = 0;
                          for (int64_t k = 0; k < r; ++k) out.push_back(isNew[size_t(k)] ? 1 : s[j++]);
                          Atom x = v->atom.isLit ? L.broadcast(v->atom, {}) : v->atom;
                          return Value::array(
                              L.emit1(Op::Reshape, {x},
                                      {{"new_sizes", Param::ints(out)}, {"dimensions", Param::none()}}),
                              v->weak);
                        }
                        int64_t ax = L.staticInt(a[1].value, a[1].loc, "an axis");
                        int r = int(s.size()) + 1;
                        if (ax < 0) ax += r;
                        if (ax < 0 || ax >= r)
                          userError(a[1].loc, "axis " + std::to_string(ax < 0 ? ax - r : ax) +
                                                  " is out of range for expand_dims of " +
                                                  v->type().str() + " (a result of rank " +
                                                  std::to_string(r) + ")");
                        s.insert(s.begin() + ax, 1);
                        Atom x = v->atom.isLit ? L.broadcast(v->atom, {}) : v->atom;
                        return Value::array(
                            L.emit1(Op::Reshape, {x},
                                    {{"new_sizes", Param::ints(s)}, {"dimensions", Param::none()}}),
                            v->weak);
                      }};
  m["squeeze"] = {{"x", "axis"}, 1, [](AstLowering &L, Bound &a, auto &, SrcRange) {
                    ValueP v = arr(L, a[0]);
                    ir::Shape s = v->type().shape, out;
                    std::vector<int64_t> axes;
                    if (a.has(1)) axes = axesArg(L, a[1], int(s.size()));
                    for (size_t k = 0; k < s.size(); ++k) {
                      bool named = std::find(axes.begin(), axes.end(), int64_t(k)) != axes.end();
                      if (named && s[k] != 1)
                        userError(a[1].loc, "cannot squeeze axis " + std::to_string(k) +
                                                " of size " + std::to_string(s[k]));
                      if ((a.has(1) && named) || (!a.has(1) && s[k] == 1)) continue;
                      out.push_back(s[k]);
                    }
                    return Value::array(
                        L.emit1(Op::Reshape, {v->atom},
                                {{"new_sizes", Param::ints(out)}, {"dimensions", Param::none()}}),
                        v->weak);
                  }};
  m["shape"] = {{"x"}, 1, [](AstLowering &L, Bound &a, auto &, SrcRange) {
                  std::vector<ValueP> e;
                  for (auto d : arr(L, a[0])->type().shape) e.push_back(Value::integer(d));
                  return Value::tuple(e);
                }};
  m["size"] = {{"x"}, 1, [](AstLowering &L, Bound &a, auto &, SrcRange) {
                 return Value::integer(arr(L, a[0])->type().numel());
               }};
  m["len"] = {{"x"}, 1, [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
                if (a[0].value->kind == Value::Tuple)
                  return Value::integer(int64_t(a[0].value->elems.size()));
                if (a[0].value->kind == Value::Str)
                  return Value::integer(int64_t(a[0].value->s.size()));
                ValueP v = arr(L, a[0]);
                if (v->type().rank() == 0) userError(a[0].loc, "len() of a scalar");
                return Value::integer(v->type().shape[0]);
              }};
  m["set"] = {
      {"x", "index", "value"}, 3, [](AstLowering &L, Bound &a, auto &, SrcRange loc) {
        ValueP v = arr(L, a[0]);
        ir::Type t = v->type();
        std::vector<ValueP> idx;
        if (a[1].value->kind == Value::Tuple)
          idx = a[1].value->elems;
        else
          idx.push_back(a[1].value);
        if (int(idx.size()) > t.rank())
          userError(a[1].loc, "too many indices for an array of type " + t.str());
        std::vector<Atom> starts;
        ir::Shape us;
        for (int d = 0; d < t.rank(); ++d) {
          if (d < int(idx.size())) {
            ValueP iv = idx[d];
            int64_t n = t.shape[d];
            // As jnp's x.at[i]: a float index is a TypeError, a bool a mask (Note [Bool
            // indices] in LowerIndex.cpp); spmdrun cast both to i32.
            if (iv->kind == Value::Bool)
              boolIndex(a[1].loc, std::string("set(x, ") + (iv->i ? "true" : "false") + ", v)");
            if (iv->kind == Value::Array && iv->type().dtype == DType::Bool)
              boolIndex(a[1].loc, "set(x, " + iv->type().str() + ", v)");
            if (iv->kind == Value::Float ||
                (iv->kind == Value::Array && !ir::isInt(iv->type().dtype)))
              userError(a[1].loc, "set() needs integer indices, not " +
                                      (iv->kind == Value::Float ? std::string("a static float")
                                                                : iv->type().str()) +
                                      ", as x.at[i] in JAX");
            if (iv->kind == Value::Int) {
              int64_t k = iv->i < 0 ? iv->i + n : iv->i;
              if (k < 0 || k >= n)
                userError(a[1].loc, "index " + std::to_string(iv->i) +
                                        " is out of range for axis " + std::to_string(d) +
                                        " of size " + std::to_string(n));
              starts.push_back(L.indexLit(k, a[1].loc));
            } else {
              Atom i = L.castTo(L.toAtom(iv, a[1].loc), DType::I32);
              if (i.type().rank() != 0) userError(a[1].loc, "an index must be an integer scalar");
              Atom neg = L.emit1(Op::Lt, {i, L.b().lit(DType::I32, 0)});
              starts.push_back(L.emit1(
                  Op::Select, {neg, i, L.emit1(Op::Add, {i, L.indexLit(n, a[1].loc)})}));
            }
            us.push_back(1);
          } else {
            starts.push_back(L.b().lit(DType::I32, 0));
            us.push_back(t.shape[d]);
          }
        }
        ir::Shape vs(us.begin() + idx.size(), us.end());
        Atom val = L.toAtom(a[2].value, a[2].loc);
        if ((val.type().dtype == DType::Key) != (t.dtype == DType::Key))
          userError(a[2].loc, "set() cannot put a value of type " + val.type().str() +
                                  " into an array of type " + t.str());
        val = L.castTo(val, t.dtype);
        ir::Shape valShape = val.type().shape;
        bool ok = valShape.size() <= vs.size();
        for (size_t k = 0; ok && k < valShape.size(); ++k)
          ok = valShape[k] == 1 || valShape[k] == vs[vs.size() - valShape.size() + k];
        if (!ok)
          userError(a[2].loc, "cannot set a value of type " + val.type().str() +
                                  " into a slot of shape " + Param::ints(vs).str());
        val = L.broadcast(val, vs);
        if (val.isLit)
          val = L.emit1(Op::BroadcastInDim, {val},
                        {{"shape", Param::tuple({})}, {"broadcast_dimensions", Param::tuple({})}});
        Atom upd = L.emit1(Op::Reshape, {val},
                           {{"new_sizes", Param::ints(us)}, {"dimensions", Param::none()}});
        std::vector<Atom> ins{v->atom, upd};
        ins.insert(ins.end(), starts.begin(), starts.end());
        return Value::array(L.emit1(Op::DynamicUpdateSlice, ins), v->weak);
      }};
}

}  // namespace spmd::sema::builtins
