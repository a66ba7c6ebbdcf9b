// ===- LineReader.h - reading REPL lines: libedit on a terminal, else plain ----===//
//
// On a terminal, lines are read with libedit (BSD licence): emacs-style editing, arrow
// keys, and a history that persists in a file between sessions. Otherwise (a pipe, a
// file) lines are read plainly from stdin and nothing is printed, so tests and scripts
// can drive the REPL.
#pragma once

#include <memory>
#include <string>

namespace spmd::cli {

class LineReader {
public:
  /// `interactive`: use libedit on stdin/stdout, with its history kept in
  /// `historyPath` (none when empty).
  LineReader(bool interactive, std::string historyPath);
  ~LineReader();
  LineReader(const LineReader &) = delete;
  LineReader &operator=(const LineReader &) = delete;

  /// Reads one line without its newline, showing `prompt` when interactive. False at
  /// the end of the input, or when Ctrl-C interrupted the line (then interrupted()).
  /// From a pipe or a file, a line stops after `maxBytes` bytes (the rest is the next
  /// line): input with no newline, such as /dev/zero, is not read without end.
  bool read(const std::string &prompt, std::string &line, size_t maxBytes);
  /// Whether the last read() ended with Ctrl-C (the REPL then drops the pending input).
  bool interrupted() const;
  /// Why reading a pipe or file failed (a closed descriptor, a directory), or "" when the
  /// input just ended.
  const std::string &readError() const;
  /// Adds a line to the history and saves the history file.
  void remember(const std::string &line);

  struct Impl;  ///< libedit's state (public for its prompt callback)

private:
  std::unique_ptr<Impl> impl_;
};

/// The history file: $SPMDRUN_HISTORY, else ~/.spmdrun_history ("" when neither is known).
std::string defaultHistoryPath();

}  // namespace spmd::cli
