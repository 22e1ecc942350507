#pragma once
// Internal to interp/syntax: the recursive-descent parser over the token
// stream. Split over parser.cpp (cursor, errors, operator table, public API),
// parse_expr.cpp, parse_pattern.cpp, parse_type.cpp and parse_decl.cpp.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "interp/syntax/ast.hpp"
#include "interp/syntax/token.hpp"

namespace thorn {

// Binding strength of an infix operator (higher binds tighter) and whether
// it associates to the right. See the table in parser.cpp.
struct OpInfo {
  int level = 0;
  bool right_assoc = false;
};
constexpr int kLevelBacktick = 1;
constexpr int kLevelWith = 2;
constexpr int kLevelLowestSymbol = 3;  // |>

// One step of an update path (`[i].f` in `xs with [i].f = v`).
struct UpdateStep {
  bool is_field = false;
  std::string field;
  std::vector<IndexArg> indices;
};

// The precedence of an operator named `name` (unqualified part), decided by
// its longest leading built-in operator as in Futhark.
OpInfo operator_info(std::string_view name);

// A record whose fields are named 0 to n-1, n >= 2, is the tuple of those
// fields in index order, as in Futhark (tuples are such records there:
// `{0 = a, 1 = b}` is `(a, b)`). Returns the field for each tuple position,
// or nothing for any other record.
template <class T>
std::optional<std::vector<T>> tuple_fields(const std::vector<std::pair<std::string, T>>& fields) {
  size_t n = fields.size();
  if (n < 2) return std::nullopt;
  std::vector<T> out(n);
  std::vector<bool> seen(n, false);
  for (const auto& [name, value] : fields) {
    if (name.empty() || name.size() > 9 || (name.size() > 1 && name[0] == '0')) return std::nullopt;
    size_t k = 0;
    for (char c : name) {
      if (c < '0' || c > '9') return std::nullopt;
      k = k * 10 + size_t(c - '0');
    }
    if (k >= n || seen[k]) return std::nullopt;
    seen[k] = true;
    out[k] = value;
  }
  return out;
}

class Parser {
 public:
  explicit Parser(const SourceFile* file);

  std::vector<DeclPtr> declarations_to_end();
  ExprPtr expression_to_end();
  TypeExprPtr type_to_end();

  // ---- cursor
  const Token& peek(size_t ahead = 0) const;
  const Token& advance();
  bool at(Tok kind) const { return peek().kind == kind; }
  bool at_keyword(std::string_view kw) const { return peek().is_keyword(kw); }
  bool at_symbol(std::string_view s) const { return peek().is_symbol(s); }
  const Token& expect(Tok kind, std::string_view context = {});
  void expect_keyword(std::string_view kw, std::string_view context = {});
  [[noreturn]] void fail_expected(std::string_view what) const;
  [[noreturn]] void fail_at(const Loc& loc, std::string message) const;
  Loc here() const;                          // location of the current token
  Loc span_from(const Loc& start) const;     // start .. end of the last consumed token

  // ---- expressions (parse_expr.cpp)
  ExprPtr expression();          // with `:` / `:>` ascriptions
  ExprPtr exp2();                // ranges and everything below
  ExprPtr binop_expr(int min_level);
  ExprPtr unary();
  ExprPtr application();
  ExprPtr atom();
  bool at_atom_start() const;
  ExprPtr paren_expr();
  ExprPtr let_expr();
  ExprPtr let_body();
  ExprPtr loop_expr();
  ExprPtr match_expr();
  ExprPtr if_expr();
  ExprPtr lambda_expr();
  std::vector<IndexArg> dim_indices();  // after the opening bracket, up to and including `]`
  std::vector<std::string> field_path();  // a.b.0
  std::string field_id();
  // Update paths (parse_update.cpp): a sequence of `.field` and `[...]`,
  // starting with a field name (no dot) when `leading_field`.
  std::vector<UpdateStep> update_path(bool leading_field);
  ExprPtr path_update(ExprPtr target, const std::vector<UpdateStep>& path, ExprPtr value, const Loc& loc);
  ExprPtr path_section(const std::vector<UpdateStep>& path, const Loc& loc);
  // Recognises an infix operator at the cursor without consuming it: its
  // name, precedence and how many tokens it spans (3 for `f`).
  bool binop_at(size_t ahead, QualName& name, OpInfo& info, size_t& ntokens) const;
  QualName qual_name();  // x, M.N.x (consumes)
  std::string attribute();  // after `#[`, up to and including `]`
  std::string attr_info();  // one attribute: name, number, or name(attr, ...)

  // ---- patterns (parse_pattern.cpp)
  PatternPtr pattern();
  PatternPtr inner_pattern(bool allow_negative);
  PatternPtr param_pattern() { return inner_pattern(false); }
  bool at_param_start() const;

  // ---- types (parse_type.cpp)
  TypeExprPtr type_exp();
  TypeExprPtr type_term();
  TypeExprPtr type_apply();
  TypeExprPtr type_atom();
  bool at_type_atom_start() const;
  SizeExpr size_exp();  // [n], [3], []
  std::vector<TypeParam> type_params(bool allow_size = true);
  bool at_type_param_start() const;

  // ---- declarations and modules (parse_decl.cpp)
  DeclPtr declaration();
  bool at_declaration_start() const;
  DeclPtr value_decl(std::vector<std::string> attrs);
  DeclPtr type_decl(std::vector<std::string> attrs);
  DeclPtr module_decl(std::vector<std::string> attrs);
  ModExprPtr mod_exp();
  ModExprPtr mod_atom();
  SigExprPtr sig_exp();
  SigExprPtr sig_atom();
  SpecItemPtr spec();

  // Guards nesting depth so that adversarial input (thousands of nested
  // parentheses) is a syntax error, not a stack overflow. The depth also
  // bounds the depth of the tree produced, which later passes walk
  // recursively: loops that build left-nested chains (`a + b + c ...`,
  // `x.a.b...`, `F A B ...`) count each link with a ChainGuard.
  static constexpr int kMaxDepth = 1000;
  struct DepthGuard {
    explicit DepthGuard(Parser& p);
    ~DepthGuard() { --parser.depth_; }
    Parser& parser;
  };
  struct ChainGuard {
    explicit ChainGuard(Parser& p) : parser(p) {}
    ~ChainGuard() { parser.depth_ -= links; }
    void link();
    Parser& parser;
    int links = 0;
  };

 private:
  const SourceFile* file_;
  std::vector<Token> toks_;
  std::vector<uint32_t> line_lengths_;  // [line - 1]: bytes, for multi-line spans
  size_t pos_ = 0;
  int depth_ = 0;
  int fresh_counter_ = 0;  // names of desugared update paths
};

ExprPtr make_expr(Expr::Kind kind, const Loc& loc);

}  // namespace thorn
