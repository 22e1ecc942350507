// Patterns: their types, and the variables they bind.
#include <fmt/format.h>

#include <set>

#include "interp/types/checker_impl.hpp"

namespace thorn::types {

std::string CheckerImpl::pattern_name(const Pattern& p) {
  if (p.kind == Pattern::Kind::Id) return p.name;
  if (p.kind == Pattern::Kind::Ascribed && p.inner) return pattern_name(*p.inner);
  return "";
}

Ty CheckerImpl::bind_pattern(PatternPtr& pp, Frame& frame, bool refutable) {
  Pattern& p = *pp;
  Ty t;
  switch (p.kind) {
    case Pattern::Kind::Id: {
      if (frame.values.count(p.name))
        error(p.loc, fmt::format("variable \"{}\" is bound twice", p.name));
      t = u.fresh(p.loc);
      auto s = std::make_shared<Scheme>();
      s->type = t;
      frame.values[p.name] = s;
      break;
    }
    case Pattern::Kind::Wildcard: t = u.fresh(p.loc); break;
    case Pattern::Kind::Tuple: {
      std::vector<Ty> elems;
      for (auto& e : p.elems) elems.push_back(bind_pattern(e, frame, refutable));
      t = elems.empty() ? ty_unit() : ty_tuple(std::move(elems));
      break;
    }
    case Pattern::Kind::Record: {
      Fields fs;
      std::set<std::string> seen;
      for (auto& [n, sub] : p.fields) {
        if (!seen.insert(n).second) error(p.loc, fmt::format("field \"{}\" appears twice in pattern", n));
        fs.emplace_back(n, bind_pattern(sub, frame, refutable));
      }
      t = ty_record(std::move(fs));
      break;
    }
    case Pattern::Kind::Literal:
      if (!refutable) error(p.loc, "a literal pattern is only allowed in a match case");
      t = infer(p.literal);
      break;
    case Pattern::Kind::Constructor: {
      std::vector<Ty> payload;
      for (auto& e : p.elems) payload.push_back(bind_pattern(e, frame, refutable));
      t = u.fresh_with_constr(p.name, std::move(payload), p.loc);
      break;
    }
    case Pattern::Kind::Ascribed: {
      Ty declared = eval_type(p.ascription);
      Ty inner = bind_pattern(p.inner, frame, refutable);
      expect(p.loc, declared, inner, "in pattern");
      t = declared;
      break;
    }
  }
  note(p, t);
  return t;
}

}  // namespace thorn::types
