// ===- HostIO.cpp - printing and assert_close on the host ---------------------===//
//
// `print` builds a line piece by piece (strings, arrays formatted exactly as NumPy
// prints them by Format.cpp, rendered bool arrays) and writes it out, flushed, when the
// line ends: output order is exact and one write per line keeps it fast. Separators
// between print's arguments are the compiler's business (it prints " ").
#include "Denormals.h"
#include "Format.h"
#include "HostState.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <sstream>

namespace spmd::rt {
namespace {

/// Element i of a numeric array as a double (keys compare by their bits).
double elementAt(const void *data, int32_t dtype, int64_t i) {
  switch (static_cast<DType>(dtype)) {
  case DType::Bool: return static_cast<const uint8_t *>(data)[i] != 0;
  case DType::I32: return static_cast<const int32_t *>(data)[i];
  case DType::U32: return static_cast<const uint32_t *>(data)[i];
  case DType::F32: return static_cast<const float *>(data)[i];
  case DType::F64: return static_cast<const double *>(data)[i];
  case DType::Key: return double(static_cast<const uint64_t *>(data)[i]);
  }
  return 0;
}

/// Whether x and y (elements of a and b) are close as numpy.testing.assert_allclose
/// decides: NaN and NaN are (equal_nan=True), an infinity only matches the same infinity,
/// and finite numbers are when |x - y| <= atol + rtol * |y|.
bool closeElements(double x, double y, double rtol, double atol) {
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  if (std::isinf(x) || std::isinf(y)) return x == y;
  return std::fabs(x - y) <= atol + rtol * std::fabs(y);
}

/// A number for a message, as `os.precision(9) << v` writes it.
std::string fmt(double v) {
  std::ostringstream os;
  os.precision(9);
  os << v;
  return os.str();
}

/// The message of a failed assert_close, or "" when a and b are close (closeElements).
std::string closeFailure(const void *a, const void *b, int32_t dtype, int64_t n, double rtol,
                         double atol, const char *where) {
  int64_t bad = 0, first = -1;
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    double x = elementAt(a, dtype, i), y = elementAt(b, dtype, i);
    bool close =
        static_cast<DType>(dtype) == DType::Key ? x == y : closeElements(x, y, rtol, atol);
    if (close) continue;
    if (first < 0) first = i;
    ++bad;
    double diff = std::fabs(x - y);  // NaN or inf where only one side is: shown as NumPy does
    if (std::isnan(diff) || diff > worst) worst = std::isnan(worst) ? worst : diff;
  }
  if (bad == 0) return "";
  std::ostringstream os;
  os.precision(9);
  auto num = [](double v) { return std::isnan(v) ? std::string("nan") : fmt(v); };
  os << (where ? where : "?") << ": assert_close failed: " << bad << " of " << n
     << " elements differ (max |a - b| = " << num(worst) << "; first at index " << first << ": "
     << num(elementAt(a, dtype, first)) << " vs " << num(elementAt(b, dtype, first)) << "; rtol=" << rtol
     << ", atol=" << atol << ")";
  return os.str();
}

// Note [Output that cannot be written]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A print whose line cannot be written (standard output closed, a full disk, a pipe whose
// reader left while SIGPIPE is ignored, as Python's subprocess and many services leave it)
// fails the run with the reason, as a failed assert_close does: the program stops there
// instead of computing for hours into a sink that is gone, and the exit code is 1, not 0
// with the output lost (coreutils do the same: "seq: write error: Broken pipe"). With
// SIGPIPE at its default the kernel ends the process at the first such write, as for any
// tool in a pipeline (`spmdrun prog.spmd | head -1`: exit 141 in a shell, nothing
// printed). Output written outside a run (dumps, the REPL's own text) is checked once, at
// the end, by the command line (cli/spmdrun.cpp).

/// Writes the line out; false (with errno's reason in `why`) when it could not be.
bool writeLine(spmd_host *h, char *why, size_t size) {
  h->line += '\n';
  bool ok;
  errno = 0;
  if (h->out) {
    *h->out << h->line;
    h->out->flush();
    ok = static_cast<bool>(*h->out);
  } else {
    ok = std::fwrite(h->line.data(), 1, h->line.size(), stdout) == h->line.size() &&
         std::fflush(stdout) == 0;
  }
  h->line.clear();
  if (!ok)
    std::snprintf(why, size, "cannot write to standard output: %s",
                  errno ? std::strerror(errno) : "write error");
  return ok;
}

}  // namespace
}  // namespace spmd::rt

using namespace spmd::rt;

extern "C" {

void spmd_print_str(spmd_host *h, const char *s) { h->line += s; }

void spmd_print_array(spmd_host *h, const void *data, int32_t dtype, int32_t rank,
                      const int64_t *shape) {
  DenormalMode ieee(false);  // print as NumPy does (Note [Denormals])
  h->line += formatArray(data, dtype, std::vector<int64_t>(shape, shape + rank));
}

void spmd_print_render(spmd_host *h, const uint8_t *data, int64_t n, const char *on,
                       const char *off) {
  size_t lon = std::strlen(on), loff = std::strlen(off);
  for (int64_t i = 0; i < n; ++i) {
    if (data[i])
      h->line.append(on, lon);
    else
      h->line.append(off, loff);
  }
}

void spmd_print_end(spmd_host *h) {
  char why[160];  // failHost longjmps: no destructor may be pending
  if (!writeLine(h, why, sizeof why)) failHost(h, why);
}

void spmd_assert_close(spmd_host *h, const void *a, const void *b, int32_t dtype, int64_t n,
                       double rtol, double atol, const char *where) {
  {  // unwindHost longjmps: nothing with a destructor may be alive when it is called
    DenormalMode ieee(false);  // compare as NumPy does (Note [Denormals])
    std::string failure = closeFailure(a, b, dtype, n, rtol, atol, where);
    if (failure.empty()) return;
    h->errors.record(failure);
  }
  unwindHost(h);
}

}  // extern "C"
