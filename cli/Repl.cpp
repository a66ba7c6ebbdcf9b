// ===- Repl.cpp - the interactive loop ---------------------------------------------===//
//
// A minimal REPL for now: reads lines (without a prompt when standard input is not a
// terminal), accumulates them until brackets and blocks are closed, and runs each
// complete input together with the definitions before it. See issue 7 for the full REPL.
#include "Driver.h"

#include "ast/Parse.h"

#include <iostream>
#include <unistd.h>

namespace spmd::cli {

int runRepl(const Config &cfg) {
  bool tty = isatty(0);
  std::string history, pending, line;
  if (tty) std::cout << "spmdrun REPL: enter statements; :quit to leave\n";
  while (true) {
    if (tty) std::cout << (pending.empty() ? ">>> " : "... ") << std::flush;
    if (!std::getline(std::cin, line)) break;
    if (pending.empty() && (line == ":quit" || line == ":q")) break;
    pending += line + "\n";
    if (inputIsIncomplete(pending)) continue;
    // Re-run the accumulated definitions silently is not possible without state; run
    // the new input after the definitions (let/var/fn lines) seen so far.
    SourceManager sm;
    int id = sm.add("<repl>", history + pending);
    Config c = cfg;
    int rc = runScript(sm, id, c);
    if (rc == 0) {
      // Keep only definitions in the history so earlier prints are not repeated.
      std::string kept;
      size_t pos = 0;
      while (pos < pending.size()) {
        size_t e = pending.find('\n', pos);
        std::string l = pending.substr(pos, e - pos);
        pos = e == std::string::npos ? pending.size() : e + 1;
        kept += l + "\n";
      }
      auto first = pending.find_first_not_of(" \t");
      if (first != std::string::npos &&
          (pending.compare(first, 4, "let ") == 0 || pending.compare(first, 4, "var ") == 0 ||
           pending.compare(first, 3, "fn ") == 0))
        history += kept;
    }
    pending.clear();
  }
  return 0;
}

} // namespace spmd::cli
