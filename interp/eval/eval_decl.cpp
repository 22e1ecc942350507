// Declarations and the module language: def/let/entry, module, open,
// import, local, functors. Types and module types have no run-time content.
#include <algorithm>
#include <fmt/format.h>

#include <map>
#include <set>

#include "interp/eval/evaluator.hpp"

namespace thorn::eval {

ModulePtr restrict_module(const ModulePtr& m, const SigExpr& sig, const EnvPtr& env);

// ------------------------------------------------------------------ ScopeBuilder

EnvPtr ScopeBuilder::env() {
  if (!env_cache_) env_cache_ = extend_scope(outer, visible);
  return env_cache_;
}

namespace {
// Copy on write: closures hold earlier snapshots, which must not change.
std::shared_ptr<Namespace> copy_of(const NamespacePtr& ns) { return std::make_shared<Namespace>(*ns); }

// Binds `name` in one of a namespace's maps (`member`), copying the
// namespace first (closures hold the earlier snapshot).
template <class T>
void bind_in(NamespacePtr& ns, NameMap<T> Namespace::*member, const std::string& name, T x) {
  auto copy = copy_of(ns);
  ((*copy).*member)[name] = std::move(x);
  ns = copy;
}
}  // namespace

void ScopeBuilder::add_value(const std::string& name, Binding b, bool exported_too) {
  if (exported_too) bind_in(exported, &Namespace::values, name, b);
  bind_in(visible, &Namespace::values, name, std::move(b));
  env_cache_.reset();
}

void ScopeBuilder::add_module(const std::string& name, ModulePtr m, bool exported_too) {
  if (exported_too) bind_in(exported, &Namespace::modules, name, m);
  bind_in(visible, &Namespace::modules, name, std::move(m));
  env_cache_.reset();
}

void ScopeBuilder::add_sig(const std::string& name, SigBinding s, bool exported_too) {
  if (exported_too) bind_in(exported, &Namespace::sigs, name, s);
  bind_in(visible, &Namespace::sigs, name, std::move(s));
  env_cache_.reset();
}

void ScopeBuilder::merge(const Namespace& ns, bool exported_too) {
  auto into = [&](Namespace& to) {
    for (const auto& [n, b] : ns.values) to.values[n] = b;
    for (const auto& [n, m] : ns.modules) to.modules[n] = m;
    for (const auto& [n, s] : ns.sigs) to.sigs[n] = s;
  };
  auto v = copy_of(visible);
  into(*v);
  visible = v;
  if (exported_too) {
    auto x = copy_of(exported);
    into(*x);
    exported = x;
  }
  env_cache_.reset();
}

// ------------------------------------------------------------------ module types

namespace {

// What a module type lets through: value and module names (with the module
// type of each nested module), or everything (functor types, unknown names).
struct SigNames {
  bool everything = false;
  std::set<std::string> values;
  std::map<std::string, SigBinding> modules;
};

void collect_sig(const SigExpr& s, const EnvPtr& env, SigNames& out, int depth = 0) {
  if (depth > 100) {
    out.everything = true;
    return;
  }
  switch (s.kind) {
    case SigExpr::Kind::Name: {
      const SigBinding* b = lookup_sig(env, s.name);
      if (!b || !b->sig) {
        out.everything = true;
        return;
      }
      collect_sig(*b->sig, b->env, out, depth + 1);
      return;
    }
    case SigExpr::Kind::Specs:
      for (const auto& item : s.specs) {
        switch (item->kind) {
          case SpecItem::Kind::Val: out.values.insert(item->name); break;
          case SpecItem::Kind::Module: out.modules[item->name] = SigBinding{item->sig, env}; break;
          case SpecItem::Kind::Include:
            if (item->sig) collect_sig(*item->sig, env, out, depth + 1);
            break;
          case SpecItem::Kind::Type: break;
        }
      }
      return;
    case SigExpr::Kind::With:
      if (s.base) collect_sig(*s.base, env, out, depth + 1);
      return;
    case SigExpr::Kind::Arrow: out.everything = true; return;
  }
}

}  // namespace

// A module as seen through a module type: only the names it specifies.
ModulePtr restrict_module(const ModulePtr& m, const SigExpr& sig, const EnvPtr& env) {
  if (!m || !m->ns) return m;
  SigNames names;
  collect_sig(sig, env, names);
  if (names.everything) return m;
  auto ns = std::make_shared<Namespace>();
  for (const auto& n : names.values)
    if (auto it = m->ns->values.find(n); it != m->ns->values.end()) ns->values[n] = it->second;
  for (const auto& [n, s] : names.modules) {
    auto it = m->ns->modules.find(n);
    if (it == m->ns->modules.end()) continue;
    ns->modules[n] = s.sig ? restrict_module(it->second, *s.sig, s.env) : it->second;
  }
  auto out = std::make_shared<Module>();
  out->ns = std::move(ns);
  return out;
}

// ------------------------------------------------------------------ declarations

namespace {

void eval_decl_in(Evaluator& ev, const Decl& d, ScopeBuilder& scope, const TypeEnvPtr& tenv, bool exported);

ModulePtr functor(std::vector<std::string> params, ModExprPtr body, EnvPtr env, TypeEnvPtr tenv,
                  SigExprPtr result_sig = nullptr) {
  auto m = std::make_shared<Module>();
  m->result_sig = std::move(result_sig);
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
    if (may_recurse(d.name, *d.body, env)) c->self = c;
    b.value = Value::function(c);
    if (!d.quantified.empty()) b.quantified = &d.quantified;
  } else if (!d.quantified.empty() ||
             std::any_of(d.type_params.begin(), d.type_params.end(), [](const TypeParam& tp) { return tp.is_size; })) {
    // Polymorphic or size-polymorphic constant (`def iiota [n] : [n]i64`):
    // evaluated per reference, under its instantiation.
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
    case Decl::Kind::Type: return;
    case Decl::Kind::ModuleType: scope.add_sig(d.name, SigBinding{d.sig, scope.env()}, exported); return;
    case Decl::Kind::Module: {
      ModulePtr m;
      if (!d.module_params.empty()) {
        std::vector<std::string> params;
        for (const auto& [name, sig] : d.module_params) params.push_back(name);
        m = functor(std::move(params), d.module, scope.env(), tenv, d.sig);
      } else {
        m = ev.eval_module_expr(*d.module, scope.env(), tenv);
        if (d.sig) m = restrict_module(m, *d.sig, scope.env());
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
    case ModExpr::Kind::Ascribe: {
      ModulePtr inner = eval_module_expr(*m.fn, env, tenv);
      return m.sig ? restrict_module(inner, *m.sig, env) : inner;
    }
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
        return functor(std::vector<std::string>(f->params.begin() + 1, f->params.end()), f->body, inner, f->tenv,
                       f->result_sig);
      // The checker checks a copy of the body per application (`instance`);
      // only that copy carries types.
      ModulePtr result = eval_module_expr(m.instance ? *m.instance : *f->body, inner, f->tenv);
      return f->result_sig ? restrict_module(result, *f->result_sig, f->env) : result;
    }
  }
  throw Error(ErrorKind::Internal, m.loc, "unknown module expression");
}

}  // namespace thorn::eval
