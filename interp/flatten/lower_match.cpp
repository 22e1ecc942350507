// Sum types and `match` inside mapped functions (see lower.hpp).
//
// A sum value is a Sym of kind Sum (sym.hpp): its constructor's index and
// every constructor's payload. A captured sum is known when the plan is
// made (its constructor is part of the plan's signature, captures.cpp),
// so matching on it picks the case while lowering, as Futhark's
// simplifier would; a sum built inside the element (`if c then #a else
// #b x`) carries its index in a register and `match` becomes a chain of
// ifs over the cases' tests, in order.
#include <fmt/format.h>

#include "interp/flatten/lower.hpp"

namespace thorn::flatten {

namespace {

Sym payload_tuple(std::vector<Sym> xs) {
  Sym t;
  t.kind = Sym::Kind::Tuple;
  t.elems = std::move(xs);
  return t;
}

}  // namespace

Sym Lowerer::sum_value(const Value& v, const std::function<Sym(const Value&)>& payload) {
  Sym s;
  s.kind = Sym::Kind::Sum;
  s.names = std::make_shared<std::vector<std::string>>(std::vector<std::string>{v.constructor()});
  s.elems.push_back(constant(Scalar::i32(0)));
  std::vector<Sym> xs;
  if (v.elems)
    for (const Value& x : *v.elems) xs.push_back(payload(x));
  s.elems.push_back(payload_tuple(std::move(xs)));
  return s;
}

// A value of type t whose contents are never read: the payload of a
// constructor a sum does not hold.
Sym Lowerer::zero_of(const Type& t, const Loc& loc) {
  switch (t.kind) {
    case Type::Kind::Prim:
      if (t.prim == Prim::Bool) return constant(Scalar::boolean(false));
      if (is_float(t.prim)) return constant(Scalar::floating(t.prim, 0));
      return constant(Scalar::signed_int(t.prim, 0));
    case Type::Kind::Tuple: {
      std::vector<Sym> xs;
      for (const TypePtr& e : t.elems) xs.push_back(zero_of(*e, loc));
      return payload_tuple(std::move(xs));
    }
    case Type::Kind::Record: {
      Sym r;
      r.kind = Sym::Kind::Record;
      auto names = std::make_shared<std::vector<std::string>>();
      for (const auto& [name, ft] : t.fields) {
        names->push_back(name);
        r.elems.push_back(zero_of(*ft, loc));
      }
      r.names = names;
      return r;
    }
    case Type::Kind::Sum: {
      Sym s;
      s.kind = Sym::Kind::Sum;
      auto names = std::make_shared<std::vector<std::string>>();
      s.elems.push_back(constant(Scalar::i32(0)));
      for (const auto& [name, payload] : t.constructors) {
        names->push_back(name);
        std::vector<Sym> xs;
        for (const TypePtr& p : payload) xs.push_back(zero_of(*p, loc));
        s.elems.push_back(payload_tuple(std::move(xs)));
      }
      s.names = names;
      return s;
    }
    default: break;
  }
  throw Fallback("sum types with array or function payloads");
}

Sym Lowerer::lower_constructor(const Expr& e, const ScopePtr& sc) {
  if (!e.type || e.type->kind != Type::Kind::Sum) throw Fallback("a constructor of an unresolved sum type");
  Sym s = zero_of(*e.type, e.loc);  // every constructor's payload, in the type's order
  const int k = s.constructor_index(e.name.name);
  if (k < 0) throw Fallback("a constructor its type does not list");
  std::vector<Sym> xs;
  for (const ExprPtr& a : e.list) xs.push_back(lower(*a, sc));
  if (xs.size() != s.elems[1 + size_t(k)].elems.size()) throw Fallback("a constructor applied to too few arguments");
  s.elems[0] = constant(Scalar::i32(k));
  s.elems[1 + size_t(k)] = payload_tuple(std::move(xs));
  return s;
}

// Whether p matches v: a boolean Sym, known where the lowering can tell.
Sym Lowerer::pattern_test(const Pattern& p, const Sym& v, const ScopePtr& sc) {
  auto all = [&](const std::vector<const Pattern*>& ps, const std::vector<Sym>& vs) {
    Sym acc = constant(Scalar::boolean(true));
    for (size_t k = 0; k < ps.size(); ++k) {
      Sym t = pattern_test(*ps[k], vs.at(k), sc);
      if (t.known && !t.known->b) return t;
      acc = acc.known ? t : t.known ? acc : binop("&&", acc, t, p.loc);
    }
    return acc;
  };
  switch (p.kind) {
    case Pattern::Kind::Id:
    case Pattern::Kind::Wildcard: return constant(Scalar::boolean(true));
    case Pattern::Kind::Ascribed: return pattern_test(*p.inner, v, sc);
    case Pattern::Kind::Literal: return eq(v, lower(*p.literal, sc), false, p.loc);
    case Pattern::Kind::Tuple: {
      if (v.kind != Sym::Kind::Tuple || v.elems.size() != p.elems.size())
        throw Fallback("tuple pattern on a value of another shape");
      std::vector<const Pattern*> ps;
      for (const PatternPtr& q : p.elems) ps.push_back(q.get());
      return all(ps, v.elems);
    }
    case Pattern::Kind::Record: {
      std::vector<const Pattern*> ps;
      std::vector<Sym> vs;
      for (const auto& [field, sub] : p.fields)
        if (sub) {
          ps.push_back(sub.get());
          vs.push_back(project(v, field, p.loc));
        }
      return all(ps, vs);
    }
    case Pattern::Kind::Constructor: {
      if (v.kind != Sym::Kind::Sum) throw Fallback("constructor pattern on a value that is not a sum");
      // A captured sum holds one constructor: any other cannot match.
      const int k = v.constructor_index(p.name);
      if (k < 0) return constant(Scalar::boolean(false));
      const Sym& payload = v.elems[1 + size_t(k)];
      if (payload.elems.size() != p.elems.size()) throw Fallback("constructor pattern of another arity");
      Sym tag = binop("==", v.elems[0], constant(Scalar::i32(k)), p.loc);
      if (tag.known && !tag.known->b) return tag;
      std::vector<const Pattern*> ps;
      for (const PatternPtr& q : p.elems) ps.push_back(q.get());
      Sym rest = all(ps, payload.elems);
      if (rest.known) return rest.known->b ? tag : rest;
      return tag.known ? rest : binop("&&", tag, rest, p.loc);
    }
  }
  throw Fallback("this kind of pattern");
}

Sym Lowerer::lower_match(const Expr& e, const ScopePtr& sc) {
  const Sym v = lower(*e.a, sc);
  // Case k's value when the cases before it did not match. Futhark's
  // checker makes matches exhaustive, so the last case needs no test.
  std::function<Sym(size_t)> from = [&](size_t k) -> Sym {
    if (k >= e.cases.size()) throw Fallback("a match with no case left");
    const Case& c = e.cases[k];
    auto body = [&, k] {
      std::vector<std::pair<std::string, Sym>> vars;
      auto inner = child_scope(sc);
      bind(*c.pattern, v, inner->vars, nullptr);
      return lower(*c.body, inner);
    };
    Sym test = k + 1 == e.cases.size() ? constant(Scalar::boolean(true)) : pattern_test(*c.pattern, v, sc);
    if (test.known) return test.known->b ? body() : from(k + 1);
    return select_or_if(test, body, [&, k] { return from(k + 1); });
  };
  return from(0);
}

}  // namespace thorn::flatten
