// ===- Diagnostics.cpp - rendering of clang-style diagnostics -------------===//
#include "diag/Diagnostics.h"

#include <iostream>
#include <algorithm>
#include <sstream>
#include <vector>

namespace spmd {

// Note [Line endings and the byte order mark]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A buffer is read as Python reads a .py file, in one place, here, before anything
// counts lines or columns: a UTF-8 byte order mark at the start is dropped, and a
// carriage return not followed by a newline (old Mac line endings) ends a line as '\n'
// does ("\r\n" stays: the lexer and lineText take it as one line end). Before, a lone
// CR was white space, so a whole file of them was one line ("unexpected 'print': a
// statement ends with a newline", under a line with '?' for each CR), and the mark
// counted in every column of line 1 (3 bytes no editor shows) and sat, invisible, before
// the caret. Columns stay byte offsets of the kept text.
int SourceManager::add(std::string name, std::string text) {
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
  for (size_t i = text.find('\r'); i != std::string::npos; i = text.find('\r', i + 1))
    if (i + 1 == text.size() || text[i + 1] != '\n') text[i] = '\n';
  File f{std::move(name), std::move(text), {0}};
  for (size_t i = 0; i < f.text.size(); ++i)
    if (f.text[i] == '\n') f.lineStarts.push_back(i + 1);
  files_.push_back(std::move(f));
  return int(files_.size()) - 1;
}

std::string_view SourceManager::lineView(int file, int line) const {
  if (file < 0 || file >= int(files_.size())) return {};
  const File &f = files_[file];
  if (line < 1 || line > int(f.lineStarts.size())) return {};
  size_t b = f.lineStarts[line - 1];
  size_t e = line < int(f.lineStarts.size()) ? f.lineStarts[line] - 1 : f.text.size();
  std::string_view s(f.text.data() + b, e - b);
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

// Note [Showing a source line]: the line under a diagnostic is shown one cell per
// character: a UTF-8 sequence is one cell, a tab stays a tab (so the caret lines up under
// it), and a byte that is not printable text (a control character, invalid UTF-8: a
// binary file) is shown as '?', so that a diagnostic never writes raw bytes to the
// terminal. Columns in SrcRange are byte offsets; the caret goes under the cell holding
// its byte. A line too long to read (generated code, 100,000 parentheses) is cut to a
// window around the caret, with "..." where it was cut. Such a line is cut to the bytes
// that can hold the window's cells (a cell is at most 4 bytes) before it is split into
// cells: the whole line as cells took 10 s and 1.6 GB for `print(zz)` followed by 16 MiB
// of spaces, and once more for each diagnostic on the line.
namespace {
struct Cell {
  std::string text;
  size_t begin = 0, end = 0;  ///< its bytes in the line
};

std::vector<Cell> cellsOf(const std::string &src) {
  std::vector<Cell> cells;
  for (size_t i = 0; i < src.size();) {
    unsigned char c = static_cast<unsigned char>(src[i]);
    size_t n = utf8Length(src, i);
    Cell cell;
    cell.begin = i;
    if (c == '\t')
      cell.text = "\t";
    else if (c < 0x20 || c == 0x7F || n == 0)
      cell.text = "?";
    else
      cell.text = src.substr(i, n);
    i += n == 0 ? 1 : n;
    cell.end = i;
    cells.push_back(std::move(cell));
  }
  return cells;
}

/// The index of the cell holding byte `b` (cells.size() past the end).
size_t cellAt(const std::vector<Cell> &cells, size_t b) {
  for (size_t k = 0; k < cells.size(); ++k)
    if (b < cells[k].end) return k;
  return cells.size();
}

void showLine(std::ostringstream &os, std::string_view whole, const SrcRange &r) {
  constexpr size_t kLongLine = 240, kBefore = 100, kWindow = 200;
  constexpr size_t kMaxCell = 4;  // bytes in a UTF-8 sequence; any other byte is one cell
  size_t caret = size_t(std::max(r.col, 1) - 1);
  // A line of more than kCut bytes has more than kLongLine cells, so it is windowed:
  // keep only the bytes that can hold kBefore cells before the caret's and kWindow from
  // there, starting at a lead byte (so the cells are those of the whole line).
  constexpr size_t kCut = kMaxCell * (kBefore + kWindow + 2);
  size_t lo = 0, hi = whole.size();
  if (whole.size() > kCut) {
    caret = std::min(caret, whole.size());
    lo = caret > kMaxCell * (kBefore + 1) ? caret - kMaxCell * (kBefore + 1) : 0;
    for (int k = 0; k < 3 && lo > 0 && (static_cast<unsigned char>(whole[lo]) & 0xC0) == 0x80; ++k)
      --lo;
    hi = std::min(whole.size(), caret + kMaxCell * (kWindow + 1));
  }
  const std::string src(whole.substr(lo, hi - lo));
  const bool cutBefore = lo > 0, cutAfter = hi < whole.size();
  std::vector<Cell> cells = cellsOf(src);
  size_t at = cellAt(cells, caret - lo);
  size_t width = 1;
  if (r.endLine == r.line && r.endCol > r.col + 1) {
    size_t last = size_t(r.endCol - 2) >= lo ? cellAt(cells, size_t(r.endCol - 2) - lo) : 0;
    width = last >= at ? std::max<size_t>(last - at + 1, 1) : 1;
  }
  size_t from = 0, to = cells.size();
  if (cells.size() > kLongLine || cutBefore || cutAfter) {
    from = at > kBefore ? at - kBefore : 0;
    to = std::min(cells.size(), from + kWindow);
    width = std::min(width, to > at ? to - at : 1);
  }
  const bool dotsBefore = from > 0 || cutBefore;
  std::string line = dotsBefore ? "..." : "", pad = dotsBefore ? "   " : "";
  for (size_t k = from; k < to; ++k) line += cells[k].text;
  if (to < cells.size() || cutAfter) line += "...";
  for (size_t k = from; k < at && k < to; ++k) pad += cells[k].text == "\t" ? '\t' : ' ';
  os << line << '\n' << pad << '^' << std::string(width - 1, '~') << '\n';
}
}  // namespace

std::string DiagEngine::format(const Diagnostic &d) const {
  std::ostringstream os;
  static const char *kinds[] = {"error", "warning", "note"};
  if (d.loc.valid() && d.loc.file >= 0)
    os << sm_.name(d.loc.file) << ':' << d.loc.line << ':' << d.loc.col << ": ";
  os << kinds[d.kind] << ": " << d.message << '\n';
  if (d.loc.valid() && d.loc.file >= 0) {
    showLine(os, sm_.lineView(d.loc.file, d.loc.line), d.loc);
  }
  for (auto &[loc, msg] : d.notes) {
    if (loc.valid() && loc.file >= 0) {
      os << sm_.name(loc.file) << ':' << loc.line << ':' << loc.col << ": note: " << msg << '\n';
      showLine(os, sm_.lineView(loc.file, loc.line), loc);
    } else {
      os << "note: " << msg << '\n';
    }
  }
  return os.str();
}

void DiagEngine::report(const Diagnostic &d) {
  if (d.kind == Diagnostic::Error) ++errors_;
  std::cerr << format(d) << std::flush;
}

size_t utf8Length(const std::string &s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  size_t n = c >= 0xF0 && c <= 0xF4   ? 4
             : c >= 0xE0 && c <= 0xEF ? 3
             : c >= 0xC2 && c <= 0xDF ? 2
                                      : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  unsigned char c1 = static_cast<unsigned char>(s[i + 1]);
  if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 >= 0xA0) || (c == 0xF0 && c1 < 0x90) ||
      (c == 0xF4 && c1 >= 0x90))
    return 0;  // overlong, a surrogate, or beyond U+10FFFF
  return n;
}

void userError(SrcRange loc, std::string message,
               std::vector<std::pair<SrcRange, std::string>> notes) {
  Diagnostic d;
  d.loc = loc;
  d.message = std::move(message);
  d.notes = std::move(notes);
  throw UserError(std::move(d));
}

void internalError(const char *file, int line, const std::string &what) {
  std::ostringstream os;
  os << "internal compiler error at " << file << ':' << line << ": " << what;
  throw InternalError(os.str());
}

void reportBug(const std::string &what) {
  std::cout << std::flush;
  std::cerr << what << "\nthis is a bug in spmdrun, not in your program; please report it\n";
}

}  // namespace spmd
