// Declarations and the module language: def/let/entry, module, open,
// import, local, functors. Types and module types have no run-time content.
#include <fmt/format.h>

#include "interp/eval/evaluator.hpp"

namespace thorn::eval {

// ------------------------------------------------------------------ ScopeBuilder

EnvPtr ScopeBuilder::env() {
  if (!env_cache_) env_cache_ = extend_scope(outer, visible);
  return env_cache_;
}

namespace {
// Copy on write: closures hold earlier snapshots, which must not change.
std::shared_ptr<Namespace> copy_of(const NamespacePtr& ns) { return std::make_shared<Namespace>(*ns); }
}  // namespace

void ScopeBuilder::add_value(const std::string& name, Binding b, bool exported_too) {
  auto v = copy_of(visible);
  v->values[name] = b;
  visible = v;
  if (exported_too) {
    auto x = copy_of(exported);
    x->values[name] = std::move(b);
    exported = x;
  }
  env_cache_.reset();
}

void ScopeBuilder::add_module(const std::string& name, ModulePtr m, bool exported_too) {
  auto v = copy_of(visible);
  v->modules[name] = m;
  visible = v;
  if (exported_too) {
    auto x = copy_of(exported);
    x->modules[name] = std::move(m);
    exported = x;
  }
  env_cache_.reset();
}

void ScopeBuilder::merge(const Namespace& ns, bool exported_too) {
  auto v = copy_of(visible);
  for (const auto& [n, b] : ns.values) v->values[n] = b;
  for (const auto& [n, m] : ns.modules) v->modules[n] = m;
  visible = v;
  if (exported_too) {
    auto x = copy_of(exported);
    for (const auto& [n, b] : ns.values) x->values[n] = b;
    for (const auto& [n, m] : ns.modules) x->modules[n] = m;
    exported = x;
  }
  env_cache_.reset();
}

// ------------------------------------------------------------------ declarations

namespace {

void eval_decl_in(Evaluator& ev, const Decl& d, ScopeBuilder& scope, const TypeEnvPtr& tenv, bool exported);

ModulePtr functor(std::vector<std::string> params, ModExprPtr body, EnvPtr env, TypeEnvPtr tenv) {
  auto m = std::make_shared<Module>();
  m->params = std::move(params);
  m->body = std::move(body);
  m->env = std::move(env);
  m->tenv = std::move(tenv);
  return m;
}

void eval_value_decl(Evaluator& ev, const Decl& d, ScopeBuilder& scope, const TypeEnvPtr& tenv, bool exported) {
  Binding b;
  EnvPtr env = scope.env();
  if (!d.params.empty()) {
    auto c = std::make_shared<Callable>();
    c->kind = Callable::Kind::Closure;
    c->name = d.name;
    c->params = &d.params;
    c->body = d.body.get();
    c->ret_type = d.ret_type.get();
    c->type_params = &d.type_params;
    c->env = env;
    c->tenv = tenv;
    c->loc = d.loc;
    b.value = Value::function(c);
    if (!d.quantified.empty()) b.quantified = &d.quantified;
  } else if (!d.quantified.empty()) {
    // Polymorphic constant: evaluated per reference, under its instantiation.
    b.lazy = &d;
    b.lazy_env = env;
    b.lazy_tenv = tenv;
  } else {
    Ctx ctx{env, tenv};
    b.value = ev.eval(*d.body, ctx);
    if (d.ret_type) {
      Evaluator::SizeScope sizes;
      ev.check_type_sizes(*d.ret_type, b.value, sizes, ctx, d.loc, "return");
    }
  }
  scope.add_value(d.name, std::move(b), exported);
}

void eval_decl_in(Evaluator& ev, const Decl& d, ScopeBuilder& scope, const TypeEnvPtr& tenv, bool exported) {
  switch (d.kind) {
    case Decl::Kind::Value: eval_value_decl(ev, d, scope, tenv, exported); return;
    case Decl::Kind::Type:
    case Decl::Kind::ModuleType: return;
    case Decl::Kind::Module: {
      ModulePtr m;
      if (!d.module_params.empty()) {
        std::vector<std::string> params;
        for (const auto& [name, sig] : d.module_params) params.push_back(name);
        m = functor(std::move(params), d.module, scope.env(), tenv);
      } else {
        m = ev.eval_module_expr(*d.module, scope.env(), tenv);
      }
      scope.add_module(d.name, std::move(m), exported);
      return;
    }
    case Decl::Kind::Open: {
      ModulePtr m = ev.eval_module_expr(*d.module, scope.env(), tenv);
      if (!m || !m->ns) throw Error(ErrorKind::Internal, d.loc, "open of a parametric module");
      scope.merge(*m->ns, exported);
      return;
    }
    case Decl::Kind::Import: {
      if (!d.imported) throw Error(ErrorKind::Internal, d.loc, "import \"" + d.path + "\" was not loaded");
      NamespacePtr ns = ev.eval_import(d.imported);
      // An import brings the file's names into scope without re-exporting
      // them (Futhark's `import` is a local open).
      scope.merge(*ns, false);
      return;
    }
    case Decl::Kind::Local: eval_decl_in(ev, *d.inner, scope, tenv, false); return;
  }
}

}  // namespace

void Evaluator::eval_decl(const Decl& d, ScopeBuilder& scope, const TypeEnvPtr& tenv) {
  eval_decl_in(*this, d, scope, tenv, true);
}

NamespacePtr Evaluator::eval_import(const std::shared_ptr<Program>& program) {
  if (auto it = imports_.find(program.get()); it != imports_.end()) {
    if (!it->second) throw Error(ErrorKind::Internal, "import cycle");
    return it->second;
  }
  imports_[program.get()] = nullptr;  // marks "in progress"
  ScopeBuilder scope;
  scope.outer = prelude_env;
  try {
    for (const auto& d : program->decls) eval_decl(*d, scope, nullptr);
  } catch (...) {
    imports_.erase(program.get());
    throw;
  }
  imports_[program.get()] = scope.exported;
  return scope.exported;
}

ModulePtr Evaluator::eval_module_expr(const ModExpr& m, const EnvPtr& env, const TypeEnvPtr& tenv) {
  switch (m.kind) {
    case ModExpr::Kind::Struct: {
      ScopeBuilder scope;
      scope.outer = env;
      for (const auto& d : m.decls) eval_decl(*d, scope, tenv);
      auto out = std::make_shared<Module>();
      out->ns = scope.exported;
      return out;
    }
    case ModExpr::Kind::Name: {
      std::vector<std::string> path = m.name.qualifiers;
      path.push_back(m.name.name);
      ModulePtr found = lookup_module_path(env, path);
      if (!found) throw Error(ErrorKind::Internal, m.loc, "unknown module " + m.name.str());
      return found;
    }
    case ModExpr::Kind::Ascribe: return eval_module_expr(*m.fn, env, tenv);
    case ModExpr::Kind::Import: {
      if (!m.imported) throw Error(ErrorKind::Internal, m.loc, "import \"" + m.path + "\" was not loaded");
      auto out = std::make_shared<Module>();
      out->ns = eval_import(m.imported);
      return out;
    }
    case ModExpr::Kind::Lambda: return functor({m.param}, m.fn, env, tenv);
    case ModExpr::Kind::Apply: {
      ModulePtr f = eval_module_expr(*m.fn, env, tenv);
      ModulePtr arg = eval_module_expr(*m.arg, env, tenv);
      if (!f || !f->is_functor()) throw Error(ErrorKind::Internal, m.loc, "application of a non-parametric module");
      auto bound = std::make_shared<Namespace>();
      bound->modules[f->params[0]] = arg;
      EnvPtr inner = extend_scope(f->env, bound);
      if (f->params.size() > 1)
        return functor(std::vector<std::string>(f->params.begin() + 1, f->params.end()), f->body, inner, f->tenv);
      // The checker checks a copy of the body per application (`instance`);
      // only that copy carries types.
      return eval_module_expr(m.instance ? *m.instance : *f->body, inner, f->tenv);
    }
  }
  throw Error(ErrorKind::Internal, m.loc, "unknown module expression");
}

}  // namespace thorn::eval
