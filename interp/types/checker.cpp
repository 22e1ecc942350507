// The Checker's public face, plus the shared helpers of CheckerImpl: errors,
// unification with context, name lookup and instantiation.
#include "interp/types/checker.hpp"

#include <fmt/format.h>

#include "interp/types/checker_impl.hpp"
#include "interp/types/consumption.hpp"
#include "interp/types/order_check.hpp"

namespace thorn {

Checker::Checker() : impl_(std::make_unique<types::CheckerImpl>()) {}
Checker::~Checker() = default;

void Checker::check_decls(std::vector<DeclPtr>& decls) { impl_->check_decls(decls); }

TypePtr Checker::check_expression(ExprPtr& e, bool generalise) { return impl_->check_expression(e, generalise); }

TypePtr Checker::lookup_value(const QualName& name) const {
  auto s = impl_->lookup_top_value(name);
  if (!s) return nullptr;
  return impl_->zonk(s->type, true);
}

std::vector<int> Checker::lookup_quantified(const QualName& name) const {
  auto s = impl_->lookup_top_value(name);
  return s ? s->quantified : std::vector<int>{};
}

void Checker::mark_prelude() { impl_->prelude = std::make_shared<types::Env>(impl_->top.visible); }

Checker::State Checker::save() const {
  auto s = std::make_shared<types::CheckerState>();
  s->top = impl_->top;
  s->imports = impl_->imports;
  s->prelude = impl_->prelude;
  return s;
}

void Checker::restore(State state) {
  impl_->top = state->top;
  impl_->imports = state->imports;
  impl_->prelude = state->prelude;
}

namespace types {

namespace {

// The operators every program starts with. Futhark's prelude and user code
// may shadow them with ordinary definitions.
const char* const kBuiltinOps[] = {"+",  "-",  "*",  "/",  "%",  "//", "%%", "**", "==", "!=", "<", "<=",
                                   ">",  ">=", "&",  "|",  "^",  "<<", ">>", ">>>", "&&", "||", "|>", "<|"};

}  // namespace

CheckerImpl::CheckerImpl() {
  for (const char* op : kBuiltinOps) {
    auto s = std::make_shared<Scheme>();
    s->builtin = op;
    top.visible.values[op] = s;
  }
  u.binding_in_scope = [this](const DimNode& d) { return d.binding && local_binding(d.name) == d.binding.get(); };
  u.binding_stamp = [this](const DimNode& d) {
    if (!d.binding || local_binding(d.name) != d.binding.get()) return -1;
    return static_cast<const Scheme*>(d.binding.get())->stamp;
  };
  escaped_size_ = [this](const DimNode& d) { return d.binding && local_binding(d.name) != d.binding.get(); };
}

const void* CheckerImpl::local_binding(const std::string& name) const {
  for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
    if (auto f = it->values.find(name); f != it->values.end()) return f->second.get();
    if (it->opened && (it->opened->values.count(name) || it->opened->mods.count(name))) return nullptr;
  }
  return nullptr;
}

bool CheckerImpl::may_be_functional(const Ty& t0) const {
  Ty t = resolve(t0);
  if (t->kind == TyNode::Kind::Param) return lifted_abstract.count(t->param_id) > 0;
  if (t->kind == TyNode::Kind::Array) return may_be_functional(t->elem);
  if (t->kind == TyNode::Kind::Record) {
    for (const auto& [n, f] : t->fields)
      if (may_be_functional(f)) return true;
    return false;
  }
  if (t->kind == TyNode::Kind::Sum) {
    for (const auto& [n, ps] : t->constrs)
      for (const auto& p : ps)
        if (may_be_functional(p)) return true;
    return false;
  }
  return ty_functional(t);
}

void CheckerImpl::check_decls(std::vector<DeclPtr>& decls) {
  check_duplicates(decls);
  for (auto& d : decls) check_decl(d, top, false);
}

void CheckerImpl::check_duplicates(const std::vector<DeclPtr>& decls) const {
  // Futhark rejects two definitions of one name in the same namespace of one
  // module or file (shadowing happens only across imports, opens and REPL inputs).
  std::map<std::pair<int, std::string>, Loc> seen;
  for (const auto& d0 : decls) {
    const Decl* d = d0.get();
    while (d && d->kind == Decl::Kind::Local) d = d->inner.get();
    if (!d) continue;
    const char* what = nullptr;
    switch (d->kind) {
      case Decl::Kind::Value: what = "value"; break;
      case Decl::Kind::Type: what = "type"; break;
      case Decl::Kind::Module: what = "module"; break;
      case Decl::Kind::ModuleType: what = "module type"; break;
      default: continue;
    }
    auto [it, fresh] = seen.emplace(std::make_pair(static_cast<int>(d->kind), d->name), d->loc);
    if (!fresh)
      error(d->loc, fmt::format("Duplicate definition of {} \"{}\" (previously defined at {}:{}).", what, d->name,
                                it->second.line, it->second.col));
  }
}

TypePtr CheckerImpl::check_expression(ExprPtr& e, bool generalise_it) {
  TypePtr result;
  with_scope(top, [&] {
    begin_definition();
    Ty t = infer(e);
    if (generalise_it) {
      u.level = 0;
      generalise(t, {});
    }
    CounterGuard lenient(lenient_records);
    default_vars(t);
    finish_definition();
    result = zonk(t, false);
  });
  // The rules on finished definitions apply to REPL expressions too.
  Decl d;
  d.loc = e->loc;
  d.body = e;
  check_function_order(d);
  std::set<const Expr*> abstract = std::move(abstract_uses);
  abstract_uses.clear();
  check_consumption(d, abstract);
  return result;
}

SchemePtr CheckerImpl::lookup_top_value(const QualName& name) const {
  const Env* env = &top.visible;
  for (const auto& q : name.qualifiers) {
    auto it = env->mods.find(q);
    if (it == env->mods.end() || !it->second->env) return nullptr;
    env = it->second->env.get();
  }
  auto it = env->values.find(name.name);
  if (it == env->values.end() || !it->second->builtin.empty()) return nullptr;
  return it->second;
}

void CheckerImpl::error(Loc loc, std::string msg) const { throw Error(ErrorKind::Type, loc, std::move(msg)); }

void CheckerImpl::expect(Loc loc, const Ty& expected, const Ty& actual, const std::string& context) {
  // An overloaded expectation (an operand of +) reads better as "a numeric
  // type" than as its default; remember it before unification changes it.
  Ty e = resolve(expected);
  std::string expected_text;
  if (e->kind == TyNode::Kind::Var && e->constraint == Constraint::Overloaded)
    expected_text = describe_prims(e->prims);
  try {
    u.unify(expected, actual);
  } catch (const UnifyFailure& f) {
    if (f.whole) throw Error(ErrorKind::Type, loc, f.detail);
    bool described = !expected_text.empty();
    if (!described) expected_text = show(expected);
    std::string msg = fmt::format("expected {}, got {}", expected_text, show(actual));
    if (!context.empty()) msg = context + ": " + msg;
    std::vector<std::string> notes;
    if (f.sizes) {
      // Futhark: the types, then `Sizes "n" and "m" do not match.`
      msg = fmt::format("{} (invalid type).\nExpected: {}\nActual:   {}\n{}", context.empty() ? "Type mismatch" : context,
                        show(expected), show(actual), f.detail);
      throw Error(ErrorKind::Type, loc, msg);
    }
    if (!described && f.detail.find("do not match") == std::string::npos) notes.push_back("note: " + f.detail);
    if (described && (resolve(actual)->kind == TyNode::Kind::Sum || resolve(actual)->constraint == Constraint::HasConstrs))
      notes.push_back("note: a sum type is none of the primitive types the operation is defined for");
    throw Error(ErrorKind::Type, loc, msg, notes);
  }
}

void CheckerImpl::expect_sized(Loc loc, const Ty& expected, const Ty& actual, const std::string& context) {
  CounterGuard strict(u.strict_sizes);
  expect(loc, expected, actual, context);
}

void CheckerImpl::unify_or(Loc loc, const Ty& a, const Ty& b, const std::function<std::string()>& message) {
  try {
    u.unify(a, b);
  } catch (const UnifyFailure& f) {
    if (f.whole) throw Error(ErrorKind::Type, loc, f.detail);
    std::vector<std::string> notes;
    if (f.detail.find("do not match") == std::string::npos) notes.push_back("note: " + f.detail);
    throw Error(ErrorKind::Type, loc, message(), notes);
  }
}

SchemePtr CheckerImpl::find_value(const std::string& name) const {
  for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
    if (auto f = it->values.find(name); f != it->values.end()) return f->second;
    if (it->opened)
      if (auto f = it->opened->values.find(name); f != it->opened->values.end()) return f->second;
  }
  if (auto f = scope_->visible.values.find(name); f != scope_->visible.values.end()) return f->second;
  return nullptr;
}

TypeDefPtr CheckerImpl::find_type(const std::string& name) const {
  for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
    if (auto f = it->types.find(name); f != it->types.end()) return f->second;
    if (it->opened)
      if (auto f = it->opened->types.find(name); f != it->opened->types.end()) return f->second;
  }
  if (auto f = scope_->visible.types.find(name); f != scope_->visible.types.end()) return f->second;
  return nullptr;
}

ModPtr CheckerImpl::find_mod(const std::string& name) const {
  for (auto it = frames.rbegin(); it != frames.rend(); ++it)
    if (it->opened)
      if (auto f = it->opened->mods.find(name); f != it->opened->mods.end()) return f->second;
  if (auto f = scope_->visible.mods.find(name); f != scope_->visible.mods.end()) return f->second;
  return nullptr;
}

SigPtr CheckerImpl::find_sig(const std::string& name) const {
  for (auto it = frames.rbegin(); it != frames.rend(); ++it)
    if (it->opened)
      if (auto f = it->opened->sigs.find(name); f != it->opened->sigs.end()) return f->second;
  if (auto f = scope_->visible.sigs.find(name); f != scope_->visible.sigs.end()) return f->second;
  return nullptr;
}

bool CheckerImpl::is_module_name(const std::string& name) const { return find_mod(name) != nullptr; }

bool CheckerImpl::is_local_value(const std::string& name) const {
  for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
    if (it->values.count(name)) return true;
    if (it->opened && it->opened->values.count(name)) return false;
    if (it->opened && it->opened->mods.count(name)) return false;
  }
  return false;
}

const Env& CheckerImpl::module_path(const std::vector<std::string>& quals, Loc loc) const {
  ModPtr m = find_mod(quals.at(0));
  std::string path = quals[0];
  for (size_t i = 0;; ++i) {
    if (!m) error(loc, fmt::format("Unknown module \"{}\"", path));
    if (!m->env) error(loc, fmt::format("\"{}\" is a parametric module and must be applied first", path));
    if (i + 1 == quals.size()) return *m->env;
    path += "." + quals[i + 1];
    auto it = m->env->mods.find(quals[i + 1]);
    m = it == m->env->mods.end() ? nullptr : it->second;
  }
}

SchemePtr CheckerImpl::lookup_value(const QualName& name, Loc loc) const {
  if (name.qualifiers.empty()) {
    if (auto s = find_value(name.name)) return s;
    error(loc, fmt::format("Unknown name \"{}\"", name.name));
  }
  const Env& env = module_path(name.qualifiers, loc);
  auto it = env.values.find(name.name);
  if (it == env.values.end()) error(loc, fmt::format("Unknown name \"{}\"", name.str()));
  return it->second;
}

TypeDefPtr CheckerImpl::lookup_type(const QualName& name, Loc loc) const {
  if (name.qualifiers.empty()) {
    if (auto t = find_type(name.name)) return t;
    error(loc, fmt::format("Unknown type \"{}\"", name.name));
  }
  const Env& env = module_path(name.qualifiers, loc);
  auto it = env.types.find(name.name);
  if (it == env.types.end()) error(loc, fmt::format("Unknown type \"{}\"", name.str()));
  return it->second;
}

ModPtr CheckerImpl::lookup_mod(const QualName& name, Loc loc) const {
  if (name.qualifiers.empty()) {
    if (auto m = find_mod(name.name)) return m;
    error(loc, fmt::format("Unknown module \"{}\"", name.name));
  }
  const Env& env = module_path(name.qualifiers, loc);
  auto it = env.mods.find(name.name);
  if (it == env.mods.end()) error(loc, fmt::format("Unknown module \"{}\"", name.str()));
  return it->second;
}

void CheckerImpl::note_nonlifted(const Scheme& s, const std::vector<Ty>& inst, Loc loc, const std::string& fn) {
  for (const auto& [id, name] : s.nonlifted)
    for (size_t i = 0; i < s.quantified.size() && i < inst.size(); ++i)
      if (s.quantified[i] == id) pending_.nonlifted.push_back({loc, fn, name, inst[i]});
}

Ty CheckerImpl::instantiate(const Scheme& s, std::vector<Ty>* inst,
                             std::vector<std::pair<std::string, DimRef>>* sizes) {
  // Each use of a function has its own existential result sizes.
  if (s.quantified.empty() && s.size_params.empty()) return freshen_result_sizes(s.type, &pending_.existentials, escaped_size_);
  Substitution sub;
  for (int id : s.quantified) {
    Ty v = u.fresh();
    sub.types[id] = v;
    if (inst) inst->push_back(v);
  }
  for (const auto& n : s.size_params) {
    sub.dims[n] = dim_var();
    if (sizes) sizes->emplace_back(n, sub.dims[n]);
  }
  return freshen_result_sizes(substitute(s.type, sub), &pending_.existentials, escaped_size_);
}

}  // namespace types
}  // namespace thorn
