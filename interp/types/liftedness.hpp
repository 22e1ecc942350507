#pragma once
// Futhark's three levels of liftedness, read from the source: the parser
// records only that a type or type parameter is lifted (`type^`/`type~`,
// `'^a`/`'~a`), so which of the two marks was written is read back from the
// text at the node's location.
#include <string_view>

#include "interp/util/source.hpp"

namespace thorn::types {

enum Liftedness : int { kUnlifted = 0, kSizeLifted = 1, kLifted = 2 };

namespace detail {
inline int mark_after(const Loc& loc, std::string_view lead) {
  if (!loc.known() || loc.col == 0) return kLifted;
  std::string_view line = loc.file->line(loc.line);
  size_t from = loc.col - 1;
  if (from >= line.size()) return kLifted;
  size_t at = line.find(lead, from);
  if (at == std::string_view::npos || at + lead.size() >= line.size()) return kLifted;
  char c = line[at + lead.size()];
  return c == '~' ? kSizeLifted : kLifted;
}
}  // namespace detail

// `type^ t` / `type~ t` (declaration or module type spec) at loc.
inline int decl_liftedness(const Loc& loc, bool lifted) {
  return lifted ? detail::mark_after(loc, "type") : kUnlifted;
}

// `'^a` / `'~a` at loc.
inline int param_liftedness(const Loc& loc, bool lifted) {
  return lifted ? detail::mark_after(loc, "'") : kUnlifted;
}

}  // namespace thorn::types
