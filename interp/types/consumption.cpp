// Consumption checking: a port of the rules of Futhark's
// Language/Futhark/TypeChecker/Consumption.hs onto thorn's annotated AST.
//
// Every value has aliases: the set of variables whose memory it may share,
// kept per component for tuples and records. Every binding gets a fresh id
// (so shadowing is harmless); results of applications and loops get
// pseudo-ids that are never in scope. Consuming a value (in-place update,
// argument for a unique parameter, consumed loop parameter) consumes all its
// aliases; observing a value any of whose aliases was consumed is an error.
#include "interp/types/consumption.hpp"

#include <fmt/format.h>

#include <cctype>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <tuple>
#include <set>

#include "interp/types/type.hpp"
#include "interp/util/error.hpp"

namespace thorn::types {

namespace {

using Ids = std::set<int>;

// Aliases, shaped like the value's type where it is a tuple or record.
struct Als {
  Ids s;                   // a leaf's aliases
  std::vector<Als> parts;  // components (type order) when structured
  bool structured = false;
};

Ids all_of(const Als& a) {
  if (!a.structured) return a.s;
  Ids out;
  for (const auto& p : a.parts) {
    Ids x = all_of(p);
    out.insert(x.begin(), x.end());
  }
  return out;
}

Als leaf(Ids s) {
  Als a;
  a.s = std::move(s);
  return a;
}

// Components of a tuple or record type, in the order Als uses.
std::vector<TypePtr> components(const Type& t) {
  std::vector<TypePtr> out;
  if (t.kind == Type::Kind::Tuple) out = t.elems;
  if (t.kind == Type::Kind::Record)
    for (const auto& [n, f] : t.fields) out.push_back(f);
  return out;
}
bool is_structured(const Type& t) { return t.kind == Type::Kind::Tuple || t.kind == Type::Kind::Record; }

// Whether some non-composite part of t (looking through tuples, records and
// constructor payloads) satisfies `leaf`.
bool any_part(const Type& t, bool (*leaf)(const Type&)) {
  switch (t.kind) {
    case Type::Kind::Tuple:
    case Type::Kind::Record:
      for (const auto& c : components(t))
        if (any_part(*c, leaf)) return true;
      return false;
    case Type::Kind::Sum:
      for (const auto& [n, ps] : t.constructors)
        for (const auto& p : ps)
          if (any_part(*p, leaf)) return true;
      return false;
    default: return leaf(t);
  }
}

// Whether a value of this type can alias anything (prims cannot).
bool has_slot(const Type& t) {
  return any_part(t, [](const Type& x) { return x.kind != Type::Kind::Prim; });
}
// Whether it holds an array.
bool has_array(const Type& t) {
  return any_part(t, [](const Type& x) { return x.kind == Type::Kind::Array; });
}

// `s` on every component of t that can alias.
Als shaped(const TypePtr& t, const Ids& s) {
  if (!t) return leaf(s);
  if (is_structured(*t)) {
    Als a;
    a.structured = true;
    for (const auto& c : components(*t)) a.parts.push_back(shaped(c, s));
    return a;
  }
  return has_slot(*t) ? leaf(s) : Als{};
}

// Drops aliases from the components of `a` that cannot alias (prims), and
// gives it t's shape where it can.
Als mask(const Als& a, const TypePtr& t) {
  if (!t) return a;
  if (is_structured(*t)) {
    auto cs = components(*t);
    Als out;
    out.structured = true;
    for (size_t i = 0; i < cs.size(); ++i)
      out.parts.push_back(mask(a.structured && a.parts.size() == cs.size() ? a.parts[i] : leaf(all_of(a)), cs[i]));
    return out;
  }
  return has_slot(*t) ? leaf(all_of(a)) : Als{};
}

Als combine(const Als& a, const Als& b) {
  if (a.structured && b.structured && a.parts.size() == b.parts.size()) {
    Als out;
    out.structured = true;
    for (size_t i = 0; i < a.parts.size(); ++i) out.parts.push_back(combine(a.parts[i], b.parts[i]));
    return out;
  }
  if (!a.structured && !b.structured) {
    Als out = a;
    out.s.insert(b.s.begin(), b.s.end());
    return out;
  }
  Ids s = all_of(a), t = all_of(b);
  s.insert(t.begin(), t.end());
  return leaf(std::move(s));
}

// Replaces the ids in `drop` by the ids they map to (-1: removed).
Als replace_ids(const Als& a, const std::map<int, int>& sub) {
  Als out = a;
  if (out.structured) {
    for (auto& p : out.parts) p = replace_ids(p, sub);
  } else {
    Ids s;
    for (int id : out.s) {
      auto it = sub.find(id);
      if (it == sub.end()) s.insert(id);
      else if (it->second >= 0) s.insert(it->second);
    }
    out.s = std::move(s);
  }
  return out;
}

// Leaves, flattening records (Futhark's aliasParts).
void leaves(const Als& a, std::vector<Ids>& out) {
  if (!a.structured) {
    out.push_back(a.s);
    return;
  }
  for (const auto& p : a.parts) leaves(p, out);
}

// t with every array (and type parameter) in it unique: what `*` on a type
// name that stands for a tuple, record or sum means.
TypePtr all_unique(const TypePtr& t) {
  if (!t) return t;
  auto c = std::make_shared<Type>(*t);
  switch (t->kind) {
    case Type::Kind::Array:
    case Type::Kind::Param: c->unique = true; break;
    case Type::Kind::Tuple:
      for (auto& e : c->elems) e = all_unique(e);
      break;
    case Type::Kind::Record:
      for (auto& [n, f] : c->fields) f = all_unique(f);
      break;
    case Type::Kind::Sum:  // `*sum`: every constructor's payload (Futhark's sumtype23)
      c->unique = true;
      for (auto& [n, ps] : c->constructors)
        for (auto& p : ps) p = all_unique(p);
      break;
    default: return t;
  }
  return c;
}

// A parameter of this type is consumed (Futhark's diet: Consume if any part is unique).
bool diet_consume(const Type& t) {
  switch (t.kind) {
    case Type::Kind::Array:
    case Type::Kind::Param: return t.unique;
    case Type::Kind::Tuple:
    case Type::Kind::Record:
      for (const auto& c : components(t))
        if (diet_consume(*c)) return true;
      return t.unique;
    case Type::Kind::Sum:
      for (const auto& [n, ps] : t.constructors)
        for (const auto& p : ps)
          if (diet_consume(*p)) return true;
      return t.unique;
    default: return false;
  }
}

bool consumable_param_type(const Type& t) {
  switch (t.kind) {
    case Type::Kind::Array:
    case Type::Kind::Param: return t.unique;
    case Type::Kind::Prim: return true;
    case Type::Kind::Tuple:
    case Type::Kind::Record:
      for (const auto& c : components(t))
        if (!consumable_param_type(*c)) return false;
      return true;
    case Type::Kind::Sum:
      for (const auto& [n, ps] : t.constructors)
        for (const auto& p : ps)
          if (!consumable_param_type(*p)) return false;
      return true;
    case Type::Kind::Function: return false;
  }
  return false;
}

// Futhark's orderZero: no function anywhere in the type.
bool order_zero(const Type& t) {
  switch (t.kind) {
    case Type::Kind::Function: return false;
    case Type::Kind::Array: return !t.elem || order_zero(*t.elem);
    case Type::Kind::Tuple:
    case Type::Kind::Record:
      for (const auto& c : components(t))
        if (!order_zero(*c)) return false;
      return true;
    case Type::Kind::Sum:
      for (const auto& [n, ps] : t.constructors)
        for (const auto& p : ps)
          if (!order_zero(*p)) return false;
      return true;
    default: return true;
  }
}

bool overlaps(const Ids& a, const Ids& b) {
  for (int x : a)
    if (b.count(x)) return true;
  return false;
}

// The uniqueness a declared return type asks for, shaped like Als.
struct Uniq {
  bool unique = false;
  std::vector<Uniq> parts;
  bool structured = false;
};

Uniq uniq_of(const TypeExprPtr& te) {
  Uniq u;
  if (!te) return u;
  switch (te->kind) {
    case TypeExpr::Kind::Unique: {
      // `*(a, b)`, `*{x: a}`: every component is unique (Futhark's
      // TEUnique sets the uniqueness of all parts).
      Uniq inner = uniq_of(te->elem);
      std::function<void(Uniq&)> mark = [&](Uniq& x) {
        if (!x.structured) x.unique = true;
        for (auto& p : x.parts) mark(p);
      };
      mark(inner);
      return inner;
    }
    case TypeExpr::Kind::Existential: return uniq_of(te->elem);
    case TypeExpr::Kind::Tuple:
      if (te->elems.size() == 1) return uniq_of(te->elems[0]);
      if (te->elems.empty()) return u;
      u.structured = true;
      for (const auto& e : te->elems) u.parts.push_back(uniq_of(e));
      return u;
    case TypeExpr::Kind::Record: {
      auto fs = te->fields;
      std::stable_sort(fs.begin(), fs.end(), [](const auto& a, const auto& b) { return field_less(a.first, b.first); });
      u.structured = true;
      for (const auto& [n, f] : fs) u.parts.push_back(uniq_of(f));
      return u;
    }
    default: return u;
  }
}

bool any_unique(const Uniq& u) {
  if (u.unique) return true;
  for (const auto& p : u.parts)
    if (any_unique(p)) return true;
  return false;
}

struct Entry {
  std::string name;
  int id;
  bool consumable;
  Als als;
  // Local function without a declared return type: its inferred result
  // uniqueness, for applications with all `arity` arguments.
  std::optional<ResultUniqueness> ret;
  size_t arity = 0;
  bool declared_ret = false;  // a local function with a declared return type
};

struct ParamVar {
  std::string name;
  int id;
  TypePtr type;
};

// Free variables observed inside a lambda, function or loop body.
struct Capture {
  size_t base;                          // entries below this index are free
  std::map<int, std::pair<std::string, Ids>> vars;  // entry id -> (name, aliases)
};

std::string where(Loc l) { return fmt::format("{}:{}", l.line, l.col); }

class Checker {
 public:
  explicit Checker(const std::set<const Expr*>& abstract_globals) : abstract_globals_(abstract_globals) {}

  std::optional<ResultUniqueness> check_def(const Decl& d) {
    // Futhark: "A top-level constant cannot have a unique type."
    if (d.params.empty() && d.ret_type && any_unique(uniq_of(d.ret_type)))
      fail(d.ret_type->loc, "A top-level constant cannot have a unique type.");
    std::vector<ParamVar> pvars;
    for (const auto& p : d.params) bind_param(*p, pvars);
    Als body;
    auto cons = contain([&] { body = check(*d.body); });
    add_consumed(cons);
    // A constant is evaluated once; a function-valued one built by
    // consuming something would consume it again at each call.
    if (d.params.empty() && (!cons.empty() || partial_consumer_) && d.body->type && !order_zero(*d.body->type))
      fail(d.body->loc, fmt::format("Top-level constant of higher-order type\n  {}\ncontains consumption, which is "
                                    "not allowed.",
                                    to_string(d.body->type)));
    check_return_alias(d.loc, pvars, d.ret_type, body);
    if (!d.params.empty()) check_global_aliases(d.loc, body);
    if (d.ret_type || d.params.empty()) return std::nullopt;
    return infer_return_uniqueness(pvars, body);
  }

 private:
  std::vector<Entry> env_;
  size_t barrier_ = 0;  // entries below it are not consumable (inside lambdas)
  bool partial_consumer_ = false;
  Ids self_aliased_;  // pseudo-names of constructor values whose payload components share memory  // a partial application supplied a consuming parameter
  size_t fn_barrier_ = 0;  // entries below it are free variables of a lambda/local function
  std::vector<Capture*> captures_;
  std::map<std::string, int> globals_;
  std::map<int, std::string> global_names_;
  // Consuming parameters of tuple or record type: their components are
  // distinct locations (the caller checked that its argument's components
  // do not alias), though they share the parameter's one alias id.
  Ids distinct_parts_;
  const std::set<const Expr*>& abstract_globals_;
  std::map<int, Loc> consumed_;
  std::map<int, std::string> desc_;
  int next_ = 0;
  const Expr* last_lambda_ = nullptr;  // the lambda checked last, and its inferred result uniqueness
  std::optional<ResultUniqueness> last_lambda_ret_;

  [[noreturn]] void fail(Loc loc, std::string msg) const { throw Error(ErrorKind::Type, loc, std::move(msg)); }
  bool loop_pattern_ = false;  // bind_param is binding a loop's parameters
  // Futhark's withIndexLink: the message followed by its entry in the
  // language's error index.
  static std::string linked(const char* href, std::string msg) {
    return fmt::format("{}\n\nFor more information, see:\n  https://futhark.readthedocs.io/en/latest/error-index.html#{}",
                       msg, href);
  }

  int fresh(std::string desc) {
    int id = next_++;
    desc_[id] = std::move(desc);
    return id;
  }
  std::string describe(int id) const {
    auto it = desc_.find(id);
    return it == desc_.end() ? "a value" : it->second;
  }
  int live_index(int id) const {
    for (size_t i = env_.size(); i-- > 0;)
      if (env_[i].id == id) return static_cast<int>(i);
    return -1;
  }
  int lookup(const std::string& name) const {
    for (size_t i = env_.size(); i-- > 0;)
      if (env_[i].name == name) return static_cast<int>(i);
    return -1;
  }
  int global_id(const std::string& name) {
    auto it = globals_.find(name);
    if (it != globals_.end()) return it->second;
    int id = fresh(fmt::format("variable \"{}\"", name));
    globals_[name] = id;
    global_names_[id] = name;
    return id;
  }

  void check_if_consumed(Loc loc, const Ids& ids) const {
    for (int id : ids) {
      auto it = consumed_.find(id);
      if (it != consumed_.end())
        fail(loc, fmt::format("Using {}, but this was consumed at {}.  (Possibly through aliases.)", describe(id),
                              where(it->second)));
    }
  }

  void consume_aliases(Loc loc, const Ids& ids) {
    for (int id : ids) {
      bool bad = false;
      bool free_in_fn = false;
      if (global_names_.count(id)) {
        bad = true;
      } else {
        int i = live_index(id);
        if (i >= 0) {
          bad = static_cast<size_t>(i) < barrier_ || !env_[i].consumable;
          free_in_fn = static_cast<size_t>(i) < fn_barrier_;
        }
      }
      // Futhark's wording: a free variable of a lambda is "Consuming variable
      // "a"", anything else in scope (non-unique parameters, loop parameters
      // in a while condition, globals) is "Consuming "xs"".
      if (bad) {
        auto name = global_names_.count(id) ? global_names_.at(id) : std::string();
        int i = live_index(id);
        if (i >= 0) name = env_[i].name;
        if (free_in_fn || name.empty())
          fail(loc, fmt::format("Consuming {}, which is not consumable.", describe(id)));
        // Futhark names a module member by its own name (`Test.empty` is "empty").
        if (auto dot = name.rfind('.'); dot != std::string::npos && dot + 1 < name.size() && std::isalpha(name[dot + 1]))
          name = name.substr(dot + 1);
        fail(loc, fmt::format("Consuming \"{}\", which is not consumable.", name));
      }
    }
    check_if_consumed(loc, ids);
    for (int id : ids) consumed_.emplace(id, loc);
  }

  // Runs f, returning what it consumed; that consumption is undone.
  template <class F>
  std::map<int, Loc> contain(F&& f) {
    auto saved = consumed_;
    f();
    std::map<int, Loc> fresh_cons;
    for (const auto& [id, l] : consumed_)
      if (!saved.count(id)) fresh_cons.emplace(id, l);
    consumed_ = std::move(saved);
    return fresh_cons;
  }
  void add_consumed(const std::map<int, Loc>& c) {
    for (const auto& [id, l] : c) consumed_.emplace(id, l);
  }

  Als observe_var(Loc loc, const QualName& name, const TypePtr& type) {
    if (name.qualifiers.empty()) {
      int i = lookup(name.name);
      if (i >= 0) {
        const Entry& en = env_[i];
        for (Capture* c : captures_)
          if (static_cast<size_t>(i) < c->base) c->vars.emplace(en.id, std::make_pair(en.name, all_of(en.als)));
        check_if_consumed(loc, all_of(en.als));
        return en.als;
      }
    }
    // A global: its arrays alias the global itself; functions and values of
    // abstract or polymorphic type carry no aliases (as in Futhark).
    return global_shaped(type, global_id(name.str()));
  }

  static Als global_shaped_ids(const TypePtr& t, const Ids& ids) {
    if (!t) return Als{};
    if (is_structured(*t)) {
      Als a;
      a.structured = true;
      for (const auto& c : components(*t)) a.parts.push_back(global_shaped_ids(c, ids));
      return a;
    }
    return has_array(*t) ? leaf(ids) : Als{};
  }
  static Als global_shaped(const TypePtr& t, int id) {
    if (!t) return Als{};
    if (is_structured(*t)) {
      Als a;
      a.structured = true;
      for (const auto& c : components(*t)) a.parts.push_back(global_shaped(c, id));
      return a;
    }
    return has_array(*t) ? leaf({id}) : Als{};
  }

  // ---- bindings

  void push(const std::string& name, bool consumable, Als als) {
    int id = fresh(fmt::format("variable \"{}\"", name));
    env_.push_back(Entry{name, id, consumable, std::move(als)});
  }

  // A parameter: aliases only itself; consumable when its type is unique.
  // `declared`: the type of an enclosing ascription (`(x: *[]t)`), which
  // carries the uniqueness that the Id's own (inferred) type does not.
  void bind_param(const Pattern& p, std::vector<ParamVar>& out, bool force_consume = false,
                  TypePtr declared = nullptr) {
    switch (p.kind) {
      case Pattern::Kind::Id: {
        TypePtr t = declared ? declared : p.type;
        const bool consuming_type = t && diet_consume(*t);
        bool cons = force_consume || consuming_type;
        int id = fresh(fmt::format("variable \"{}\"", p.name));
        if (!loop_pattern_ && consuming_type && is_structured(*t)) distinct_parts_.insert(id);
        env_.push_back(Entry{p.name, id, cons, shaped(t, {id})});
        out.push_back(ParamVar{p.name, id, t});
        return;
      }
      case Pattern::Kind::Ascribed: {
        // `((xs, ys): *t)`: a unique ascription of a whole tuple (through a
        // type name) makes every component consumable.
        check_size_exprs(p.ascription);
        bool uniq = p.ascription && p.ascription->kind == TypeExpr::Kind::Unique;
        // `loop (xs: []t) = ...`: declared non-unique, so not consumable
        // (a loop parameter is otherwise consumable when the body consumes it).
        bool declared_shared = loop_pattern_ && p.ascription && p.ascription->kind == TypeExpr::Kind::Array;
        bind_param(*p.inner, out, (force_consume && !declared_shared) || uniq, uniq ? all_unique(p.type) : p.type);
        return;
      }
      case Pattern::Kind::Tuple:
        for (size_t k = 0; k < p.elems.size(); ++k)
          bind_param(*p.elems[k], out, force_consume,
                     declared && declared->kind == Type::Kind::Tuple && k < declared->elems.size()
                         ? declared->elems[k]
                         : nullptr);
        return;
      case Pattern::Kind::Constructor:
        for (const auto& q : p.elems) bind_param(*q, out, force_consume);
        return;
      case Pattern::Kind::Record:
        for (const auto& [n, q] : p.fields) bind_param(*q, out, force_consume);
        return;
      default: return;
    }
  }

  // The component of `a` for field `field` of a value of type t.
  static Als part_of(const Als& a, const TypePtr& t, const std::string& field) {
    if (a.structured && t) {
      if (t->kind == Type::Kind::Tuple) {
        size_t k = 0;
        try {
          k = std::stoul(field);
        } catch (...) {
          return leaf(all_of(a));
        }
        if (k < a.parts.size()) return a.parts[k];
      } else if (t->kind == Type::Kind::Record) {
        for (size_t k = 0; k < t->fields.size() && k < a.parts.size(); ++k)
          if (t->fields[k].first == field) return a.parts[k];
      }
    }
    return leaf(all_of(a));
  }

  // Futhark's matchPat: the aliases of each variable a pattern binds.
  void match_pat(const Pattern& p, const Als& a, std::vector<std::tuple<const Pattern*, Als>>& out) {
    switch (p.kind) {
      case Pattern::Kind::Id: out.emplace_back(&p, a); return;
      case Pattern::Kind::Ascribed: match_pat(*p.inner, a, out); return;
      case Pattern::Kind::Tuple:
        for (size_t k = 0; k < p.elems.size(); ++k)
          match_pat(*p.elems[k], a.structured && a.parts.size() == p.elems.size() ? a.parts[k] : leaf(all_of(a)), out);
        return;
      case Pattern::Kind::Record:
        for (const auto& [n, q] : p.fields) match_pat(*q, part_of(a, p.type, n), out);
        return;
      case Pattern::Kind::Constructor:
        for (const auto& q : p.elems) match_pat(*q, leaf(all_of(a)), out);
        return;
      default: return;
    }
  }

  void bind_pat(const Pattern& p, const Als& a) {
    std::vector<std::tuple<const Pattern*, Als>> vars;
    match_pat(p, a, vars);
    for (auto& [q, als] : vars) {
      int id = fresh(fmt::format("variable \"{}\"", q->name));
      env_.push_back(Entry{q->name, id, true, mask(combine(shaped(q->type, {id}), als), q->type)});
    }
  }

  void pop_to(size_t n) { env_.resize(n); }

  // The result of a branch no longer aliases what some branch consumed
  // (Futhark drops those aliases). But where such a name stood for memory
  // shared by several components of the result (`if c then (u, u) else
  // (... u consumed ..., (a, b))`), the components still coincide: they
  // get a shared pseudo-name instead, described as `desc`.
  Als forget_consumed(const Als& a, const std::map<int, Loc>& cons, const std::string& desc) {
    std::vector<Ids> parts;
    leaves(a, parts);
    std::map<int, int> count;
    for (const auto& p : parts)
      for (int id : p) ++count[id];
    std::map<int, int> sub;
    for (const auto& [id, l] : cons) sub[id] = count[id] > 1 ? fresh(desc) : -1;
    return replace_ids(a, sub);
  }

  // ---- function results

  static constexpr const char* internal_aliases_msg =
      "A unique-typed component of the return value may have internal aliases\n(a part of it is aliased to some "
      "other component), and so cannot be declared unique.";

  // `fn_base`: for a lambda or local function, the first entry of its own
  // scope; what lies below it (and globals) is free in it.
  void check_return_alias(Loc loc, const std::vector<ParamVar>& params, const TypeExprPtr& ret, const Als& body,
                          std::optional<size_t> fn_base = std::nullopt) {
    if (!ret) return;
    Uniq u = uniq_of(ret);
    std::vector<std::pair<bool, Ids>> rets;
    std::function<void(const Uniq&, const Als&)> walk = [&](const Uniq& x, const Als& a) {
      if (x.structured && a.structured && x.parts.size() == a.parts.size()) {
        for (size_t k = 0; k < x.parts.size(); ++k) walk(x.parts[k], a.parts[k]);
        return;
      }
      // A unique type written as a name (`*M.arr [n]`, `*pair`) whose value
      // is a tuple or record: its components are all unique, so they may
      // not share memory (for an abstract type, the caller cannot even see
      // that it is a tuple).
      if (x.unique && a.structured) {
        std::vector<Ids> parts;
        leaves(a, parts);
        Ids seen;
        for (const auto& p : parts) {
          if (overlaps(p, seen)) fail(loc, internal_aliases_msg);
          seen.insert(p.begin(), p.end());
        }
      }
      rets.emplace_back(x.unique, all_of(a));
    };
    walk(u, body);
    std::set<std::pair<bool, int>> seen;
    for (const auto& [unique, names] : rets) {
      if (unique) {
        for (int n : names)
          if (seen.count({true, n}) || seen.count({false, n}) || self_aliased_.count(n))
            fail(loc, "A unique-typed component of the return value is aliased to some other component.");
        for (const auto& pv : params)
          if (pv.type && !consumable_param_type(*pv.type) && names.count(pv.id))
            fail(loc, fmt::format("Unique-typed return value is aliased to \"{}\", which is not consumable.", pv.name));
        // A lambda's free variables are not consumable in it, so a unique
        // result may not alias them (each call would hand out the same
        // array as a fresh one).
        if (fn_base)
          for (int n : names) {
            int i = live_index(n);
            std::string free_name;
            if (i >= 0 && static_cast<size_t>(i) < *fn_base) free_name = env_[i].name;
            if (global_names_.count(n)) free_name = global_names_.at(n);
            if (!free_name.empty())
              fail(loc, fmt::format("Unique-typed return value is aliased to \"{}\", which is not consumable.",
                                    free_name));
          }
      } else {
        for (int n : names)
          if (seen.count({true, n}))
            fail(loc, "A unique-typed component of the return value is aliased to some other component.");
      }
      for (int n : names) seen.insert({unique, n});
    }
  }

  // Futhark's inferReturnUniqueness: a part of the result is unique when
  // the only in-scope things it aliases are consumed parameters, and it
  // shares no alias with another part.
  ResultUniqueness infer_return_uniqueness(const std::vector<ParamVar>& params, const Als& body) const {
    std::vector<Ids> parts;
    leaves(body, parts);
    std::map<int, int> count;
    for (const auto& p : parts)
      for (int id : p) ++count[id];
    Ids consuming;
    for (const auto& pv : params)
      if (pv.type && diet_consume(*pv.type)) consuming.insert(pv.id);
    Ids bound;
    for (const auto& pv : params) bound.insert(pv.id);
    for (const auto& [id, n] : global_names_) bound.insert(id);
    std::function<ResultUniqueness(const Als&)> delve = [&](const Als& a) {
      ResultUniqueness r;
      if (a.structured) {
        r.structured = true;
        for (const auto& p : a.parts) r.parts.push_back(delve(p));
        return r;
      }
      r.unique = true;
      for (int id : a.s)
        if ((bound.count(id) && !consuming.count(id)) || count[id] > 1 || self_aliased_.count(id)) r.unique = false;
      return r;
    };
    return delve(body);
  }

  void check_global_aliases(Loc loc, const Als& body) const {
    for (int id : all_of(body)) {
      auto it = global_names_.find(id);
      if (it != global_names_.end())
        fail(loc, fmt::format("Function result aliases the free variable \"{}\".\nUse \"copy\" to break the aliasing.",
                              it->second));
    }
  }

  // A lambda or local function: its value aliases what it captures.
  // `r with x.y[i] = v` updates the array at r.x.y in place: no other
  // component of r may share its memory (the update would show through it).
  void check_path_unshared(const Expr& e, const Als& src) {
    const Als* cur = &src;
    TypePtr t = e.a->type;
    Ids others;
    for (const std::string& f : e.field_path) {
      if (!cur->structured || !t || (t->kind != Type::Kind::Record && t->kind != Type::Kind::Tuple)) return;
      std::vector<TypePtr> comps = components(*t);
      const Als* next = nullptr;
      TypePtr next_t;
      for (size_t j = 0; j < comps.size() && j < cur->parts.size(); ++j) {
        const std::string& name = t->kind == Type::Kind::Tuple ? std::to_string(j) : t->fields[j].first;
        if (name == f) {
          next = &cur->parts[j];
          next_t = comps[j];
        } else {
          Ids x = all_of(cur->parts[j]);
          others.insert(x.begin(), x.end());
        }
      }
      if (!next) return;
      cur = next;
      t = next_t;
    }
    // A parameter's components all carry the parameter's own name and do
    // not share memory with each other: only other names count.
    int own = -1;
    if (e.a->kind == Expr::Kind::Var && e.a->name.qualifiers.empty())
      if (int i = lookup(e.a->name.name); i >= 0) own = env_[size_t(i)].id;
    for (int id : all_of(*cur))
      if (id != own && others.count(id)) {
        std::string path;
        for (const auto& f : e.field_path) path += "." + f;
        fail(e.loc, fmt::format("The array updated in place at \"{}\" shares memory with another component of the "
                                "updated value.",
                                path.substr(1)));
      }
  }

  Als check_function(Loc loc, const std::vector<PatternPtr>& params, const TypeExprPtr& ret, const Expr& body,
                     std::optional<ResultUniqueness>* inferred = nullptr) {
    size_t base = env_.size();
    size_t saved_barrier = barrier_, saved_fn_barrier = fn_barrier_;
    barrier_ = base;
    fn_barrier_ = base;
    Capture cap{base, {}};
    captures_.push_back(&cap);
    try {
      std::vector<ParamVar> pvars;
      for (const auto& p : params) bind_param(*p, pvars);
      Als body_als;
      contain([&] { body_als = check(body); });
      check_return_alias(loc, pvars, ret, body_als, base);
      if (!params.empty()) check_global_aliases(loc, body_als);
      if (inferred && !ret && !params.empty()) *inferred = infer_return_uniqueness(pvars, body_als);
    } catch (...) {
      captures_.pop_back();
      barrier_ = saved_barrier;
      fn_barrier_ = saved_fn_barrier;
      pop_to(base);
      throw;
    }
    captures_.pop_back();
    barrier_ = saved_barrier;
    fn_barrier_ = saved_fn_barrier;
    pop_to(base);
    Ids als;
    for (const auto& [id, v] : cap.vars) als.insert(v.second.begin(), v.second.end());
    return leaf(std::move(als));
  }

  // ---- applications

  // A value computed earlier and still held (a tuple component to the left,
  // an argument to the right) may not be consumed by what is evaluated
  // after it: Futhark reports the use of the consumed variable.
  void report_held(Loc loc, const Ids& held, const std::map<int, Loc>& cons) const {
    for (int id : held) {
      auto it = cons.find(id);
      if (it != cons.end())
        fail(loc, fmt::format("Using {}, but this was consumed at {}.  (Possibly through aliases.)", describe(id),
                              where(it->second)));
    }
  }

  void no_self_aliases(Loc loc, const Als& a) const {
    std::vector<Ids> parts;
    leaves(a, parts);
    Ids seen;
    for (const auto& p : parts) {
      // Components of one global are distinct locations (Futhark tracks a
      // global's aliases per path); consuming them fails as "not consumable".
      // So are a consuming tuple parameter's (Futhark's uniqueness61).
      for (int id : p)
        if (seen.count(id) && !global_names_.count(id) && !distinct_parts_.count(id))
          fail(loc, "Argument passed for consuming parameter is self-aliased.");
      seen.insert(p.begin(), p.end());
    }
  }

  void consume_as_needed(Loc loc, const TypePtr& pt, const Als& a) {
    if (!pt) return;
    // `*t` for a type name t standing for a tuple marks the tuple itself.
    if (is_structured(*pt) && a.structured && !pt->unique) {
      auto cs = components(*pt);
      if (cs.size() == a.parts.size()) {
        for (size_t k = 0; k < cs.size(); ++k) consume_as_needed(loc, cs[k], a.parts[k]);
        return;
      }
    }
    if (diet_consume(*pt)) consume_aliases(loc, all_of(a));
  }

  // A function that consumes an argument cannot stand in for one that does not.
  static bool consumes_more(const TypePtr& arg, const TypePtr& param) {
    if (!arg || !param || arg->kind != Type::Kind::Function || param->kind != Type::Kind::Function) return false;
    if (arg->param && param->param && diet_consume(*arg->param) && !diet_consume(*param->param)) return true;
    return consumes_more(arg->result, param->result);
  }

  // `unique`: an enclosing tuple or record is unique (`*{x: [n]t, y: t}`),
  // and so is each of its components.
  static Als ret_aliases(const TypePtr& ret, const Ids& closure, bool unique = false) {
    if (!ret) return leaf(closure);
    unique = unique || ret->unique;
    if (is_structured(*ret)) {
      Als a;
      a.structured = true;
      for (const auto& c : components(*ret)) a.parts.push_back(ret_aliases(c, closure, unique));
      return a;
    }
    if (!has_slot(*ret) || unique) return Als{};
    return leaf(closure);
  }

  // A function argument whose result is not unique cannot stand in for a
  // parameter whose function type promises a unique result (Futhark's
  // subtyping of function types). Only decided where the argument's result
  // uniqueness is certainly known: a global function (its type carries the
  // inferred uniqueness), a local function or lambda with a declared return
  // type; otherwise accepted.
  bool returns_unique_enough(const Expr& arg, const TypePtr& param) const {
    if (!arg.type || arg.type->kind != Type::Kind::Function || param->kind != Type::Kind::Function) return true;
    bool known = false;
    if (arg.kind == Expr::Kind::Var) {
      int i = arg.name.qualifiers.empty() ? lookup(arg.name.name) : -1;
      known = i < 0 || env_[i].declared_ret;
    } else if (arg.kind == Expr::Kind::Lambda) {
      known = arg.ret_type != nullptr;
    }
    if (!known) return true;
    TypePtr a = arg.type, p = param;
    while (a && p && a->kind == Type::Kind::Function && p->kind == Type::Kind::Function) {
      a = a->result;
      p = p->result;
    }
    if (!a || !p || a->kind != p->kind) return true;
    if (p->kind != Type::Kind::Array && p->kind != Type::Kind::Param) return true;
    return !p->unique || a->unique;
  }

  Als apply(Loc loc, const Expr* fn_expr, const Als& f_als, TypePtr ftype, const std::vector<const Expr*>& args,
            const Ids* fn_used = nullptr) {
    std::vector<TypePtr> ptypes, rtypes;
    TypePtr cur = ftype;
    const Entry* local_fn = nullptr;
    if (fn_expr && fn_expr->kind == Expr::Kind::Var && fn_expr->name.qualifiers.empty()) {
      int i = lookup(fn_expr->name.name);
      if (i >= 0) local_fn = &env_[i];
    }
    std::optional<ResultUniqueness> ret_override;
    if (local_fn && local_fn->ret && local_fn->arity == args.size()) ret_override = local_fn->ret;
    for (size_t k = 0; k < args.size(); ++k) {
      if (cur && cur->kind == Type::Kind::Function) {
        ptypes.push_back(cur->param);
        rtypes.push_back(cur->result);
        cur = cur->result;
      } else {
        ptypes.push_back(nullptr);
        rtypes.push_back(nullptr);
        cur = nullptr;
      }
    }
    if (ret_override && !rtypes.empty() && rtypes.back())
      rtypes.back() = with_result_uniqueness(rtypes.back(), *ret_override);
    // Futhark checks arguments right to left.
    std::vector<Als> arg_als(args.size());
    for (size_t k = args.size(); k-- > 0;) {
      const Expr& arg = *args[k];
      auto cons = contain([&] { arg_als[k] = check(arg); });
      add_consumed(cons);
      // Arguments are evaluated right to left, and each value is held while
      // the ones to its left are evaluated; the function is held as well.
      for (size_t j = k + 1; j < args.size(); ++j) report_held(args[j]->loc, all_of(arg_als[j]), cons);
      if (fn_used && fn_expr) report_held(fn_expr->loc, *fn_used, cons);
      // A function value built by consuming something (`map (f xs) ys`
      // with f consuming xs) could consume it once per call.
      if (!cons.empty() && arg.type && !order_zero(*arg.type))
        fail(arg.loc, fmt::format("Argument of functional type\n  {}\ncontains consumption, which is not allowed.",
                                  to_string(arg.type)));
      if (ptypes[k] && consumes_more(arg.type, ptypes[k]))
        fail(arg.loc, fmt::format("The argument of type {} is consuming its parameter, but it is passed for a "
                                  "parameter of type {}, which does not allow consumption.",
                                  to_string(arg.type), to_string(ptypes[k])));
      if (ptypes[k] && !returns_unique_enough(arg, ptypes[k]))
        fail(arg.loc, fmt::format("The argument of type {} returns a non-unique value, but it is passed for a "
                                  "parameter of type {}, whose result must be unique.",
                                  to_string(arg.type), to_string(ptypes[k])));
      if (ptypes[k] && diet_consume(*ptypes[k])) {
        no_self_aliases(arg.loc, arg_als[k]);
        consume_as_needed(arg.loc, ptypes[k], arg_als[k]);
        // A partial application holding a consumed argument (even a fresh
        // one) is a function that consumes whenever called. Futhark allows
        // binding it locally (higher-order-functions/uniqueness7.fut) but
        // not as a top-level constant, which is shared by every use.
        if (!rtypes.empty() && rtypes.back() && rtypes.back()->kind == Type::Kind::Function)
          partial_consumer_ = true;
        // The closure of the function being applied is still needed when
        // the argument is consumed (Futhark's checkArg).
        if (overlaps(all_of(arg_als[k]), all_of(f_als)))
          fail(arg.loc, "Argument is consumed, but aliases the function being applied.");
        for (int id : all_of(arg_als[k])) {
          // A variable gone out of scope still names one array
          // (`let (a, b) = (let t = ... in (t, t))`); pseudo-names of
          // results do not.
          if (live_index(id) < 0 && describe(id).rfind("variable ", 0) != 0) continue;
          for (size_t j = k + 1; j < args.size(); ++j)
            if (all_of(arg_als[j]).count(id))
              fail(arg.loc, fmt::format("Argument is consumed, but aliases\n  {}\nwhich is also aliased by other "
                                        "argument at {}.",
                                        describe(id), where(args[j]->loc)));
        }
      }
    }
    std::string name;
    if (fn_expr && fn_expr->kind == Expr::Kind::Var) name = fn_expr->name.str();
    int res = fresh(name.empty() ? fmt::format("result of application at {}", where(loc))
                                 : fmt::format("result of applying \"{}\" (at {})", name, where(loc)));
    Ids closure = all_of(f_als);
    closure.insert(res);
    for (size_t k = 0; k < args.size(); ++k) {
      bool consume = ptypes[k] && diet_consume(*ptypes[k]);
      if (!consume) {
        Ids a = all_of(arg_als[k]);
        if (k + 1 == args.size()) {
          Ids c = closure;
          c.insert(a.begin(), a.end());
          return ret_aliases(rtypes[k], c);
        }
        closure.insert(a.begin(), a.end());
      } else if (k + 1 == args.size()) {
        return ret_aliases(rtypes[k], closure);
      }
    }
    return leaf(closure);
  }

  // ---- loops

  Als check_loop(const Expr& e) {
    const Pattern& pat = *e.params.at(0);
    // What the loop form observes (`for x in xs`), to check against what
    // the initial value consumes: Futhark evaluates the initial value first.
    Capture form_cap{env_.size(), {}};
    Als form_als;
    if (e.loop_form != Expr::LoopForm::While && e.c) {
      captures_.push_back(&form_cap);
      try {
        form_als = check(*e.c);
      } catch (...) {
        captures_.pop_back();
        throw;
      }
      captures_.pop_back();
    }
    size_t base = env_.size();
    size_t saved_barrier = barrier_;
    Capture cap{base, {}};
    std::vector<ParamVar> pvars;
    Als body_als;
    std::map<int, Loc> body_cons;
    barrier_ = base;
    captures_.push_back(&cap);
    try {
      loop_pattern_ = true;
      bind_param(pat, pvars, /*force_consume=*/true);
      loop_pattern_ = false;
      if (e.loop_form == Expr::LoopForm::For && !e.loop_var.empty()) push(e.loop_var, false, Als{});
      if (e.loop_form == Expr::LoopForm::ForIn && e.pattern) {
        // The element bound by `for x in xs` is not consumable.
        std::vector<ParamVar> elems;
        size_t first = env_.size();
        bind_param(*e.pattern, elems);
        // ... and it aliases the array iterated over (a row of `xss` is
        // part of `xss`), so it may not be returned as something fresh.
        Ids arr = all_of(form_als);
        std::function<void(Als&)> add = [&](Als& a) {
          if (a.structured) {
            for (auto& p : a.parts) add(p);
          } else if (!a.s.empty()) {
            a.s.insert(arr.begin(), arr.end());
          }
        };
        for (size_t i = first; i < env_.size(); ++i) {
          env_[i].consumable = false;
          add(env_[i].als);
        }
      }
      body_cons = contain([&] {
        if (e.loop_form == Expr::LoopForm::While && e.c) {
          // The condition runs before every iteration and once more on the
          // final value: it may consume neither the loop parameters nor
          // anything outside the loop.
          size_t b = barrier_;
          barrier_ = env_.size();
          try {
            check(*e.c);
          } catch (...) {
            barrier_ = b;
            throw;
          }
          barrier_ = b;
        }
        body_als = check(*e.b);
      });
    } catch (...) {
      captures_.pop_back();
      barrier_ = saved_barrier;
      pop_to(base);
      throw;
    }
    captures_.pop_back();
    barrier_ = saved_barrier;
    pop_to(base);

    // Which loop parameters are consumed (a fixpoint, as in Futhark).
    Ids param_ids;
    for (const auto& pv : pvars) param_ids.insert(pv.id);
    Ids cons_params;
    for (const auto& [id, l] : body_cons)
      if (param_ids.count(id)) cons_params.insert(id);
    // A parameter ascribed a unique type keeps that diet (Futhark's
    // updateParamDiet leaves ascribed parts alone).
    std::function<void(const Pattern&)> ascribed_unique = [&](const Pattern& q) {
      if (q.kind == Pattern::Kind::Ascribed && q.inner->kind == Pattern::Kind::Id && q.ascription &&
          q.ascription->kind == TypeExpr::Kind::Unique) {
        for (const auto& pv : pvars)
          if (pv.name == q.inner->name) cons_params.insert(pv.id);
      }
      if (q.inner) ascribed_unique(*q.inner);
      for (const auto& x : q.elems) ascribed_unique(*x);
      for (const auto& [n, x] : q.fields) ascribed_unique(*x);
    };
    ascribed_unique(pat);
    std::vector<std::tuple<const Pattern*, Als>> rets;
    match_pat(pat, body_als, rets);
    auto id_of = [&](const Pattern* q) {
      for (const auto& pv : pvars)
        if (pv.name == q->name) return pv.id;
      return -1;
    };
    for (;;) {
      Ids cons, obs;
      for (const auto& [q, t] : rets) {
        int pid = id_of(q);
        bool consumed = cons_params.count(pid) > 0;
        Ids ts = all_of(t);
        if (consumed)
          for (int v : ts)
            if (!param_ids.count(v) && live_index(v) >= 0)
              fail(e.loc, linked("consuming-loop-param-aliases",
                                          fmt::format("Return value for consuming loop parameter \"{}\" aliases \"{}\".",
                                                      q->name, env_[live_index(v)].name)));
        for (int v : ts)
          if (cons.count(v))
            fail(e.loc,
                 linked("loop-parameter-aliases-other",
                        fmt::format("Return value for loop parameter \"{}\" aliases other consumed loop parameter.",
                                    q->name)));
        if (consumed)
          for (int v : ts)
            if (obs.count(v))
              fail(e.loc, linked("aliases-previously-returned",
                                 fmt::format("Return value for consuming loop parameter \"{}\" aliases previously "
                                             "returned value.",
                                             q->name)));
        (consumed ? cons : obs).insert(ts.begin(), ts.end());
      }
      size_t before = cons_params.size();
      for (int v : cons) if (param_ids.count(v)) cons_params.insert(v);
      if (cons_params.size() == before) break;
    }

    // The initial value, as the argument for the (partly) consuming parameter.
    Als arg_als;
    auto arg_cons = contain([&] {
      if (e.a) {
        arg_als = check(*e.a);
      } else {
        arg_als = implicit_init(pat);
      }
      bool any = false;
      std::vector<std::tuple<const Pattern*, Als>> parts;
      match_pat(pat, arg_als, parts);
      for (const auto& [q, a] : parts)
        if (cons_params.count(id_of(q))) any = true;
      if (any) no_self_aliases(e.a ? e.a->loc : e.loc, arg_als);
      for (const auto& [q, a] : parts)
        if (cons_params.count(id_of(q))) consume_aliases(e.a ? e.a->loc : e.loc, all_of(a));
    });
    add_consumed(arg_cons);
    for (const auto& [id, v] : form_cap.vars)
      for (int a : v.second)
        if (arg_cons.count(a))
          fail(e.a ? e.a->loc : e.loc,
               fmt::format("Argument is consumed, but aliases\n  {}\nwhich is also aliased by the loop form at {}.  "
                           "(Using variable \"{}\", but this was consumed at {}.)",
                           v.first, where(e.c->loc), v.first, where(arg_cons.at(a))));
    for (const auto& [id, v] : cap.vars)
      for (int a : v.second)
        if (arg_cons.count(a))
          fail(e.loc, fmt::format("Loop body uses variable \"{}\" (or an alias),\nbut this is consumed by the initial "
                                  "loop argument.",
                                  v.first));

    int res = fresh(fmt::format("result of loop at {}", where(e.loc)));
    Ids base_als{res};
    if (cons_params.empty()) {
      Ids a = all_of(arg_als);
      base_als.insert(a.begin(), a.end());
    }
    // The body may move values between observed parameters from one
    // iteration to the next (`(a, b) -> (b, a)`), so each observed part of
    // the result may be anything returned for any observed parameter.
    Ids observed_rets;
    for (const auto& [q, t] : rets)
      if (!cons_params.count(id_of(q))) {
        Ids ts = all_of(t);
        observed_rets.insert(ts.begin(), ts.end());
      }
    Ids obs_als = base_als;
    obs_als.insert(observed_rets.begin(), observed_rets.end());
    std::function<Als(const Pattern&)> result = [&](const Pattern& q) -> Als {
      switch (q.kind) {
        case Pattern::Kind::Id: return cons_params.count(id_of(&q)) ? Als{} : leaf(obs_als);
        case Pattern::Kind::Ascribed: return result(*q.inner);
        case Pattern::Kind::Tuple: {
          Als a;
          a.structured = true;
          for (const auto& x : q.elems) a.parts.push_back(result(*x));
          return a;
        }
        case Pattern::Kind::Record: {
          // Components in the record type's (sorted) order.
          Als a;
          a.structured = true;
          if (q.type && q.type->kind == Type::Kind::Record) {
            for (const auto& [n, ft] : q.type->fields) {
              Als part = leaf(base_als);
              for (const auto& [fn, fp] : q.fields)
                if (fn == n) part = result(*fp);
              a.parts.push_back(part);
            }
            return a;
          }
          return leaf(base_als);
        }
        default: return leaf(base_als);
      }
    };
    return combine(result(pat), body_als);
  }

  Als implicit_init(const Pattern& p) {
    switch (p.kind) {
      case Pattern::Kind::Id: {
        QualName q;
        q.name = p.name;
        return observe_var(p.loc, q, p.type);
      }
      case Pattern::Kind::Ascribed: return implicit_init(*p.inner);
      case Pattern::Kind::Tuple: {
        Als a;
        a.structured = true;
        for (const auto& x : p.elems) a.parts.push_back(implicit_init(*x));
        return a;
      }
      case Pattern::Kind::Record: {
        Als a;
        a.structured = true;
        if (p.type && p.type->kind == Type::Kind::Record) {
          for (const auto& [n, ft] : p.type->fields) {
            Als part;
            for (const auto& [fn, fp] : p.fields)
              if (fn == n) part = implicit_init(*fp);
            a.parts.push_back(part);
          }
          return a;
        }
        return Als{};
      }
      default: return Als{};
    }
  }

  // Size expressions in a type (`[let _ = ys with [0] = 1 in 3]i32`) are
  // evaluated whenever the type is, so they may consume nothing in scope.
  void check_size_exprs(const TypeExprPtr& te) {
    if (!te) return;
    auto size = [&](const SizeExpr& sz) {
      if (sz.kind != SizeExpr::Kind::Expr || !sz.expr) return;
      size_t b = barrier_;
      barrier_ = env_.size();
      try {
        contain([&] { check(*sz.expr); });
      } catch (...) {
        barrier_ = b;
        throw;
      }
      barrier_ = b;
    };
    size(te->size);
    for (const auto& a : te->args) {
      if (a.is_size) size(a.size);
      check_size_exprs(a.type);
    }
    check_size_exprs(te->elem);
    for (const auto& x : te->elems) check_size_exprs(x);
    for (const auto& [n, x] : te->fields) check_size_exprs(x);
    for (const auto& [n, xs] : te->constructors)
      for (const auto& x : xs) check_size_exprs(x);
    check_size_exprs(te->param);
    check_size_exprs(te->result);
  }

  void check_indices(const std::vector<IndexArg>& ix) {
    for (const auto& i : ix)
      for (const ExprPtr* p : {&i.index, &i.start, &i.end, &i.stride})
        if (*p) check(**p);
  }

 public:
  Als check(const Expr& e) { return mask(check_raw(e), e.type); }

 private:
  Als check_raw(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::IntLit:
      case Expr::Kind::FloatLit:
      case Expr::Kind::BoolLit:
      case Expr::Kind::StringLit:
      case Expr::Kind::ProjSection: return Als{};
      case Expr::Kind::Var:
        if (abstract_globals_.count(&e) && (!e.name.qualifiers.empty() || lookup(e.name.name) < 0)) return Als{};
        return observe_var(e.loc, e.name, e.type);
      case Expr::Kind::Apply: {
        // What evaluating the function observes (its closure, or the
        // variables a computed function reads): Futhark evaluates the
        // arguments first and holds the function while they are evaluated,
        // so the arguments may not consume any of it.
        Capture fn_cap{env_.size(), {}};
        captures_.push_back(&fn_cap);
        Als f;
        try {
          f = check(*e.a);
        } catch (...) {
          captures_.pop_back();
          throw;
        }
        captures_.pop_back();
        Ids fn_used = all_of(f);
        for (const auto& [id, v] : fn_cap.vars) fn_used.insert(v.second.begin(), v.second.end());
        std::vector<const Expr*> args;
        for (const auto& x : e.list) args.push_back(x.get());
        return apply(e.loc, e.a.get(), f, e.a->type, args, &fn_used);
      }
      case Expr::Kind::BinOp: {
        if (e.name.qualifiers.empty() && (e.name.name == "|>" || e.name.name == "<|")) {
          const Expr& fn = e.name.name == "|>" ? *e.b : *e.a;
          const Expr& arg = e.name.name == "|>" ? *e.a : *e.b;
          Als f = check(fn);
          Als r = apply(e.loc, &fn, f, fn.type, {&arg});
          // Futhark's `|>` is an ordinary function whose result aliases its
          // function argument's closure, so a pipeline through a partial
          // application holding a global (`xs |> addto glob`) may not be
          // consumed. Only global closure aliases are added (a lenient
          // subset: locals are left to the direct-application rule).
          Ids globals;
          for (int id : all_of(f))
            if (global_names_.count(id)) globals.insert(id);
          if (!globals.empty() && e.type && has_array(*e.type)) r = combine(r, global_shaped_ids(e.type, globals));
          return r;
        }
        check(*e.a);
        check(*e.b);
        return Als{};
      }
      case Expr::Kind::Negate:
      case Expr::Kind::Not: check(*e.a); return Als{};
      case Expr::Kind::OpSection: {
        Ids s;
        for (const ExprPtr* x : {&e.a, &e.b})
          if (*x) {
            Ids a = all_of(check(**x));
            s.insert(a.begin(), a.end());
          }
        return leaf(s);
      }
      case Expr::Kind::IndexSection: check_indices(e.indices); return Als{};
      case Expr::Kind::Lambda: {
        std::optional<ResultUniqueness> ret;
        Als f = check_function(e.loc, e.params, e.ret_type, *e.a, &ret);
        last_lambda_ = &e;
        last_lambda_ret_ = ret;
        return f;
      }
      case Expr::Kind::Let: {
        Als v;
        auto cons = contain([&] { v = check(*e.a); });
        add_consumed(cons);
        // `let f = update xs`: calling f twice would consume xs twice.
        if (!cons.empty() && e.a->type && !order_zero(*e.a->type))
          fail(e.a->loc, linked("contains-consumption",
                                fmt::format("Let-bound expression of higher-order type\n  {}\ncontains consumption, "
                                            "which is not allowed.",
                                            to_string(e.a->type))));
        size_t base = env_.size();
        bind_pat(*e.pattern, v);
        // `let f = \x -> ...`: applications of f know the lambda's inferred
        // result uniqueness, as for a local function.
        const Expr* val = e.a.get();
        while (val && (val->kind == Expr::Kind::Ascribe || val->kind == Expr::Kind::Attr)) val = val->a.get();
        if (val && val == last_lambda_ && last_lambda_ret_ && env_.size() == base + 1 &&
            e.pattern->kind == Pattern::Kind::Id) {
          env_.back().ret = last_lambda_ret_;
          env_.back().arity = val->params.size();
        }
        Als body;
        try {
          body = check(*e.b);
        } catch (...) {
          pop_to(base);
          throw;
        }
        pop_to(base);
        return body;
      }
      case Expr::Kind::LetFun: {
        std::optional<ResultUniqueness> ret;
        Als f = check_function(e.loc, e.params, e.ret_type, *e.a, &ret);
        size_t base = env_.size();
        push(e.name.name, false, f);
        env_.back().declared_ret = e.ret_type != nullptr;
        env_.back().ret = ret;
        env_.back().arity = e.params.size();
        Als body;
        try {
          body = check(*e.b);
        } catch (...) {
          pop_to(base);
          throw;
        }
        pop_to(base);
        return body;
      }
      case Expr::Kind::If: {
        check(*e.a);
        Als t, f;
        auto tc = contain([&] { t = check(*e.b); });
        auto fc = contain([&] { f = check(*e.c); });
        auto all_cons = tc;
        all_cons.insert(fc.begin(), fc.end());
        add_consumed(all_cons);
        return forget_consumed(combine(t, f), all_cons, fmt::format("result of if-expression at {}", where(e.loc)));
      }
      case Expr::Kind::Match: {
        Als cond;
        auto cond_cons = contain([&] { cond = check(*e.a); });
        add_consumed(cond_cons);
        // The scrutinee is bound by the case patterns, as by `let`.
        if (!cond_cons.empty() && e.a->type && !order_zero(*e.a->type))
          fail(e.a->loc, fmt::format("Matched expression of higher-order type\n  {}\ncontains consumption, which is "
                                     "not allowed.",
                                     to_string(e.a->type)));
        std::map<int, Loc> all_cons;
        std::optional<Als> res;
        for (const auto& c : e.cases) {
          Als body;
          auto cc = contain([&] {
            size_t base = env_.size();
            bind_pat(*c.pattern, cond);
            try {
              body = check(*c.body);
            } catch (...) {
              pop_to(base);
              throw;
            }
            pop_to(base);
          });
          all_cons.insert(cc.begin(), cc.end());
          res = res ? combine(*res, body) : body;
        }
        add_consumed(all_cons);
        return res ? forget_consumed(*res, all_cons, fmt::format("result of match at {}", where(e.loc))) : Als{};
      }
      case Expr::Kind::Loop: return check_loop(e);
      case Expr::Kind::Tuple: {
        // Components are evaluated left to right; each is held meanwhile.
        Als a;
        a.structured = true;
        for (size_t k = 0; k < e.list.size(); ++k) {
          auto cons = contain([&] { a.parts.push_back(check(*e.list[k])); });
          add_consumed(cons);
          for (size_t j = 0; j < k; ++j) report_held(e.list[j]->loc, all_of(a.parts[j]), cons);
        }
        return a;
      }
      case Expr::Kind::Record: {
        std::map<std::string, Als> by_name;
        std::vector<std::pair<Loc, Ids>> held;
        for (const auto& [n, x] : e.fields) {
          auto cons = contain([&] { by_name[n] = check(*x); });
          add_consumed(cons);
          for (const auto& [l, ids] : held) report_held(l, ids, cons);
          held.emplace_back(x->loc, all_of(by_name[n]));
        }
        Als a;
        a.structured = true;
        if (e.type && e.type->kind == Type::Kind::Record) {
          for (const auto& [n, t] : e.type->fields) a.parts.push_back(by_name[n]);
          return a;
        }
        Ids s;
        for (const auto& [n, x] : by_name) {
          Ids y = all_of(x);
          s.insert(y.begin(), y.end());
        }
        return leaf(s);
      }
      case Expr::Kind::Project: {
        Als a = check(*e.a);
        return e.field_path.empty() ? a : part_of(a, e.a->type, e.field_path[0]);
      }
      case Expr::Kind::ArrayLit:
      case Expr::Kind::Intrinsic:
        for (const auto& x : e.list) check(*x);
        return Als{};
      case Expr::Kind::Range:
        for (const ExprPtr* x : {&e.a, &e.b, &e.c})
          if (*x) check(**x);
        return Als{};
      case Expr::Kind::Index: {
        Als a = check(*e.a);
        check_indices(e.indices);
        // The array is held while the indices are evaluated, so they may
        // not consume it.
        check_if_consumed(e.a->loc, all_of(a));
        return leaf(all_of(a));
      }
      case Expr::Kind::Update: {
        check_indices(e.indices);
        Als v = check(*e.b);
        Als src = check(*e.a);
        if (!e.field_path.empty()) check_path_unshared(e, src);
        Ids s = all_of(src), vs = all_of(v);
        for (int id : vs)
          if (s.count(id))
            fail(e.b->loc, "Source array for in-place update might alias update value.\nHint: use \"copy\" to "
                           "remove aliases from the value.");
        consume_aliases(e.loc, s);
        return Als{};
      }
      case Expr::Kind::RecordUpdate: {
        Als src = check(*e.a);
        Als v = check(*e.b);
        std::function<Als(const Als&, const TypePtr&, size_t)> set = [&](const Als& a, const TypePtr& t,
                                                                         size_t k) -> Als {
          if (k == e.field_path.size()) return v;
          if (!a.structured || !t || t->kind != Type::Kind::Record) return combine(a, v);
          Als out = a;
          for (size_t j = 0; j < t->fields.size() && j < out.parts.size(); ++j)
            if (t->fields[j].first == e.field_path[k]) out.parts[j] = set(out.parts[j], t->fields[j].second, k + 1);
          return out;
        };
        return set(src, e.a->type, 0);
      }
      case Expr::Kind::Ascribe:
      case Expr::Kind::Coerce: {
        Als a = check(*e.a);
        check_size_exprs(e.ret_type);
        return a;
      }
      case Expr::Kind::Attr:
      case Expr::Kind::QualParens: return check(*e.a);
      case Expr::Kind::Assert: check(*e.a); return check(*e.b);
      case Expr::Kind::Constructor: {
        // The payload is a tuple: where two of its components share memory,
        // the value is self-aliased, which a pseudo-name records (a sum is
        // one leaf here, so the components' own aliases are merged).
        Ids s;
        bool self_aliased = false;
        for (const auto& x : e.list) {
          Ids a = all_of(check(*x));
          if (overlaps(a, s)) self_aliased = true;
          s.insert(a.begin(), a.end());
        }
        if (self_aliased) {
          int id = fresh(fmt::format("self-aliased value constructed at {}", where(e.loc)));
          self_aliased_.insert(id);
          s.insert(id);
        }
        return leaf(s);
      }
    }
    return Als{};
  }
};

}  // namespace

std::optional<ResultUniqueness> check_consumption(const Decl& d, const std::set<const Expr*>& abstract_globals) {
  if (!d.body) return std::nullopt;
  Checker c(abstract_globals);
  return c.check_def(d);
}

TypePtr with_result_uniqueness(const TypePtr& t, const ResultUniqueness& u) {
  if (!t) return t;
  if (u.structured && is_structured(*t)) {
    auto c = std::make_shared<Type>(*t);
    if (t->kind == Type::Kind::Tuple && t->elems.size() == u.parts.size())
      for (size_t i = 0; i < u.parts.size(); ++i) c->elems[i] = with_result_uniqueness(t->elems[i], u.parts[i]);
    if (t->kind == Type::Kind::Record && t->fields.size() == u.parts.size())
      for (size_t i = 0; i < u.parts.size(); ++i)
        c->fields[i].second = with_result_uniqueness(t->fields[i].second, u.parts[i]);
    return c;
  }
  if (!u.unique || t->unique || !(t->kind == Type::Kind::Array || t->kind == Type::Kind::Param)) return t;
  auto c = std::make_shared<Type>(*t);
  c->unique = true;
  return c;
}

}  // namespace thorn::types
