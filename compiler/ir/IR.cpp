// ===- IR.cpp - op table, types, parameters, type inference and the builder ===//
#include "ir/IR.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace spmd::ir {

static const OpInfo kOpInfo[] = {
// clang-format off
#define SPMD_OP(E, name, arity, cat) {name, arity, OpCategory::cat},
#include "ir/Ops.def"
    // clang-format on
};

const OpInfo &info(Op op) { return kOpInfo[int(op)]; }

const char *name(DType d) {
  switch (d) {
// clang-format off
#define SPMD_RT_DTYPE(Cxx, C, code, bytes, text) case DType::Cxx: return text;
#include "spmdrt.def"
    // clang-format on
  }
  return "?";
}

int byteSize(DType d) {
  switch (d) {
// clang-format off
#define SPMD_RT_DTYPE(Cxx, C, code, bytes, text) case DType::Cxx: return bytes;
#include "spmdrt.def"
    // clang-format on
  }
  return 0;
}

bool isFloat(DType d) { return d == DType::F32 || d == DType::F64; }
bool isInt(DType d) { return d == DType::I32 || d == DType::U32; }

int64_t Type::numel() const {
  uint64_t n = 1;  // wraps (defined) if a size check was missed; never UB
  for (auto s : shape) n *= uint64_t(s);
  return int64_t(n);
}

std::string arraySizeError(DType d, const Shape &s) {
  auto shapeText = [&] {
    std::string t = "[";
    for (size_t k = 0; k < s.size(); ++k) t += (k ? ", " : "") + std::to_string(s[k]);
    return t + "] (" + name(d) + ")";
  };
  const int64_t item = byteSize(d);
  int64_t nz = 1, bytes = 0;
  bool overflow = false, empty = false;
  long double approx = (long double)item;
  for (auto x : s) {
    if (x < 0) return "array of shape " + shapeText() + " has a negative size";
    if (x == 0) {
      empty = true;
      continue;
    }
    approx *= (long double)x;
    if (__builtin_mul_overflow(nz, x, &nz)) overflow = true;
  }
  if (!overflow && __builtin_mul_overflow(nz, item, &bytes)) overflow = true;
  // A byte count for the message: exact below 2^63, else in scientific notation.
  auto bytesText = [&] {
    if (!overflow) return std::to_string(bytes);
    char buf[64];
    snprintf(buf, sizeof buf, "%.3Lg", approx);
    return std::string(buf);
  };
  if (empty)
    return overflow ? "array of shape " + shapeText() +
                          " is empty, but its other sizes are too large: their product is " +
                          bytesText() + " bytes, which does not fit in 64 bits"
                    : "";
  if (overflow || bytes > kMaxArrayBytes)
    return "array of shape " + shapeText() + " would need " + bytesText() +
           " bytes, more than the limit of 2^48 bytes (256 TiB)";
  return "";
}

std::string Type::str() const {
  std::string s = name(dtype);
  s += '[';
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + ']';
}

// ---- Param --------------------------------------------------------------------------

Param Param::ints(const std::vector<int64_t> &v, bool asList) {
  std::vector<Param> e;
  for (auto x : v) e.push_back(of(x));
  return asList ? list(std::move(e)) : tuple(std::move(e));
}

std::vector<int64_t> Param::toInts() const {
  std::vector<int64_t> r;
  if (kind == Int) return {i};
  for (auto &e : elems) r.push_back(e.i);
  return r;
}

static std::string fmtFloat(double f) {
  if (std::isnan(f)) return "nan";
  if (std::isinf(f)) return f > 0 ? "inf" : "-inf";
  std::ostringstream os;
  os.precision(9);
  os << f;
  std::string s = os.str();
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

/// A string as Python's repr writes it: in single quotes (double quotes when it holds a
/// single quote and no double quote), with backslash escapes.
static std::string pyQuote(const std::string &v) {
  char q = v.find('\'') != std::string::npos && v.find('"') == std::string::npos ? '"' : '\'';
  std::string r(1, q);
  for (unsigned char c : v) {
    if (c == '\\' || c == q)
      r += '\\', r += char(c);
    else if (c == '\n')
      r += "\\n";
    else if (c == '\t')
      r += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      r += buf;
    } else
      r += char(c);
  }
  return r + q;
}

std::string Param::str() const {
  switch (kind) {
  case None: return "None";
  case Int: return std::to_string(i);
  case Float: return fmtFloat(f);
  case Bool: return i ? "True" : "False";
  case Str: return s;
  case DTypeK: return name(dtype);
  case Tuple:
  case List: {
    // As a jaxpr prints its params: a string alone bare (axis_name=i), inside a tuple or
    // list as Python's repr (axes=('i', 'j'), print's segments=['x = ', 0]).
    std::string r = kind == Tuple ? "(" : "[";
    for (size_t k = 0; k < elems.size(); ++k)
      r += (k ? ", " : "") + (elems[k].kind == Str ? pyQuote(elems[k].s) : elems[k].str());
    if (kind == Tuple && elems.size() == 1) r += ",";
    return r + (kind == Tuple ? ")" : "]");
  }
  }
  return "?";
}

const Param &Eqn::param(const std::string &k) const {
  auto it = params.find(k);
  internal_assert(it != params.end(), std::string("missing param '") + k + "' on " + name(op));
  return it->second;
}

// ---- type inference -------------------------------------------------------------------

/// The axis names a collective's `axes`/`axis_name` parameter names.
static Shape removeAxes(const Shape &s, const std::vector<int64_t> &axes) {
  Shape r;
  for (int64_t d = 0; d < int64_t(s.size()); ++d)
    if (std::find(axes.begin(), axes.end(), d) == axes.end()) r.push_back(s[d]);
  return r;
}

static Shape elementwiseShape(const std::vector<Type> &ins, Op op) {
  Shape out;
  for (auto &t : ins) {
    if (t.rank() == 0) continue;
    if (out.empty())
      out = t.shape;
    else
      internal_assert(out == t.shape, std::string("elementwise shapes differ in ") + name(op));
  }
  return out;
}

std::vector<Type> inferTypes(Op op, const std::vector<Type> &ins, const Params &params,
                             const std::vector<Jaxpr> &regions) {
  auto P = [&](const char *k) -> const Param & {
    auto it = params.find(k);
    internal_assert(it != params.end(), std::string("missing param '") + k + "' on " + name(op));
    return it->second;
  };
  const OpInfo &oi = info(op);
  if (oi.arity >= 0)
    internal_assert(int(ins.size()) == oi.arity,
                    std::string(name(op)) + " takes " + std::to_string(oi.arity) + " operands");
  switch (oi.category) {
  case OpCategory::Unary:
    if (op == Op::Convert || op == Op::BitcastConvert)
      return {Type{P("new_dtype").dtype, ins[0].shape}};
    return {ins[0]};
  case OpCategory::Binary: {
    internal_assert(ins[0].dtype == ins[1].dtype, std::string("operand dtypes differ in ") +
                                                      name(op) + ": " + ins[0].str() + " " +
                                                      ins[1].str());
    return {Type{ins[0].dtype, elementwiseShape(ins, op)}};
  }
  case OpCategory::Compare:
    internal_assert(ins[0].dtype == ins[1].dtype,
                    std::string("operand dtypes differ in ") + name(op));
    return {Type{DType::Bool, elementwiseShape(ins, op)}};
  case OpCategory::Select:
    internal_assert(ins[0].dtype == DType::Bool, "select_n predicate must be bool");
    internal_assert(ins[1].dtype == ins[2].dtype, "select_n branches differ in dtype");
    return {Type{ins[1].dtype, elementwiseShape(ins, op)}};
  case OpCategory::Ternary:  // fma: three float operands of one dtype
    internal_assert(ins[0].dtype == ins[1].dtype && ins[1].dtype == ins[2].dtype,
                    std::string("operand dtypes differ in ") + name(op));
    internal_assert(isFloat(ins[0].dtype), std::string(name(op)) + " needs float operands");
    return {Type{ins[0].dtype, elementwiseShape(ins, op)}};
  case OpCategory::Reduce: {
    auto axes = P("axes").toInts();
    for (auto a : axes) internal_assert(a >= 0 && a < ins[0].rank(), "reduction axis out of range");
    DType d = ins[0].dtype;
    if (op == Op::Argmax || op == Op::Argmin) d = P("index_dtype").dtype;
    return {Type{d, removeAxes(ins[0].shape, axes)}};
  }
  case OpCategory::Shape:
    switch (op) {
    case Op::Iota:
    case Op::Constant: return {Type{P("dtype").dtype, P("shape").toInts()}};
    case Op::BroadcastInDim: {
      Shape s = P("shape").toInts();
      auto dims = P("broadcast_dimensions").toInts();
      internal_assert(int(dims.size()) == ins[0].rank(), "broadcast_dimensions rank");
      for (size_t k = 0; k < dims.size(); ++k)
        internal_assert(ins[0].shape[k] == 1 || ins[0].shape[k] == s[dims[k]],
                        "broadcast_in_dim size");
      return {Type{ins[0].dtype, s}};
    }
    case Op::Reshape: {
      Type t{ins[0].dtype, P("new_sizes").toInts()};
      internal_assert(t.numel() == ins[0].numel(), "reshape changes the element count");
      return {t};
    }
    case Op::Transpose: {
      auto perm = P("permutation").toInts();
      internal_assert(int(perm.size()) == ins[0].rank(), "transpose permutation rank");
      Shape s;
      for (auto p : perm) s.push_back(ins[0].shape[p]);
      return {Type{ins[0].dtype, s}};
    }
    case Op::Concatenate: {
      int64_t d = P("dimension").i;
      Shape s = ins.at(0).shape;
      for (size_t k = 1; k < ins.size(); ++k) {
        internal_assert(ins[k].rank() == ins[0].rank() && ins[k].dtype == ins[0].dtype,
                        "concatenate operands");
        s[d] += ins[k].shape[d];
      }
      return {Type{ins[0].dtype, s}};
    }
    case Op::Slice: {
      auto st = P("start_indices").toInts(), li = P("limit_indices").toInts();
      std::vector<int64_t> str = params.count("strides") && P("strides").kind != Param::None
                                     ? P("strides").toInts()
                                     : std::vector<int64_t>(st.size(), 1);
      Shape s;
      for (size_t k = 0; k < st.size(); ++k) {
        internal_assert(0 <= st[k] && st[k] <= li[k] && li[k] <= ins[0].shape[k], "slice bounds");
        s.push_back((li[k] - st[k] + str[k] - 1) / str[k]);
      }
      return {Type{ins[0].dtype, s}};
    }
    case Op::Pad: {
      auto &cfg = P("padding_config").elems;
      Shape s;
      for (int k = 0; k < ins[0].rank(); ++k) {
        auto c = cfg[k].toInts();
        int64_t n = ins[0].shape[k];
        s.push_back(c[0] + c[1] + n + (n > 0 ? (n - 1) * c[2] : 0));
      }
      return {Type{ins[0].dtype, s}};
    }
    case Op::Rev: return {ins[0]};
    default: break;
    }
    break;
  case OpCategory::Index:
    if (op == Op::DynamicSlice) return {Type{ins[0].dtype, P("slice_sizes").toInts()}};
    return {ins[0]};
  case OpCategory::Dot: {
    auto &dn = P("dimension_numbers").elems;
    auto lc = dn[0].elems[0].toInts(), rc = dn[0].elems[1].toInts();
    auto lb = dn[1].elems[0].toInts(), rb = dn[1].elems[1].toInts();
    Shape s;
    for (size_t k = 0; k < lb.size(); ++k) {
      internal_assert(ins[0].shape[lb[k]] == ins[1].shape[rb[k]], "dot_general batch sizes");
      s.push_back(ins[0].shape[lb[k]]);
    }
    for (size_t k = 0; k < lc.size(); ++k)
      internal_assert(ins[0].shape[lc[k]] == ins[1].shape[rc[k]], "dot_general contracting sizes");
    auto free = [&](const Type &t, const std::vector<int64_t> &c, const std::vector<int64_t> &b) {
      for (int64_t d = 0; d < t.rank(); ++d)
        if (std::find(c.begin(), c.end(), d) == c.end() &&
            std::find(b.begin(), b.end(), d) == b.end())
          s.push_back(t.shape[d]);
    };
    free(ins[0], lc, lb);
    free(ins[1], rc, rb);
    internal_assert(ins[0].dtype == ins[1].dtype, "dot_general dtypes differ");
    return {Type{ins[0].dtype, s}};
  }
  case OpCategory::Collective:
    switch (op) {
    case Op::Psum:
    case Op::Pmax:
    case Op::Pmin:
    case Op::Ppermute: return {ins[0]};
    case Op::AxisIndex: return {Type{DType::I32, {}}};
    case Op::AllGather: {
      int64_t d = P("all_gather_dimension").i, n = P("axis_size").i;
      Shape s = ins[0].shape;
      if (P("tiled").i)
        s[d] *= n;
      else
        s.insert(s.begin() + d, n);
      return {Type{ins[0].dtype, s}};
    }
    case Op::AllToAll: {
      int64_t sa = P("split_axis").i, ca = P("concat_axis").i, n = P("axis_size").i;
      Shape s = ins[0].shape;
      internal_assert(s[sa] % n == 0, "all_to_all split size");
      s[sa] /= n;
      s[ca] *= n;
      return {Type{ins[0].dtype, s}};
    }
    case Op::ReduceScatter: {
      int64_t d = P("scatter_dimension").i, n = P("axis_size").i;
      Shape s = ins[0].shape;
      internal_assert(s[d] % n == 0, "reduce_scatter size");
      if (P("tiled").i)
        s[d] /= n;
      else
        s.erase(s.begin() + d);
      return {Type{ins[0].dtype, s}};
    }
    default: break;
    }
    break;
  case OpCategory::Random:
    switch (op) {
    case Op::RandomSeed: return {Type{DType::Key, {}}};
    case Op::RandomSplit: {
      Shape s = ins[0].shape;
      for (auto d : P("shape").toInts()) s.push_back(d);
      return {Type{DType::Key, s}};
    }
    case Op::RandomFoldIn: return {Type{DType::Key, elementwiseShape(ins, op)}};
    case Op::RandomBits: {
      Shape s = ins[0].shape;
      for (auto d : P("shape").toInts()) s.push_back(d);
      return {Type{DType::U32, s}};
    }
    case Op::RandomWrap: {
      Shape s = ins[0].shape;
      internal_assert(!s.empty() && s.back() == 2, "random_wrap needs a trailing 2");
      s.pop_back();
      return {Type{DType::Key, s}};
    }
    case Op::RandomUnwrap: {
      Shape s = ins[0].shape;
      s.push_back(2);
      return {Type{DType::U32, s}};
    }
    default: break;
    }
    break;
  case OpCategory::Region:
    switch (op) {
    case Op::Pmap:
    case Op::Vmap: {
      internal_assert(regions.size() == 1, "map needs one region");
      int64_t n = P("axis_size").i;
      auto outAxes = P("out_axes").toInts();
      const Jaxpr &body = regions[0];
      internal_assert(outAxes.size() == body.outvars.size(), "out_axes arity");
      std::vector<Type> r;
      for (size_t k = 0; k < body.outvars.size(); ++k) {
        Type t = body.outvars[k].type();
        t.shape.insert(t.shape.begin() + outAxes[k], n);
        r.push_back(t);
      }
      return r;
    }
    case Op::ForLoop: {
      int64_t nc = P("num_consts").i;
      return std::vector<Type>(ins.begin() + nc, ins.end());
    }
    case Op::Cond: {
      internal_assert(regions.size() == 2, "cond needs two branches");
      std::vector<Type> r;
      for (auto &a : regions[1].outvars) r.push_back(a.type());
      return r;
    }
    default: break;
    }
    break;
  case OpCategory::Host: return {};
  }
  internalError(__FILE__, __LINE__, std::string("no type rule for ") + name(op));
}

// ---- Builder ------------------------------------------------------------------------------

std::vector<Var> Builder::emit(Op op, std::vector<Atom> ins, Params params,
                               std::vector<Jaxpr> regions) {
  std::vector<Type> inTypes;
  for (auto &a : ins) inTypes.push_back(a.type());
  auto outTypes = inferTypes(op, inTypes, params, regions);
  // Note [Array size limits]: a result too large to exist is the program's fault, at the
  // equation's source location (a vmap pass's batched equation keeps its original's).
  for (auto &t : outTypes)
    if (std::string why = arraySizeError(t.dtype, t.shape); !why.empty()) userError(loc_, why);
  Eqn e;
  e.op = op;
  e.in = std::move(ins);
  e.params = std::move(params);
  e.regions = std::move(regions);
  e.loc = loc_;
  for (auto &t : outTypes) e.out.push_back(m_.newVar(t));
  auto outs = e.out;
  j_->eqns.push_back(std::move(e));
  return outs;
}

Atom Builder::lit(DType d, double v) {
  Literal l;
  l.dtype = d;
  if (isFloat(d))
    l.f = v;
  else
    l.i = int64_t(v);
  return Atom::literal(l);
}

Var Builder::convert(Atom x, DType to) {
  return emit1(Op::Convert, {x},
               {{"new_dtype", Param::ofDType(to)}, {"weak_type", Param::ofBool(false)}});
}

Var Builder::broadcastInDim(Atom x, Shape shape, std::vector<int64_t> dims) {
  return emit1(Op::BroadcastInDim, {x},
               {{"shape", Param::ints(shape)}, {"broadcast_dimensions", Param::ints(dims)}});
}

Atom Builder::broadcastTo(Atom x, const Shape &shape) {
  Type t = x.type();
  if (t.shape == shape) return x;
  int off = int(shape.size()) - t.rank();
  internal_assert(off >= 0, "broadcastTo a lower rank");
  // Squeeze size-1 dims that must grow, then broadcast_in_dim over the rest.
  Shape keep;
  std::vector<int64_t> dims;
  bool squeeze = false;
  for (int k = 0; k < t.rank(); ++k) {
    if (t.shape[k] == shape[off + k]) {
      keep.push_back(t.shape[k]);
      dims.push_back(off + k);
    } else {
      internal_assert(t.shape[k] == 1, "broadcastTo incompatible");
      squeeze = true;
    }
  }
  Atom src = x;
  if (squeeze) src = reshape(x, keep);
  return broadcastInDim(src, shape, dims);
}

Var Builder::reshape(Atom x, Shape shape) {
  return emit1(Op::Reshape, {x},
               {{"new_sizes", Param::ints(shape)}, {"dimensions", Param::none()}});
}

Var Builder::transpose(Atom x, std::vector<int64_t> perm) {
  return emit1(Op::Transpose, {x}, {{"permutation", Param::ints(perm)}});
}

Var Builder::reduce(Op op, Atom x, std::vector<int64_t> axes) {
  Params p{{"axes", Param::ints(axes)}};
  if (op == Op::Argmax || op == Op::Argmin) p["index_dtype"] = Param::ofDType(DType::I32);
  return emit1(op, {x}, p);
}

Var Builder::fill(DType d, const Shape &shape, double v) {
  return broadcastInDim(lit(d, v), shape, {});
}

void walk(const Jaxpr &j, const std::function<void(const Eqn &)> &f) {
  for (auto &e : j.eqns) {
    f(e);
    for (auto &r : e.regions) walk(r, f);
  }
}

}  // namespace spmd::ir
