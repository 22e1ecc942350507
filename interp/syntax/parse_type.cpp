// Type expressions, following Futhark's TypeExp / TypeExpTerm /
// TypeExpApply / TypeExpAtom layering: `->` is lowest and right
// associative; `*t` and sum types are terms; application juxtaposes size
// arguments `[n]` and atom types; `[n]t` is an atom whose element is a term.
#include <cstdint>

#include <fmt/format.h>

#include "interp/syntax/parser_impl.hpp"

namespace thorn {

using TK = TypeExpr::Kind;

namespace {
TypeExprPtr make_type(TK kind, const Loc& loc) {
  auto t = std::make_shared<TypeExpr>();
  t->kind = kind;
  t->loc = loc;
  return t;
}
}  // namespace

TypeExprPtr Parser::type_exp() {
  DepthGuard guard(*this);
  Loc start = here();
  if (at(Tok::LParen) && peek(1).is(Tok::Ident) && peek(2).is(Tok::Colon)) {
    advance();
    auto t = make_type(TK::Function, start);
    t->param_name = advance().text;
    advance();
    t->param = type_exp();
    expect(Tok::RParen, "to close the named parameter");
    expect(Tok::Arrow, "after a named parameter type");
    t->result = type_exp();
    t->loc = span_from(start);
    return t;
  }
  if (at(Tok::Question)) {
    advance();
    auto t = make_type(TK::Existential, start);
    while (peek().is_left_bracket()) {
      advance();
      t->existentials.push_back(expect(Tok::Ident, "naming an existential size").text);
      expect(Tok::RBracket, "to close the existential size");
    }
    if (t->existentials.empty()) fail_expected("\"[\" naming an existential size");
    expect(Tok::Dot, "after the existential sizes");
    t->elem = type_exp();
    t->loc = span_from(start);
    return t;
  }
  TypeExprPtr t = type_term();
  if (at(Tok::Arrow)) {
    advance();
    auto f = make_type(TK::Function, start);
    f->param = t;
    f->result = type_exp();
    f->loc = span_from(start);
    return f;
  }
  return t;
}

TypeExprPtr Parser::type_term() {
  DepthGuard guard(*this);
  Loc start = here();
  if (at_symbol("*")) {
    advance();
    auto t = make_type(TK::Unique, start);
    t->elem = type_term();
    t->loc = span_from(start);
    return t;
  }
  if (at(Tok::Constructor)) {
    auto t = make_type(TK::Sum, start);
    while (true) {
      std::string name = expect(Tok::Constructor).text;
      std::vector<TypeExprPtr> payload;
      while (at_type_atom_start()) payload.push_back(type_atom());
      t->constructors.emplace_back(std::move(name), std::move(payload));
      if (!at_symbol("|")) break;
      advance();
      if (!at(Tok::Constructor)) fail_expected("a constructor after \"|\"");
    }
    t->loc = span_from(start);
    return t;
  }
  return type_apply();
}

TypeExprPtr Parser::type_apply() {
  Loc start = here();
  TypeExprPtr head = type_atom();
  std::vector<TypeArg> args;
  while (true) {
    TypeArg arg;
    if (peek().is_left_bracket()) {
      arg.is_size = true;
      arg.size = size_exp();
    } else if (at_type_atom_start()) {
      arg.type = type_atom();
    } else {
      break;
    }
    args.push_back(std::move(arg));
  }
  if (args.empty()) return head;
  if (head->kind != TK::Name || !head->args.empty())
    fail_at(head->loc, "only a named type can be applied to arguments");
  head->args = std::move(args);
  head->loc = span_from(start);
  return head;
}

bool Parser::at_type_atom_start() const {
  switch (peek().kind) {
    case Tok::LParen:
    case Tok::LBrace:
    case Tok::LBracket:
    case Tok::IndexBracket:
    case Tok::Ident: return true;
    default: return false;
  }
}

TypeExprPtr Parser::type_atom() {
  DepthGuard guard(*this);
  Loc start = here();
  const Token& t = peek();
  switch (t.kind) {
    case Tok::LParen: {
      advance();
      if (at(Tok::RParen)) {
        advance();
        return make_type(TK::Tuple, span_from(start));
      }
      TypeExprPtr first = type_exp();
      if (!at(Tok::Comma)) {
        expect(Tok::RParen, "to close the parenthesised type");
        return first;
      }
      auto tuple = make_type(TK::Tuple, start);
      tuple->elems.push_back(first);
      while (at(Tok::Comma)) {
        advance();
        if (at(Tok::RParen)) break;
        tuple->elems.push_back(type_exp());
      }
      expect(Tok::RParen, "to close the tuple type");
      tuple->loc = span_from(start);
      return tuple;
    }
    case Tok::LBrace: {
      advance();
      auto record = make_type(TK::Record, start);
      while (!at(Tok::RBrace)) {
        std::string name = field_id();
        expect(Tok::Colon, "after the field name");
        record->fields.emplace_back(std::move(name), type_exp());
        if (!at(Tok::Comma)) break;
        advance();
      }
      expect(Tok::RBrace, "to close the record type");
      record->loc = span_from(start);
      if (auto elems = tuple_fields(record->fields)) {
        record->kind = TK::Tuple;
        record->elems = std::move(*elems);
        record->fields.clear();
      }
      return record;
    }
    case Tok::LBracket:
    case Tok::IndexBracket: {
      auto array = make_type(TK::Array, start);
      array->size = size_exp();
      array->elem = type_term();
      array->loc = span_from(start);
      return array;
    }
    case Tok::Ident: {
      auto named = make_type(TK::Name, start);
      named->name = qual_name();
      named->loc = span_from(start);
      return named;
    }
    default: fail_expected("a type");
  }
}

SizeExpr Parser::size_exp() {
  Loc start = here();
  expect(Tok::LBracket);
  SizeExpr s;
  const Token& t = peek();
  // A qualified name `a.b.c` spans 2k-1 tokens; look past it for the `]`.
  size_t name_end = 0;
  if (t.is(Tok::Ident)) {
    name_end = 1;
    while (peek(name_end).is(Tok::Dot) && peek(name_end + 1).is(Tok::Ident)) name_end += 2;
  }
  if (t.is(Tok::RBracket)) {
    s.kind = SizeExpr::Kind::Anonymous;
  } else if (t.is(Tok::IntLit) && !t.is_char && t.int_value <= INT64_MAX && peek(1).is(Tok::RBracket)) {
    advance();
    s.kind = SizeExpr::Kind::Constant;
    s.value = static_cast<int64_t>(t.int_value);
  } else if (name_end && peek(name_end).is(Tok::RBracket)) {
    s.kind = SizeExpr::Kind::Name;
    s.name = qual_name();
  } else {
    s.kind = SizeExpr::Kind::Expr;
    s.expr = expression();
  }
  expect(Tok::RBracket, "to close the size");
  s.loc = span_from(start);
  return s;
}

bool Parser::at_type_param_start() const {
  switch (peek().kind) {
    case Tok::LBracket:
    case Tok::IndexBracket:
    case Tok::Apostrophe:
    case Tok::ApostropheHat:
    case Tok::ApostropheTilde: return true;
    default: return false;
  }
}

std::vector<TypeParam> Parser::type_params(bool allow_size) {
  std::vector<TypeParam> params;
  while (at_type_param_start()) {
    Loc start = here();
    TypeParam p;
    if (peek().is_left_bracket()) {
      if (!allow_size) fail_expected("a type parameter");
      advance();
      p.is_size = true;
      p.name = expect(Tok::Ident, "naming a size parameter").text;
      expect(Tok::RBracket, "to close the size parameter");
    } else {
      p.lifted = !at(Tok::Apostrophe);
      advance();
      p.name = expect(Tok::Ident, "naming a type parameter").text;
    }
    p.loc = span_from(start);
    params.push_back(std::move(p));
  }
  return params;
}

}  // namespace thorn
