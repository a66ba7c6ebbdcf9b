//===- Format.cpp - NumPy's array2string layout -----------------------------===//
//
// The layout half of printing arrays as NumPy does (arrayprint.py): which
// elements are shown (summarising above 1000 elements to 3 at each edge of every
// long axis, with "..."), one element formatter per array built from the shown
// elements only (common width, float notation), and `_formatArray`'s nesting of
// brackets, blank lines between blocks and wrapping at 75 columns. Floats are
// formatted in FloatFormat.cpp.
//
//===----------------------------------------------------------------------===//
#include "Format.h"

#include "FloatFormat.h"

#include <algorithm>
#include <cstring>
#include <functional>

namespace spmd::rt {
namespace {

// NumPy's default print options.
constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;
constexpr int kLineWidth = 75;

enum DType { Bool = 0, I32 = 1, U32 = 2, F32 = 3, F64 = 4, Key = 5 };

/// A typed view of the raw buffer; element i is the i-th in row-major order.
struct Elements {
  const unsigned char *data;
  int dtype;  // never Key: keys are viewed as U32

  template <typename T>
  T load(int64_t i) const {
    T v;
    std::memcpy(&v, data + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
    return v;
  }
  FloatValue floatAt(int64_t i) const {
    return dtype == F32 ? FloatValue{load<float>(i), true} : FloatValue{load<double>(i), false};
  }
  int64_t intAt(int64_t i) const {
    return dtype == I32 ? load<int32_t>(i) : static_cast<int64_t>(load<uint32_t>(i));
  }
  bool boolAt(int64_t i) const { return data[i] != 0; }
};

/// The array's shape with row-major strides, and whether it is summarised.
struct Geometry {
  std::vector<int64_t> shape, strides;
  bool summarize = false;

  /// Indices along `axis` that are printed: all, or the first and last three.
  std::vector<int64_t> shownIndices(size_t axis) const {
    int64_t n = shape[axis];
    std::vector<int64_t> idx;
    if (summarize && n > 2 * kEdgeItems) {
      for (int64_t i = 0; i < kEdgeItems; ++i) idx.push_back(i);
      for (int64_t i = n - kEdgeItems; i < n; ++i) idx.push_back(i);
    } else {
      for (int64_t i = 0; i < n; ++i) idx.push_back(i);
    }
    return idx;
  }
  /// Flat offsets of every printed element (arrayprint's _leading_trailing).
  void collectShown(size_t axis, int64_t offset, std::vector<int64_t> &out) const {
    if (axis == shape.size()) {
      out.push_back(offset);
      return;
    }
    for (int64_t i : shownIndices(axis)) collectShown(axis + 1, offset + i * strides[axis], out);
  }
};

using ElementFormatter = std::function<std::string(int64_t)>;

/// arrayprint's IntegerFormat: right-aligned to the widest of min and max.
ElementFormatter integerFormatter(const Elements &el, const std::vector<int64_t> &shown) {
  int64_t lo = el.intAt(shown.front()), hi = lo;
  for (int64_t off : shown) {
    lo = std::min(lo, el.intAt(off));
    hi = std::max(hi, el.intAt(off));
  }
  size_t width = std::max(std::to_string(lo).size(), std::to_string(hi).size());
  return [el, width](int64_t off) {
    std::string s = std::to_string(el.intAt(off));
    return std::string(width - std::min(width, s.size()), ' ') + s;
  };
}

ElementFormatter makeFormatter(const Elements &el, const std::vector<int64_t> &shown) {
  switch (el.dtype) {
  case Bool: return [el](int64_t off) { return std::string(el.boolAt(off) ? " True" : "False"); };
  case F32:
  case F64: {
    std::vector<FloatValue> values;
    values.reserve(shown.size());
    for (int64_t off : shown) values.push_back(el.floatAt(off));
    FloatArrayFormat fmt(values);
    return [el, fmt](int64_t off) { return fmt(el.floatAt(off)); };
  }
  default: return integerFormatter(el, shown);
  }
}

/// arrayprint's _extendLine: appends `word`, first wrapping the line if it would
/// pass `width` (unless the line holds nothing but its indent).
void extendLine(std::string &s, std::string &line, const std::string &word, int width,
                const std::string &nextLinePrefix) {
  bool wrap =
      line.size() + word.size() > static_cast<size_t>(width) && line.size() > nextLinePrefix.size();
  if (wrap) {
    size_t end = line.find_last_not_of(' ');
    s += line.substr(0, end == std::string::npos ? 0 : end + 1) + "\n";
    line = nextLinePrefix;
  }
  line += word;
}

/// arrayprint's _formatArray with separator ' ' and a non-legacy mode.
class Layout {
public:
  Layout(const Geometry &g, ElementFormatter fmt) : g_(g), fmt_(std::move(fmt)) {}

  std::string print() { return recurse(0, 0, " ", kLineWidth); }

private:
  std::string recurse(size_t axis, int64_t offset, const std::string &hanging, int width) {
    const size_t axesLeft = g_.shape.size() - axis;
    if (axesLeft == 0) return fmt_(offset);
    const std::string nextHanging = hanging + " ";
    const int nextWidth = width - 1;  // room for the closing ']'
    const int64_t n = g_.shape[axis];
    const bool summary = g_.summarize && n > 2 * kEdgeItems;
    const int64_t leading = summary ? kEdgeItems : 0;
    const int64_t trailing = summary ? kEdgeItems : n;
    auto child = [&](int64_t i) {
      return recurse(axis + 1, offset + i * g_.strides[axis], nextHanging, nextWidth);
    };

    std::string s;
    if (axesLeft == 1) {
      const int elemWidth = width - 1;
      std::string line = hanging;
      for (int64_t i = 0; i < leading; ++i) {
        extendLine(s, line, child(i), elemWidth, hanging);
        line += ' ';
      }
      if (summary) {
        extendLine(s, line, "...", elemWidth, hanging);
        line += ' ';
      }
      for (int64_t i = trailing; i > 1; --i) {
        extendLine(s, line, child(n - i), elemWidth, hanging);
        line += ' ';
      }
      extendLine(s, line, child(n - 1), elemWidth, hanging);
      s += line;
    } else {
      const std::string lineSep(axesLeft - 1, '\n');
      for (int64_t i = 0; i < leading; ++i) s += hanging + child(i) + lineSep;
      if (summary) s += hanging + "..." + lineSep;
      for (int64_t i = trailing; i > 1; --i) s += hanging + child(n - i) + lineSep;
      s += hanging + child(n - 1);
    }
    return "[" + s.substr(hanging.size()) + "]";
  }

  const Geometry &g_;
  ElementFormatter fmt_;
};

/// str() of a NumPy scalar, for rank-0 arrays.
std::string formatScalar(const Elements &el) {
  switch (el.dtype) {
  case Bool: return el.boolAt(0) ? "True" : "False";
  case F32:
  case F64: return formatFloatScalar(el.floatAt(0));
  default: return std::to_string(el.intAt(0));
  }
}

}  // namespace

std::string formatArray(const void *data, int dtype, const std::vector<int64_t> &shape) {
  Geometry g;
  g.shape = shape;
  Elements el{static_cast<const unsigned char *>(data), dtype};
  if (dtype == Key) {
    g.shape.push_back(2);
    el.dtype = U32;
  }
  if (g.shape.empty()) return formatScalar(el);

  int64_t size = 1;
  for (int64_t d : g.shape) size *= d;
  if (size == 0) return "[]";
  g.strides.assign(g.shape.size(), 1);
  for (size_t i = g.shape.size() - 1; i > 0; --i) g.strides[i - 1] = g.strides[i] * g.shape[i];
  g.summarize = size > kThreshold;

  std::vector<int64_t> shown;
  g.collectShown(0, 0, shown);
  Layout layout(g, makeFormatter(el, shown));
  return layout.print();
}

}  // namespace spmd::rt
