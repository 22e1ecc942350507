#include "interp/eval/env.hpp"

#include <optional>

#include "interp/core/ad_value.hpp"

namespace thorn::eval {

EnvPtr extend(EnvPtr parent, std::vector<std::pair<std::string, Binding>> locals) {
  auto e = std::make_shared<Env>();
  e->parent = std::move(parent);
  e->locals = std::move(locals);
  index_new_frame(*e);
  return e;
}

EnvPtr extend_scope(EnvPtr parent, NamespacePtr ns) {
  auto e = std::make_shared<Env>();
  e->parent = std::move(parent);
  e->ns = std::move(ns);
  return e;
}

Binding* lookup_value_local(const EnvPtr& env, std::string_view name, bool* local) {
  const uint64_t hash = name_hash(name);
  const uint64_t bit = bloom_bit(hash);
  for (const Env* e = env.get(); e;) {
    if (e->ns) {
      auto it = e->ns->values.find(name);
      if (it != e->ns->values.end()) {
        *local = false;
        // Namespaces are immutable snapshots; the binding is only ever read.
        return const_cast<Binding*>(&it->second);
      }
      e = e->parent.get();
    } else if (e->index) {
      // A checkpoint: its table answers for every Local frame down to the
      // next Scope frame (env_index.hpp).
      if (Binding* b = e->index->find(name, hash)) {
        *local = true;
        return b;
      }
      e = e->index->below;
    } else if (!(e->run_bloom & bit)) {
      // No frame of this run binds the name.
      e = e->run_base;
    } else {
      // Later bindings of one frame shadow earlier ones (`let (x, x) = ...` is
      // rejected by the checker, but a frame may hold a size and a parameter).
      if (e->names_bloom & bit)
        for (auto it = e->locals.rbegin(); it != e->locals.rend(); ++it)
          if (it->first == name) {
            *local = true;
            return &it->second;
          }
      e = e->parent.get();
    }
  }
  return nullptr;
}

const Binding* lookup_value(const EnvPtr& env, std::string_view name) {
  bool local = false;
  return lookup_value_local(env, name, &local);
}

namespace {
// The next frame below `e` that may hold modules or module types: Local
// frames bind values only, so whole runs of them covered by a checkpoint
// are skipped at once (a qualified name such as `f32.exp` in a long let
// chain used to walk every frame of it).
const Env* next_scope_candidate(const Env* e) {
  if (e->ns) return e->parent.get();
  return e->index ? e->index->below : e->run_base;
}
}  // namespace

ModulePtr lookup_module(const EnvPtr& env, std::string_view name) {
  for (const Env* e = env.get(); e; e = next_scope_candidate(e)) {
    if (!e->ns) continue;
    auto it = e->ns->modules.find(name);
    if (it != e->ns->modules.end()) return it->second;
  }
  return nullptr;
}

ModulePtr lookup_module_path(const EnvPtr& env, const std::vector<std::string>& path) {
  if (path.empty()) return nullptr;
  ModulePtr m = lookup_module(env, path[0]);
  for (size_t k = 1; m && k < path.size(); ++k) {
    if (!m->ns) return nullptr;
    auto it = m->ns->modules.find(path[k]);
    m = it == m->ns->modules.end() ? nullptr : it->second;
  }
  return m;
}

const Binding* lookup_value(const EnvPtr& env, const QualName& name) {
  if (name.qualifiers.empty()) return lookup_value(env, std::string_view(name.name));
  ModulePtr m = lookup_module_path(env, name.qualifiers);
  if (!m || !m->ns) return nullptr;
  auto it = m->ns->values.find(name.name);
  return it == m->ns->values.end() ? nullptr : &it->second;
}

const SigBinding* lookup_sig(const EnvPtr& env, const QualName& name) {
  if (!name.qualifiers.empty()) {
    ModulePtr m = lookup_module_path(env, name.qualifiers);
    if (!m || !m->ns) return nullptr;
    auto it = m->ns->sigs.find(name.name);
    return it == m->ns->sigs.end() ? nullptr : &it->second;
  }
  for (const Env* e = env.get(); e; e = next_scope_candidate(e)) {
    if (!e->ns) continue;
    auto it = e->ns->sigs.find(name.name);
    if (it != e->ns->sigs.end()) return &it->second;
  }
  return nullptr;
}

TypeEnvPtr bind_types(TypeEnvPtr parent, const std::vector<int>* ids, const std::vector<TypePtr>* types,
                      TypeEnvPtr where_tenv, EnvPtr where_env) {
  auto t = std::make_shared<TypeEnv>();
  t->parent = std::move(parent);
  t->ids = ids;
  t->types = types;
  t->where_tenv = std::move(where_tenv);
  t->where_env = std::move(where_env);
  return t;
}

namespace {

// Depth guard: a type variable instantiated with itself would loop.
constexpr int kMaxResolveDepth = 200;

TypePtr resolve(const TypePtr& t, const TypeEnvPtr& tenv, const EnvPtr& env, int depth);

TypePtr resolve_param(const Type& t, const TypeEnvPtr& tenv, int depth) {
  for (const TypeEnv* f = tenv.get(); f; f = f->parent.get()) {
    if (!f->ids || !f->types) continue;
    for (size_t k = 0; k < f->ids->size() && k < f->types->size(); ++k)
      if ((*f->ids)[k] == t.var_id) return resolve((*f->types)[k], f->where_tenv, f->where_env, depth + 1);
  }
  return nullptr;
}

std::optional<int64_t> size_value(const std::string& name, const EnvPtr& env) {
  const Binding* b = nullptr;
  if (size_t dot = name.rfind('.'); dot != std::string::npos && dot > 0) {
    // A module's value (`[M.k]`, or a size the checker qualified).
    QualName q;
    size_t start = 0;
    for (size_t at = name.find('.'); at != std::string::npos; start = at + 1, at = name.find('.', start))
      q.qualifiers.push_back(name.substr(start, at - start));
    q.name = name.substr(start);
    b = lookup_value(env, q);
  } else {
    b = lookup_value(env, std::string_view(name));
  }
  if (!b || b->consumed || (b->value.kind != Value::Kind::Scalar && b->value.kind != Value::Kind::AD) ||
      !is_integral(ad_scalar(b->value).type))
    return std::nullopt;
  return ad_scalar(b->value).as_i64();
}

Dim resolve_dim(const Dim& d, const EnvPtr& env) {
  if (!env) return d;
  std::optional<int64_t> v;
  if (d.kind == Dim::Kind::Name)
    v = size_value(d.name, env);
  else if (d.kind == Dim::Kind::Unknown && d.formula)
    v = d.formula->value([&](const std::string& n) { return size_value(n, env); });
  if (!v) return d;
  Dim out;
  out.kind = Dim::Kind::Constant;
  out.value = *v;
  return out;
}

TypePtr resolve(const TypePtr& t, const TypeEnvPtr& tenv, const EnvPtr& env, int depth) {
  if (!t || depth > kMaxResolveDepth) return t;
  switch (t->kind) {
    case Type::Kind::Prim: return t;
    case Type::Kind::Param: {
      TypePtr r = resolve_param(*t, tenv, depth);
      return r ? r : t;
    }
    case Type::Kind::Array: {
      std::vector<Dim> dims;
      for (const Dim& d : t->dims) dims.push_back(resolve_dim(d, env));
      TypePtr elem = resolve(t->elem, tenv, env, depth + 1);
      auto out = array_type(elem, std::move(dims));
      if (t->unique && !out->unique) {
        auto copy = std::make_shared<Type>(*out);
        copy->unique = true;
        return copy;
      }
      return out;
    }
    case Type::Kind::Tuple: {
      std::vector<TypePtr> elems;
      for (const auto& x : t->elems) elems.push_back(resolve(x, tenv, env, depth + 1));
      return tuple_type(std::move(elems));
    }
    case Type::Kind::Record: {
      std::vector<std::pair<std::string, TypePtr>> fields;
      for (const auto& [n, x] : t->fields) fields.emplace_back(n, resolve(x, tenv, env, depth + 1));
      return record_type(std::move(fields));
    }
    case Type::Kind::Sum: {
      std::vector<std::pair<std::string, std::vector<TypePtr>>> cs;
      for (const auto& [n, xs] : t->constructors) {
        std::vector<TypePtr> payload;
        for (const auto& x : xs) payload.push_back(resolve(x, tenv, env, depth + 1));
        cs.emplace_back(n, std::move(payload));
      }
      return sum_type(std::move(cs));
    }
    case Type::Kind::Function:
      return function_type(resolve(t->param, tenv, env, depth + 1), resolve(t->result, tenv, env, depth + 1),
                           t->param_name);
  }
  return t;
}

}  // namespace

Dim resolve_size(const Dim& d, const EnvPtr& env) { return resolve_dim(d, env); }

TypePtr resolve_type(const TypePtr& t, const TypeEnvPtr& tenv, const EnvPtr& env) {
  return resolve(t, tenv, env, 0);
}

}  // namespace thorn::eval
