// ===- Repl.cpp - the interactive loop: lines, inputs and commands -------------===//
//
// `spmdrun` with no file. Lines are read (LineReader: libedit on a terminal, plain
// reads from a pipe, with no prompt or banner) and gathered until no bracket or block is
// open; each complete input is compiled and run by the ReplSession over the definitions
// kept so far, and its expression statements print their values. Lines that start with
// ':' are commands (:help lists them). An error is reported and the session goes on;
// with a non-terminal stdin the exit code is 1 when any input failed, so that scripts
// driving the REPL notice.
#include "Driver.h"

#include "LineReader.h"
#include "ReplSession.h"

#include "ast/Parse.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace spmd::cli {

namespace {

const char *kHelp =
    "Enter statements as in a script: definitions (let, var, fn) persist, an expression\n"
    "prints its value. A line with an open bracket or block continues on the next line.\n"
    "Commands:\n"
    "  :type EXPR      the type of EXPR; for a pmap result, its layout over the devices\n"
    "  :ir EXPR|FN     the IR of an expression, or of a function at its latest call's types\n"
    "  :llvm EXPR|FN   the optimised LLVM IR (host code and kernels)\n"
    "  :ptx EXPR|FN    the kernels as PTX for NVIDIA GPUs\n"
    "  :time EXPR      run EXPR and say how long it took to compile and to run\n"
    "  :load FILE      run a script in this session (its definitions persist)\n"
    "  :devices        the devices this session runs on\n"
    "  :help           this text\n"
    "  :quit           leave (or end of input: Ctrl-D)\n";

std::string trim(const std::string &s) {
  size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

/// Runs one command line; false for :quit. `ok` is cleared when the command failed.
bool command(ReplSession &s, const std::string &text, bool &ok) {
  size_t sp = text.find_first_of(" \t\n");
  std::string cmd = text.substr(0, sp), arg = sp == std::string::npos ? "" : trim(text.substr(sp));
  auto needArg = [&](const char *what) {
    if (!arg.empty()) return true;
    std::cout << std::flush;
    std::cerr << "error: " << cmd << " needs " << what << "\n";
    ok = false;
    return false;
  };
  // A command that takes nothing refuses extra words (`:quit now`, `:help me`) instead of
  // ignoring them: `:quit now` does not quit.
  bool takesNothing = cmd == ":quit" || cmd == ":q" || cmd == ":exit" || cmd == ":help" ||
                      cmd == ":h" || cmd == ":?" || cmd == ":devices";
  if (takesNothing && !arg.empty()) {
    std::cout << std::flush;
    std::cerr << "error: " << cmd << " takes no argument, got '"
              << (arg.size() > 40 ? arg.substr(0, 40) + "..." : arg) << "'\n";
    ok = false;
    return true;
  }
  if (cmd == ":quit" || cmd == ":q" || cmd == ":exit") return false;
  if (cmd == ":help" || cmd == ":h" || cmd == ":?") {
    std::cout << kHelp << std::flush;
  } else if (cmd == ":devices") {
    std::cout << s.devices() << "\n" << std::flush;
  } else if (cmd == ":type" || cmd == ":t") {
    if (needArg("an expression")) ok &= s.type(arg);
  } else if (cmd == ":ir" || cmd == ":llvm" || cmd == ":ptx") {
    if (needArg("an expression or a function's name")) ok &= s.dump(cmd.substr(1), arg);
  } else if (cmd == ":time") {
    if (needArg("an expression")) {
      bool ran = s.run(arg, "<stdin>", true);
      ok &= ran || s.interrupted();
      if (ran) {
        const InputTimes &t = s.lastTimes();
        char buf[160];
        std::snprintf(buf, sizeof buf,
                      "compile %.1f ms (front end %.1f ms, LLVM %.1f ms), run %.3f ms\n",
                      (t.frontSeconds + t.jitSeconds) * 1e3, t.frontSeconds * 1e3,
                      t.jitSeconds * 1e3, t.runSeconds * 1e3);
        std::cout << buf << std::flush;
      }
    }
  } else if (cmd == ":load") {
    if (needArg("a file name")) {
      // As for a script on the command line: a directory opens but reads as nothing (it
      // used to load silently), a failed read is said, with the reason where there is one.
      std::error_code ec;
      errno = 0;
      std::ifstream in;
      if (!std::filesystem::is_directory(arg, ec)) in.open(arg, std::ios::binary);
      int openErrno = errno;
      std::string text, why;
      if (!in.is_open() || !readScript(in, text, why)) {
        std::cout << std::flush;
        std::cerr << "error: cannot " << (in.is_open() ? "read" : "open") << " '" << arg << "'"
                  << (std::filesystem::is_directory(arg, ec) ? ": is a directory"
                      : in.is_open()                        ? ": " + why
                      : openErrno ? std::string(": ") + std::strerror(openErrno)
                                  : "")
                  << "\n";
        ok = false;
      } else {
        ok &= s.run(text, arg, false) || s.interrupted();
      }
    }
  } else {
    std::cout << std::flush;
    std::cerr << "error: unknown command '" << cmd << "' (:help lists the commands)\n";
    ok = false;
  }
  return true;
}

}  // namespace

int runRepl(const Config &cfg) {
  bool tty = isatty(0);
  std::unique_ptr<ReplSession> session;
  try {
    session = std::make_unique<ReplSession>(cfg);
  } catch (const std::exception &e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  if (tty)
    std::cout << "spmdrun " << SPMDRUN_VERSION << " on " << session->devices()
              << ". :help for help, :quit to leave.\n";
  LineReader reader(tty, tty ? defaultHistoryPath() : "");
  std::string pending, line;
  std::vector<char> open;  // the brackets `pending` leaves open
  bool allOk = true;
  for (;;) {
    if (!reader.read(pending.empty() ? ">>> " : "... ", line, kMaxScriptBytes + 1)) {
      if (!reader.readError().empty()) {
        std::cout << std::flush;
        std::cerr << "error: cannot read standard input: " << reader.readError() << "\n";
        allOk = false;
      }
      if (!reader.interrupted()) break;
      pending.clear();  // Ctrl-C drops the input being typed
      continue;
    }
    reader.remember(line);
    if (pending.empty() && trim(line).empty()) continue;
    // One input is bounded as a script is (Note [Reading a script]): an open bracket
    // followed by endless lines, or a line with no end, cannot be run; what follows it
    // would be read out of step, so the session ends.
    if (pending.size() + line.size() + 1 > kMaxScriptBytes) {
      std::cout << std::flush;
      std::cerr << "error: <stdin>: an input larger than " << (kMaxScriptBytes >> 20)
                << " MiB, too long for a script; the session ends\n";
      allOk = false;
      pending.clear();
      break;
    }
    if (pending.empty()) open.clear();
    pending += line + "\n";
    if (inputIsIncomplete(std::string_view(pending).substr(pending.size() - line.size() - 1),
                          open))
      continue;
    std::string input;
    input.swap(pending);
    if (trim(input)[0] == ':') {
      if (!command(*session, trim(input), allOk)) break;
      continue;
    }
    // An input stopped by Ctrl-C is not a failure: the user asked for it.
    allOk &= session->run(input, "<stdin>", true) || session->interrupted();
  }
  if (!trim(pending).empty())
    allOk &= session->run(pending, "<stdin>", true);  // reports what is open
  if (tty) std::cout << "\n";
  return tty || allOk ? 0 : 1;
}

}  // namespace spmd::cli
