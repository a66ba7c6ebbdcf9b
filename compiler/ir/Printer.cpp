// ===- Printer.cpp - the jaxpr-style IR printer ------------------------------===//
//
// Prints the IR the way JAX prints a jaxpr, because that is what people learn from:
//   { lambda ; a:f32[8,3]. let
//       b:f32[8] = reduce_sum[axes=(1,)] a
//     in (b,) }
// Binders are typed, uses are bare, literals are `2.0:f32[]`, params sit in brackets
// sorted by name, and region bodies are printed inline as params (`jaxpr={ ... }`).
#include "ir/IR.h"

#include <cmath>
#include <sstream>
#include <unordered_map>

namespace spmd::ir {
namespace {

class Printer {
public:
  std::string jaxpr(const Jaxpr &j, int indent) {
    std::ostringstream os;
    os << "{ lambda ; ";
    for (size_t k = 0; k < j.invars.size(); ++k) os << (k ? " " : "") << binder(j.invars[k]);
    os << ". let";
    std::string pad(indent + 4, ' ');
    if (j.eqns.empty()) os << ' ';
    for (auto &e : j.eqns) os << '\n' << pad << eqn(e, indent + 4);
    if (!j.eqns.empty()) os << '\n' << std::string(indent + 2, ' ');
    os << "in (";
    for (size_t k = 0; k < j.outvars.size(); ++k) os << (k ? ", " : "") << atom(j.outvars[k]);
    if (j.outvars.size() == 1) os << ',';
    os << ") }";
    return os.str();
  }

private:
  std::unordered_map<int, std::string> names_;
  int counter_ = 0;

  std::string freshName() {
    // a..z, then ba..bz, ca.. as JAX does.
    int n = counter_++;
    std::string s;
    do {
      s.insert(s.begin(), char('a' + n % 26));
      n /= 26;
    } while (n > 0);
    return s;
  }
  std::string nameOf(const Var &v) {
    auto it = names_.find(v.id);
    if (it != names_.end()) return it->second;
    return names_[v.id] = freshName();
  }
  std::string binder(const Var &v) { return nameOf(v) + ":" + v.type.str(); }

  static std::string literal(const Literal &l) {
    std::ostringstream os;
    if (l.dtype == DType::Bool)
      os << (l.i ? "True" : "False");
    else if (isFloat(l.dtype)) {
      if (std::isnan(l.f))
        os << "nan";
      else if (std::isinf(l.f))
        os << (l.f > 0 ? "inf" : "-inf");
      else {
        std::ostringstream f;
        f.precision(9);
        f << l.f;
        std::string s = f.str();
        if (s.find_first_of(".e") == std::string::npos) s += ".0";
        os << s;
      }
    } else
      os << l.i;
    os << ':' << name(l.dtype) << "[]";
    return os.str();
  }
  std::string atom(const Atom &a) { return a.isLit ? literal(a.lit) : nameOf(a.var); }

  std::string eqn(const Eqn &e, int indent) {
    std::ostringstream os;
    if (e.out.empty()) os << "_ = ";
    for (size_t k = 0; k < e.out.size(); ++k) os << (k ? " " : "") << binder(e.out[k]);
    if (!e.out.empty()) os << " = ";
    os << name(e.op);
    // Region bodies print as params: jaxpr= for maps, body= for loops, branches= for cond.
    std::vector<std::pair<std::string, std::string>> ps;
    // A param named _x is an annotation for code generation that jaxprs do not show.
    for (auto &[k, v] : e.params)
      if (k.empty() || k[0] != '_') ps.push_back({k, v.str()});
    if (!e.regions.empty()) {
      std::string key = e.op == Op::Cond ? "branches" : e.op == Op::ForLoop ? "body" : "jaxpr";
      std::string body;
      if (e.op == Op::Cond) {
        body = "(\n";
        for (auto &r : e.regions)
          body += std::string(indent + 4, ' ') + jaxpr(r, indent + 4) + "\n";
        body += std::string(indent + 2, ' ') + ")";
      } else {
        body = jaxpr(e.regions[0], indent + 2);
      }
      ps.push_back({key, body});
      std::sort(ps.begin(), ps.end());
    }
    size_t len = 0;
    for (auto &p : ps) len += p.first.size() + p.second.size() + 2;
    if (!ps.empty()) {
      if (e.regions.empty() && len < 80) {
        os << '[';
        for (size_t k = 0; k < ps.size(); ++k)
          os << (k ? " " : "") << ps[k].first << '=' << ps[k].second;
        os << ']';
      } else {
        os << "[\n";
        for (auto &p : ps) os << std::string(indent + 2, ' ') << p.first << '=' << p.second << '\n';
        os << std::string(indent, ' ') << ']';
      }
    }
    for (auto &a : e.in) os << ' ' << atom(a);
    return os.str();
  }
};

}  // namespace

std::string print(const Jaxpr &j) { return Printer().jaxpr(j, 0); }
std::string print(const Module &m) { return Printer().jaxpr(m.main, 0) + "\n"; }

}  // namespace spmd::ir
