// ===- Diagnostics.cpp - rendering of clang-style diagnostics -------------===//
#include "diag/Diagnostics.h"

#include <iostream>
#include <sstream>

namespace spmd {

int SourceManager::add(std::string name, std::string text) {
  File f{std::move(name), std::move(text), {0}};
  for (size_t i = 0; i < f.text.size(); ++i)
    if (f.text[i] == '\n') f.lineStarts.push_back(i + 1);
  files_.push_back(std::move(f));
  return int(files_.size()) - 1;
}

std::string SourceManager::lineText(int file, int line) const {
  if (file < 0 || file >= int(files_.size())) return "";
  const File &f = files_[file];
  if (line < 1 || line > int(f.lineStarts.size())) return "";
  size_t b = f.lineStarts[line - 1];
  size_t e = f.text.find('\n', b);
  if (e == std::string::npos) e = f.text.size();
  std::string s = f.text.substr(b, e - b);
  if (!s.empty() && s.back() == '\r') s.pop_back();
  return s;
}

static void caretLine(std::ostringstream &os, const std::string &src, const SrcRange &r) {
  // Tabs in the source line are kept in the caret line so the caret lines up.
  std::string pad;
  for (int i = 1; i < r.col && i - 1 < int(src.size()); ++i) pad += src[i - 1] == '\t' ? '\t' : ' ';
  int width = 1;
  if (r.endLine == r.line && r.endCol > r.col + 1) width = r.endCol - r.col;
  os << pad << '^';
  for (int i = 1; i < width; ++i) os << '~';
  os << '\n';
}

std::string DiagEngine::format(const Diagnostic &d) const {
  std::ostringstream os;
  static const char *kinds[] = {"error", "warning", "note"};
  if (d.loc.valid() && d.loc.file >= 0)
    os << sm_.name(d.loc.file) << ':' << d.loc.line << ':' << d.loc.col << ": ";
  os << kinds[d.kind] << ": " << d.message << '\n';
  if (d.loc.valid() && d.loc.file >= 0) {
    std::string src = sm_.lineText(d.loc.file, d.loc.line);
    os << src << '\n';
    caretLine(os, src, d.loc);
  }
  for (auto &[loc, msg] : d.notes) {
    if (loc.valid() && loc.file >= 0) {
      os << sm_.name(loc.file) << ':' << loc.line << ':' << loc.col << ": note: " << msg << '\n';
      std::string src = sm_.lineText(loc.file, loc.line);
      os << src << '\n';
      caretLine(os, src, loc);
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

} // namespace spmd
