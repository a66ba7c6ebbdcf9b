// ===- Diagnostics.h - source locations and clang-style error reports -----===//
//
// Every user-facing error goes through here: `file:line:col: error: message`, the
// source line, a caret (or `^~~~` under a range), then optional `note:` lines.
// User errors (the program's fault) are `UserError` exceptions carrying a
// Diagnostic; our own bugs are `internal_assert` failures, reported apart.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace spmd {

/// A half-open range in one source buffer. Lines and columns are 1-based; a zero line
/// means "no location". `endLine/endCol` point one past the last character.
struct SrcRange {
  int file = -1;
  int line = 0, col = 0;
  int endLine = 0, endCol = 0;
  bool valid() const { return line > 0; }
};

/// Owns the text of every source buffer (files, stdin, REPL lines) by index.
class SourceManager {
public:
  int add(std::string name, std::string text);
  const std::string &name(int file) const { return files_[file].name; }
  bool valid(int file) const { return file >= 0 && file < int(files_.size()); }
  const std::string &text(int file) const { return files_[file].text; }
  /// The text of line `line` (1-based) of `file`, without its newline.
  std::string lineText(int file, int line) const { return std::string(lineView(file, line)); }
  /// The same, into the buffer (valid while the SourceManager lives): no copy of a long line.
  std::string_view lineView(int file, int line) const;

private:
  struct File {
    std::string name, text;
    std::vector<size_t> lineStarts;
  };
  std::vector<File> files_;
};

struct Diagnostic {
  enum Kind { Error, Warning, Note } kind = Error;
  SrcRange loc;
  std::string message;
  std::vector<std::pair<SrcRange, std::string>> notes;  ///< notes with optional location
};

/// Thrown for errors in the user's program; caught by the driver, printed, exit 1.
struct UserError : std::runtime_error {
  Diagnostic diag;
  explicit UserError(Diagnostic d) : std::runtime_error(d.message), diag(std::move(d)) {}
};

/// Collects and prints diagnostics against a SourceManager.
class DiagEngine {
public:
  explicit DiagEngine(const SourceManager &sm) : sm_(sm) {}
  void report(const Diagnostic &d);
  int errorCount() const { return errors_; }
  /// Renders a diagnostic as text (what report() prints to stderr).
  std::string format(const Diagnostic &d) const;

private:
  const SourceManager &sm_;
  int errors_ = 0;
};

/// The length of the well-formed UTF-8 sequence that starts at s[i] (1 for ASCII), or 0
/// when the bytes there are not UTF-8.
size_t utf8Length(const std::string &s, size_t i);

[[noreturn]] void userError(SrcRange loc, std::string message,
                            std::vector<std::pair<SrcRange, std::string>> notes = {});

/// Our own bug: an invariant that does not hold. Never the user's fault.
struct InternalError : std::logic_error {
  using std::logic_error::logic_error;
};
[[noreturn]] void internalError(const char *file, int line, const std::string &what);
/// Tells the user that spmdrun itself failed (an InternalError's `what`, or another broken
/// invariant) and that it is our bug, not theirs: the one place that words it, for the
/// driver and the REPL. Flushes standard output first so the message comes last.
void reportBug(const std::string &what);

#define internal_assert(cond, msg)                                                                 \
  do {                                                                                             \
    if (!(cond)) ::spmd::internalError(__FILE__, __LINE__, std::string(#cond ": ") + (msg));       \
  } while (0)

}  // namespace spmd
