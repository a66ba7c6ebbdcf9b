// ===- Fingerprint.cpp - an exact serialisation of a Module, for cache keys -===//
//
// Note [Module fingerprints]: fingerprint(m) writes every field of the module that code
// generation can read (each equation's op, operands with their literals' exact bits,
// results with their types, params, regions and source location, and the file names
// behind the locations) into one byte string. Two modules with equal fingerprints
// compile to the same code, so the string (hashed) keys the on-disk object cache
// (codegen/ObjectCache.cpp). Unlike ir::print, which rounds floats for reading, nothing
// is lost. A field added to Eqn, Atom, Literal, Param or Module must be added here too;
// the static_asserts below catch the common case of a field added without it.
#include "ir/IR.h"

#include <cstring>

namespace spmd::ir {

namespace {
class Writer {
public:
  std::string out;

  void u64(uint64_t v) { out.append(reinterpret_cast<const char *>(&v), sizeof v); }
  void i64(int64_t v) { u64(uint64_t(v)); }
  void f64(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    u64(bits);
  }
  void str(const std::string &s) {
    u64(s.size());
    out += s;
  }
  void type(const Type &t) {
    u64(uint64_t(t.dtype));
    u64(t.shape.size());
    for (int64_t d : t.shape) i64(d);
  }
  void var(const Var &v) {
    i64(v.id);
    type(v.type);
  }
  void atom(const Atom &a) {
    u64(a.isLit);
    if (a.isLit) {
      u64(uint64_t(a.lit.dtype));
      f64(a.lit.f);
      i64(a.lit.i);
    } else {
      var(a.var);
    }
  }
  void param(const Param &p) {
    u64(uint64_t(p.kind));
    i64(p.i);
    f64(p.f);
    str(p.s);
    u64(uint64_t(p.dtype));
    u64(p.elems.size());
    for (auto &e : p.elems) param(e);
  }
  void loc(const SrcRange &r) {
    for (int v : {r.file, r.line, r.col, r.endLine, r.endCol}) i64(v);
  }
  void jaxpr(const Jaxpr &j) {
    u64(j.invars.size());
    for (auto &v : j.invars) var(v);
    u64(j.eqns.size());
    for (auto &e : j.eqns) {
      u64(uint64_t(e.op));
      u64(e.in.size());
      for (auto &a : e.in) atom(a);
      u64(e.out.size());
      for (auto &v : e.out) var(v);
      u64(e.params.size());
      for (auto &[k, p] : e.params) {
        str(k);
        param(p);
      }
      u64(e.regions.size());
      for (auto &r : e.regions) jaxpr(r);
      loc(e.loc);
    }
    u64(j.outvars.size());
    for (auto &a : j.outvars) atom(a);
  }
};

// A new field changes these sizes: add it to the Writer above, then update the numbers.
static_assert(sizeof(Literal) == 24, "a Literal field is missing from fingerprint()");
static_assert(sizeof(SrcRange) == 20, "a SrcRange field is missing from fingerprint()");
static_assert(sizeof(Var) == 40, "a Var field is missing from fingerprint()");
}  // namespace

std::string fingerprint(const Module &m) {
  Writer w;
  w.str("spmd-ir-1");
  w.u64(m.fileNames.size());
  for (auto &f : m.fileNames) w.str(f);
  w.i64(m.nextId);
  w.jaxpr(m.main);
  return std::move(w.out);
}

}  // namespace spmd::ir
