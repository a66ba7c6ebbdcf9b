// ===- HostIO.cpp - printing and assert_close on the host ---------------------===//
//
// `print` builds a line piece by piece (strings, arrays formatted exactly as NumPy
// prints them by Format.cpp, rendered bool arrays) and writes it out, flushed, when the
// line ends: output order is exact and one write per line keeps it fast. Separators
// between print's arguments are the compiler's business (it prints " ").
#include "Denormals.h"
#include "Format.h"
#include "HostState.h"

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

/// The message of a failed assert_close, or "" when a and b are close. Close means
/// NumPy's allclose: |a - b| <= atol + rtol * |b| elementwise, NaN never close.
std::string closeFailure(const void *a, const void *b, int32_t dtype, int64_t n, double rtol,
                         double atol, const char *where) {
  int64_t bad = 0, first = -1;
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    double x = elementAt(a, dtype, i), y = elementAt(b, dtype, i);
    double diff = std::fabs(x - y);
    bool close =
        static_cast<DType>(dtype) == DType::Key ? x == y : diff <= atol + rtol * std::fabs(y);
    if (close) continue;
    if (first < 0) first = i;
    ++bad;
    if (!(diff <= worst)) worst = diff;
  }
  if (bad == 0) return "";
  std::ostringstream os;
  os.precision(9);
  os << (where ? where : "?") << ": assert_close failed: " << bad << " of " << n
     << " elements differ (max |a - b| = " << worst << "; first at index " << first << ": "
     << elementAt(a, dtype, first) << " vs " << elementAt(b, dtype, first) << "; rtol=" << rtol
     << ", atol=" << atol << ")";
  return os.str();
}

void writeLine(spmd_host *h) {
  h->line += '\n';
  if (h->out) {
    *h->out << h->line;
    h->out->flush();
  } else {
    std::fwrite(h->line.data(), 1, h->line.size(), stdout);
    std::fflush(stdout);
  }
  h->line.clear();
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

void spmd_print_end(spmd_host *h) { writeLine(h); }

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
