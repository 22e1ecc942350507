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

Sym Lowerer::zero_scalar(Prim p) {
  if (p == Prim::Bool) return constant(Scalar::boolean(false));
  if (is_float(p)) return constant(Scalar::floating(p, 0));
  return constant(Scalar::signed_int(p, 0));
}

// A value of type t whose contents are never read: the payload of a
// constructor a sum does not hold.
Sym Lowerer::zero_of(const Type& t, const Loc& loc) {
  switch (t.kind) {
    case Type::Kind::Prim: return zero_scalar(t.prim);
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
    // The last case that can match needs no test either: a sum read from
    // an array holds only the constructors its elements hold, and the
    // later cases' constructors (whose payloads it has no layout for)
    // cannot match.
    auto impossible = [&](size_t j) {
      try {
        Sym t = pattern_test(*e.cases[j].pattern, v, sc);
        return t.known && !t.known->b;
      } catch (const Fallback&) {
        return false;
      }
    };
    bool last = true;
    for (size_t j = k + 1; j < e.cases.size() && last; ++j) last = impossible(j);
    Sym test = last ? constant(Scalar::boolean(true)) : pattern_test(*c.pattern, v, sc);
    if (test.known) return test.known->b ? body() : from(k + 1);
    return select_or_if(test, body, [&, k] { return from(k + 1); });
  };
  return from(0);
}

// Sums of one type may hold different constructors here: one captured
// from a value holds only its own, one built by a constructor all its
// type's. Where two must merge (an if's branches: `if hit then #hit h
// else #no_hit`, with h's material captured from the scene), both take
// the union layout: every constructor either holds, the first side's
// order first, a payload that one side lacks filled with zeros.
std::optional<Sym> Lowerer::sum_union(const Sym& a, const Sym& b) const {
  if (a.kind != b.kind) return std::nullopt;
  switch (a.kind) {
    case Sym::Kind::Scalar:
      if (a.prim != b.prim) return std::nullopt;
      return a;
    case Sym::Kind::Array: return a;
    case Sym::Kind::Tuple:
    case Sym::Kind::Record: {
      if (a.elems.size() != b.elems.size()) return std::nullopt;
      if (a.kind == Sym::Kind::Record && (!a.names || !b.names || *a.names != *b.names)) return std::nullopt;
      Sym r = a;
      for (size_t k = 0; k < a.elems.size(); ++k) {
        std::optional<Sym> e = sum_union(a.elems[k], b.elems[k]);
        if (!e) return std::nullopt;
        r.elems[k] = std::move(*e);
      }
      return r;
    }
    case Sym::Kind::Sum: {
      Sym r;
      r.kind = Sym::Kind::Sum;
      auto names = std::make_shared<std::vector<std::string>>(*a.names);
      r.elems.push_back(a.elems[0]);
      for (size_t k = 0; k < a.names->size(); ++k) {
        int j = b.constructor_index((*a.names)[k]);
        if (j < 0) {
          r.elems.push_back(a.elems[1 + k]);
          continue;
        }
        std::optional<Sym> p = sum_union(a.elems[1 + k], b.elems[1 + size_t(j)]);
        if (!p) return std::nullopt;
        r.elems.push_back(std::move(*p));
      }
      for (size_t j = 0; j < b.names->size(); ++j)
        if (a.constructor_index((*b.names)[j]) < 0) {
          names->push_back((*b.names)[j]);
          r.elems.push_back(b.elems[1 + j]);
        }
      r.names = std::move(names);
      return r;
    }
    default: return std::nullopt;
  }
}

Sym Lowerer::zeros_like_sym(const Sym& like) {
  switch (like.kind) {
    case Sym::Kind::Scalar: return zero_scalar(like.prim);
    case Sym::Kind::Tuple:
    case Sym::Kind::Record:
    case Sym::Kind::Sum: {
      Sym r = like;
      for (Sym& e : r.elems) e = zeros_like_sym(e);
      return r;
    }
    default: throw Fallback("sum types with array or function payloads");
  }
}

Sym Lowerer::conform_sums(const Sym& s, const Sym& like) {
  switch (like.kind) {
    case Sym::Kind::Tuple:
    case Sym::Kind::Record: {
      Sym r = s;
      for (size_t k = 0; k < r.elems.size() && k < like.elems.size(); ++k) r.elems[k] = conform_sums(s.elems[k], like.elems[k]);
      return r;
    }
    case Sym::Kind::Sum: {
      Sym r;
      r.kind = Sym::Kind::Sum;
      r.names = like.names;
      // s's constructor j is the layout's constructor at where[j].
      std::vector<int> where;
      for (const std::string& n : *s.names) where.push_back(like.constructor_index(n));
      const Sym& idx = s.elems[0];
      if (idx.known) {
        r.elems.push_back(constant(Scalar::i32(where.at(size_t(idx.known->as_i64())))));
      } else {
        kir::Reg out = b_.i32(where.at(0));
        for (size_t j = 1; j < where.size(); ++j)
          out = b_.select(b_.compare(kir::CmpOp::Eq, idx.reg, b_.i32(int32_t(j))), b_.i32(where[j]), out);
        r.elems.push_back(Sym::scalar(out, Prim::I32));
      }
      for (size_t k = 0; k < like.names->size(); ++k) {
        int j = s.constructor_index((*like.names)[k]);
        r.elems.push_back(j >= 0 ? conform_sums(s.elems[1 + size_t(j)], like.elems[1 + k]) : zeros_like_sym(like.elems[1 + k]));
      }
      return r;
    }
    default: return s;
  }
}

}  // namespace thorn::flatten
