// Patterns: in let, loop, lambda and function parameters, and match cases.
// Function parameters use the restricted "inner" form (no unparenthesised
// ascription, constructor payload or negative literal), as in Futhark.
#include <fmt/format.h>

#include "interp/syntax/parser_impl.hpp"

namespace thorn {

using PK = Pattern::Kind;

namespace {

PatternPtr make_pattern(PK kind, const Loc& loc) {
  auto p = std::make_shared<Pattern>();
  p->kind = kind;
  p->loc = loc;
  return p;
}

ExprPtr literal_expr(const Token& t) {
  ExprPtr e;
  switch (t.kind) {
    case Tok::IntLit:
      e = make_expr(Expr::Kind::IntLit, t.loc);
      e->int_value = t.int_value;
      break;
    case Tok::FloatLit:
      e = make_expr(Expr::Kind::FloatLit, t.loc);
      e->float_value = t.float_value;
      break;
    default:
      e = make_expr(Expr::Kind::BoolLit, t.loc);
      e->bool_value = t.text == "true";
      break;
  }
  e->suffix = t.suffix;
  e->text = t.text;
  return e;
}

bool is_literal_token(const Token& t) {
  return t.is(Tok::IntLit) || t.is(Tok::FloatLit) || t.is_keyword("true") || t.is_keyword("false");
}

}  // namespace

bool Parser::at_param_start() const {
  const Token& t = peek();
  switch (t.kind) {
    case Tok::Ident:
    case Tok::Underscore:
    case Tok::LParen:
    case Tok::LBrace:
    case Tok::IntLit:
    case Tok::FloatLit:
    case Tok::Constructor: return true;
    case Tok::Keyword: return t.text == "true" || t.text == "false";
    default: return false;
  }
}

PatternPtr Parser::pattern() {
  DepthGuard guard(*this);
  Loc start = here();
  while (at(Tok::HashBracket)) {  // attributes on patterns are accepted and ignored
    advance();
    attribute();
  }
  if (at(Tok::Constructor)) {
    auto p = make_pattern(PK::Constructor, start);
    p->name = advance().text;
    while (at_param_start() || (at_symbol("-") && (peek(1).is(Tok::IntLit) || peek(1).is(Tok::FloatLit))))
      p->elems.push_back(inner_pattern(true));
    p->loc = span_from(start);
    return p;
  }
  PatternPtr p = inner_pattern(true);
  if (at(Tok::Colon)) {
    advance();
    auto a = make_pattern(PK::Ascribed, start);
    a->inner = p;
    a->ascription = type_exp();
    a->loc = span_from(start);
    return a;
  }
  return p;
}

PatternPtr Parser::inner_pattern(bool allow_negative) {
  DepthGuard guard(*this);
  Loc start = here();
  const Token& t = peek();
  switch (t.kind) {
    case Tok::Ident: {
      advance();
      auto p = make_pattern(PK::Id, t.loc);
      p->name = t.text;
      return p;
    }
    case Tok::Underscore: advance(); return make_pattern(PK::Wildcard, t.loc);
    case Tok::Constructor: {
      advance();
      auto p = make_pattern(PK::Constructor, t.loc);
      p->name = t.text;
      return p;
    }
    case Tok::LParen: {
      advance();
      if (at(Tok::RParen)) {
        advance();
        return make_pattern(PK::Tuple, span_from(start));
      }
      if (peek().is(Tok::Symbol) && peek(1).is(Tok::RParen)) {  // (+) binds an operator name
        const Token& op = advance();
        if (!op.quals.empty()) fail_at(op.loc, "a qualified name cannot be bound");
        advance();
        auto p = make_pattern(PK::Id, span_from(start));
        p->name = op.text;
        return p;
      }
      PatternPtr first = pattern();
      if (!at(Tok::Comma)) {
        expect(Tok::RParen, "to close the pattern");
        return first;
      }
      auto p = make_pattern(PK::Tuple, start);
      p->elems.push_back(first);
      while (at(Tok::Comma)) {
        advance();
        if (at(Tok::RParen)) break;
        p->elems.push_back(pattern());
      }
      expect(Tok::RParen, "to close the tuple pattern");
      p->loc = span_from(start);
      return p;
    }
    case Tok::LBrace: {
      advance();
      auto p = make_pattern(PK::Record, start);
      while (!at(Tok::RBrace)) {
        const Token& field = peek();
        std::string name = field_id();
        PatternPtr sub;
        if (at(Tok::Equals)) {
          advance();
          sub = pattern();
        } else {
          if (!field.is(Tok::Ident)) fail_expected("\"=\" after a numeric field name");
          sub = make_pattern(PK::Id, field.loc);
          sub->name = name;
          if (at(Tok::Colon)) {
            advance();
            auto a = make_pattern(PK::Ascribed, field.loc);
            a->inner = sub;
            a->ascription = type_exp();
            a->loc = span_from(field.loc);
            sub = a;
          }
        }
        p->fields.emplace_back(std::move(name), std::move(sub));
        if (!at(Tok::Comma)) break;
        advance();
      }
      expect(Tok::RBrace, "to close the record pattern");
      p->loc = span_from(start);
      if (auto elems = tuple_fields(p->fields)) {
        p->kind = PK::Tuple;
        p->elems = std::move(*elems);
        p->fields.clear();
      }
      return p;
    }
    default: break;
  }
  if (is_literal_token(t)) {
    advance();
    auto p = make_pattern(PK::Literal, t.loc);
    p->literal = literal_expr(t);
    return p;
  }
  if (allow_negative && t.is_symbol("-") && (peek(1).is(Tok::IntLit) || peek(1).is(Tok::FloatLit)) &&
      !peek(1).is_char) {
    advance();
    const Token& lit = advance();
    auto p = make_pattern(PK::Literal, span_from(start));
    p->literal = make_expr(Expr::Kind::Negate, p->loc);
    p->literal->a = literal_expr(lit);
    return p;
  }
  fail_expected("a pattern");
}

}  // namespace thorn
