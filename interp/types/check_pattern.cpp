// Patterns: their types, and the variables they bind.
#include <fmt/format.h>

#include <map>
#include <set>

#include "interp/syntax/print.hpp"

#include "interp/types/checker_impl.hpp"

namespace thorn::types {

std::string CheckerImpl::pattern_name(const Pattern& p) {
  if (p.kind == Pattern::Kind::Id) return p.name;
  if (p.kind == Pattern::Kind::Ascribed && p.inner) return pattern_name(*p.inner);
  return "";
}

void collect_pattern_names(const Pattern& p, std::vector<std::pair<std::string, Loc>>& out) {
  switch (p.kind) {
    case Pattern::Kind::Id: out.emplace_back(p.name, p.loc); break;
    case Pattern::Kind::Tuple:
    case Pattern::Kind::Constructor:
      for (const auto& e : p.elems) collect_pattern_names(*e, out);
      break;
    case Pattern::Kind::Record:
      for (const auto& [n, sub] : p.fields) collect_pattern_names(*sub, out);
      break;
    case Pattern::Kind::Ascribed:
      if (p.inner) collect_pattern_names(*p.inner, out);
      break;
    default: break;
  }
}

// Futhark's checkForDuplicateNames: in one binding group (type and size
// parameters, then the parameters' patterns) no name is bound twice; size
// parameters share the value namespace.
void CheckerImpl::check_duplicate_names(const std::vector<TypeParam>& tparams,
                                        const std::vector<const Pattern*>& pats) {
  std::map<std::pair<bool, std::string>, Loc> seen;  // (is a type, name)
  auto see = [&](bool type, const std::string& n, const Loc& l) {
    auto [it, fresh] = seen.emplace(std::make_pair(type, n), l);
    if (!fresh) error(l, fmt::format("Name \"{}\" also bound at {}.", n, it->second.str()));
  };
  for (const auto& tp : tparams) see(!tp.is_size, tp.name, tp.loc);
  std::vector<std::pair<std::string, Loc>> names;
  for (const Pattern* p : pats) collect_pattern_names(*p, names);
  for (const auto& [n, l] : names) see(false, n, l);
}

Ty CheckerImpl::bind_pattern(PatternPtr& pp, Frame& frame, bool refutable) {
  Pattern& p = *pp;
  Ty t;
  switch (p.kind) {
    case Pattern::Kind::Id: {
      if (frame.values.count(p.name))
        error(p.loc, fmt::format("Name \"{}\" also bound in this pattern.", p.name));
      t = u.fresh(p.loc);
      if (stamp_param_types_ > 0) t->stamp = scope_stamp_;
      auto s = std::make_shared<Scheme>();
      s->type = t;
      s->stamp = ++scope_stamp_;
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
        if (!seen.insert(n).second) error(p.loc, fmt::format("Duplicate fields in record pattern {}.", to_string(p)));
        fs.emplace_back(n, bind_pattern(sub, frame, refutable));
      }
      t = ty_record(std::move(fs));
      break;
    }
    case Pattern::Kind::Literal:
      if (!refutable) error(p.loc, "Refutable pattern not allowed here: a literal pattern is only allowed in a match case.");
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
      expect_sized(p.loc, declared, inner, "in pattern");
      t = declared;
      break;
    }
  }
  note(p, t);
  return t;
}

}  // namespace thorn::types
