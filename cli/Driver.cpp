// ===- Driver.cpp - the compile pipeline, pass after pass -----------------------===//
//
// compileToIR() reads as the pipeline: parse, check axes, lower (type check), then the
// passes of transforms::pipeline() (vmap, simplify), each verified. Each step can dump its result
// (--dump, --dump-after) and is timed for --stats. runScript() then JIT-compiles and runs the
// module on the devices.
#include "Driver.h"

#include "Interrupt.h"

#include "ast/Parse.h"
#include "codegen/Codegen.h"
#include "codegen/ObjectCache.h"
#include "sema/AxisCheck.h"
#include "sema/Lower.h"
#include "transforms/Pipeline.h"
#include "Runtime.h"
#include "Trace.h"
#include "mpi/Mpi.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <iostream>

namespace spmd::cli {

namespace {
double now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

/// Reports every diagnostic, in source order, then stops the compile.
[[noreturn]] void fail(std::vector<Diagnostic> &errs, DiagEngine &diags) {
  std::stable_sort(errs.begin(), errs.end(), [](const Diagnostic &a, const Diagnostic &b) {
    return std::make_pair(a.loc.line, a.loc.col) < std::make_pair(b.loc.line, b.loc.col);
  });
  for (auto &e : errs) diags.report(e);
  throw ErrorsReported{};
}
// Note [Arguments nobody reads]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// `--arg stpes=5` for a script that reads arg("steps", 100) ran with 100 steps and said
// nothing: a silent wrong answer. An --arg whose name the script never reads is
// command-line misuse, as an unknown option is (exit 2; Python's argparse says
// "unrecognized arguments" with exit 2 too). "Reads" is generous, so that a correct
// command line is never refused: a name counts when the lowering looked it up (names
// computed at compile time included) or when any call arg("NAME", ...) with the name as
// a literal is in the source, in a branch or a function the lowering did not reach
// (`if arg("mode", "a") == "b" { arg("n", 3) }` accepts --arg n=... in either mode).
// The check runs after lowering, so an error in the program is reported first. Under
// mpirun every rank compiles the same script with the same --arg values (checked before),
// so every rank ends with exit 2. The REPL does not check: its later inputs may read any
// name.
void checkArgsRead(const std::map<std::string, std::string> &args, const ast::Program &prog,
                   std::set<std::string> &read) {
  if (args.empty()) return;
  std::set<std::string> inSource = sema::argNamesInSource(prog);
  read.insert(inSource.begin(), inSource.end());
  std::vector<std::string> unread;
  for (auto &[name, value] : args)
    if (!read.count(name)) unread.push_back("--arg " + name + "=" + value);
  if (unread.empty()) return;
  std::string msg;
  for (auto &u : unread) msg += (msg.empty() ? "" : ", ") + u;
  msg += unread.size() == 1 ? ": the script never reads an argument of that name"
                            : ": the script never reads arguments of those names";
  if (read.empty()) {
    msg += " (it calls no arg())";
  } else {
    msg += " (it reads ";
    size_t k = 0;
    for (auto &n : read) {
      if (k == 10) {
        msg += ", ...";
        break;
      }
      msg += (k++ ? ", " : "") + n;
    }
    msg += ")";
  }
  throw UnreadArguments{msg};
}
}  // namespace

ir::Module compileToIR(SourceManager &sm, int file, const Config &cfg, DiagEngine &diags,
                       std::ostream &out, std::map<std::string, double> *secs) {
  auto timed = [&](const char *name, auto &&f) {
    rt::trace::Span span(std::string("compile: ") + name, "compile");
    double t0 = now();
    f();
    if (secs) (*secs)[name] += now() - t0;
  };
  std::vector<Diagnostic> errs;
  ast::Program prog;
  timed("parse", [&] { prog = parseProgram(sm, file, errs); });
  if (!errs.empty()) fail(errs, diags);
  if (cfg.dumps.count("ast")) out << ast::dumpAst(prog) << std::flush;

  timed("axis check", [&] { sema::checkAxes(prog, errs); });
  if (!errs.empty()) fail(errs, diags);

  sema::LowerOptions lo;
  lo.deviceCount = cfg.deviceCount;
  lo.args = cfg.args;
  std::set<std::string> argsRead;
  lo.argsRead = &argsRead;
  ir::Module m;
  timed("lower", [&] { m = sema::lowerProgram(sm, prog, lo); });
  checkArgsRead(cfg.args, prog, argsRead);
  ir::verify(m);
  if (cfg.dumpAfter.count("lower")) out << "// IR after lower\n" << ir::print(m) << std::flush;

  transforms::runPipeline(m, [&](const transforms::Pass &p, const std::function<void()> &run) {
    timed(p.name, run);
    if (cfg.dumpAfter.count(p.name))
      out << "// IR after " << p.name << "\n" << ir::print(m) << std::flush;
  });
  if (cfg.dumps.count("ir")) out << ir::print(m) << std::flush;
  return m;
}

/// The code generator's backend for the devices of `cfg`.
static codegen::Backend backendOf(const Config &cfg) {
  if (cfg.devices.rfind("cuda", 0) == 0) return codegen::Backend::Cuda;
  return cfg.splitKernels ? codegen::Backend::CpuSplit : codegen::Backend::Cpu;
}

// Note [Reading a script]
// ~~~~~~~~~~~~~~~~~~~~~~~
// A script is read whole before the front end checks that it is text (parseProgram), so a
// source with no end was read until memory ran out: `spmdrun /dev/zero`, `spmdrun - <
// /dev/urandom`, `:load /dev/zero` in the REPL, `yes | spmdrun -`. Two bounds:
//  - reading stops at the end of the line of the first NUL byte (at most 4 KiB past it):
//    the check refuses the text at its first NUL or earlier, so nothing after it can
//    change the message, and the shown line keeps its caret;
//  - a script over kMaxScriptBytes (8 MiB, ten times the longest program the tests
//    generate: 300,000 blank lines, 30,000 statements) is refused unread, as misuse. The
//    front end needs 70 to 140 bytes of memory per byte of a script of short statements
//    (its tokens and AST: 8 MiB of `x = x + 1` lines take 0.57 GB, of `a;` 1.16 GB; it
//    was 400 bytes, 4.7 GB for 11 MB, before Note [One statement at a time] in
//    compiler/ast/Parse.cpp), so a larger bound would let a pipe that never ends exhaust
//    the machine first.
//  The REPL bounds each input (a line, or lines inside an open bracket) the same way.
bool readScript(std::istream &in, std::string &text, std::string &why) {
  text.clear();
  errno = 0;
  std::string chunk(size_t(1) << 16, '\0');
  size_t nul = std::string::npos;
  while (in) {
    in.read(chunk.data(), std::streamsize(chunk.size()));
    size_t got = size_t(in.gcount());
    if (got == 0) break;
    size_t from = text.size();
    text.append(chunk.data(), got);
    if (nul == std::string::npos) nul = text.find('\0', from);
    if (nul != std::string::npos) {
      size_t end = std::min(text.find('\n', nul), nul + 4096);
      if (end < text.size()) {
        text.resize(end);
        return true;
      }
    }
    if (text.size() > kMaxScriptBytes) {
      text.clear();
      why = "larger than " + std::to_string(kMaxScriptBytes >> 20) + " MiB, too long for a script";
      return false;
    }
  }
  if (in.bad()) {
    text.clear();
    why = errno ? std::strerror(errno) : "read error";
    return false;
  }
  return true;
}

int runScript(SourceManager &sm, int file, const Config &cfg) {
  DiagEngine diags(sm);
  std::map<std::string, double> secs;
  try {
    ir::Module m = compileToIR(sm, file, cfg, diags, std::cout, &secs);
    codegen::Options co;
    co.optLevel = cfg.optLevel;
    co.backend = backendOf(cfg);
    co.where = [&m](const SrcRange &r) { return m.where(r); };
    if (cfg.dumps.count("llvm")) std::cout << codegen::emitLLVM(m, co) << std::flush;
    if (cfg.dumps.count("ptx")) std::cout << codegen::emitPTX(m, co) << std::flush;
    // --stats prints the phases that ran: with --no-run, those of the compile to IR.
    auto printPhases = [&] {
      std::cerr << "compile phases:\n";
      for (auto &[k, v] : secs) fprintf(stderr, "  %-14s %10.3f ms\n", k.c_str(), v * 1e3);
    };
    if (cfg.noRun) {
      if (cfg.stats) printPhases();
      return 0;
    }
    if (!cfg.noCache) co.cacheDir = codegen::ObjectCache::defaultDir();
    rt::Host *host = cfg.host.get();
    internal_assert(host != nullptr, "runScript needs the devices");
    // The first launches' outputs are faulted in while LLVM runs (Note [Pre-faulting]).
    host->expectBuffers(codegen::planHostBuffers(m, co));
    double t0 = now();
    std::unique_ptr<codegen::Executable> exe;
    {
      rt::trace::Span span("compile: codegen + jit", "compile");
      exe = codegen::compile(m, co);
    }
    secs["codegen + jit"] += now() - t0;
    try {
      t0 = now();
      if (!exe->ptx().empty()) host->loadKernels(exe->ptx());
      if (!exe->hostKernels().empty()) host->loadHostKernels(exe->hostKernels());
      if (!exe->ptx().empty()) secs["module load"] += now() - t0;
    } catch (const std::exception &e) {
      std::cerr << "error: " << e.what() << "\n";
      return 1;
    }
    t0 = now();
    int rc;
    {
      rt::trace::Span span("run", "run");
      StopRuns ctrlC;  // Ctrl-C stops the run (the handler is main's)
      rc = host->run(exe->entry());
    }
    secs["run"] += now() - t0;
    std::cout << std::flush;
    if (rc == rt::kInterrupted) {
      sayInterrupted("spmdrun: interrupted");
      // Under mpirun the other ranks may be inside a launch that waits for this one, and
      // MPI_Finalize would wait for them: leave now, and mpirun, seeing a rank end with
      // a non-zero code, ends the others.
      if (rt::mpi::active()) {
        std::cerr << std::flush;
        rt::trace::finish();
        std::_Exit(rt::kInterrupted);
      }
    }
    if (cfg.stats) {
      printPhases();
      // Not a phase line (no leading space): bench/run sums those.
      if (auto &b = exe->breakdown(); b.parts > 0)
        fprintf(stderr,
                "codegen + jit: emit %.3f ms; LLVM in %d part%s%s, %.3f ms wall, CPU optimise "
                "%.3f ms + machine code %.3f ms, largest part %.3f ms\n",
                b.emitSecs * 1e3, b.parts, b.parts > 1 ? "s" : "",
                b.slowPaths ? (" + " + std::to_string(b.slowPaths) + " slow path" +
                               (b.slowPaths > 1 ? "s" : "") + " on first call").c_str()
                            : "",
                b.llvmWallSecs * 1e3,
                b.optCpuSecs * 1e3, b.objCpuSecs * 1e3, b.maxPartCpuSecs * 1e3);
      const char *use[] = {"off", "hit", "miss"};
      std::cerr << "object cache: " << use[int(exe->cacheUse())]
                << (co.cacheDir.empty() ? "" : " (" + co.cacheDir + ")") << "\n";
      std::cerr << host->formatStats();
    }
    return rc;
  } catch (const UserError &e) {
    diags.report(e.diag);
    return 1;
  } catch (const UnreadArguments &e) {
    std::cout << std::flush;
    std::cerr << "spmdrun: " << e.message << "\n";
    return 2;
  } catch (const ErrorsReported &) { return 1; } catch (const InternalError &e) {
    reportBug(e.what());
    return 3;
  }
}

}  // namespace spmd::cli
