// ===- LineReader.cpp - reading REPL lines: libedit on a terminal, else plain --===//
#include "LineReader.h"

#include <histedit.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <iostream>

namespace spmd::cli {

namespace {
volatile std::sig_atomic_t gotInterrupt = 0;
void onInterrupt(int) { gotInterrupt = 1; }
}  // namespace

struct LineReader::Impl {
  bool interactive = false;
  bool interrupted = false;
  std::string historyPath, prompt;
  std::string readError;  ///< why standard input could not be read ("" at a plain end)
  EditLine *el = nullptr;
  History *hist = nullptr;
};

/// libedit asks for the prompt through a callback; the reader is the client data.
static char *promptOf(EditLine *el) {
  void *data = nullptr;
  el_get(el, EL_CLIENTDATA, &data);
  return const_cast<char *>(static_cast<LineReader::Impl *>(data)->prompt.c_str());
}

LineReader::LineReader(bool interactive, std::string historyPath)
    : impl_(std::make_unique<Impl>()) {
  impl_->interactive = interactive;
  impl_->historyPath = std::move(historyPath);
  if (!interactive) return;
  impl_->el = el_init("spmdrun", stdin, stdout, stderr);
  impl_->hist = history_init();
  HistEvent ev;
  history(impl_->hist, &ev, H_SETSIZE, 1000);
  history(impl_->hist, &ev, H_SETUNIQUE, 1);
  if (!impl_->historyPath.empty()) history(impl_->hist, &ev, H_LOAD, impl_->historyPath.c_str());
  el_set(impl_->el, EL_CLIENTDATA, impl_.get());
  el_set(impl_->el, EL_PROMPT, promptOf);
  el_set(impl_->el, EL_EDITOR, "emacs");
  el_set(impl_->el, EL_HIST, history, impl_->hist);
  el_source(impl_->el, nullptr);  // the user's ~/.editrc, if any
}

LineReader::~LineReader() {
  if (impl_->hist) history_end(impl_->hist);
  if (impl_->el) el_end(impl_->el);
}

bool LineReader::read(const std::string &prompt, std::string &line, size_t maxBytes) {
  if (!impl_->interactive) {
    line.clear();
    std::streambuf *in = std::cin.rdbuf();
    errno = 0;
    for (int c; (c = in->sbumpc()) != EOF;) {
      if (c == '\n') return true;
      line += char(c);
      if (line.size() >= maxBytes) return true;
    }
    // A closed descriptor or a directory as standard input reads as an end (std::cin
    // over stdio sets no badbit), which ended the session as if it were empty: exit 0.
    if (std::ferror(stdin) && impl_->readError.empty())
      impl_->readError = errno ? std::strerror(errno) : "read error";
    return !line.empty();
  }
  impl_->prompt = prompt;
  impl_->interrupted = false;
  // Ctrl-C while reading abandons the line (no SA_RESTART: el_gets returns); while an
  // input runs, SIGINT keeps its default and ends the process.
  struct sigaction sa = {}, old = {};
  sa.sa_handler = onInterrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old);
  gotInterrupt = 0;
  int count = 0;
  const char *s = el_gets(impl_->el, &count);
  sigaction(SIGINT, &old, nullptr);
  if (gotInterrupt) {
    impl_->interrupted = true;
    el_reset(impl_->el);
    std::fputs("^C\n", stdout);
    std::fflush(stdout);
    return false;
  }
  if (!s || count <= 0) return false;
  line.assign(s, size_t(count));
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  return true;
}

bool LineReader::interrupted() const { return impl_->interrupted; }

const std::string &LineReader::readError() const { return impl_->readError; }

void LineReader::remember(const std::string &line) {
  if (!impl_->hist || line.find_first_not_of(" \t") == std::string::npos) return;
  HistEvent ev;
  history(impl_->hist, &ev, H_ENTER, line.c_str());
  if (!impl_->historyPath.empty()) history(impl_->hist, &ev, H_SAVE, impl_->historyPath.c_str());
}

std::string defaultHistoryPath() {
  if (const char *p = std::getenv("SPMDRUN_HISTORY")) return p;
  if (const char *home = std::getenv("HOME")) return std::string(home) + "/.spmdrun_history";
  return "";
}

}  // namespace spmd::cli
