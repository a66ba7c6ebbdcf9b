// ===- spmdrun.cpp - the command line -------------------------------------------===//
//
// `spmdrun FILE.spmd` runs a script, `spmdrun -` one read from standard input, and
// `spmdrun` alone starts the REPL. Misuse of the command line exits 2, errors in the
// program exit 1 (see docs/cli.md).
#include "Driver.h"
#include "Interrupt.h"

#include "BufferPool.h"
#include "Runtime.h"
#include "Settings.h"
#include "Trace.h"
#include "mpi/Mpi.h"
#include "transforms/Pipeline.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <iostream>
#include <sstream>
#include <thread>

using namespace spmd;

// See Note [Settings in the environment] (runtime/settings/Settings.h): every setting is
// checked here, before anything reads it, and a malformed one is refused with exit 2.
static bool checkEnvironment() {
  for (const settings::Setting &s : settings::kSettings) {
    const char *v = std::getenv(s.name);
    if (!v || !*v || settings::accepts(s, v)) continue;
    std::string shown(v);
    if (shown.size() > 40) shown = shown.substr(0, 40) + "...";
    std::cerr << "spmdrun: " << s.name << "='" << shown << "' in the environment: expected "
              << settings::wanted(s) << "\n";
    return false;
  }
  return true;
}

int main(int argc, char **argv) {
  CLI::App app{"spmdrun: run SPMD array programs (.spmd) on CPU devices and GPUs"};
  app.set_version_flag("--version", std::string("spmdrun ") + SPMDRUN_VERSION);
  cli::Config cfg;
  std::string file, dumps, dumpAfter, traceFile;
  std::vector<std::string> args;
  app.add_option("file", file,
                 "the script to run ('-' reads standard input; none starts the REPL)");
  app.add_option(
      "--devices", cfg.devices,
      "cpu:N (N logical CPU devices) or cuda[:N] (N logical devices over the GPUs); default: the "
      "GPUs when any is usable, else cpu with one device per hardware thread");
  app.add_flag("--split-kernels", cfg.splitKernels,
               "on CPU devices, run pmap bodies as GPUs do: a device program launching "
               "data-parallel kernels");
  app.add_option("--arg", args,
                 "NAME=VALUE, read by arg(\"NAME\", default) in the script (repeatable)")
      ->expected(1)
      ->allow_extra_args(false)  // `--arg n=5 prog.spmd`: the file is not a second value
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--dump", dumps, "print compiler stages: ast, ir, llvm, ptx (comma separated)");
  app.add_option("--dump-after", dumpAfter,
                 "print the IR after a pass: lower, vmap, simplify (comma separated)");
  app.add_flag("--no-run", cfg.noRun, "stop after compiling (with --dump)");
  app.add_flag("--no-cache", cfg.noCache,
               "compile with LLVM even when an earlier run left this program's code in the cache "
               "($SPMDRUN_CACHE_DIR, else ~/.cache/spmdrun), and leave nothing there");
  app.add_flag("--stats", cfg.stats,
               "print the compile phases' times (with --no-run, those that ran) and, after "
               "the run, run times and the bytes moved");
  app.add_option("--trace", traceFile,
                 "write a Chrome trace-event JSON of the run to FILE (open it in Perfetto)");
  double collectiveTimeout = 60;
  app.add_option("--collective-timeout", collectiveTimeout,
                 "under mpirun: seconds a rank waits for another (in a collective, at the end of a "
                 "launch, for a host read) before every rank stops with an error (default 60)")
      ->check(CLI::Validator(
          [](std::string &v) -> std::string {
            // CLI11's PositiveNumber lets nan through and prints DBL_MAX in 300 digits.
            double d = 0;
            size_t used = 0;
            try {
              d = std::stod(v, &used);
            } catch (const std::exception &) {
              used = 0;
            }
            if (used != v.size() || !std::isfinite(d) || d <= 0)
              return "must be a positive number of seconds, not '" + v + "'";
            return "";
          },
          "SECONDS"));
  app.add_option("-O", cfg.optLevel, "LLVM optimisation level 0..3 (default 2)")
      ->check(CLI::Range(0, 3));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  if (!checkEnvironment()) return 2;
  auto split = [](const std::string &s, std::set<std::string> &out) {
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
      if (!item.empty()) out.insert(item);
  };
  split(dumps, cfg.dumps);
  split(dumpAfter, cfg.dumpAfter);
  for (auto &d : cfg.dumps)
    if (d != "ast" && d != "ir" && d != "llvm" && d != "ptx") {
      std::cerr << "spmdrun: unknown --dump stage '" << d << "' (stages: ast, ir, llvm, ptx)\n";
      return 2;
    }
  const std::vector<std::string> stages = transforms::stageNames();
  for (auto &d : cfg.dumpAfter)
    if (std::find(stages.begin(), stages.end(), d) == stages.end()) {
      std::string names;
      for (auto &n : stages) names += (names.empty() ? "" : ", ") + n;
      std::cerr << "spmdrun: unknown pass '" << d << "' for --dump-after (passes: " << names
                << ")\n";
      return 2;
    }
  for (auto &a : args) {
    auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0) {
      std::cerr << "spmdrun: --arg needs NAME=VALUE, got '" << a << "'\n";
      return 2;
    }
    cfg.args[a.substr(0, eq)] = a.substr(eq + 1);
  }
  // Under an MPI launcher every rank runs this program (docs/scaling.md); a plain run
  // loads nothing of MPI.
  bool distributed = rt::mpi::launchedByMpi();
  // Note [A collective timeout in one process]
  // ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
  // --collective-timeout bounds how long a rank waits for another rank. The devices of
  // one process cannot wait for each other without end: every replica of a pmap runs the
  // same collectives (an `if` inside a map has a static condition, a loop static bounds),
  // and a device that fails aborts the collective the others wait in (Note [Collective
  // protocol], runtime/cpu/CpuCommunicator.cpp); Ctrl-C stops a run. Given outside
  // mpirun, the option would bound nothing, and a user who sets it expects it to: say so
  // on stderr (the run goes on, so one command line serves both kinds of run).
  if (!distributed && app.count("--collective-timeout"))
    std::cerr << "spmdrun: warning: --collective-timeout has no effect outside mpirun: it "
                 "bounds waits between ranks, and the devices of one process never wait "
                 "for each other without end\n";
  if (distributed && (file.empty() || file == "-")) {
    std::cerr << "spmdrun: under mpirun, give the script as a file ("
              << (file.empty() ? "the REPL runs in one process"
                               : "mpirun passes standard input to rank 0 only")
              << ")\n";
    return 2;
  }
  // An empty value given on purpose is misuse, not the default.
  if (app.count("--devices") && cfg.devices.empty()) {
    std::cerr << "spmdrun: --devices needs a value (cpu, cpu:N, cuda or cuda:N)\n";
    return 2;
  }
  if (app.count("--trace") && traceFile.empty()) {
    std::cerr << "spmdrun: --trace needs a file name\n";
    return 2;
  }
  // `--trace -` wrote a file named "-" where a user expects standard output, which carries
  // the program's output: the trace needs a file of its own.
  if (traceFile == "-") {
    std::cerr << "spmdrun: --trace -: the trace is written to a file, not to standard output"
              << " (which carries the program's output); give it a name (--trace run.json)\n";
    return 2;
  }
  // `spmdrun --trace prog.spmd` took the script as the trace's name, ran the REPL on
  // standard input and wrote the trace over the script. A trace never goes to a .spmd.
  if (traceFile.size() > 5 && traceFile.ends_with(".spmd")) {
    std::cerr << "spmdrun: --trace " << traceFile << ": the trace would be written over a script;"
              << " give the trace a file name of its own (--trace run.json " << traceFile
              << ")\n";
    return 2;
  }
  rt::DeviceSpec spec;
  try {
    if (cfg.devices.empty() && distributed) {
      spec = rt::parseDeviceSpec("cpu");
    } else if (cfg.devices.empty()) {
      // The default: the GPUs when any is usable (spec section 10), else every hardware thread.
      std::string why;
      bool repl = file.empty();
      spec = !repl && rt::cudaDeviceCount(why) > 0 ? rt::parseDeviceSpec("cuda")
                                                   : rt::parseDeviceSpec("cpu");
    } else {
      spec = rt::parseDeviceSpec(cfg.devices);
    }
  } catch (const std::exception &e) {
    std::cerr << "spmdrun: " << e.what() << "\n";
    return 2;
  }
  if (spec.kind == "cuda" && file.empty()) {
    std::cerr << "spmdrun: the REPL runs on CPU devices for now; use --devices cpu:N\n";
    return 2;
  }
  if (spec.kind == "cuda" && cfg.splitKernels) {
    std::cerr << "spmdrun: --split-kernels is for CPU devices (GPUs always run split)\n";
    return 2;
  }
  // Ctrl-C while a script compiles ends the process; while it runs, it stops the run
  // (exit 130 either way; cli/Interrupt.h). The REPL installs its own per input.
  std::optional<cli::SigintHandler> ctrlC;
  if (!file.empty()) ctrlC.emplace();
  // The script and the trace file: misuse (exit 2), found before any device starts.
  std::string text;
  std::string why;
  if (file == "-") {
    // std::cin over stdio reads a closed descriptor or a directory as an empty script.
    errno = 0;
    bool ok = cli::readScript(std::cin, text, why);
    if (ok && std::ferror(stdin)) {
      ok = false;
      why = errno ? std::strerror(errno) : "read error";
    }
    if (!ok) {
      std::cerr << "spmdrun: cannot read the script from standard input: " << why << "\n";
      return 2;
    }
  } else if (!file.empty()) {
    std::error_code ec;
    if (std::filesystem::is_directory(file, ec)) {
      std::cerr << "spmdrun: cannot read '" << file << "': is a directory\n";
      return 2;
    }
    errno = 0;
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      std::cerr << "spmdrun: cannot open '" << file << "'"
                << (errno ? std::string(": ") + std::strerror(errno) : "") << "\n";
      return 2;
    }
    if (!cli::readScript(in, text, why)) {
      std::cerr << "spmdrun: cannot read '" << file << "': " << why << "\n";
      return 2;
    }
  }
  // MPI from here on: every return below finalizes it.
  struct MpiGuard {
    ~MpiGuard() { rt::mpi::finalize(); }
  } mpiGuard;
  if (distributed) {
    try {
      rt::mpi::init(collectiveTimeout);
    } catch (const std::exception &e) {
      std::cerr << "error: " << e.what() << "\n";
      return 1;
    }
    // Every rank must run the same program the same way; say what differs, then stop.
    if (spec.kind == "cpu" && spec.count == 0) spec.count = rt::defaultCpuDevices();
    std::string argList;
    for (auto &[k, v] : cfg.args) argList += (argList.empty() ? "" : " ") + k + "=" + v;
    std::string opts = std::string(cfg.splitKernels ? "--split-kernels " : "") +
                       (cfg.stats ? "--stats " : "") + (cfg.noRun ? "--no-run " : "") + "-O" +
                       std::to_string(cfg.optLevel) + " --dump=" + dumps +
                       " --dump-after=" + dumpAfter + (traceFile.empty() ? "" : " --trace");
    std::string mismatch = rt::mpi::checkSameStart({
        {"the script", file + " (" + std::to_string(text.size()) + " bytes, hash " +
                           std::to_string(std::hash<std::string>{}(text)) + ")"},
        {"--devices", spec.kind + ":" + std::to_string(spec.count)},
        {"--arg", argList},
        {"the other options", opts},
        {"--collective-timeout", std::to_string(collectiveTimeout)},
    });
    if (!mismatch.empty()) {
      if (rt::mpi::rank() == 0) std::cerr << "error: " << mismatch << "\n";
      return 1;
    }
    rt::mpi::quietUnlessRankZero();
    if (!traceFile.empty()) {
      traceFile += ".rank" + std::to_string(rt::mpi::rank());
      rt::trace::setRank(rt::mpi::rank());
    }
  }
  if (!traceFile.empty()) {
    std::string err;
    if (!rt::trace::start(traceFile, &err)) {
      std::cerr << "spmdrun: --trace: " << err << "\n";
      return 2;
    }
  }
  // Devices that cannot be had are a run-time failure (exit 1), reported before compiling
  // so the message is about the devices, not about the program.
  if (!cfg.noRun && !file.empty()) {  // the REPL makes its own
    try {
      cfg.host = rt::Host::create(spec);
    } catch (const std::exception &e) {
      std::cerr << "error: " << e.what() << "\n";
      rt::trace::finish();  // the trace file holds what there was
      return 1;
    }
    cfg.deviceCount = cfg.host->deviceCount();
  } else {
    cfg.deviceCount = distributed      ? rt::mpi::size() * spec.count
                      : spec.count > 0 ? spec.count
                      : spec.kind == "cuda"
                          ? 1
                          : rt::defaultCpuDevices();
  }
  cfg.devices = spec.kind + (spec.count > 0 ? ":" + std::to_string(spec.count) : "");

  // Writes the trace (when asked for) after the run; a trace that cannot be written is
  // reported but does not change the run's exit code unless the run succeeded. So for
  // standard output that could not be written (Note [Output that cannot be written] in
  // runtime/HostIO.cpp: a failed print already failed the run; dumps, --stats and the
  // REPL's replies are checked here).
  auto finish = [&](int rc) {
    std::string err;
    if (!rt::trace::finish(&err)) {
      std::cerr << "spmdrun: " << err << "\n";
      rc = rc == 0 ? 1 : rc;
    }
    std::cout.flush();
    errno = 0;
    if ((std::fflush(stdout) != 0 || std::ferror(stdout)) && rc == 0) {
      std::cerr << "spmdrun: cannot write to standard output"
                << (errno ? std::string(": ") + std::strerror(errno) : "") << "\n";
      rc = 1;
    }
    return rc;
  };
  if (file.empty()) return finish(cli::runRepl(cfg));
  SourceManager sm;
  int id = sm.add(file == "-" ? "<stdin>" : file, text);
  return finish(cli::runScript(sm, id, cfg));
}
