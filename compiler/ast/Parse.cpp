// ===- Parse.cpp - lexing, parsing and friendly syntax errors --------------===//
//
// Runs the ANTLR lexer and parser generated from grammar/Spmd.g4 over one source buffer
// and hands the parse tree to AstBuilder. ANTLR's own error reporting is replaced: the
// parser stops at the first syntax error (later ones are mostly cascades), and
// describeSyntaxError() turns what ANTLR knows at that point (the offending token, the
// tokens it expected) plus a look at the token stream into a clang-style diagnostic.
// See Note [Syntax error messages].
#include "ast/Parse.h"

#include "ast/AstBuilder.h"

#include "SpmdLexer.h"
#include "SpmdParser.h"

#include <algorithm>
#include <cstdio>
#include <optional>

namespace spmd {
namespace {

using P = spmdgen::SpmdParser;
using antlr4::Token;

// Note [Nesting limits]
// The parser and every later pass (the AST builder, the axis check, lowering, the AST
// dump) recurse once per level of the syntax tree, so a tree too deep for the stack is
// refused before parsing, from the tokens alone, with an error at the token that goes
// too far:
//  - kMaxNesting bounds the constructs the parser itself nests: brackets and blocks,
//    `**` (right associative), prefix `- + ~ not`, `if`/`else if` chains and lambdas.
//    Beyond a few hundred levels ANTLR's prediction also turns quadratic (a chain of
//    10,000 `**` took a minute before it overflowed the stack).
//  - kMaxChain bounds the length of one expression: `a + b + c ...` parses as a loop,
//    but its tree is as deep as the chain is long (calls and indexing `f(x)[0]` count
//    too). Statements are not expressions: a program may have any number of them.
// Both are estimates from above, summed over the open brackets: a statement separator
// or a comma starts a new expression (an `else` on the next line continues one), and
// `=`, `:`, `in` start a new operand of it.
// A third limit is on memory, not depth: kMaxStatementTokens bounds one statement of the
// top level, counted over its brackets and blocks (a function's body is inside its
// statement). The parser holds the tree of one such statement at a time (Note [One
// statement at a time]), at up to 1.1 KB a token (a list literal `[1, 1, ...]`: 1 MB of
// it took 1.09 GB), so a script's memory stays bounded (8 MiB of short statements: 0.57
// to 1.16 GB) and a longer statement is an error before memory runs out, not swapping.
constexpr size_t kMaxNesting = 200;
constexpr size_t kMaxChain = 10000;
constexpr size_t kMaxStatementTokens = 1000000;

/// The source text, one character per byte, so that ANTLR's token columns and indices
/// are byte offsets (what Diagnostics prints carets with) and no input is invalid UTF-8.
class ByteStream : public antlr4::ANTLRInputStream {
public:
  explicit ByteStream(const std::string &text) {
    _data.reserve(text.size());
    // (A byte order mark is gone already: Note [Line endings and the byte order mark].)
    for (unsigned char c : text) _data.push_back(char32_t(c));
  }
};

// Note [Small tokens]
// Every token of a script is kept until the parse ends (the messages of Note [Syntax error
// messages] look back and forth over them), and ANTLR's CommonToken is 112 bytes (a
// std::string for a text this grammar never sets, 64-bit fields, the source twice): with
// the parse tree gone (Note [One statement at a time]) tokens were most of the front
// end's memory, 80 bytes per byte of a dense script. SmallToken holds the same facts in
// 40 bytes, with 32-bit offsets (a script is at most 8 MiB, cli/Driver.h); Lexer emits it
// instead. Its text is read from the input stream, as a CommonToken's is.
class SmallToken final : public antlr4::WritableToken {
public:
  /// The lexer and input of every token of one parse.
  using Source = std::pair<antlr4::TokenSource *, antlr4::CharStream *>;

  SmallToken(const Source *source, size_t type, size_t channel, size_t start, size_t stop,
             size_t line, size_t col)
      : source_(source), start_(uint32_t(start)), end_(uint32_t(stop + 1)),
        line_(uint32_t(line)), col_(uint32_t(col)), type_(uint16_t(type)),
        channel_(uint16_t(channel)) {}

  std::string getText() const override {
    return source_->second->getText(antlr4::misc::Interval(getStartIndex(), getStopIndex()));
  }
  size_t getType() const override { return type_; }
  size_t getLine() const override { return line_; }
  size_t getCharPositionInLine() const override { return col_; }
  size_t getChannel() const override { return channel_; }
  size_t getTokenIndex() const override { return index_; }
  size_t getStartIndex() const override { return start_; }
  size_t getStopIndex() const override { return size_t(end_) - 1; }
  antlr4::TokenSource *getTokenSource() const override { return source_->first; }
  antlr4::CharStream *getInputStream() const override { return source_->second; }
  std::string toString() const override { return "[@" + std::to_string(index_) + "]"; }

  void setText(const std::string &) override {
    internalError(__FILE__, __LINE__, "a token's text is the source's");
  }
  void setType(size_t t) override { type_ = uint16_t(t); }
  void setLine(size_t l) override { line_ = uint32_t(l); }
  void setCharPositionInLine(size_t c) override { col_ = uint32_t(c); }
  void setChannel(size_t c) override { channel_ = uint16_t(c); }
  void setTokenIndex(size_t i) override { index_ = uint32_t(i); }

private:
  const Source *source_;
  uint32_t start_, end_;  ///< byte offsets: [start_, end_)
  uint32_t line_, col_;
  uint32_t index_ = uint32_t(-1);
  uint16_t type_, channel_;
};
static_assert(sizeof(SmallToken) <= 40);

/// The generated lexer, emitting SmallTokens (the end of the file is a CommonToken).
class Lexer : public spmdgen::SpmdLexer {
public:
  explicit Lexer(antlr4::CharStream *input)
      : SpmdLexer(input), source_(this, input) {}

  using SpmdLexer::emit;
  Token *emit() override {
    if (type == Token::EOF) return SpmdLexer::emit();  // EOF is -1: not 16 bits
    emit(std::make_unique<SmallToken>(&source_, type, channel, tokenStartCharIndex,
                                      getCharIndex() - 1, tokenStartLine,
                                      tokenStartCharPositionInLine));
    return token.get();
  }

private:
  SmallToken::Source source_;
};

/// The token stream's tokens by index, without a copy of its vector of pointers (8 bytes
/// a token, Note [Small tokens]).
class TokenView {
public:
  explicit TokenView(antlr4::BufferedTokenStream &s) : s_(&s) {}
  Token *operator[](size_t i) const { return s_->get(i); }
  size_t size() const { return s_->size(); }

private:
  antlr4::BufferedTokenStream *s_;
};

// Note [Undecided brackets]
// With `(e)` and tuples as separate alternatives of `primary` (and array literals and
// comprehensions), ANTLR chose between them by reading ahead from the bracket to the token
// that decides (Note [Factored brackets], grammar/Spmd.g4); an error before that token
// was a failed prediction that started at the bracket, and such an error does not know
// what was expected at the offending token (the `expected` of Note [Syntax error
// messages] is unknown). The factored grammar parses the first expression as it goes and
// would know. So that every message stays what it was, an error inside a bracket whose
// deciding token has not been read (no ',' after `(e`, no 'for' or ',' after `[e`, at
// any depth of brackets) is reported as unknowing, as before; it is at the same token,
// since both grammars accept the same prefixes. After the deciding token each
// alternative is the old rule, with the same expected tokens.
bool inUndecidedBracket(antlr4::Parser *p) {
  for (antlr4::tree::ParseTree *c = p->getContext(); c; c = c->parent) {
    if (auto *t = dynamic_cast<P::ParenOrTupleContext *>(c); t && t->COMMA().empty())
      return true;
    if (auto *k = dynamic_cast<P::ListOrComprehensionContext *>(c);
        k && !k->FOR() && k->COMMA().empty())
      return true;
  }
  return false;
}

/// Thrown by StopAtFirstError once it has recorded the first syntax error.
struct StopParsing {};

/// Records the first syntax error and stops the parse; no recovery, so no cascades.
class StopAtFirstError : public antlr4::DefaultErrorStrategy {
public:
  Token *offending = nullptr;
  antlr4::misc::IntervalSet expected;
  bool expectedKnown = false;  ///< whether `expected` is what may stand at `offending`

  void reportError(antlr4::Parser *p, const antlr4::RecognitionException &e) override {
    offending = e.getOffendingToken() ? e.getOffendingToken() : p->getCurrentToken();
    // A failed prediction knows what could start the decision, which may lie some
    // tokens before the one that ruled out the last alternative.
    auto *nva = dynamic_cast<const antlr4::NoViableAltException *>(&e);
    expectedKnown = (!nva || nva->getStartToken() == offending) && !inUndecidedBracket(p);
    if (expectedKnown) expected = e.getExpectedTokens();
  }
  void recover(antlr4::Parser *, std::exception_ptr) override { throw StopParsing{}; }
  Token *recoverInline(antlr4::Parser *p) override { throw antlr4::InputMismatchException(p); }
  void sync(antlr4::Parser *) override {}
};

bool isOpener(size_t t) { return t == P::LPAREN || t == P::LBRACK || t == P::LBRACE; }
bool isCloser(size_t t) { return t == P::RPAREN || t == P::RBRACK || t == P::RBRACE; }
const char *closerOf(size_t opener) {
  return opener == P::LPAREN ? ")" : opener == P::LBRACK ? "]" : "}";
}

bool canStartExpr(size_t t) {
  switch (t) {
  case P::INT:
  case P::FLOAT:
  case P::TRUE:
  case P::FALSE:
  case P::STRING:
  case P::NAME:
  case P::LPAREN:
  case P::LBRACK:
  case P::LBRACE:
  case P::FN:
  case P::IF:
  case P::PMAP:
  case P::VMAP:
  case P::MINUS:
  case P::PLUS:
  case P::TILDE:
  case P::NOT: return true;
  }
  return false;
}

/// Optimal string alignment distance (edits, with adjacent transpositions).
size_t editDistance(const std::string &a, const std::string &b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] =
          std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

/// The keyword that `word` is probably a misspelling of, or "".
std::string nearKeyword(const std::string &word, std::initializer_list<const char *> keywords) {
  if (word.size() < 2) return "";
  for (const char *kw : keywords) {
    std::string k = kw;
    if (word == k) return "";
    if (editDistance(word, k) <= (k.size() >= 5 ? 2u : 1u)) return k;
  }
  return "";
}

// Note [Syntax error messages]
// The parser stops at the first error, at token T. In order:
//  1. a character no token starts with, or a string missing its closing quote;
//  2. a misspelt keyword (`lett x = 1`, `fnn f(x) = x`, `vmapp (x in xs)`): a name that is
//     one edit from a keyword (two for long ones), found where the parser expected that
//     keyword, juxtaposed with the next word, or first in its statement, is the culprit,
//     and the error points at it with "did you mean 'let'?";
//  3. a bracket problem at or before T: a closer that matches no opener, or an opener
//     never closed ("expected '}' to close the block" with a note at the '{'). Newlines
//     are ignored inside ( and [, so an unclosed '(' usually shows up as an error at the
//     start of a later line: then the message is the missing ')' at the end of the line
//     before, which is where the user forgot it;
//  4. "expected an expression" where one had to start at T;
//  5. a complete statement followed by more on the same line, an 'else' with no 'if',
//     a pmap without its axis name;
//  6. "expected X" where ANTLR expected at most three kinds of token;
//  7. "unexpected T".
// Errors at a newline or at the end of the file point just after the previous token.
class SyntaxErrorDescriber {
public:
  SyntaxErrorDescriber(TokenView toks, const std::string &src, int file,
                       const antlr4::dfa::Vocabulary &vocab)
      : toks_(toks), src_(src), file_(file), vocab_(vocab) {}

  Diagnostic describe(size_t at, const antlr4::misc::IntervalSet *expected) {
    Token *t = toks_[at];
    size_t type = t->getType();
    if (type == P::ERRCHAR) {
      std::string s = text(t);
      if (s.size() == 1 && (static_cast<unsigned char>(s[0]) < 0x20 || s[0] == 0x7F)) {
        char buf[48];
        std::snprintf(buf, sizeof buf, "unexpected control character U+%04X",
                      static_cast<unsigned char>(s[0]));
        return error(range(at), buf);
      }
      return error(range(at), "unexpected character '" + s + "'");
    }
    if (type == P::UNTERMINATED_STRING)
      return error(range(at), "missing terminating '\"' character");
    if (auto d = misspeltKeyword(at, expected)) return *d;
    if (auto d = bracketProblem(at)) return *d;
    if (expected && expected->contains(size_t(P::NAME)) && expected->contains(size_t(P::INT)) &&
        expected->contains(size_t(P::LPAREN)) && !canStartExpr(type))
      return error(range(at), "expected an expression");
    if (type == P::ELSE) return error(range(at), "'else' without an 'if' block before it");
    if (expected && at > 0 && (toks_[at - 1]->getType() == P::PMAP) &&
        expected->contains(size_t(P::NAME)))
      return error(range(at), "expected an axis name after 'pmap'");
    if (expected && endsStatement(*expected) && type != P::NEWLINE && type != Token::EOF &&
        !isCloser(type))
      return error(range(at),
                   "unexpected " + describeToken(t) + ": a statement ends with a newline or ';'");
    if (expected) {
      std::vector<std::string> names;
      for (ssize_t e : expected->toList())
        if (e != P::NEWLINE && e != P::SEMI) names.push_back(tokenName(size_t(e)));
      if (!names.empty() && names.size() <= 3) {
        std::string msg = "expected " + names[0];
        for (size_t i = 1; i < names.size(); ++i)
          msg += (i + 1 == names.size() ? " or " : ", ") + names[i];
        return error(range(at), msg + ", found " + describeToken(t));
      }
    }
    return error(range(at), "unexpected " + describeToken(t));
  }

  /// An error for nesting deeper than kMaxNesting, an expression longer than kMaxChain or
  /// a statement longer than kMaxStatementTokens, checked before parsing (Note [Nesting
  /// limits]).
  std::optional<Diagnostic> tooDeep() {
    struct Level {
      size_t right = 0;   ///< pending right-nested operators: ** and prefix - + ~ not
      size_t sticky = 0;  ///< if / else if / lambdas: they extend to the end of the expression
      size_t chain = 0;   ///< operators of the expression so far (binary, postfix)
    };
    std::vector<Level> levels(1);
    size_t nesting = 0, length = 0;  // sums over the open levels (plus the brackets)
    auto resetRight = [&](Level &l) {
      nesting -= l.right;
      length -= l.right;
      l.right = 0;
    };
    auto reset = [&](Level &l) {
      resetRight(l);
      nesting -= l.sticky;
      length -= l.sticky + l.chain;
      l.sticky = l.chain = 0;
    };
    // The first token after i that is not a NEWLINE, kept between calls: a run of n blank
    // lines is scanned once, not n times (a million of them took minutes).
    size_t afterNewlines = 0;
    auto nextIsElse = [&](size_t i) {
      if (afterNewlines <= i) {
        afterNewlines = i + 1;
        while (afterNewlines < toks_.size() && toks_[afterNewlines]->getType() == P::NEWLINE)
          ++afterNewlines;
      }
      return afterNewlines < toks_.size() && toks_[afterNewlines]->getType() == P::ELSE;
    };
    size_t prev = Token::EOF;  // the previous token's type (EOF: none)
    size_t stmtStart = 0;      // the first token of the current top-level statement
    for (size_t i = 0; i < toks_.size(); ++i) {
      size_t t = toks_[i]->getType();
      if (levels.size() == 1 && (t == P::SEMI || (t == P::NEWLINE && !nextIsElse(i))))
        stmtStart = i + 1;
      else if (i - stmtStart >= kMaxStatementTokens && t != Token::EOF)
        return error(range(i),
                     "statement too long (more than " + std::to_string(kMaxStatementTokens) +
                         " tokens)",
                     {{range(stmtStart), "the statement starts here"},
                      {SrcRange{}, "split it: a long list into several, joined with concat(); "
                                   "a long function body into several functions"}});
      bool afterOperand = prev == P::NAME || prev == P::INT || prev == P::FLOAT ||
                          prev == P::STRING || prev == P::TRUE || prev == P::FALSE ||
                          isCloser(prev);
      Level &l = levels.back();
      bool chainOp = false;
      if (isOpener(t)) {
        if (afterOperand && t != P::LBRACE) chainOp = true;  // a call or an index: postfix
        ++nesting;
        ++length;
      } else if (isCloser(t)) {
        if (levels.size() > 1) {
          reset(levels.back());
          levels.pop_back();
          --nesting;
          --length;
        }
      } else if (t == P::POW || t == P::TILDE || t == P::NOT ||
                 ((t == P::MINUS || t == P::PLUS) && !afterOperand)) {
        ++l.right, ++nesting, ++length;
      } else if (t == P::IF || t == P::FN) {
        ++l.sticky, ++nesting, ++length;
      } else if (t == P::NEWLINE ? !nextIsElse(i) : t == P::SEMI || t == P::COMMA) {
        reset(l);  // a new expression starts
      } else if (t == P::ASSIGN || t == P::COLON || t == P::IN || t == P::ALONG || t == P::ARROW) {
        // A new operand starts, but not a new expression: `fn (x) = fn (y) = ...` nests.
        resetRight(l);
        length -= l.chain;
        l.chain = 0;
      } else if (t == P::PLUS || t == P::MINUS || t == P::STAR || t == P::SLASH || t == P::DSLASH ||
                 t == P::PERCENT || t == P::AT || t == P::AMP || t == P::PIPE || t == P::CARET ||
                 t == P::EQ || t == P::NE || t == P::LT || t == P::LE || t == P::GT || t == P::GE ||
                 t == P::AND || t == P::OR || t == P::DOTDOT) {
        resetRight(l);  // the operands of ** and the prefix operators end here
        chainOp = true;
      }
      if (chainOp) ++levels.back().chain, ++length;
      if (isOpener(t)) levels.emplace_back();
      if (nesting > kMaxNesting) {
        size_t rights = 0, stickies = 0;
        for (auto &lv : levels) rights += lv.right, stickies += lv.sticky;
        std::vector<std::pair<SrcRange, std::string>> notes;
        if (2 * rights > kMaxNesting)
          notes.push_back(
              {SrcRange{},
               "'**' groups to the right, as do prefix operators: each one nests the rest"});
        if (2 * stickies > kMaxNesting)
          notes.push_back(
              {SrcRange{}, "each 'else if' (and each lambda) nests the rest of the expression"});
        return error(range(i),
                     "expression nested too deeply (more than " + std::to_string(kMaxNesting) +
                         " levels)",
                     std::move(notes));
      }
      if (length > kMaxChain)
        return error(
            range(i), "expression too long (more than " + std::to_string(kMaxChain) + " operators)",
            {{SrcRange{}, "split it into several statements with intermediate variables"}});
      prev = t;
    }
    return std::nullopt;
  }

private:
  TokenView toks_;
  const std::string &src_;
  int file_;
  const antlr4::dfa::Vocabulary &vocab_;

  std::string text(Token *t) const { return front::tokenText(t, src_); }

  Diagnostic error(SrcRange loc, std::string msg,
                   std::vector<std::pair<SrcRange, std::string>> notes = {}) const {
    Diagnostic d;
    d.loc = loc;
    d.message = std::move(msg);
    d.notes = std::move(notes);
    return d;
  }

  /// Where an error at token `i` points: the token, or for a newline or the end of the
  /// file, just after the last token before it.
  SrcRange range(size_t i) const {
    size_t type = toks_[i]->getType();
    if (type != P::NEWLINE && type != Token::EOF) return front::tokenRange(toks_[i], file_);
    size_t j = i;
    while (j > 0 && toks_[j - 1]->getType() == P::NEWLINE) --j;
    if (j == 0) return front::tokenRange(toks_[i], file_);
    return after(j - 1);
  }
  /// The one-character range just past token `i`.
  SrcRange after(size_t i) const {
    SrcRange r = front::tokenRange(toks_[i], file_);
    r.col = r.endCol;
    r.endCol = r.col + 1;
    return r;
  }

  /// Whether `expected` is just what may follow a complete statement.
  static bool endsStatement(const antlr4::misc::IntervalSet &expected) {
    for (ssize_t e : expected.toList())
      if (e != ssize_t(Token::EOF) && e != P::RBRACE && e != P::NEWLINE && e != P::SEMI)
        return false;
    return !expected.isEmpty();
  }

  std::string describeToken(Token *t) const {
    if (t->getType() == Token::EOF) return "end of file";
    if (t->getType() == P::NEWLINE) return "end of line";
    std::string s = text(t);
    if (s.size() > 24) s = s.substr(0, 21) + "...";
    return "'" + s + "'";
  }

  std::string tokenName(size_t type) const {
    switch (type) {
    case Token::EOF: return "end of file";
    case P::NAME: return "a name";
    case P::INT: return "an integer";
    case P::FLOAT: return "a number";
    case P::STRING: return "a string";
    case P::NEWLINE: return "end of line";
    }
    return vocab_.getLiteralName(type);  // quoted already: 'in'
  }

  /// The first token of the statement that token `at` belongs to.
  size_t statementStart(size_t at) const {
    size_t i = at;
    while (i > 0) {
      size_t t = toks_[i - 1]->getType();
      if (t == P::NEWLINE || t == P::SEMI || t == P::LBRACE || t == P::RBRACE) break;
      --i;
    }
    return i;
  }

  std::optional<Diagnostic> misspeltKeyword(size_t at,
                                            const antlr4::misc::IntervalSet *expected) const {
    auto suggest = [&](size_t i,
                       std::initializer_list<const char *> kws) -> std::optional<Diagnostic> {
      if (toks_[i]->getType() != P::NAME) return std::nullopt;
      std::string word = text(toks_[i]), kw = nearKeyword(word, kws);
      if (kw.empty()) return std::nullopt;
      return error(front::tokenRange(toks_[i], file_),
                   "'" + word + "' is not a keyword; did you mean '" + kw + "'?");
    };
    size_t type = toks_[at]->getType();
    // `for t inn xs`: the parser expected a keyword that is one edit away.
    if (expected && type == P::NAME)
      for (ssize_t e : expected->toList())
        if (e >= P::LET && e <= P::NOT) {
          std::string kw = vocab_.getLiteralName(size_t(e));
          kw = kw.substr(1, kw.size() - 2);  // unquoted
          if (auto d = suggest(at, {kw.c_str()})) return d;
        }
    // `lett x`, `fnn f`, `x inn xs`: two words side by side never parse.
    if (at > 0 && (type == P::NAME || type == P::INT || type == P::FLOAT || type == P::STRING))
      if (auto d = suggest(at - 1, {"let", "var", "fn", "for", "if", "else", "pmap", "vmap", "in",
                                    "along", "and", "or", "not"}))
        return d;
    // `lett (a, b) = t`, `vmapp (x in xs) { ... }`: the statement's first word.
    size_t start = statementStart(at);
    if (start < at)
      if (auto d = suggest(start, {"let", "var", "fn", "for", "if", "pmap", "vmap"})) return d;
    // `let y = vmapp (x in xs) { ... }`: a mapped binding outside a pmap/vmap.
    if (type == P::IN || type == P::ALONG)
      for (size_t i = at; i-- > start;)
        if (auto d = suggest(i, {"pmap", "vmap"})) return d;
    return std::nullopt;
  }

  std::optional<Diagnostic> bracketProblem(size_t at) const {
    std::vector<size_t> open;
    for (size_t i = 0; i < toks_.size(); ++i) {
      size_t t = toks_[i]->getType();
      if (isOpener(t)) open.push_back(i);
      if (isCloser(t)) {
        if (open.empty())
          return i <= at ? std::optional(error(range(i), "unexpected " + describeToken(toks_[i]) +
                                                             " with no matching opening bracket"))
                         : std::nullopt;
        size_t o = open.back();
        if (std::string(closerOf(toks_[o]->getType())) != text(toks_[i]))
          return i <= at ? std::optional(missingCloser(o, i)) : std::nullopt;
        open.pop_back();
      }
      if (t == Token::EOF && !open.empty()) {
        // An unclosed ( or [ swallows the newlines after it, so the parser trips over
        // the start of a following line: report the missing closer at the line's end.
        for (size_t k = open.size(); k-- > 0;) {
          size_t o = open[k];
          if (toks_[o]->getType() == P::LBRACE || o >= at) continue;
          if (at > 0 && toks_[at]->getLine() > toks_[at - 1]->getLine() &&
              toks_[at - 1]->getLine() >= toks_[o]->getLine())
            return missingCloser(o, at, /*atLineEnd=*/true);
          break;
        }
        if (i <= at) return missingCloser(open.back(), i);
      }
    }
    return std::nullopt;
  }

  Diagnostic missingCloser(size_t opener, size_t at, bool atLineEnd = false) const {
    size_t type = toks_[opener]->getType();
    std::string closer = closerOf(type);
    std::string msg = "expected '" + closer + "'";
    if (type == P::LBRACE) msg += " to close the block";
    SrcRange loc = atLineEnd ? after(at - 1) : range(at);
    return error(
        loc, msg,
        {{front::tokenRange(toks_[opener], file_), "to match this '" + text(toks_[opener]) + "'"}});
  }
};

/// A script is UTF-8 text, as Python reads a .py file: a NUL byte or bytes that are not
/// UTF-8, anywhere (in comments and strings too), stop it before lexing, so that no
/// message or printed string carries them on.
std::optional<Diagnostic> notText(const std::string &src, int file) {
  int line = 1;
  size_t lineStart = 0;
  for (size_t i = 0; i < src.size();) {
    unsigned char c = static_cast<unsigned char>(src[i]);
    size_t n = utf8Length(src, i);
    if (c == 0 || n == 0) {
      Diagnostic d;
      d.loc.file = file;
      d.loc.line = d.loc.endLine = line;
      d.loc.col = int(i - lineStart) + 1;
      d.loc.endCol = d.loc.col + 1;
      char buf[96];
      if (c == 0)
        std::snprintf(buf, sizeof buf, "unexpected NUL byte: this is not a text file");
      else
        std::snprintf(buf, sizeof buf, "invalid UTF-8 byte 0x%02X: a script must be UTF-8 text", c);
      d.message = buf;
      return d;
    }
    if (c == '\n') {
      ++line;
      lineStart = i + 1;
    }
    i += n;
  }
  return std::nullopt;
}

}  // namespace

ast::Program parseProgram(const SourceManager &sm, int file, std::vector<Diagnostic> &errors) {
  const std::string &src = sm.text(file);
  if (auto d = notText(src, file)) {
    errors.push_back(*d);
    return {};
  }
  ByteStream input(src);
  Lexer lexer(&input);
  lexer.removeErrorListeners();
  antlr4::CommonTokenStream tokens(&lexer);
  tokens.fill();
  TokenView toks(tokens);

  spmdgen::SpmdParser parser(&tokens);
  parser.removeErrorListeners();
  SyntaxErrorDescriber describer(toks, src, file, parser.getVocabulary());
  if (auto d = describer.tooDeep()) {
    errors.push_back(*d);
    return {};
  }
  // Note [Two-stage parse]: ANTLR's standard speed-up. The parse runs first with SLL
  // prediction, which never looks at the rule invocation stack; where SLL succeeds its
  // tree is the one full LL prediction would build (ANTLR's PredictionMode
  // documentation), and this grammar has no semantic predicates in the parser. SLL can
  // report a syntax error that LL would not, so on any error the tokens are rewound and
  // the parse runs again with full LL, and only LL's error is reported: the messages of
  // Note [Syntax error messages] are unchanged. Most of a parse here is ANTLR building
  // its prediction DFA on first use; SLL builds less of it (spec train_mlp's parse
  // phase 7.9 -> 5.8 ms, bench/notes.md, 2026-11-24, compile11).
  //
  // Note [One statement at a time]
  // ANTLR's parse tree costs about 3 KB per short statement (`x = x + 1` is 21 rule
  // contexts, one per precedence level of its operands, and 6 leaves, each a heap object
  // the parser owns until reset()), and a tree of the whole program lived until its AST
  // was built: 1,000,000 such statements took 4.7 GB. So the top level is parsed one
  // statement at a time: rule `stmt` from the first token that is not a separator, its AST
  // built, then parser.reset() frees its tree; only the tokens (for the messages) and the
  // AST stay. A statement's parse is the same as inside `program` (its decisions look one
  // or two tokens ahead, never past the separator that ends it; checked against the whole
  // parse with --dump=ast on every test script). Anything else falls back to the whole
  // parse of Note [Two-stage parse] from that statement's first token, as `program`, so
  // that the error (and its expected tokens) is the one the whole parse reported: a syntax
  // error in `stmt`, or a statement not followed by a separator or the end. The AST of a
  // statement can fail too (a bad escape, an integer too large): that error is kept until
  // the rest has parsed, since a syntax error anywhere is reported before it, as when the
  // whole tree was built first. A block's statements (a function's body) are parsed whole.
  auto *sim = parser.getInterpreter<antlr4::atn::ParserATNSimulator>();
  auto strategy = std::make_shared<StopAtFirstError>();
  parser.setErrorHandler(strategy);
  sim->setPredictionMode(antlr4::atn::PredictionMode::SLL);
  ast::Program prog;
  prog.file = file;
  std::optional<Diagnostic> astError;  // the first error building a statement's AST
  auto build = [&](auto &&f) {
    if (astError) return;  // only the first is reported; the rest is parsed, not built
    try {
      f();
    } catch (UserError &e) {
      astError = e.diag;
    }
  };
  // The whole parse from token `from` (Note [Two-stage parse]); false after a syntax error.
  auto parseRest = [&](size_t from) {
    antlr4::ParserRuleContext *tree = nullptr;
    for (auto mode : {antlr4::atn::PredictionMode::SLL, antlr4::atn::PredictionMode::LL}) {
      parser.reset();
      tokens.seek(from);
      sim->setPredictionMode(mode);
      strategy = std::make_shared<StopAtFirstError>();
      parser.setErrorHandler(strategy);
      try {
        tree = parser.program();
        break;
      } catch (StopParsing &) {
        tree = nullptr;
      }
    }
    if (!tree) {
      size_t at = strategy->offending ? strategy->offending->getTokenIndex() : toks.size() - 1;
      errors.push_back(describer.describe(std::min(at, toks.size() - 1),
                                          strategy->expectedKnown ? &strategy->expected : nullptr));
      return false;
    }
    build([&] {
      for (auto &s : front::buildAst(tree, src, file).stmts) prog.stmts.push_back(std::move(s));
    });
    return true;
  };
  auto isSep = [&](size_t i) {
    size_t t = toks[i]->getType();
    return t == P::NEWLINE || t == P::SEMI;
  };
  size_t i = 0;  // toks.back() is EOF
  for (;;) {
    while (isSep(i)) ++i;
    if (toks[i]->getType() == Token::EOF) break;
    parser.reset();  // frees the previous statement's tree
    tokens.seek(i);
    antlr4::ParserRuleContext *stmt = nullptr;
    try {
      stmt = parser.stmt();
    } catch (StopParsing &) {
      stmt = nullptr;
    }
    size_t next = tokens.index();
    if (!stmt || !(isSep(next) || toks[next]->getType() == Token::EOF)) {
      if (!parseRest(i)) return {};
      break;
    }
    build([&] { prog.stmts.push_back(front::buildStmt(stmt, src, file)); });
    i = next;
  }
  parser.reset();
  if (astError) {
    errors.push_back(*astError);
    return {};
  }
  return prog;
}

bool inputIsIncomplete(const std::string &text) {
  std::vector<char> open;
  return inputIsIncomplete(text, open);
}

bool inputIsIncomplete(std::string_view text, std::vector<char> &open) {
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\n') return false;  // an unterminated string: an error, not more input
        if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] != '\n') ++i;
      }
      if (i >= text.size()) return false;
    } else if (c == '(' || c == '[' || c == '{') {
      open.push_back(c);
    } else if (c == ')' || c == ']' || c == '}') {
      char want = c == ')' ? '(' : c == ']' ? '[' : '{';
      if (open.empty() || open.back() != want) return false;  // a mismatch: let the parser say
      open.pop_back();
    }
  }
  return !open.empty();
}

}  // namespace spmd
