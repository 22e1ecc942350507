// Expressions. The layering mirrors Futhark's grammar: expression() adds
// ascriptions to exp2(); exp2() adds ranges to binop_expr(); binop_expr()
// climbs the operator table of parser.cpp over unary(); unary() handles the
// prefix operators and the keyword forms that extend as far right as
// possible; application() collects juxtaposed atoms; atom() handles
// literals, names, brackets and the postfix projections and indexing.
#include <fmt/format.h>

#include "interp/syntax/parser_impl.hpp"

namespace thorn {

using K = Expr::Kind;

ExprPtr Parser::expression() {
  DepthGuard guard(*this);
  Loc start = here();
  ExprPtr e = exp2();
  ChainGuard chain(*this);
  while (at(Tok::Colon) || at(Tok::ColonGt)) {
    chain.link();
    bool coerce = at(Tok::ColonGt);
    advance();
    TypeExprPtr t = type_exp();
    auto n = make_expr(coerce ? K::Coerce : K::Ascribe, span_from(start));
    n->a = e;
    n->ret_type = t;
    e = n;
  }
  return e;
}

ExprPtr Parser::exp2() {
  DepthGuard guard(*this);
  Loc start = here();
  ExprPtr first = binop_expr(kLevelBacktick);
  ExprPtr second;
  if (at(Tok::TwoDots)) {
    advance();
    second = binop_expr(kLevelBacktick);
    if (!at(Tok::ThreeDots) && !at(Tok::TwoDotsLt) && !at(Tok::TwoDotsGt))
      fail_expected("\"...\", \"..<\" or \"..>\" after the second element of a range");
  }
  if (at(Tok::ThreeDots) || at(Tok::TwoDotsLt) || at(Tok::TwoDotsGt)) {
    Expr::RangeKind kind = at(Tok::ThreeDots)   ? Expr::RangeKind::Inclusive
                           : at(Tok::TwoDotsLt) ? Expr::RangeKind::UpToExclusive
                                                : Expr::RangeKind::DownToExclusive;
    advance();
    ExprPtr end = exp2();  // ranges associate to the right, as in Futhark
    auto n = make_expr(K::Range, span_from(start));
    n->a = first;
    n->b = second;
    n->c = end;
    n->range_kind = kind;
    return n;
  }
  return first;
}

bool Parser::binop_at(size_t ahead, QualName& name, OpInfo& info, size_t& ntokens) const {
  const Token& t = peek(ahead);
  if (t.is(Tok::Symbol)) {
    name.qualifiers = t.quals;
    name.name = t.text;
    info = operator_info(t.text);
    ntokens = 1;
    return true;
  }
  if (t.is(Tok::Backtick)) {
    size_t i = ahead + 1;
    if (!peek(i).is(Tok::Ident)) return false;
    QualName q;
    q.name = peek(i).text;
    ++i;
    while (peek(i).is(Tok::Dot) && peek(i + 1).is(Tok::Ident)) {
      q.qualifiers.push_back(q.name);
      q.name = peek(i + 1).text;
      i += 2;
    }
    if (!peek(i).is(Tok::Backtick)) return false;
    name = q;
    info = {kLevelBacktick, false};
    ntokens = i - ahead + 1;
    return true;
  }
  return false;
}

ExprPtr Parser::binop_expr(int min_level) {
  DepthGuard guard(*this);
  Loc start = here();
  ExprPtr lhs = unary();
  ChainGuard chain(*this);
  while (true) {
    if (at_keyword("with")) {
      if (kLevelWith < min_level) break;
      chain.link();
      advance();
      std::vector<UpdateStep> path = update_path(!peek().is_left_bracket());
      expect(Tok::Equals, "after the target of \"with\"");
      ExprPtr value = binop_expr(kLevelWith + 1);
      lhs = path_update(lhs, path, value, span_from(start));
      continue;
    }
    QualName name;
    OpInfo info;
    size_t ntokens = 0;
    if (!binop_at(0, name, info, ntokens)) {
      if (at(Tok::Backtick)) {  // a malformed `f`
        advance();
        if (!at(Tok::Ident)) fail_expected("a function name between backticks");
        qual_name();
        fail_expected("\"`\" to close the infix function name");
      }
      break;
    }
    if (peek(ntokens).is(Tok::RParen)) break;  // `(e op)`: a left section, built by paren_expr
    if (info.level < min_level) break;
    chain.link();
    for (size_t i = 0; i < ntokens; ++i) advance();
    ExprPtr rhs = binop_expr(info.right_assoc ? info.level : info.level + 1);
    auto n = make_expr(K::BinOp, span_from(start));
    n->name = name;
    n->a = lhs;
    n->b = rhs;
    lhs = n;
  }
  return lhs;
}

ExprPtr Parser::unary() {
  DepthGuard guard(*this);
  Loc start = here();
  const Token& t = peek();
  if (t.is_symbol("-") || t.is(Tok::Bang)) {
    bool negate = t.is_symbol("-");
    advance();
    ExprPtr operand = unary();
    auto n = make_expr(negate ? K::Negate : K::Not, span_from(start));
    n->a = operand;
    return n;
  }
  if (t.is(Tok::Keyword)) {
    if (t.text == "if") return if_expr();
    if (t.text == "let") return let_expr();
    if (t.text == "loop") return loop_expr();
    if (t.text == "match") return match_expr();
    if (t.text == "assert") {
      advance();
      auto n = make_expr(K::Assert, start);
      n->a = atom();
      n->b = atom();
      n->loc = span_from(start);
      return n;
    }
  }
  if (t.is(Tok::Backslash)) return lambda_expr();
  if (t.is(Tok::HashBracket)) {
    auto n = make_expr(K::Attr, start);
    while (at(Tok::HashBracket)) {
      advance();
      n->attrs.push_back(attribute());
    }
    n->a = expression();
    n->loc = span_from(start);
    return n;
  }
  return application();
}

bool Parser::at_atom_start() const {
  switch (peek().kind) {
    case Tok::Ident:
    case Tok::IntLit:
    case Tok::FloatLit:
    case Tok::StringLit:
    case Tok::Constructor:
    case Tok::LParen:
    case Tok::LBracket:
    case Tok::IndexBracket:
    case Tok::LBrace: return true;
    case Tok::Question: return peek(1).is(Tok::Question);  // `???`
    case Tok::Keyword: return peek().text == "true" || peek().text == "false";
    default: return false;
  }
}

ExprPtr Parser::application() {
  Loc start = here();
  ExprPtr head = atom();
  std::vector<ExprPtr> args;
  while (at_atom_start()) args.push_back(atom());
  // A lambda may be the last argument without parentheses, as in Futhark:
  // `tabulate n \i -> e` (it extends as far to the right as possible).
  if (at(Tok::Backslash) && head->kind != K::Constructor) args.push_back(lambda_expr());
  if (head->kind == K::Constructor && head->list.empty()) {
    // A constructor takes all juxtaposed atoms as its payload (`#foo #bar`
    // is #foo with payload #bar).
    head->list = std::move(args);
    head->loc = span_from(start);
    return head;
  }
  if (head->kind == K::Var && head->name.qualifiers.empty() && head->name.name == "__intrinsic") {
    if (args.empty() || args[0]->kind != K::StringLit)
      fail_at(head->loc, "\"__intrinsic\" must be followed by a string literal naming the intrinsic");
    auto n = make_expr(K::Intrinsic, span_from(start));
    n->text = args[0]->text;
    n->list.assign(args.begin() + 1, args.end());
    return n;
  }
  if (args.empty()) return head;
  auto n = make_expr(K::Apply, span_from(start));
  n->a = head;
  n->list = std::move(args);
  return n;
}

QualName Parser::qual_name() {
  QualName q;
  q.name = expect(Tok::Ident).text;
  while (at(Tok::Dot) && peek(1).is(Tok::Ident)) {
    advance();
    q.qualifiers.push_back(std::move(q.name));
    q.name = advance().text;
  }
  return q;
}

std::string Parser::field_id() {
  const Token& t = peek();
  if (t.is(Tok::Ident)) return advance().text;
  if (t.is(Tok::IntLit) && !t.is_char && !t.suffix && t.text.find_first_not_of("0123456789") == std::string::npos)
    return advance().text;
  fail_expected("a field name");
}

std::vector<std::string> Parser::field_path() {
  std::vector<std::string> path{field_id()};
  while (at(Tok::Dot)) {
    advance();
    path.push_back(field_id());
  }
  return path;
}

ExprPtr Parser::atom() {
  DepthGuard guard(*this);
  Loc start = here();
  const Token& t = peek();
  ExprPtr e;
  bool parenthesized = false;
  switch (t.kind) {
    case Tok::Question:
      // `???`, a typed hole: any type, an error when reached.
      if (!peek(1).is(Tok::Question) || !peek(2).is(Tok::Question)) fail_expected("an expression");
      advance(), advance(), advance();
      e = make_expr(K::Intrinsic, span_from(start));
      e->text = "hole";
      break;
    case Tok::Ident:
      advance();
      e = make_expr(K::Var, t.loc);
      e->name.name = t.text;
      break;
    case Tok::IntLit:
      advance();
      e = make_expr(K::IntLit, t.loc);
      e->int_value = t.int_value;
      e->suffix = t.suffix;
      e->text = t.text;
      break;
    case Tok::FloatLit:
      advance();
      e = make_expr(K::FloatLit, t.loc);
      e->float_value = t.float_value;
      e->suffix = t.suffix;
      e->text = t.text;
      break;
    case Tok::StringLit:
      advance();
      e = make_expr(K::StringLit, t.loc);
      e->text = t.text;
      break;
    case Tok::Keyword:
      if (t.text != "true" && t.text != "false") fail_expected("an expression");
      advance();
      e = make_expr(K::BoolLit, t.loc);
      e->bool_value = t.text == "true";
      e->text = t.text;
      break;
    case Tok::Constructor:
      advance();
      e = make_expr(K::Constructor, t.loc);
      e->name.name = t.text;
      break;
    case Tok::LParen:
      e = paren_expr();
      parenthesized = true;
      break;
    case Tok::LBracket:
    case Tok::IndexBracket: {
      advance();
      e = make_expr(K::ArrayLit, start);
      while (!at(Tok::RBracket)) {
        e->list.push_back(expression());
        if (!at(Tok::Comma)) break;
        advance();
      }
      expect(Tok::RBracket, "to close the array literal");
      e->loc = span_from(start);
      break;
    }
    case Tok::LBrace: {
      advance();
      e = make_expr(K::Record, start);
      while (!at(Tok::RBrace)) {
        const Token& field = peek();
        std::string name = field_id();
        ExprPtr value;
        if (at(Tok::Equals)) {
          advance();
          value = expression();
        } else {
          if (!field.is(Tok::Ident)) fail_expected("\"=\" after a numeric field name");
          value = make_expr(K::Var, field.loc);
          value->name.name = name;
        }
        e->fields.emplace_back(std::move(name), std::move(value));
        if (!at(Tok::Comma)) break;
        advance();
      }
      expect(Tok::RBrace, "to close the record");
      e->loc = span_from(start);
      if (auto elems = tuple_fields(e->fields)) {
        e->kind = K::Tuple;
        e->list = std::move(*elems);
        e->fields.clear();
      }
      break;
    }
    default: fail_expected("an expression");
  }

  // Postfix projections, qualified names and indexing.
  ChainGuard chain(*this);
  while (true) {
    if (at(Tok::Dot) || at(Tok::IndexBracket)) chain.link();
    if (at(Tok::Dot)) {
      const Token& f = peek(1);
      if (f.is(Tok::Ident) && e->kind == K::Var && !parenthesized) {
        advance();
        advance();
        e->name.qualifiers.push_back(std::move(e->name.name));
        e->name.name = f.text;
        e->loc = span_from(start);
        continue;
      }
      if (f.is(Tok::LParen) && e->kind == K::Var && !parenthesized) {
        advance();
        advance();
        auto n = make_expr(K::QualParens, start);
        n->name = e->name;
        n->a = expression();
        expect(Tok::RParen, "to close the locally opened expression");
        n->loc = span_from(start);
        e = n;
        continue;
      }
      advance();
      auto n = make_expr(K::Project, start);
      n->field_path = {field_id()};
      n->a = e;
      n->loc = span_from(start);
      e = n;
      parenthesized = false;
      continue;
    }
    if (at(Tok::IndexBracket)) {
      advance();
      auto n = make_expr(K::Index, start);
      n->a = e;
      n->indices = dim_indices();
      n->loc = span_from(start);
      e = n;
      parenthesized = false;
      continue;
    }
    break;
  }
  return e;
}

std::vector<IndexArg> Parser::dim_indices() {
  std::vector<IndexArg> out;
  while (!at(Tok::RBracket)) {
    IndexArg arg;
    ExprPtr first;
    if (!at(Tok::Colon)) first = exp2();
    if (!at(Tok::Colon)) {
      arg.index = first;
    } else {
      arg.is_slice = true;
      arg.start = first;
      advance();
      if (!at(Tok::Colon) && !at(Tok::Comma) && !at(Tok::RBracket)) arg.end = exp2();
      if (at(Tok::Colon)) {
        advance();
        arg.stride = exp2();
      }
    }
    out.push_back(std::move(arg));
    if (!at(Tok::Comma)) break;
    advance();
  }
  expect(Tok::RBracket, "to close the index");
  return out;
}

ExprPtr Parser::paren_expr() {
  Loc start = here();
  expect(Tok::LParen);
  if (at(Tok::RParen)) {
    advance();
    return make_expr(K::Tuple, span_from(start));
  }
  if (at(Tok::Dot)) {
    advance();
    bool index = peek().is_left_bracket();
    std::vector<UpdateStep> path = update_path(!index);
    expect(Tok::RParen, index ? "to close the index section" : "to close the projection section");
    bool fields_only = true;
    for (const UpdateStep& s : path) fields_only = fields_only && s.is_field;
    if (index && path.size() == 1) {
      auto n = make_expr(K::IndexSection, span_from(start));
      n->indices = path[0].indices;
      return n;
    }
    if (fields_only) {
      auto n = make_expr(K::ProjSection, span_from(start));
      for (const UpdateStep& s : path) n->field_path.push_back(s.field);
      return n;
    }
    // `(.[0].a[1:3])`: \x -> x[0].a[1:3]
    return path_section(path, span_from(start));
  }
  QualName op;
  OpInfo info;
  size_t ntokens = 0;
  // `(op)` and `(op e)`; but `(-e)` is a negation, as in Futhark.
  if (binop_at(0, op, info, ntokens) && !(at_symbol("-") && !peek(1).is(Tok::RParen))) {
    for (size_t i = 0; i < ntokens; ++i) advance();
    auto n = make_expr(K::OpSection, start);
    n->name = op;
    if (!at(Tok::RParen)) n->b = exp2();
    expect(Tok::RParen, "to close the operator section");
    n->loc = span_from(start);
    return n;
  }
  ExprPtr e = expression();
  if (binop_at(0, op, info, ntokens) && peek(ntokens).is(Tok::RParen)) {
    for (size_t i = 0; i <= ntokens; ++i) advance();
    auto n = make_expr(K::OpSection, span_from(start));
    n->name = op;
    n->a = e;
    return n;
  }
  if (at(Tok::Comma)) {
    auto n = make_expr(K::Tuple, start);
    n->list.push_back(e);
    while (at(Tok::Comma)) {
      advance();
      if (at(Tok::RParen)) break;
      n->list.push_back(expression());
    }
    expect(Tok::RParen, "to close the tuple");
    n->loc = span_from(start);
    return n;
  }
  expect(Tok::RParen, "to close the parenthesis");
  return e;
}

ExprPtr Parser::if_expr() {
  Loc start = here();
  advance();
  auto n = make_expr(K::If, start);
  n->a = expression();
  expect_keyword("then", "after the condition of \"if\"");
  n->b = expression();
  expect_keyword("else", "after the \"then\" branch");
  n->c = expression();
  n->loc = span_from(start);
  return n;
}

ExprPtr Parser::lambda_expr() {
  Loc start = here();
  advance();
  auto n = make_expr(K::Lambda, start);
  while (at_param_start()) n->params.push_back(param_pattern());
  if (n->params.empty()) fail_expected("a lambda parameter");
  if (at(Tok::Colon)) {
    advance();
    n->ret_type = type_term();
  }
  expect(Tok::Arrow, "after the lambda parameters");
  n->a = expression();
  n->loc = span_from(start);
  return n;
}

ExprPtr Parser::let_body() {
  if (at_keyword("in")) {
    advance();
    return expression();
  }
  if (at_keyword("let")) return let_expr();
  const Token& t = peek();
  if (t.is(Tok::Keyword) && (t.text == "def" || t.text == "type" || t.text == "module" || t.text == "entry"))
    fail_at(here(), fmt::format("unexpected \"{}\"; expected \"in\" (missing \"in\"?)", t.text));
  fail_expected("\"in\" or another \"let\"");
}

ExprPtr Parser::let_expr() {
  DepthGuard guard(*this);
  Loc start = here();
  advance();  // let
  std::vector<TypeParam> sizes;
  while (peek().is_left_bracket() && peek(1).is(Tok::Ident) && peek(2).is(Tok::RBracket)) {
    TypeParam p;
    p.loc = peek().loc;
    advance();
    p.name = advance().text;
    p.is_size = true;
    advance();
    sizes.push_back(std::move(p));
  }
  if (sizes.empty() && at(Tok::Ident)) {
    const Token& name = peek();
    if (peek(1).is(Tok::Dot) || peek(1).is(Tok::IndexBracket)) {
      // let xs[i].f = v in body  ==>  let xs = xs with [i].f = v in body
      advance();
      bool field = at(Tok::Dot);
      if (field) advance();
      std::vector<UpdateStep> path = update_path(field);
      expect(Tok::Equals, "after the target of an in-place update");
      ExprPtr value = expression();
      auto n = make_expr(K::Let, start);
      n->pattern = std::make_shared<Pattern>();
      n->pattern->kind = Pattern::Kind::Id;
      n->pattern->name = name.text;
      n->pattern->loc = name.loc;
      auto target = make_expr(K::Var, name.loc);
      target->name.name = name.text;
      n->a = path_update(target, path, value, span_from(start));
      n->b = let_body();
      n->loc = span_from(start);
      return n;
    }
    if (!peek(1).is(Tok::Equals) && !peek(1).is(Tok::Colon)) {
      advance();
      auto n = make_expr(K::LetFun, start);
      n->name.name = name.text;
      n->type_params = type_params();
      while (at_param_start()) n->params.push_back(param_pattern());
      if (n->params.empty()) fail_expected("\"=\" or a function parameter");
      if (at(Tok::Colon)) {
        advance();
        n->ret_type = type_exp();
      }
      expect(Tok::Equals, "before the body of the local function");
      n->a = expression();
      n->b = let_body();
      n->loc = span_from(start);
      return n;
    }
  }
  auto n = make_expr(K::Let, start);
  n->type_params = std::move(sizes);
  n->pattern = pattern();
  expect(Tok::Equals, "after the pattern of \"let\"");
  n->a = expression();
  n->b = let_body();
  n->loc = span_from(start);
  return n;
}

ExprPtr Parser::loop_expr() {
  Loc start = here();
  advance();  // loop
  auto n = make_expr(K::Loop, start);
  n->params.push_back(pattern());
  if (at(Tok::Equals)) {
    advance();
    n->a = expression();
  }
  if (at_keyword("for")) {
    advance();
    if (at(Tok::Ident) && peek(1).is_symbol("<")) {
      n->loop_form = Expr::LoopForm::For;
      n->loop_var = advance().text;
      advance();
      n->c = expression();
    } else {
      n->loop_form = Expr::LoopForm::ForIn;
      n->pattern = pattern();
      expect_keyword("in", "after the pattern of \"for\"");
      n->c = expression();
    }
  } else if (at_keyword("while")) {
    advance();
    n->loop_form = Expr::LoopForm::While;
    n->c = expression();
  } else {
    fail_expected(n->a ? "\"for\" or \"while\"" : "\"=\", \"for\" or \"while\"");
  }
  expect_keyword("do", "before the loop body");
  n->b = expression();
  n->loc = span_from(start);
  return n;
}

ExprPtr Parser::match_expr() {
  Loc start = here();
  advance();  // match
  auto n = make_expr(K::Match, start);
  n->a = expression();
  if (!at_keyword("case")) fail_expected("\"case\"");
  while (at_keyword("case")) {
    Loc case_start = here();
    advance();
    Case c;
    c.pattern = pattern();
    expect(Tok::Arrow, "after the pattern of \"case\"");
    c.body = expression();
    c.loc = span_from(case_start);
    n->cases.push_back(std::move(c));
  }
  n->loc = span_from(start);
  return n;
}

std::string Parser::attr_info() {
  DepthGuard guard(*this);
  const Token& t = peek();
  if (t.is(Tok::IntLit) && !t.is_char) return advance().text;
  if (!t.is(Tok::Ident)) fail_expected("an attribute");
  std::string out = advance().text;
  if (at(Tok::LParen)) {
    advance();
    out += "(";
    bool first = true;
    while (!at(Tok::RParen)) {
      if (!first) out += ", ";
      first = false;
      out += attr_info();
      if (!at(Tok::Comma)) break;
      advance();
    }
    expect(Tok::RParen, "to close the attribute arguments");
    out += ")";
  }
  return out;
}

std::string Parser::attribute() {
  std::string out = attr_info();
  expect(Tok::RBracket, "to close the attribute");
  return out;
}

}  // namespace thorn
