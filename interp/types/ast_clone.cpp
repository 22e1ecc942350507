#include "interp/types/ast_clone.hpp"

namespace thorn::types {

PatternPtr clone_pattern(const PatternPtr& p) {
  if (!p) return nullptr;
  auto c = std::make_shared<Pattern>(*p);
  c->type = nullptr;
  for (auto& e : c->elems) e = clone_pattern(e);
  for (auto& [n, f] : c->fields) f = clone_pattern(f);
  c->literal = clone_expr(p->literal);
  c->inner = clone_pattern(p->inner);
  return c;
}

ExprPtr clone_expr(const ExprPtr& e) {
  if (!e) return nullptr;
  auto c = std::make_shared<Expr>(*e);
  c->type = nullptr;
  c->instantiation.clear();
  c->size_args.clear();
  c->quantified.clear();
  c->a = clone_expr(e->a);
  c->b = clone_expr(e->b);
  c->c = clone_expr(e->c);
  for (auto& x : c->list) x = clone_expr(x);
  for (auto& [n, x] : c->fields) x = clone_expr(x);
  for (auto& ix : c->indices) {
    ix.index = clone_expr(ix.index);
    ix.start = clone_expr(ix.start);
    ix.end = clone_expr(ix.end);
    ix.stride = clone_expr(ix.stride);
  }
  for (auto& cs : c->cases) {
    cs.pattern = clone_pattern(cs.pattern);
    cs.body = clone_expr(cs.body);
  }
  for (auto& p : c->params) p = clone_pattern(p);
  c->pattern = clone_pattern(e->pattern);
  return c;
}

DeclPtr clone_decl(const DeclPtr& d) {
  if (!d) return nullptr;
  auto c = std::make_shared<Decl>(*d);
  c->type = nullptr;
  c->quantified.clear();
  for (auto& p : c->params) p = clone_pattern(p);
  c->body = clone_expr(d->body);
  c->module = clone_mod_expr(d->module);
  c->inner = clone_decl(d->inner);
  // Imported files are shared: they are checked once, outside any functor.
  return c;
}

ModExprPtr clone_mod_expr(const ModExprPtr& m) {
  if (!m) return nullptr;
  auto c = std::make_shared<ModExpr>(*m);
  for (auto& d : c->decls) d = clone_decl(d);
  c->fn = clone_mod_expr(m->fn);
  c->arg = clone_mod_expr(m->arg);
  c->instance = nullptr;
  return c;
}

}  // namespace thorn::types
