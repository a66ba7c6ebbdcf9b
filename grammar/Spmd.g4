// ===- Spmd.g4 - the grammar of .spmd scripts -----------------------------------===//
//
// One combined grammar (lexer + parser) for the language of docs/language.md. ANTLR
// generates the C++ parser at build time; compiler/ast/AstBuilder.cpp turns its parse
// tree into the AST, and no other file sees the generated types.
//
// Note [Newlines]
// Statements end at a NEWLINE or ';'. Inside ( ) and [ ] newlines are skipped so that a
// call or a list may span lines, but a { } block opened inside parentheses starts a fresh
// statement context again (a multi-line lambda passed to a call keeps its newlines). The
// lexer keeps a stack of open brackets for that; a NEWLINE is dropped while the innermost
// open bracket is ( or [.
//
// Expression precedence, lowest first: range `a..b` (not associative), or, and, not,
// comparisons, |, ^, &, + -, * / // % @, unary - + ~, ** (right associative, and binds
// tighter than a unary minus on its left: -x**2 is -(x**2)), postfix call and index.
//
// Note [Factored brackets]
// `(e)` and a tuple are one alternative of `primary`, as are an array literal and a
// comprehension: they share their first expression, and as separate alternatives ANTLR's
// prediction had to read through all of it to choose (up to 15 tokens in rule30, and most
// of a small script's parse time spent building the prediction DFA for those long
// lookaheads, bench/notes.md, 2026-11-24, compile12). Factored, every choice is made by
// one or two tokens: the token after the first expression (',' or ')', 'for' or ',' or
// ']') tells them apart, and AstBuilder reads which it was from the tree. After that
// token each alternative is the rule it replaced, so the tokens expected at an error are
// the same; an error before it is reported as the old prediction's error was, see
// Note [Undecided brackets] in compiler/ast/Parse.cpp.
grammar Spmd;

@lexer::members {
  /// Open brackets, innermost last (see Note [Newlines]).
  std::vector<char> nesting;
  void open(char c) { nesting.push_back(c); }
  void close() { if (!nesting.empty()) nesting.pop_back(); }
  bool newlinesIgnored() const { return !nesting.empty() && nesting.back() != '{'; }
}

// ---- statements ---------------------------------------------------------------------
program   : stmtList EOF ;
stmtList  : sep* (stmt (sep+ stmt)* sep*)? ;
sep       : NEWLINE | SEMI ;

stmt
  : LET pattern ASSIGN expr                                        # letStmt
  | VAR NAME ASSIGN expr                                           # varStmt
  | NAME ASSIGN expr                                               # assignStmt
  | FN NAME axisParams? paramList (ARROW typeAnn)? fnBody          # fnStmt
  | FOR pattern IN expr block                                      # forStmt
  | expr                                                           # exprStmt
  ;

axisParams : LBRACK NAME (COMMA NAME)* COMMA? RBRACK ;
paramList  : LPAREN (param (COMMA param)* COMMA?)? RPAREN ;
param      : NAME (COLON typeAnn)? ;
typeAnn    : NAME (LBRACK (dim (COMMA dim)* COMMA?)? RBRACK)? ;
dim        : INT | NAME ;
fnBody     : ASSIGN expr | block ;
block      : LBRACE stmtList RBRACE ;

pattern
  : NAME                                                           # namePattern
  | LPAREN pattern (COMMA pattern)* COMMA? RPAREN                  # tuplePattern
  ;

// ---- expressions, lowest precedence first -------------------------------------------
expr        : orExpr (DOTDOT orExpr)? ;
orExpr      : andExpr (OR andExpr)* ;
andExpr     : notExpr (AND notExpr)* ;
notExpr     : NOT notExpr | cmpExpr ;
cmpExpr     : bitOrExpr ((EQ | NE | LT | LE | GT | GE) bitOrExpr)* ;
bitOrExpr   : bitXorExpr (PIPE bitXorExpr)* ;
bitXorExpr  : bitAndExpr (CARET bitAndExpr)* ;
bitAndExpr  : addExpr (AMP addExpr)* ;
addExpr     : mulExpr ((PLUS | MINUS) mulExpr)* ;
mulExpr     : unaryExpr ((STAR | SLASH | DSLASH | PERCENT | AT) unaryExpr)* ;
unaryExpr   : (MINUS | PLUS | TILDE) unaryExpr | powExpr ;
powExpr     : postfixExpr (POW unaryExpr)? ;
postfixExpr : primary postfixOp* ;

postfixOp
  : LBRACK NAME (COMMA NAME)* COMMA? RBRACK LPAREN argList? RPAREN # axisCallOp
  | LPAREN argList? RPAREN                                         # callOp
  | LBRACK indexItem (COMMA indexItem)* COMMA? RBRACK              # indexOp
  ;
argList   : arg (COMMA arg)* COMMA? ;
arg       : NAME ASSIGN expr | expr ;
indexItem
  : lo=expr? COLON hi=expr? (COLON step=expr?)?                    # sliceItem
  | expr                                                           # exprItem
  ;

primary
  : INT                                                            # intLit
  | FLOAT                                                          # floatLit
  | (TRUE | FALSE)                                                 # boolLit
  | STRING                                                         # stringLit
  | NAME                                                           # nameExpr
  | LPAREN (expr (COMMA (expr (COMMA expr)* COMMA?)?)?)? RPAREN    # parenOrTuple
  | LBRACK (expr (FOR pattern IN expr | (COMMA expr)* COMMA?))? RBRACK  # listOrComprehension
  | FN paramList (ARROW typeAnn)? fnBody                           # lambda
  | block                                                          # blockExpr
  | ifExpr                                                         # ifExpression
  | (PMAP NAME | VMAP NAME?) LPAREN mapBinding (COMMA mapBinding)* COMMA? RPAREN
    (ARROW ALONG expr)? block                                      # mapExpr
  | SHARD_MAP (LPAREN meshAxis (COMMA meshAxis)* COMMA? RPAREN | NAME)
    LPAREN mapBinding (COMMA mapBinding)* COMMA? RPAREN ARROW expr block  # shardMapExpr
  ;

ifExpr     : IF expr block (NEWLINE* ELSE (ifExpr | block))? ;
mapBinding : pattern IN expr (ALONG expr)? ;
meshAxis   : NAME ASSIGN expr ;

// ---- lexer --------------------------------------------------------------------------
LET: 'let'; VAR: 'var'; FN: 'fn'; FOR: 'for'; IN: 'in'; IF: 'if'; ELSE: 'else';
PMAP: 'pmap'; VMAP: 'vmap'; SHARD_MAP: 'shard_map'; ALONG: 'along'; TRUE: 'true'; FALSE: 'false';
AND: 'and'; OR: 'or'; NOT: 'not';

LPAREN: '(' { open('('); };
RPAREN: ')' { close(); };
LBRACK: '[' { open('['); };
RBRACK: ']' { close(); };
LBRACE: '{' { open('{'); };
RBRACE: '}' { close(); };

ARROW: '->'; DOTDOT: '..'; POW: '**'; DSLASH: '//';
EQ: '=='; NE: '!='; LE: '<='; GE: '>='; LT: '<'; GT: '>';
ASSIGN: '='; PLUS: '+'; MINUS: '-'; STAR: '*'; SLASH: '/'; PERCENT: '%'; AT: '@';
AMP: '&'; PIPE: '|'; CARET: '^'; TILDE: '~';
COMMA: ','; COLON: ':'; SEMI: ';';

// A float's trailing '.' may not be followed by another '.': `0..n` is INT '..' NAME.
FLOAT
  : DIGIT+ '.' DIGIT+ EXPONENT?
  | DIGIT+ '.' EXPONENT
  | DIGIT+ '.' { _input->LA(1) != '.' }?
  | DIGIT+ EXPONENT
  ;
INT: DIGIT+;
NAME: [A-Za-z_] [A-Za-z0-9_]*;
STRING: '"' (~["\\\r\n] | '\\' ~[\r\n])* '"';
/// A string without its closing quote on the same line: reported as such by the parser.
UNTERMINATED_STRING: '"' (~["\\\r\n] | '\\' ~[\r\n])*;

NEWLINE: '\r'? '\n' { if (newlinesIgnored()) skip(); };
COMMENT: '#' ~[\r\n]* -> skip;
WS: [ \t\f\r]+ -> skip;
/// Anything else, one token per character (or per run of non-ASCII bytes: the parser
/// reads its input as bytes), so the lexer itself never fails.
ERRCHAR: [\u0080-\u00FF]+ | . ;

fragment DIGIT: [0-9];
fragment EXPONENT: [eE] [+-]? DIGIT+;
