// ===- Session.h - lowering REPL inputs one at a time over a kept scope ---------===//
//
// The REPL compiles each input as a module of its own, but the names it binds persist.
// A Session keeps one AstLowering (and so its top-level Scope chain) alive between inputs.
// Note [Persistent values]: an array bound at top level is a Var of the module that
// computed it; its data lives on in a host buffer after that module ran. A later input
// that reads it sees the same Var id, which becomes an invar of the new `main`; array
// values an input binds become outvars of its `main`, whose buffers the REPL keeps.
// Var ids never repeat across inputs (each module's counter starts where the last
// one's ended), so old Vars stay meaningful.
#pragma once

#include "sema/Lower.h"
#include "sema/Value.h"

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace spmd::sema {

class AstLowering;

/// One input lowered by a Session.
struct LoweredInput {
  ir::Module module;        ///< main: invars = kept values it reads; outvars = values it binds
  std::vector<int> outIds;  ///< the Var id each outvar of main is kept as (ids survive vmap)
  ValueP last;              ///< the value of the last expression statement, or null
};

/// A REPL session: lowers input after input over one top-level scope.
class Session {
public:
  Session(const SourceManager &sm, const LowerOptions &o);
  ~Session();

  /// Lowers `p` on top of the definitions kept so far. With `echo`, each top-level
  /// expression statement prints its value (as print does); with `lastAsOutput`, the
  /// arrays of the last expression's value are outvars of main too (outIds -1: for
  /// showing its IR). Throws UserError; the scope is then as it was before. Follow a
  /// successful call by commit() or rollback(). `p` must outlive the Session.
  LoweredInput lower(const ast::Program &p, bool echo, bool lastAsOutput = false);
  /// Lowers a call of the function bound to `name` at the argument types of its latest
  /// call (array arguments become invars of main, the result its outvars). Throws
  /// UserError when `name` is not a function or has not been called yet. Never commits.
  LoweredInput lowerLastCall(const std::string &name, SrcRange loc);
  /// Keeps the bindings of the last lower(); `nextId` is its module's counter after the
  /// transforms ran, so later Vars do not reuse ids.
  void commit(int nextId);
  /// Forgets the bindings of the last lower() (it failed to compile or to run).
  void rollback();

  /// The ids of the array Vars the top-level scope can still reach (directly, in
  /// tuples, or through closures).
  std::set<int> liveIds() const;
  /// The value bound to `name` at top level, or null.
  ValueP lookup(const std::string &name) const;

private:
  void begin();
  std::unique_ptr<AstLowering> l_;
  int nextId_ = 0;
  /// The scope before the pending input: the innermost scope and a copy of the
  /// variables of every scope in its chain.
  ScopeP savedScope_;
  std::vector<std::pair<ScopeP, std::map<std::string, Scope::Binding>>> savedVars_;
};

}  // namespace spmd::sema
