// The module language: structures, module names and paths, open, import,
// module types and ascription, and parametric modules (functors).
//
// Simplifications (see docs): abstract types are transparent (ascription
// restricts which names a module exports and checks value types, but does
// not hide type definitions), and every functor application checks its own
// copy of the functor body (stored on the ModExpr as `instance`).
#include <fmt/format.h>

#include "interp/syntax/print.hpp"
#include "interp/types/ast_clone.hpp"
#include "interp/types/checker_impl.hpp"
#include "interp/types/liftedness.hpp"

namespace thorn::types {

namespace {

ModPtr structure(EnvPtr env) {
  auto m = std::make_shared<ModBinding>();
  m->env = std::move(env);
  return m;
}

template <class T>
void bind_name(ModScope& scope, bool local, std::map<std::string, T> Env::*table, const std::string& name, T value) {
  (scope.visible.*table)[name] = value;
  if (!local) (scope.exports.*table)[name] = value;
}

// A module type flattened to its specifications (includes expanded).
struct SigView {
  std::vector<SpecItemPtr> items;
  EnvPtr closure;  // where its type expressions are evaluated
  // Items written where the module type is used (`(R: real) : { include S
  // with t = R.t; val x: R.t }`) rather than in a declared module type: they
  // are evaluated in the scope of that use (`use_site`), not in `closure`.
  std::vector<bool> at_use;
  ModScope* use_site = nullptr;
  bool functor = false;
  // `with t = u` refinements (of unparameterised types). One written where
  // the module type is used (`(V: visuals with cell = R.cell)`) is evaluated
  // there, at once. One inside a module type's specifications (`include S
  // with t = u`) may name earlier specifications (`type real` ... `include
  // vspace with real = real`): it is kept as a type expression and
  // evaluated when the items are, with the items before it in scope, in the
  // environment where that module type was declared.
  struct Refinement {
    std::string name;
    Ty type;             // evaluated at once, or
    TypeExprPtr expr;    // evaluated with the earlier items
    EnvPtr closure;      // ... in this environment (null: the current one)
    size_t begin = 0, end = 0;  // the items it refines
  };
  std::vector<Refinement> refinements;
};

}  // namespace

static std::string type_params_text(const std::vector<TypeParam>& ps) {
  if (ps.empty()) return "no type parameters";
  std::string out = "type parameters";
  for (const TypeParam& p : ps)
    out += p.is_size ? fmt::format(" [{}]", p.name) : fmt::format(" '{}{}", p.lifted ? "^" : "", p.name);
  return out;
}

// Futhark's refineEnv: `S with t ps = u` needs `t` to be an abstract type
// of S (declared without a definition, not refined already) whose type
// parameters match `ps` one for one (a lifted parameter only by a lifted
// one). `items_from` and `refined_from`: where S's items and refinements
// start in `out`. Qualified names (`inner.t`) are not checked here.
static void check_refinement(CheckerImpl& c, const SigExpr& with, const SigView& out, size_t items_from,
                             size_t refined_from) {
  if (!with.with_name.qualifiers.empty()) return;
  const std::string& name = with.with_name.name;
  // A name may be specified more than once (`type real` and an include
  // that has it too); one abstract, unrefined specification is enough.
  const SpecItem* spec = nullptr;
  for (size_t k = items_from; k < out.items.size() && !spec; ++k) {
    const SpecItem& item = *out.items[k];
    if (item.kind != SpecItem::Kind::Type || item.name != name || item.type) continue;
    bool refined = false;
    for (size_t r = refined_from; r < out.refinements.size(); ++r)
      refined = refined || (out.refinements[r].name == name && k >= out.refinements[r].begin &&
                            k < out.refinements[r].end);
    if (!refined) spec = &item;
  }
  if (!spec) c.error(with.loc, fmt::format("\"{}\" is not an abstract type in the module type.", name));
  const auto& have = spec->type_params;
  const auto& want = with.with_params;
  bool match = have.size() == want.size();
  for (size_t k = 0; match && k < have.size(); ++k)
    match = have[k].is_size == want[k].is_size && (!have[k].lifted || want[k].lifted);
  if (!match)
    c.error(with.loc, fmt::format("Cannot refine a type having {} with a type having {}.", type_params_text(want),
                                  type_params_text(have)));
}

// `in_specs`: `s` is included in the specifications of a module type
// declared in `closure` (null: written at its use).
static void flatten_sig(CheckerImpl& c, const SigExprPtr& s, SigView& out, bool in_specs = false,
                        const EnvPtr& closure = nullptr) {
  switch (s->kind) {
    case SigExpr::Kind::Name: {
      SigPtr sig;
      if (s->name.qualifiers.empty()) {
        sig = c.find_sig(s->name.name);
      } else {
        const Env& env = c.module_path(s->name.qualifiers, s->loc);
        auto it = env.sigs.find(s->name.name);
        if (it != env.sigs.end()) sig = it->second;
      }
      if (!sig) c.error(s->loc, fmt::format("Unknown module type \"{}\"", s->name.str()));
      out.closure = sig->closure;
      flatten_sig(c, sig->expr, out, false, sig->closure);
      return;
    }
    case SigExpr::Kind::Specs:
      for (const auto& item : s->specs) {
        if (item->kind == SpecItem::Kind::Include) flatten_sig(c, item->sig, out, true, closure);
        else {
          out.items.push_back(item);
          out.at_use.push_back(closure == nullptr);
        }
      }
      return;
    case SigExpr::Kind::With: {
      SigView::Refinement r;
      r.name = s->with_name.str();
      if (s->with_params.empty()) {
        if (in_specs) {
          r.expr = s->with_type;
          r.closure = closure;
        } else {
          r.type = c.freeze(c.eval_type(s->with_type));
        }
      }
      r.begin = out.items.size();
      size_t refined_before = out.refinements.size();
      flatten_sig(c, s->base, out, in_specs, closure);
      r.end = out.items.size();
      check_refinement(c, *s, out, r.begin, refined_before);
      if (r.type || r.expr) out.refinements.push_back(std::move(r));
      return;
    }
    case SigExpr::Kind::Arrow: out.functor = true; return;
  }
}

// Runs `body` for item `index` of `v` in the scope its type expressions are
// read in: `v.closure` (the current scope), or the use site's.
template <class F>
static void in_item_scope(CheckerImpl& c, const SigView& v, size_t index, F&& body) {
  if (v.at_use[index] && v.closure && v.use_site) c.with_scope(*v.use_site, body);
  else body();
}

// The refinements of item `index` of `v` (named `name`), evaluated with the
// items before it (`so_far`) in scope.
static std::vector<Ty> refinements_of(CheckerImpl& c, const SigView& v, size_t index, const std::string& name,
                                      const EnvPtr& so_far) {
  std::vector<Ty> out;
  for (const auto& r : v.refinements) {
    if (r.name != name || index < r.begin || index >= r.end) continue;
    if (r.type) {
      out.push_back(r.type);
      continue;
    }
    auto eval = [&] {
      Frame f;
      f.opened = so_far;
      FrameGuard g(c, std::move(f));
      out.push_back(c.freeze(c.eval_type(r.expr)));
    };
    if (r.closure) {
      ModScope s;
      s.visible = *r.closure;
      c.with_scope(s, eval);
    } else if (v.use_site) {
      c.with_scope(*v.use_site, eval);
    } else {
      eval();
    }
  }
  return out;
}

void CheckerImpl::check_module_decl(Decl& d, ModScope& scope, bool local) {
  ModPtr m;
  with_scope(scope, [&] {
    if (!d.module_params.empty()) {
      auto f = std::make_shared<ModBinding>();
      f->params = d.module_params;
      f->body = d.module;
      f->result_sig = d.sig;
      f->closure = std::make_shared<Env>(scope.visible);
      // Check the body once against the parameters' module types (with
      // abstract types as rigid types) to report errors at the definition.
      ModScope s;
      s.visible = *f->closure;
      for (const auto& [name, sig] : d.module_params) {
        // An earlier parameter is in scope: `(R: rules) (V: visuals with cell = R.cell)`.
        // A parametric one is an abstract functor.
        ModPtr p;
        with_scope(s, [&] { p = sig_module(sig); });
        s.visible.mods[name] = p;
      }
      with_scope(s, [&] {
        ModPtr body = eval_module(d.module);
        // The result's ascription is checked here too, so that a functor
        // that never is applied still gets its errors (Futhark does).
        if (d.sig && body->env) ascribe(body->env, d.sig, d.loc);
        if (d.sig && !body->env) match_functor(body, d.sig, d.loc);
      });
      m = f;
    } else {
      m = eval_module(d.module);
      if (d.sig) {
        if (!m->env) {
          // A parametric module ascribed a parametric module type
          // (`module twice : (P: op) -> op = \(P: op) -> ...`): the functor
          // stays transparent.
          match_functor(m, d.sig, d.loc);
        } else {
          m = structure(seal(ascribe(m->env, d.sig, d.loc), d.sig, d.name));
        }
      }
    }
  });
  bind_name<ModPtr>(scope, local, &Env::mods, d.name, m);
}

// Every node of a type expression, outermost first.
template <class F>
static void each_type_node(const TypeExpr& te, F&& f) {
  f(te);
  for (const auto* p : {&te.elem, &te.param, &te.result})
    if (*p) each_type_node(**p, f);
  for (const auto& e : te.elems) each_type_node(*e, f);
  for (const auto& [n, t] : te.fields) each_type_node(*t, f);
  for (const auto& [c, ts] : te.constructors)
    for (const auto& t : ts) each_type_node(*t, f);
  for (const auto& a : te.args)
    if (!a.is_size && a.type) each_type_node(*a.type, f);
}

// The rules Futhark's checkSpecs applies to a module type's specifications
// where the module type is declared: distinct type parameters; in `val`
// types no anonymous sizes (they would be existential) and no name bound
// twice along the type.
static void check_val_specs(CheckerImpl& c, const SigExpr& s) {
  if (s.kind == SigExpr::Kind::With && s.base) check_val_specs(c, *s.base);
  if (s.kind != SigExpr::Kind::Specs) return;
  for (const auto& item : s.specs) {
    if (item->kind == SpecItem::Kind::Module && item->sig) check_val_specs(c, *item->sig);
    c.check_distinct_type_params(item->type_params);
    if (item->kind != SpecItem::Kind::Val || !item->type) continue;
    each_type_node(*item->type, [&](const TypeExpr& t) { c.check_names_bound_once(t); });
    // Anonymous sizes: none in parameters (`val f : []i32 -> i32`) or in a
    // value's type; a function's final result may have them (existential).
    auto no_anonymous = [&](const TypeExpr& part) {
      each_type_node(part, [&](const TypeExpr& t) {
        if (t.kind == TypeExpr::Kind::Array && t.size.kind == SizeExpr::Kind::Anonymous)
          c.error(item->loc, fmt::format("All function parameters must have non-anonymous sizes.\n"
                                         "Hint: add size parameters to \"{}\".",
                                         item->name));
      });
    };
    const TypeExpr* t = item->type.get();
    while (t->kind == TypeExpr::Kind::Function && t->param && t->result) {
      no_anonymous(*t->param);
      t = t->result.get();
    }
    if (t == item->type.get()) no_anonymous(*t);
  }
}

void CheckerImpl::check_module_type_decl(Decl& d, ModScope& scope, bool local) {
  check_val_specs(*this, *d.sig);
  // Refinements (`S with t = u`) are checked where the module type is
  // declared, as Futhark does, not only where it is used.
  with_scope(scope, [&] {
    SigView view;
    flatten_sig(*this, d.sig, view);
    // Its specifications' types are checked here too (unknown names), as
    // Futhark does, not only where the module type is used.
    if (!view.functor) sig_env(d.sig);
  });
  auto s = std::make_shared<SigBinding>();
  s->expr = d.sig;
  s->closure = std::make_shared<Env>(scope.visible);
  bind_name<SigPtr>(scope, local, &Env::sigs, d.name, s);
}

void CheckerImpl::check_open(Decl& d, ModScope& scope, bool local) {
  ModPtr m;
  with_scope(scope, [&] { m = eval_module(d.module); });
  if (!m->env) error(d.loc, "cannot open a parametric module");
  // An opened module's names become part of the enclosing module too, as in
  // Futhark (hence the `local open` idiom).
  scope.visible.add_all(*m->env);
  if (!local) scope.exports.add_all(*m->env);
}

EnvPtr CheckerImpl::import_env(const std::shared_ptr<Program>& program, const Env& base, Loc loc) {
  if (!program) error(loc, "import was not loaded");
  if (auto it = imports.find(program.get()); it != imports.end()) {
    if (!it->second) error(loc, "import cycle");
    return it->second;
  }
  imports[program.get()] = nullptr;  // marks "being checked" to detect cycles
  ModScope s;
  s.visible = prelude ? *prelude : base;
  try {
    check_duplicates(program->decls);
    for (auto& d : program->decls) check_decl(d, s, false);
  } catch (...) {
    imports.erase(program.get());
    throw;
  }
  auto env = std::make_shared<Env>(std::move(s.exports));
  imports[program.get()] = env;
  return env;
}

void CheckerImpl::check_import(Decl& d, ModScope& scope) {
  // `import "x"` is `local open import "x"`: visible here, not re-exported.
  EnvPtr env = import_env(d.imported, scope.visible, d.loc);
  scope.visible.add_all(*env);
}

EnvPtr CheckerImpl::check_struct(std::vector<DeclPtr>& decls, const Env& outer) {
  ModScope s;
  s.visible = outer;
  s.in_module = true;
  check_duplicates(decls);
  for (auto& d : decls) check_decl(d, s, false);
  return std::make_shared<Env>(std::move(s.exports));
}

ModPtr CheckerImpl::eval_module(const ModExprPtr& m) {
  switch (m->kind) {
    case ModExpr::Kind::Struct: return structure(check_struct(m->decls, visible()));
    case ModExpr::Kind::Name:
      if (m->name.qualifiers.empty() && m->name.name == "intrinsics")
        error(m->loc, "The 'intrinsics' module may not be used in module expressions.");
      return lookup_mod(m->name, m->loc);
    case ModExpr::Kind::Import: return structure(import_env(m->imported, visible(), m->loc));
    case ModExpr::Kind::Apply: {
      ModPtr fn = eval_module(m->fn);
      ModPtr arg = eval_module(m->arg);
      return apply_functor(fn, arg, *m);
    }
    case ModExpr::Kind::Ascribe: {
      ModPtr inner = eval_module(m->fn);
      if (!inner->env) {
        match_functor(inner, m->sig, m->loc);
        return inner;
      }
      return structure(seal(ascribe(inner->env, m->sig, m->loc), m->sig));
    }
    case ModExpr::Kind::Lambda: {
      auto f = std::make_shared<ModBinding>();
      f->params = {{m->param, m->sig}};
      f->body = m->fn;
      f->closure = std::make_shared<Env>(visible());
      // Like a functor, a module lambda is checked once where it is written,
      // against its parameter's module type (errors even if never applied).
      ModScope s;
      s.visible = *f->closure;
      ModPtr p;
      with_scope(s, [&] { p = sig_module(m->sig); });
      s.visible.mods[m->param] = p;
      with_scope(s, [&] { eval_module(m->fn); });
      return f;
    }
  }
  error(m->loc, "unsupported module expression");
}

bool CheckerImpl::is_functor_sig(const SigExprPtr& sig) {
  SigView v;
  flatten_sig(*this, sig, v);
  return v.functor;
}

ModPtr CheckerImpl::apply_functor(const ModPtr& fn, const ModPtr& arg, ModExpr& at, const std::string& prefix) {
  if (fn->env) error(at.loc, "cannot apply a module that is not parametric");
  size_t idx = fn->applied.size();
  // The parameter's module type is read where the functor was defined, with
  // the earlier parameters bound: `\(F: S) -> \(G: T with a = F.b) -> ...`.
  ModScope ps;
  ps.visible = *fn->closure;
  for (size_t i = 0; i < idx; ++i) ps.visible.mods[fn->params[i].first] = fn->applied[i];
  const SigExprPtr& param_sig = fn->params.at(idx).second;
  SigView pv;
  with_scope(ps, [&] { flatten_sig(*this, param_sig, pv); });
  ModPtr a;
  if (pv.functor) {
    // Futhark lets a parametric module be the argument of one whose
    // parameter has a parametric module type (`F twice add_one`). The
    // argument stays transparent.
    with_scope(ps, [&] { match_functor(arg, param_sig, at.loc, prefix); });
    a = arg;
  } else {
    if (!arg->env) error(at.loc, "Cannot match parametric module with non-parametric module type.");
    with_scope(ps, [&] { a = structure(ascribe(arg->env, param_sig, at.loc, prefix)); });
  }
  auto next = std::make_shared<ModBinding>(*fn);
  next->applied.push_back(a);
  if (next->applied.size() < next->params.size()) return next;

  ModScope s;
  s.visible = *fn->closure;
  for (size_t i = 0; i < next->params.size(); ++i) s.visible.mods[next->params[i].first] = next->applied[i];
  if (!fn->body) {
    // An abstract functor (a parametric module type's, sig_module).
    ModPtr result;
    with_scope(s, [&] { result = sig_module(fn->result_sig); });
    return result;
  }
  ModExprPtr body = clone_mod_expr(fn->body);
  ModPtr result;
  ++functor_instance;
  struct Leave {
    int& n;
    ~Leave() { --n; }
  } leave{functor_instance};
  with_scope(s, [&] {
    result = eval_module(body);
    if (fn->result_sig) {
      if (!result->env) match_functor(result, fn->result_sig, at.loc);
      else result = structure(ascribe(result->env, fn->result_sig, at.loc));
    }
  });
  at.instance = body;
  return result;
}

EnvPtr CheckerImpl::sig_env(const SigExprPtr& sig) {
  SigView v;
  flatten_sig(*this, sig, v);
  if (v.functor) error(sig->loc, "parametric module types are not supported");
  v.use_site = scope_;
  auto env = std::make_shared<Env>();
  ModScope s;
  s.visible = v.closure ? *v.closure : visible();
  with_scope(s, [&] {
    for (size_t index = 0; index < v.items.size(); ++index) in_item_scope(*this, v, index, [&] {
      const SpecItemPtr& item = v.items[index];
      Frame f;
      f.opened = env;  // aliased, not copied: specs are few but modules are large
      FrameGuard g(*this, std::move(f));
      switch (item->kind) {
        case SpecItem::Kind::Type: {
          auto td = std::make_shared<TypeDef>();
          td->params = item->type_params;
          td->param_ids = bind_type_params(item->type_params, g.frame());
          td->liftedness = decl_liftedness(item->loc, item->lifted);
          if (item->type) {
            td->body = freeze(eval_type(item->type));
          } else {
            int id = new_param_id();
            td->body = ty_param(id, item->name);
            if (item->lifted) {
              lifted_abstract.insert(id);
              lifted_vars[id] = {item->name, Loc{}};
            }
          }
          for (const Ty& refined : refinements_of(*this, v, index, item->name, env)) td->body = refined;
          env->types[item->name] = td;
          break;
        }
        case SpecItem::Kind::Val: {
          auto sch = std::make_shared<Scheme>();
          auto ids = bind_type_params(item->type_params, g.frame());
          for (size_t i = 0; i < ids.size(); ++i) {
            if (ids[i] >= 0) sch->quantified.push_back(ids[i]);
            else sch->size_params.push_back(item->type_params[i].name);
          }
          sch->type = freeze(eval_type(item->type));
          env->values[item->name] = sch;
          break;
        }
        case SpecItem::Kind::Module: {
          // A later spec may refer to an earlier one: `module G: S with a = F.b`.
          ModScope inner;
          inner.visible = visible();
          inner.visible.add_all(*env);
          // A parametric module spec (`module Op: (X: s) -> t`) is an
          // abstract functor.
          ModPtr m;
          with_scope(inner, [&] { m = sig_module(item->sig); });
          env->mods[item->name] = m;
          break;
        }
        case SpecItem::Kind::Include: break;  // flattened away
      }
    });
  });
  return env;
}


EnvPtr CheckerImpl::ascribe(EnvPtr env, const SigExprPtr& sig, Loc loc, const std::string& prefix) {
  SigView v;
  flatten_sig(*this, sig, v);
  if (v.functor) error(sig->loc, "parametric module types are not supported");
  v.use_site = scope_;
  auto result = std::make_shared<Env>();
  ModScope s;
  s.visible = v.closure ? *v.closure : visible();
  with_scope(s, [&] {
    for (size_t index = 0; index < v.items.size(); ++index) in_item_scope(*this, v, index, [&] {
      const SpecItemPtr& item = v.items[index];
      switch (item->kind) {
        case SpecItem::Kind::Type: {
          auto it = env->types.find(item->name);
          if (it == env->types.end())
            error(loc, fmt::format("module does not define type \"{}{}\" required by its module type", prefix,
                                   item->name));
          result->types[item->name] = it->second;
          // Futhark's matchTypeAbbr: the number of type parameters must match.
          if (item->type_params.size() != it->second->params.size())
            error(loc, fmt::format("Module defines\n  type {}{} with {}\nbut module type requires\n  type {}{} with {}",
                                   prefix, item->name, type_params_text(it->second->params), prefix, item->name,
                                   type_params_text(item->type_params)));
          // Futhark: the definition may be at most as lifted as the spec.
          int spec_l = decl_liftedness(item->loc, item->lifted);
          if (it->second->liftedness > spec_l)
            error(loc, fmt::format("Type \"{}{}\" is declared {} in the module type, but the module defines it as "
                                   "{} (more lifted).",
                                   prefix, item->name, spec_l == kUnlifted ? "non-lifted" : "size-lifted (type~)",
                                   it->second->liftedness == kLifted ? "lifted (type^)" : "size-lifted (type~)"));
          if (!item->type && refinements_of(*this, v, index, item->name, result).empty())
            check_abstract_size_params(*this, *it->second, prefix + item->name, loc);
          // `type t` (non-lifted) in a module type cannot be implemented by
          // a function type; that needs `type^ t`.
          if (!item->lifted && may_be_functional(it->second->body))
            error(loc, fmt::format("type \"{}\" is non-lifted in the module type, but the module defines it as {}, "
                                   "which is functional (declare it `type^ {}` to allow that)",
                                   prefix + item->name, show(it->second->body), item->name));
          // A definition in the module type (or a `with` refinement) must
          // agree with the module's.
          std::vector<Ty> required;
          if (item->type && item->type_params.empty()) {
            Frame f;
            f.opened = result;
            FrameGuard g(*this, std::move(f));
            required.push_back(eval_type(item->type));
          }
          for (const Ty& refined : refinements_of(*this, v, index, item->name, result)) required.push_back(refined);
          for (const Ty& want : required)
            if (it->second->params.empty())
              unify_or(loc, want, it->second->body, [&] {
                return fmt::format("Module defines\n  type {}{} = {}\nbut module type requires\n  type {}{} = {}", prefix,
                                   item->name, show(it->second->body), prefix, item->name, show(want));
              });
          break;
        }
        case SpecItem::Kind::Module: {
          auto it = env->mods.find(item->name);
          if (it == env->mods.end())
            error(loc, fmt::format("module does not define module \"{}{}\" required by its module type", prefix,
                                   item->name));
          ModScope inner;
          inner.visible = visible();
          inner.visible.add_all(*result);
          bool functor_spec = false;
          with_scope(inner, [&] { functor_spec = is_functor_sig(item->sig); });
          if (functor_spec || !it->second->env) {
            // Futhark's matchMods: a parametric module only matches a
            // parametric module type, and stays transparent.
            with_scope(inner, [&] { match_functor(it->second, item->sig, loc, prefix + item->name + "."); });
            result->mods[item->name] = it->second;
            break;
          }
          EnvPtr m;
          with_scope(inner, [&] { m = ascribe(it->second->env, item->sig, loc, prefix + item->name + "."); });
          // `with inner.t = u` refines a type of this inner module.
          for (const auto& r : v.refinements) {
            if (!r.type || index < r.begin || index >= r.end) continue;
            std::string lead = item->name + ".";
            if (r.name.rfind(lead, 0) != 0 || r.name.find('.', lead.size()) != std::string::npos) continue;
            auto t = it->second->env->types.find(r.name.substr(lead.size()));
            if (t == it->second->env->types.end() || !t->second->params.empty()) continue;
            unify_or(loc, r.type, t->second->body, [&] {
              return fmt::format("Module defines\n  type {}{} = {}\nbut module type requires\n  type {}{} = {}", prefix,
                                 r.name, show(t->second->body), prefix, r.name, show(r.type));
            });
          }
          result->mods[item->name] = structure(m);
          break;
        }
        case SpecItem::Kind::Val: {
          auto it = env->values.find(item->name);
          if (it == env->values.end())
            error(loc, fmt::format("module does not define value \"{}{}\" required by its module type", prefix,
                                   item->name));
          result->values[item->name] = it->second;
          {
            std::set<std::string> abstract;
            for (const auto& spec : v.items)
              if (spec->kind == SpecItem::Kind::Type && !spec->type) abstract.insert(spec->name);
            for (const auto& r : v.refinements) abstract.erase(r.name);
            check_top_level_size(*this, *item->type, abstract, *env, prefix + item->name, loc);
          }
          // The module's value must be at least as general as the spec: the
          // spec's type parameters are rigid, the module's are instantiated.
          Frame f;
          f.opened = result;
          FrameGuard g(*this, std::move(f));
          bind_type_params(item->type_params, g.frame());
          Ty spec = eval_type(item->type);
          Ty have = instantiate(*it->second, nullptr);
          // Futhark's wording: "Module type specifies val f : ... but module
          // provides val f : ...".
          auto mismatch = [&](const std::string& why) {
            return fmt::format("Module type specifies\n  val {}{} : {}\nbut module provides\n  val {}{} : {}{}", prefix,
                               item->name, show(spec), prefix, item->name, show(have), why);
          };
          unify_or(loc, spec, have, [&] { return mismatch(""); });
          // Uniqueness is part of the type: the module's function may not
          // consume a parameter the spec does not.
          {
            // A unique view of a type variable (`*t` instantiated, ty.cpp's
            // ty_with_unique) is unique although what it links to is not.
            auto unique = [](const Ty& t) { return t->unique || resolve(t)->unique; };
            Ty s = resolve(spec), h = resolve(have);
            while (s->kind == TyNode::Kind::Function && h->kind == TyNode::Kind::Function) {
              if (unique(h->param) && !unique(s->param))
                error(loc, mismatch("\nThe module's function consumes a parameter that the module type does not."));
              s = resolve(s->result);
              h = resolve(h->result);
            }
            // A unique result is required only of a function whose return
            // type is declared: thorn's inference loses the result's
            // uniqueness of a definition without parameters (`def copy =
            // copy`, babelstream), which Futhark keeps, so the check would
            // reject correct programs.
            if (it->second->declared_result && unique(s) && !unique(h)) {
              // The spec as written: its existential sizes (`?[d].*[d]i32`)
              // are not in its checked type.
              std::string params;
              for (const auto& tp : item->type_params)
                params += tp.is_size ? fmt::format(" [{}]", tp.name) : fmt::format(" '{}", tp.name);
              error(loc, fmt::format("Module type specifies\n  val {}{}{} : {}\nbut module provides\n  val {}{} : {}\n"
                                     "The module type requires a unique result, but the module's function does not "
                                     "return one.",
                                     prefix, item->name, params, to_string(*item->type), prefix, item->name,
                                     show(have)));
            }
          }
          // Seen through the module type, the value has the spec's type:
          // `def copy = copy` ascribed `val copy [n] : [n]t -> *[n]t` with
          // t = f32 is no longer polymorphic (an entry point may use it).
          bool spec_monomorphic = true;
          for (const auto& tp : item->type_params) spec_monomorphic = spec_monomorphic && tp.is_size;
          if (spec_monomorphic && !it->second->quantified.empty() && it->second->builtin.empty()) {
            auto narrowed = std::make_shared<Scheme>(*it->second);
            narrowed->type = spec;
            narrowed->quantified.clear();
            narrowed->nonlifted.clear();
            narrowed->size_params.clear();
            for (const auto& tp : item->type_params) narrowed->size_params.push_back(tp.name);
            result->values[item->name] = narrowed;
          }
          break;
        }
        case SpecItem::Kind::Include: break;
      }
    });
  });
  return result;
}

namespace {
bool mentions_param(const Ty& t0, const std::set<int>& ids) {
  Ty t = resolve(t0);
  switch (t->kind) {
    case TyNode::Kind::Param: return ids.count(t->param_id) > 0;
    case TyNode::Kind::Array: return mentions_param(t->elem, ids);
    case TyNode::Kind::Record:
      for (const auto& [n, f] : t->fields)
        if (mentions_param(f, ids)) return true;
      return false;
    case TyNode::Kind::Sum:
      for (const auto& [n, ps] : t->constrs)
        for (const auto& p : ps)
          if (mentions_param(p, ids)) return true;
      return false;
    case TyNode::Kind::Function: return mentions_param(t->param, ids) || mentions_param(t->result, ids);
    default: return false;
  }
}
// The values that `v` specifies with one of its abstract types (`val x : t`,
// `val g : gen [1] i32`, any liftedness or parameters): Futhark's values of
// abstract type carry no aliases, even where thorn keeps the type
// transparent. Marks their schemes in `out`; whether it marked any.
bool mark_abstract_values(const SigView& v, const std::set<std::string>& refined, Env& out) {
  std::set<std::string> abstract;
  for (const auto& item : v.items)
    if (item->kind == SpecItem::Kind::Type && !item->type && !refined.count(item->name)) abstract.insert(item->name);
  bool marked = false;
  for (const auto& item : v.items) {
    if (item->kind != SpecItem::Kind::Val || !item->type) continue;
    TypeExprPtr t = item->type;
    while (t && t->kind == TypeExpr::Kind::Unique) t = t->elem;
    if (!t || t->kind != TypeExpr::Kind::Name || !t->name.qualifiers.empty() || !abstract.count(t->name.name)) continue;
    auto it = out.values.find(item->name);
    if (it == out.values.end() || it->second->abstract_type) continue;
    auto sch = std::make_shared<Scheme>(*it->second);
    sch->abstract_type = true;
    it->second = sch;
    marked = true;
  }
  return marked;
}
}  // namespace

EnvPtr CheckerImpl::seal(EnvPtr env, const SigExprPtr& sig, const std::string& module_name) {
  SigView v;
  flatten_sig(*this, sig, v);
  if (v.functor) return env;
  std::set<std::string> refined;
  for (const auto& r : v.refinements) refined.insert(r.name);
  auto out = std::make_shared<Env>(*env);
  bool marked = mark_abstract_values(v, refined, *out);
  std::set<int> ids;
  // Only plain `type t` specs are sealed: parametric and lifted abstract
  // types stay transparent (a lenient approximation).
  for (const auto& item : v.items) {
    if (item->kind != SpecItem::Kind::Type || item->type || !item->type_params.empty() || item->lifted ||
        refined.count(item->name))
      continue;
    auto it = env->types.find(item->name);
    if (it == env->types.end() || !it->second->params.empty()) continue;
    int id = new_param_id();
    opaque[id] = it->second->body;
    auto td = std::make_shared<TypeDef>();
    td->body = ty_param(id, module_name.empty() ? item->name : module_name + "." + item->name);
    out->types[item->name] = td;
    ids.insert(id);
  }
  if (ids.empty()) return marked ? out : env;
  v.use_site = scope_;
  ModScope s;
  s.visible = v.closure ? *v.closure : visible();
  with_scope(s, [&] {
    for (size_t index = 0; index < v.items.size(); ++index) in_item_scope(*this, v, index, [&] {
      const SpecItemPtr& item = v.items[index];
      if (item->kind == SpecItem::Kind::Type && item->type && item->type_params.empty()) {
        // `type u = [3]t` in the module type: u is [3] of the sealed t.
        Frame f;
        f.opened = out;
        FrameGuard g(*this, std::move(f));
        Ty body = eval_type(item->type);
        if (!mentions_param(body, ids) || !out->types.count(item->name)) return;
        auto td = std::make_shared<TypeDef>(*out->types.at(item->name));
        td->body = freeze(body);
        out->types[item->name] = td;
        return;
      }
      if (item->kind != SpecItem::Kind::Val) return;
      auto it = out->values.find(item->name);
      // A polymorphic value keeps its own scheme: uses record instantiations
      // aligned with its definition's type parameters.
      if (it == out->values.end() || !it->second->quantified.empty()) return;
      bool type_params = false;
      for (const auto& tp : item->type_params) type_params |= !tp.is_size;
      if (type_params) return;
      Frame f;
      f.opened = out;
      FrameGuard g(*this, std::move(f));
      bind_type_params(item->type_params, g.frame());
      Ty spec = eval_type(item->type);
      if (!mentions_param(spec, ids)) return;
      auto sch = std::make_shared<Scheme>(*it->second);
      sch->type = freeze(spec);
      sch->size_params.clear();
      for (const auto& tp : item->type_params) sch->size_params.push_back(tp.name);
      out->values[item->name] = sch;
    });
  });
  return out;
}

}  // namespace thorn::types
