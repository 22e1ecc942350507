// Declarations, module expressions and module types.
#include <fmt/format.h>

#include "interp/syntax/parser_impl.hpp"

namespace thorn {

using DK = Decl::Kind;

namespace {
DeclPtr make_decl(DK kind, const Loc& loc, std::vector<std::string> attrs) {
  auto d = std::make_shared<Decl>();
  d->kind = kind;
  d->loc = loc;
  d->attrs = std::move(attrs);
  return d;
}
ModExprPtr make_mod(ModExpr::Kind kind, const Loc& loc) {
  auto m = std::make_shared<ModExpr>();
  m->kind = kind;
  m->loc = loc;
  return m;
}
SigExprPtr make_sig(SigExpr::Kind kind, const Loc& loc) {
  auto s = std::make_shared<SigExpr>();
  s->kind = kind;
  s->loc = loc;
  return s;
}
}  // namespace

bool Parser::at_declaration_start() const {
  const Token& t = peek();
  if (t.is(Tok::HashBracket)) return true;
  if (!t.is(Tok::Keyword)) return false;
  return t.text == "def" || t.text == "let" || t.text == "entry" || t.text == "type" || t.text == "module" ||
         t.text == "open" || t.text == "import" || t.text == "local";
}

DeclPtr Parser::declaration() {
  DepthGuard guard(*this);
  Loc start = here();
  std::vector<std::string> attrs;
  while (at(Tok::HashBracket)) {
    advance();
    attrs.push_back(attribute());
  }
  const Token& t = peek();
  if (!t.is(Tok::Keyword)) fail_expected("a declaration");
  if (t.text == "def" || t.text == "let" || t.text == "entry") return value_decl(std::move(attrs));
  if (t.text == "type") return type_decl(std::move(attrs));
  if (t.text == "module") return module_decl(std::move(attrs));
  if (t.text == "open") {
    advance();
    auto d = make_decl(DK::Open, start, std::move(attrs));
    d->module = mod_exp();
    d->loc = span_from(start);
    return d;
  }
  if (t.text == "import") {
    advance();
    auto d = make_decl(DK::Import, start, std::move(attrs));
    d->path = expect(Tok::StringLit, "naming the imported file").text;
    d->loc = span_from(start);
    return d;
  }
  if (t.text == "local") {
    advance();
    auto d = make_decl(DK::Local, start, std::move(attrs));
    if (!at_declaration_start()) fail_expected("a declaration after \"local\"");
    d->inner = declaration();
    d->loc = span_from(start);
    return d;
  }
  fail_expected("a declaration");
}

// def name tparams params [: t] = e    def (op) ...    def p1 op p2 [: t] = e
DeclPtr Parser::value_decl(std::vector<std::string> attrs) {
  Loc start = here();
  bool entry = advance().text == "entry";
  auto d = make_decl(DK::Value, start, std::move(attrs));
  d->entry = entry;
  auto binding_op = [&]() -> std::string {
    const Token& op = peek();
    if (op.is(Tok::Bang)) fail_at(op.loc, "\"!\" is a prefix operator and cannot be defined as an infix operator");
    if (!op.is(Tok::Symbol)) fail_expected("an operator name");
    if (!op.quals.empty()) fail_at(op.loc, "a qualified name cannot be bound");
    advance();
    return op.text;
  };
  bool op_name = at(Tok::LParen) && (peek(1).is(Tok::Symbol) || peek(1).is(Tok::Bang)) && peek(2).is(Tok::RParen);
  bool infix = !op_name && !(at(Tok::Ident) && !peek(1).is(Tok::Symbol));
  if (infix) {
    if (!at_param_start()) fail_expected("a name, \"(\" or a parameter");
    d->params.push_back(param_pattern());
    d->name = binding_op();
    d->params.push_back(param_pattern());
  } else {
    if (op_name) {
      advance();
      d->name = binding_op();
      advance();
    } else {
      d->name = advance().text;
    }
    d->type_params = type_params();
    while (at_param_start()) d->params.push_back(param_pattern());
  }
  if (at(Tok::Colon)) {
    advance();
    d->ret_type = type_exp();
  }
  expect(Tok::Equals, fmt::format("before the body of \"{}\"", d->name));
  d->body = expression();
  d->loc = span_from(start);
  return d;
}

// type t 'a [n] = ...   type^ t = ...   type~ t = ...
DeclPtr Parser::type_decl(std::vector<std::string> attrs) {
  Loc start = here();
  advance();
  auto d = make_decl(DK::Type, start, std::move(attrs));
  if (at_symbol("^") || at(Tok::Tilde)) {
    advance();
    d->lifted = true;
  }
  d->name = expect(Tok::Ident, "naming the type").text;
  d->type_params = type_params();
  expect(Tok::Equals, "after the type name and parameters");
  d->ret_type = type_exp();
  d->loc = span_from(start);
  return d;
}

// module M (P: S) ... [: S] = m     module type S = sig
DeclPtr Parser::module_decl(std::vector<std::string> attrs) {
  Loc start = here();
  advance();
  if (at_keyword("type")) {
    advance();
    auto d = make_decl(DK::ModuleType, start, std::move(attrs));
    d->name = expect(Tok::Ident, "naming the module type").text;
    expect(Tok::Equals, "after the module type name");
    d->sig = sig_exp();
    d->loc = span_from(start);
    return d;
  }
  auto d = make_decl(DK::Module, start, std::move(attrs));
  d->name = expect(Tok::Ident, "naming the module").text;
  while (at(Tok::LParen)) {
    advance();
    std::string param = expect(Tok::Ident, "naming the module parameter").text;
    expect(Tok::Colon, "after the module parameter name");
    SigExprPtr sig = sig_exp();
    expect(Tok::RParen, "to close the module parameter");
    d->module_params.emplace_back(std::move(param), std::move(sig));
  }
  if (at(Tok::Colon)) {
    advance();
    d->sig = sig_exp();
  }
  expect(Tok::Equals, "before the module definition");
  d->module = mod_exp();
  d->loc = span_from(start);
  return d;
}

ModExprPtr Parser::mod_exp() {
  DepthGuard guard(*this);
  ChainGuard chain(*this);
  Loc start = here();
  ModExprPtr m;
  if (at(Tok::Backslash)) {
    advance();
    m = make_mod(ModExpr::Kind::Lambda, start);
    expect(Tok::LParen, "around the functor parameter");
    m->param = expect(Tok::Ident, "naming the functor parameter").text;
    expect(Tok::Colon, "after the functor parameter name");
    m->sig = sig_exp();
    expect(Tok::RParen, "to close the functor parameter");
    SigExprPtr result_sig;
    if (at(Tok::Colon)) {
      advance();
      result_sig = sig_atom();
    }
    expect(Tok::Arrow, "after the functor parameter");
    ModExprPtr body = mod_exp();
    if (result_sig) {
      auto asc = make_mod(ModExpr::Kind::Ascribe, body->loc);
      asc->fn = body;
      asc->sig = result_sig;
      body = asc;
    }
    m->fn = body;
    m->loc = span_from(start);
    return m;
  }
  if (at_keyword("import")) {
    advance();
    m = make_mod(ModExpr::Kind::Import, start);
    m->path = expect(Tok::StringLit, "naming the imported file").text;
    m->loc = span_from(start);
  } else {
    m = mod_atom();
    while (at(Tok::LParen) || at(Tok::Ident) || at(Tok::LBrace)) {
      chain.link();
      auto app = make_mod(ModExpr::Kind::Apply, start);
      app->fn = m;
      app->arg = mod_atom();
      app->loc = span_from(start);
      m = app;
    }
  }
  while (at(Tok::Colon)) {
    chain.link();
    advance();
    auto asc = make_mod(ModExpr::Kind::Ascribe, start);
    asc->fn = m;
    asc->sig = sig_exp();
    asc->loc = span_from(start);
    m = asc;
  }
  return m;
}

ModExprPtr Parser::mod_atom() {
  DepthGuard guard(*this);
  Loc start = here();
  if (at(Tok::LParen)) {
    advance();
    ModExprPtr m = mod_exp();
    expect(Tok::RParen, "to close the module expression");
    return m;
  }
  if (at(Tok::LBrace)) {
    advance();
    auto m = make_mod(ModExpr::Kind::Struct, start);
    while (!at(Tok::RBrace)) {
      if (!at_declaration_start()) fail_expected("a declaration or \"}\"");
      m->decls.push_back(declaration());
    }
    advance();
    m->loc = span_from(start);
    return m;
  }
  if (at(Tok::Ident)) {
    auto m = make_mod(ModExpr::Kind::Name, start);
    m->name = qual_name();
    m->loc = span_from(start);
    return m;
  }
  fail_expected("a module expression");
}

SigExprPtr Parser::sig_exp() {
  DepthGuard guard(*this);
  Loc start = here();
  if (at(Tok::LParen) && peek(1).is(Tok::Ident) && peek(2).is(Tok::Colon)) {
    advance();
    auto s = make_sig(SigExpr::Kind::Arrow, start);
    s->arrow_param = advance().text;
    advance();
    s->base = sig_exp();
    expect(Tok::RParen, "to close the parameter of the module type");
    expect(Tok::Arrow, "after the parameter of the module type");
    s->arrow_result = sig_exp();
    s->loc = span_from(start);
    return s;
  }
  SigExprPtr s = sig_atom();
  ChainGuard chain(*this);
  while (at_keyword("with")) {
    chain.link();
    advance();
    auto w = make_sig(SigExpr::Kind::With, start);
    w->base = s;
    w->with_name = qual_name();
    w->with_params = type_params();
    expect(Tok::Equals, "after the refined type name");
    w->with_type = type_term();
    w->loc = span_from(start);
    s = w;
  }
  if (at(Tok::Arrow)) {
    advance();
    auto a = make_sig(SigExpr::Kind::Arrow, start);
    a->base = s;
    a->arrow_result = sig_exp();
    a->loc = span_from(start);
    return a;
  }
  return s;
}

SigExprPtr Parser::sig_atom() {
  DepthGuard guard(*this);
  Loc start = here();
  if (at(Tok::LParen)) {
    advance();
    SigExprPtr s = sig_exp();
    expect(Tok::RParen, "to close the module type");
    return s;
  }
  if (at(Tok::LBrace)) {
    advance();
    auto s = make_sig(SigExpr::Kind::Specs, start);
    while (!at(Tok::RBrace)) s->specs.push_back(spec());
    advance();
    s->loc = span_from(start);
    return s;
  }
  if (at(Tok::Ident)) {
    auto s = make_sig(SigExpr::Kind::Name, start);
    s->name = qual_name();
    s->loc = span_from(start);
    return s;
  }
  fail_expected("a module type");
}

SpecItemPtr Parser::spec() {
  DepthGuard guard(*this);
  Loc start = here();
  while (at(Tok::HashBracket)) {  // attributes on specs are accepted and ignored
    advance();
    attribute();
  }
  auto item = std::make_shared<SpecItem>();
  item->loc = start;
  if (at_keyword("val")) {
    advance();
    item->kind = SpecItem::Kind::Val;
    if (at(Tok::Ident)) {
      item->name = advance().text;
    } else if (at(Tok::Symbol) && peek().quals.empty()) {
      item->name = advance().text;
    } else if (at(Tok::LParen) && peek(1).is(Tok::Symbol) && peek(2).is(Tok::RParen)) {
      advance();
      item->name = advance().text;
      advance();
    } else {
      fail_expected("a name after \"val\"");
    }
    item->type_params = type_params();
    expect(Tok::Colon, "after the name in \"val\"");
    item->type = type_exp();
  } else if (at_keyword("type")) {
    advance();
    item->kind = SpecItem::Kind::Type;
    if (at_symbol("^") || at(Tok::Tilde)) {
      advance();
      item->lifted = true;
    }
    item->name = expect(Tok::Ident, "naming the type").text;
    item->type_params = type_params();
    if (at(Tok::Equals)) {
      advance();
      item->type = type_exp();
    }
  } else if (at_keyword("module")) {
    advance();
    item->kind = SpecItem::Kind::Module;
    item->name = expect(Tok::Ident, "naming the module").text;
    expect(Tok::Colon, "after the module name");
    item->sig = sig_exp();
  } else if (at_keyword("include")) {
    advance();
    item->kind = SpecItem::Kind::Include;
    item->sig = sig_exp();
  } else {
    fail_expected("\"val\", \"type\", \"module\", \"include\" or \"}\"");
  }
  item->loc = span_from(start);
  return item;
}

}  // namespace thorn
