// ===- Ast.cpp - small helpers declared in Ast.h ---------------------------===//
//
// Operator spellings, as written in source (error messages and the AST dump use them).
#include "ast/Ast.h"

namespace spmd::ast {

const char *spelling(UnOp op) {
  switch (op) {
  case UnOp::Neg: return "-";
  case UnOp::BitNot: return "~";
  case UnOp::Not: return "not";
  case UnOp::Plus: return "+";
  }
  return "?";
}

const char *spelling(BinOp op) {
  switch (op) {
  case BinOp::Add: return "+";
  case BinOp::Sub: return "-";
  case BinOp::Mul: return "*";
  case BinOp::Div: return "/";
  case BinOp::FloorDiv: return "//";
  case BinOp::Mod: return "%";
  case BinOp::Pow: return "**";
  case BinOp::MatMul: return "@";
  case BinOp::Eq: return "==";
  case BinOp::Ne: return "!=";
  case BinOp::Lt: return "<";
  case BinOp::Le: return "<=";
  case BinOp::Gt: return ">";
  case BinOp::Ge: return ">=";
  case BinOp::BitAnd: return "&";
  case BinOp::BitOr: return "|";
  case BinOp::BitXor: return "^";
  case BinOp::And: return "and";
  case BinOp::Or: return "or";
  }
  return "?";
}

}  // namespace spmd::ast
