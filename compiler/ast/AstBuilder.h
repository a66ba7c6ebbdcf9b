// ===- AstBuilder.h - ANTLR parse tree to AST (internal to the front end) --===//
//
// Shared by Parse.cpp and AstBuilder.cpp only, the two files that see ANTLR types. The
// ANTLR classes are forward-declared, so including this header pulls in no ANTLR header.
#pragma once

#include "ast/Ast.h"

#include <string>

namespace antlr4 {
class ParserRuleContext;
class Token;
}  // namespace antlr4

namespace spmd::front {

/// The range of one token of buffer `file`. The parser reads its input one byte per
/// character, so ANTLR's columns are byte columns, as Diagnostics expects; a token never
/// spans lines except NEWLINE, whose range is its first character.
SrcRange tokenRange(const antlr4::Token *t, int file);

/// The source text of token `t` (taken from `src` by byte offsets).
std::string tokenText(const antlr4::Token *t, const std::string &src);

/// Builds the AST of a `program` parse tree that parsed without syntax errors. Throws
/// UserError for the few errors found only here (a malformed escape sequence, an integer
/// literal too large for 64 bits).
ast::Program buildAst(antlr4::ParserRuleContext *program, const std::string &src, int file);

/// The same for one statement of the program's top level (a `stmt` parse tree), for the
/// statement-at-a-time parse of Note [One statement at a time] in Parse.cpp.
ast::StmtP buildStmt(antlr4::ParserRuleContext *stmt, const std::string &src, int file);

}  // namespace spmd::front
