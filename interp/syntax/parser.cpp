// The Futhark parser: hand-written recursive descent with precedence
// climbing for infix operators (Spirit X3 is used for the lexer only).
//
// Precedence, lowest to highest, as in the %left/%right declarations of
// Futhark's own grammar (src/Language/Futhark/Parser/Parser.y; the table in
// docs/language-reference.rst lists the same rows but puts |> and <| in the
// wrong place):
//
//    :  :>                        ascription, coercion (only at the top of an expression)
//    ..  ...  ..<  ..>            ranges (right)
//    `f`                          backtick application        level 1
//    with                         e with [i] = v / e with a = v   level 2 (rhs at level 3)
//    |>...                        level 3  (left)
//    <|...                        level 4  (right)
//    ||...                        level 5
//    &&...                        level 6
//    <=... >=... >... <... ==... !=... !... =...   level 7
//    &... ^... |...               level 8
//    <<... >>...                  level 9
//    +... -...                    level 10
//    *... /... %... //... %%...   level 11
//    **...                        level 12 (left, as in Futhark)
//    prefix - and !               bind tighter than any infix operator
//    juxtaposition (application), then indexing/projection
//
// A user-defined operator takes the row of the longest built-in operator that
// is a prefix of its name: `>>=` binds like `>>`, `+^` like `+`, `|>>` like
// `|>`, `<-<` like `<`. Every operator character is the start of some
// built-in operator, so every operator has a row.
//
// `if`, `let`, `loop`, `match`, `\`, and `#[attr]` extend as far right as
// possible; they may appear as the right operand of an infix operator.
#include "interp/syntax/parser.hpp"

#include <array>
#include <utility>

#include <fmt/format.h>

#include "interp/syntax/lexer.hpp"
#include "interp/syntax/parser_impl.hpp"
#include "interp/util/error.hpp"

namespace thorn {

OpInfo operator_info(std::string_view name) {
  struct Row {
    std::string_view op;
    int level;
    bool right;
  };
  static constexpr std::array<Row, 25> kBuiltins = {{
      {"|>", 3, false}, {"<|", 4, true},  {"||", 5, false}, {"&&", 6, false},
      {"<=", 7, false}, {">=", 7, false}, {">", 7, false},  {"<", 7, false},
      {"==", 7, false}, {"!=", 7, false}, {"!", 7, false},  {"=", 7, false},
      {"&", 8, false},  {"^", 8, false},  {"|", 8, false},  {"<<", 9, false},
      {">>", 9, false}, {"+", 10, false}, {"-", 10, false}, {"*", 11, false},
      {"/", 11, false}, {"%", 11, false}, {"//", 11, false}, {"%%", 11, false},
      {"**", 12, false},
  }};
  const Row* best = nullptr;
  for (const auto& row : kBuiltins)
    if (name.starts_with(row.op) && (!best || row.op.size() > best->op.size())) best = &row;
  if (!best) return {kLevelLowestSymbol, false};  // not reachable for lexer-made names
  return {best->level, best->right};
}

ExprPtr make_expr(Expr::Kind kind, const Loc& loc) {
  auto e = std::make_shared<Expr>();
  e->kind = kind;
  e->loc = loc;
  return e;
}

// ---------------------------------------------------------------- cursor

Parser::Parser(const SourceFile* file) : file_(file), toks_(lex(file)) {
  // SourceFile::line() scans from the start of the file; spans need line
  // lengths often, so compute them once.
  uint32_t len = 0;
  for (char c : file->text) {
    if (c == '\n') {
      line_lengths_.push_back(len);
      len = 0;
    } else {
      ++len;
    }
  }
  line_lengths_.push_back(len);
}

const Token& Parser::peek(size_t ahead) const {
  size_t i = pos_ + ahead;
  return i < toks_.size() ? toks_[i] : toks_.back();
}

const Token& Parser::advance() {
  const Token& t = toks_[pos_];
  if (pos_ + 1 < toks_.size()) ++pos_;
  return t;
}

Loc Parser::here() const {
  const Token& t = peek();
  if (t.kind != Tok::End || pos_ == 0) return t.loc;
  // Point just after the last real token rather than at a blank last line.
  Loc loc = toks_[pos_ - 1].loc;
  loc.col = loc.end_col + 1;
  loc.end_col = loc.col;
  return loc;
}

Loc Parser::span_from(const Loc& start) const {
  if (pos_ == 0) return start;
  const Loc& last = toks_[pos_ - 1].loc;
  Loc loc = start;
  if (last.line == start.line && last.end_col >= start.col) {
    loc.end_col = last.end_col;
  } else if (start.line >= 1 && start.line <= line_lengths_.size()) {
    // Multi-line node: underline the rest of its first line.
    loc.end_col = std::max(start.end_col, line_lengths_[start.line - 1]);
  }
  return loc;
}

void Parser::fail_at(const Loc& loc, std::string message) const {
  throw Error(ErrorKind::Syntax, loc, std::move(message));
}

void Parser::fail_expected(std::string_view what) const {
  fail_at(here(), fmt::format("unexpected {}; expected {}", describe(peek()), what));
}

const Token& Parser::expect(Tok kind, std::string_view context) {
  if (!at(kind)) {
    if (kind == Tok::LBracket && at(Tok::IndexBracket)) return advance();
    if (context.empty()) fail_expected(tok_spelling(kind));
    fail_expected(fmt::format("{} {}", tok_spelling(kind), context));
  }
  return advance();
}

void Parser::expect_keyword(std::string_view kw, std::string_view context) {
  if (!at_keyword(kw)) {
    if (context.empty()) fail_expected(fmt::format("\"{}\"", kw));
    fail_expected(fmt::format("\"{}\" {}", kw, context));
  }
  advance();
}

Parser::DepthGuard::DepthGuard(Parser& p) : parser(p) {
  if (++parser.depth_ > kMaxDepth) {
    --parser.depth_;
    parser.fail_at(parser.here(), "expression nested too deeply");
  }
}

void Parser::ChainGuard::link() {
  if (parser.depth_ + 1 > kMaxDepth) parser.fail_at(parser.here(), "expression nested too deeply");
  ++parser.depth_;
  ++links;
}

// ---------------------------------------------------------------- entry points

std::vector<DeclPtr> Parser::declarations_to_end() {
  std::vector<DeclPtr> decls;
  while (!at(Tok::End)) {
    if (!at_declaration_start()) fail_expected("a declaration");
    decls.push_back(declaration());
  }
  return decls;
}

ExprPtr Parser::expression_to_end() {
  if (at(Tok::End)) fail_expected("an expression");
  ExprPtr e = expression();
  if (!at(Tok::End)) fail_expected("end of input after the expression");
  return e;
}

TypeExprPtr Parser::type_to_end() {
  TypeExprPtr t = type_exp();
  if (!at(Tok::End)) fail_expected("end of input after the type");
  return t;
}

Program parse_program(const SourceFile* file) {
  Parser parser(file);
  Program program;
  program.file = file;
  program.decls = parser.declarations_to_end();
  return program;
}

ExprPtr parse_expression(const SourceFile* file) { return Parser(file).expression_to_end(); }

TypeExprPtr parse_type(const SourceFile* file) { return Parser(file).type_to_end(); }

ReplInput parse_repl_input(const SourceFile* file) {
  Parser parser(file);
  size_t i = 0;
  // Attributes may precede either a declaration or an expression.
  while (parser.peek(i).is(Tok::HashBracket)) {
    int depth = 0;
    do {
      const Token& t = parser.peek(i++);
      if (t.is(Tok::HashBracket) || t.is(Tok::LParen)) ++depth;
      if (t.is(Tok::RBracket) || t.is(Tok::RParen)) --depth;
      if (t.is(Tok::End)) break;
    } while (depth > 0);
  }
  const Token& first = parser.peek(i);
  ReplInput input;
  if (first.is_keyword("let")) {
    // `let x = 1` declares, `let x = 1 in x` is an expression: try the
    // declaration reading first and report whichever attempt got further.
    try {
      input.decls = Parser(file).declarations_to_end();
      return input;
    } catch (const Error& decl_error) {
      try {
        input.expr = Parser(file).expression_to_end();
        return input;
      } catch (const Error& expr_error) {
        bool decl_further = decl_error.loc.line > expr_error.loc.line ||
                            (decl_error.loc.line == expr_error.loc.line && decl_error.loc.col > expr_error.loc.col);
        if (decl_further) throw decl_error;
        throw;
      }
    }
  }
  if (first.is(Tok::Keyword) && (first.text == "def" || first.text == "type" || first.text == "module" ||
                                 first.text == "open" || first.text == "import" || first.text == "local" ||
                                 first.text == "entry")) {
    input.decls = parser.declarations_to_end();
    return input;
  }
  input.expr = parser.expression_to_end();
  return input;
}

ExprPtr split_qualified_var(const Expr& var, size_t n_fields) {
  if (var.kind != Expr::Kind::Var || n_fields > var.name.qualifiers.size())
    throw Error(ErrorKind::Internal, var.loc, "split_qualified_var: not a qualified name with that many fields");
  const auto& quals = var.name.qualifiers;
  size_t n_module = quals.size() - n_fields;
  auto base = make_expr(Expr::Kind::Var, var.loc);
  base->name.qualifiers.assign(quals.begin(), quals.begin() + static_cast<long>(n_module));
  base->name.name = quals[n_module];
  ExprPtr e = base;
  auto add_field = [&](const std::string& field) {
    auto p = make_expr(Expr::Kind::Project, var.loc);
    p->a = e;
    p->field_path = {field};
    e = p;
  };
  for (size_t i = n_module + 1; i < quals.size(); ++i) add_field(quals[i]);
  add_field(var.name.name);
  return e;
}

}  // namespace thorn
