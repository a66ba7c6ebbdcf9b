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

bool isElementwise(Op op) {
  switch (info(op).category) {
  case OpCategory::Unary:
  case OpCategory::Binary:
  case OpCategory::Compare:
  case OpCategory::Select:
  case OpCategory::Ternary: return true;
  default: return false;
  }
}

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
