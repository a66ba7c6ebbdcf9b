// ===- ReplSession.cpp - compiling and running REPL inputs, one module each ----===//
//
// run() is the pipeline of Driver.cpp's compileToIR/runScript, over a kept scope: parse,
// check axes, lower (sema::Session), vmap, then JIT the module into the session's one
// JIT and call its entry with the buffers of the kept values it reads (Note [REPL entry]
// in codegen/LlvmEmitter.cpp). The buffers it hands back are kept under the Var ids of the
// new bindings; buffers no binding can reach any more are freed after each input.
#include "ReplSession.h"

#include "Interrupt.h"

#include "ast/Parse.h"
#include "sema/AxisCheck.h"
#include "transforms/Pipeline.h"
#include "Trace.h"

#include <chrono>
#include <iostream>
#include <sstream>

namespace spmd::cli {

namespace {
double now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}
}  // namespace

ReplSession::ReplSession(const Config &cfg) : cfg_(cfg), diags_(sm_) {
  rt::DeviceSpec spec = rt::parseDeviceSpec(cfg.devices.empty() ? "cpu" : cfg.devices);
  if (spec.count == 0) spec.count = cfg.deviceCount;
  host_ = rt::Host::create(spec);
  sema::LowerOptions lo;
  lo.deviceCount = cfg.deviceCount;
  lo.args = cfg.args;
  session_ = std::make_unique<sema::Session>(sm_, lo);
  codegenOpts_.optLevel = cfg.optLevel;
  codegenOpts_.where = [this](const SrcRange &r) { return sema::locationText(sm_, r); };
  jit_ = std::make_unique<codegen::Jit>(codegenOpts_);
}

ReplSession::~ReplSession() = default;

std::string ReplSession::devices() const { return host_->describe(); }

void ReplSession::report(const UserError &e) {
  std::cout << std::flush;
  diags_.report(e.diag);
}

std::optional<sema::LoweredInput>
ReplSession::lower(const std::string &text, const std::string &name, bool echo, bool exprOnly) {
  int file = sm_.add(name, text);
  std::vector<Diagnostic> errs;
  programs_.push_back(parseProgram(sm_, file, errs));
  ast::Program &prog = programs_.back();
  if (errs.empty()) sema::checkAxes(prog, errs, &meshNames_);
  if (!errs.empty()) {
    std::cout << std::flush;
    for (auto &e : errs) diags_.report(e);
    return std::nullopt;
  }
  if (exprOnly && (prog.stmts.size() != 1 || prog.stmts[0]->kind != ast::StmtKind::Expr)) {
    std::cout << std::flush;
    std::cerr << "error: expected one expression\n";
    return std::nullopt;
  }
  try {
    return session_->lower(prog, echo, exprOnly);
  } catch (const UserError &e) {
    report(e);
    return std::nullopt;
  }
}

bool ReplSession::run(const std::string &text, const std::string &name, bool echo) {
  times_ = InputTimes();
  interrupted_ = false;
  SigintHandler handler;  // Ctrl-C from here to the end of the run stops the run
  StopRuns ctrlC;
  double t0 = now();
  std::optional<sema::LoweredInput> in;
  {
    rt::trace::Span span("compile: front end", "compile");
    in = lower(text, name, echo, false);
  }
  if (!in) return false;
  ir::Module &m = in->module;
  if (m.main.eqns.empty() && m.main.invars.empty() && m.main.outvars.empty()) {
    // Nothing to run (a definition, `let x = 3`): no code to compile, no buffers change.
    // Compiling its empty module took most of a `fn` line's time (about 8 ms).
    times_.frontSeconds = now() - t0;
    session_->commit(m.nextId);
    return true;
  }
  std::unique_ptr<codegen::Executable> exe;
  try {
    transforms::runPipeline(m, [](const transforms::Pass &p, const std::function<void()> &run) {
      rt::trace::Span span(std::string("compile: ") + p.name, "compile");
      run();
    });
    times_.frontSeconds = now() - t0;
    rt::trace::Span span("compile: codegen + jit", "compile");
    exe = jit_->add(m);
    times_.jitSeconds = exe->compileSeconds();
  } catch (const UserError &e) {
    session_->rollback();
    report(e);
    return false;
  } catch (const InternalError &e) {
    session_->rollback();
    reportBug(e.what());
    return false;
  }
  std::vector<void *> ins, outs(m.main.outvars.size(), nullptr);
  for (auto &v : m.main.invars) {
    auto it = buffers_.find(v.id);
    if (it == buffers_.end()) {
      session_->rollback();
      reportBug("internal error: no buffer kept for a value of type " + v.type.str());
      return false;
    }
    ins.push_back(it->second);
  }
  std::cout << std::flush;
  if (rt::interruptRequested()) {  // Ctrl-C while compiling: nothing runs
    session_->rollback();
    interrupted_ = true;
    sayInterrupted("interrupted");
    return false;
  }
  double t1 = now();
  int rc;
  {
    rt::trace::Span span("run", "run");
    rc = exe->entryIO() ? host_->run(exe->entryIO(), ins.data(), outs.data())
                        : host_->run(exe->entry());
  }
  times_.runSeconds = now() - t1;
  if (rc != 0) {
    session_->rollback();
    if (rc == rt::kInterrupted) {
      interrupted_ = true;
      sayInterrupted("interrupted");
    }
    return false;
  }
  for (size_t k = 0; k < in->outIds.size(); ++k) {
    int id = in->outIds[k];
    if (id < 0) continue;
    buffers_[id] = outs[k];
    std::string l = layoutOf(m.main.outvars[k].isLit ? -1 : m.main.outvars[k].var.id, &m.main);
    if (!l.empty()) layouts_[id] = l;
  }
  session_->commit(m.nextId);
  collectGarbage();
  return true;
}

void ReplSession::collectGarbage() {
  if (buffers_.empty()) return;  // nothing to free: no need to walk every scope
  std::set<int> live = session_->liveIds();
  for (auto it = buffers_.begin(); it != buffers_.end();) {
    if (live.count(it->first)) {
      ++it;
      continue;
    }
    bool shared = false;  // never free a buffer another live id still uses
    for (auto &[id, p] : buffers_) shared |= id != it->first && p == it->second && live.count(id);
    if (!shared) host_->free(it->second);
    layouts_.erase(it->first);
    it = buffers_.erase(it);
  }
}

/// The Pmap equation of `j` that defines `id`, and which of its outputs it is.
static const ir::Eqn *pmapDefining(const ir::Jaxpr &j, int id, size_t &which) {
  for (auto &e : j.eqns)
    for (size_t k = 0; k < e.out.size(); ++k)
      if (e.out[k].id == id) {
        which = k;
        return e.op == ir::Op::Pmap ? &e : nullptr;
      }
  return nullptr;
}

std::string ReplSession::layoutOf(int id, const ir::Jaxpr *main) const {
  auto kept = layouts_.find(id);
  if (kept != layouts_.end()) return kept->second;
  if (!main || id < 0) return "";
  size_t k = 0;
  const ir::Eqn *e = pmapDefining(*main, id, k);
  std::vector<std::pair<std::string, int64_t>> mesh;
  std::vector<int64_t> stackAxes;
  while (e) {
    mesh.push_back({e->param("axis_name").s, e->intParam("axis_size")});
    stackAxes.push_back(e->intsParam("out_axes").at(k));
    const ir::Atom &inner = e->regions.at(0).outvars.at(k);
    e = inner.isLit ? nullptr : pmapDefining(e->regions[0], inner.var.id, k);
  }
  if (mesh.empty()) return "";
  // Inner stacking axes count in the per-replica shape: shift them past outer ones.
  std::vector<int64_t> pos;
  for (size_t l = stackAxes.size(); l-- > 0;) {
    for (auto &p : pos)
      if (p >= stackAxes[l]) ++p;
    pos.insert(pos.begin(), stackAxes[l]);
  }
  int64_t devices = 1;
  std::ostringstream os, meshText;
  for (size_t l = 0; l < mesh.size(); ++l) {
    devices *= mesh[l].second;
    meshText << (l ? ", " : "") << mesh[l].first << "=" << mesh[l].second;
  }
  os << "sharded over " << devices << " device" << (devices == 1 ? "" : "s") << " along ";
  if (pos.size() == 1) {
    os << "axis " << pos[0];
  } else {
    os << "axes (";
    for (size_t l = 0; l < pos.size(); ++l) os << (l ? ", " : "") << pos[l];
    os << ")";
  }
  os << " (mesh " << meshText.str() << ")";
  return os.str();
}

std::string ReplSession::typeText(const sema::Value &v, const ir::Jaxpr &main) const {
  using sema::Value;
  switch (v.kind) {
  case Value::Array: {
    std::string l =
        v.sharding.empty() ? layoutOf(v.atom.isLit ? -1 : v.atom.var.id, &main) : v.sharding;
    return v.type().str() + (l.empty() ? "" : " " + l);
  }
  case Value::Tuple: {
    std::string s = v.isList ? "[" : "(";
    for (size_t k = 0; k < v.elems.size(); ++k) s += (k ? ", " : "") + typeText(*v.elems[k], main);
    if (!v.isList && v.elems.size() == 1) s += ",";
    return s + (v.isList ? "]" : ")");
  }
  case Value::Func: {
    if (v.fkind != Value::Closure || !v.lambda) return "function " + v.fname;
    std::string s = "function " + (v.fname.empty() ? std::string("(anonymous)") : v.fname);
    if (!v.lambda->axisParams.empty()) {
      s += "[";
      for (size_t k = 0; k < v.lambda->axisParams.size(); ++k)
        s += (k ? ", " : "") + v.lambda->axisParams[k].name;
      s += "]";
    }
    s += "(";
    for (size_t k = 0; k < v.lambda->params.size(); ++k)
      s += (k ? ", " : "") + v.lambda->params[k].name.name;
    return s + ")";
  }
  case Value::Mesh: {
    std::string s = "mesh(";
    for (size_t k = 0; k < v.meshAxes.size(); ++k)
      s += (k ? ", " : "") + v.meshAxes[k].name + "=" + std::to_string(v.meshSizes[k]);
    return s + ")";
  }
  default: return sema::describe(v);
  }
}

bool ReplSession::type(const std::string &text) {
  auto in = lower(text, "<type>", false, true);
  if (!in) return false;
  session_->rollback();
  std::cout << typeText(*in->last, in->module.main) << "\n" << std::flush;
  return true;
}

bool ReplSession::dump(const std::string &stage, const std::string &text) {
  std::string name = text;
  while (!name.empty() && isspace((unsigned char)name.back())) name.pop_back();
  while (!name.empty() && isspace((unsigned char)name.front())) name.erase(0, 1);
  std::optional<sema::LoweredInput> in;
  sema::ValueP fn;
  bool isName =
      !name.empty() && (isalpha((unsigned char)name[0]) || name[0] == '_') &&
      name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
          std::string::npos;
  if (isName && (fn = session_->lookup(name)) && fn->kind == sema::Value::Func) {
    int file = sm_.add("<" + stage + ">", name);
    try {
      in = session_->lowerLastCall(name, SrcRange{file, 1, 1, 1, int(name.size()) + 1});
    } catch (const UserError &e) {
      report(e);
      return false;
    }
  } else {
    in = lower(text, "<" + stage + ">", false, true);
    if (!in) return false;
    session_->rollback();
    // A builtin (`:ir print`, `:ir sum`) or a lambda is a function value: its IR exists
    // only at a call's types, and the program of the bare name is empty.
    if (in->last && in->last->kind == sema::Value::Func) {
      std::cout << std::flush;
      std::cerr << "error: '" << name << "' is "
                << (in->last->fkind == sema::Value::Builtin ? "a builtin function" : "a function")
                << ", whose code exists only at the types of a call: show a call instead, "
                   "e.g. :"
                << stage << " " << (isName ? name : "(" + name + ")") << "(x)\n";
      return false;
    }
  }
  try {
    ir::Module &m = in->module;
    transforms::runPipeline(m);
    if (stage == "ir")
      std::cout << ir::print(m);
    else if (stage == "llvm")
      std::cout << codegen::emitLLVM(m, codegenOpts_);
    else
      std::cout << codegen::emitPTX(m, codegenOpts_);
    std::cout << std::flush;
  } catch (const UserError &e) {
    report(e);
    return false;
  } catch (const InternalError &e) {
    reportBug(e.what());
    return false;
  }
  return true;
}

}  // namespace spmd::cli
