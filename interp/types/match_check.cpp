// Exhaustiveness checking for `match` (see match_check.hpp).
#include "interp/types/match_check.hpp"

#include <optional>
#include <set>
#include <string>

namespace thorn::types {

namespace {

// A pattern reduced to what matters for coverage.
struct Pat {
  enum class Kind { Wild, Con, Tuple, Lit };
  Kind kind = Kind::Wild;
  std::string name;  // Con: constructor ("true"/"false" for bools); Lit: literal text
  std::vector<Pat> args;
};

using Row = std::vector<Pat>;
using Types = std::vector<TypePtr>;

std::vector<TypePtr> components(const TypePtr& t) {
  std::vector<TypePtr> out;
  if (!t) return out;
  if (t->kind == Type::Kind::Tuple) out = t->elems;
  if (t->kind == Type::Kind::Record)
    for (const auto& [n, f] : t->fields) out.push_back(f);
  return out;
}

bool is_product(const TypePtr& t) {
  return t && (t->kind == Type::Kind::Tuple || (t->kind == Type::Kind::Record && !t->fields.empty()));
}

std::string literal_text(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::IntLit: return "i" + std::to_string(e.int_value);
    case Expr::Kind::FloatLit: return "f" + std::to_string(e.float_value);
    case Expr::Kind::BoolLit: return e.bool_value ? "true" : "false";
    case Expr::Kind::StringLit: return "s" + e.text;
    case Expr::Kind::Negate: return e.a ? "-" + literal_text(*e.a) : "?";
    default: return "?" + e.text;
  }
}

Pat convert(const Pattern& p, const TypePtr& t) {
  Pat out;
  switch (p.kind) {
    case Pattern::Kind::Id:
    case Pattern::Kind::Wildcard: return out;
    case Pattern::Kind::Ascribed: return p.inner ? convert(*p.inner, t) : out;
    case Pattern::Kind::Tuple: {
      auto cs = components(t);
      if (cs.size() != p.elems.size()) return out;  // unit or malformed: matches all
      out.kind = Pat::Kind::Tuple;
      for (size_t i = 0; i < cs.size(); ++i) out.args.push_back(convert(*p.elems[i], cs[i]));
      return out;
    }
    case Pattern::Kind::Record: {
      if (!t || t->kind != Type::Kind::Record) return out;
      out.kind = Pat::Kind::Tuple;
      for (const auto& [n, ft] : t->fields) {
        Pat sub;
        for (const auto& [pn, pp] : p.fields)
          if (pn == n) sub = convert(*pp, ft);
        out.args.push_back(sub);
      }
      return out;
    }
    case Pattern::Kind::Constructor: {
      out.kind = Pat::Kind::Con;
      out.name = p.name;
      const std::vector<TypePtr>* payload = nullptr;
      if (t && t->kind == Type::Kind::Sum)
        for (const auto& [n, ps] : t->constructors)
          if (n == p.name) payload = &ps;
      for (size_t i = 0; i < p.elems.size(); ++i)
        out.args.push_back(convert(*p.elems[i], payload && i < payload->size() ? (*payload)[i] : nullptr));
      return out;
    }
    case Pattern::Kind::Literal: {
      if (p.literal && p.literal->kind == Expr::Kind::BoolLit) {
        out.kind = Pat::Kind::Con;
        out.name = p.literal->bool_value ? "true" : "false";
        return out;
      }
      out.kind = Pat::Kind::Lit;
      out.name = p.literal ? literal_text(*p.literal) : "?";
      return out;
    }
  }
  return out;
}

// The constructors of a finite type, with their payload types; empty if the
// type is not a sum or bool.
std::vector<std::pair<std::string, std::vector<TypePtr>>> constructors_of(const TypePtr& t) {
  if (!t) return {};
  if (t->kind == Type::Kind::Sum) return t->constructors;
  if (t->kind == Type::Kind::Prim && t->prim == Prim::Bool) return {{"false", {}}, {"true", {}}};
  return {};
}

Row wilds(size_t n) { return Row(n); }

// Rows specialised for constructor `c` with `arity` payloads.
std::vector<Row> specialise_con(const std::vector<Row>& rows, const std::string& c, size_t arity) {
  std::vector<Row> out;
  for (const Row& r : rows) {
    const Pat& h = r[0];
    Row nr;
    if (h.kind == Pat::Kind::Wild) {
      nr = wilds(arity);
    } else if (h.kind == Pat::Kind::Con && h.name == c) {
      nr = h.args;
      nr.resize(arity);
    } else {
      continue;
    }
    nr.insert(nr.end(), r.begin() + 1, r.end());
    out.push_back(std::move(nr));
  }
  return out;
}

std::vector<Row> specialise_tuple(const std::vector<Row>& rows, size_t n) {
  std::vector<Row> out;
  for (const Row& r : rows) {
    const Pat& h = r[0];
    Row nr = h.kind == Pat::Kind::Tuple ? h.args : wilds(n);
    nr.resize(n);
    nr.insert(nr.end(), r.begin() + 1, r.end());
    out.push_back(std::move(nr));
  }
  return out;
}

std::vector<Row> specialise_lit(const std::vector<Row>& rows, const std::string& lit) {
  std::vector<Row> out;
  for (const Row& r : rows) {
    const Pat& h = r[0];
    if (h.kind == Pat::Kind::Wild || (h.kind == Pat::Kind::Lit && h.name == lit)) out.emplace_back(r.begin() + 1, r.end());
  }
  return out;
}

std::vector<Row> default_rows(const std::vector<Row>& rows) {
  std::vector<Row> out;
  for (const Row& r : rows)
    if (r[0].kind == Pat::Kind::Wild) out.emplace_back(r.begin() + 1, r.end());
  return out;
}

Types with_rest(std::vector<TypePtr> head, const Types& ts) {
  head.insert(head.end(), ts.begin() + 1, ts.end());
  return head;
}

// A value (as a pattern vector aligned with q) matched by q but by none of
// rows, if there is one.
std::optional<Row> witness(const std::vector<Row>& rows, const Row& q, const Types& ts) {
  if (q.empty()) return rows.empty() ? std::optional<Row>(Row{}) : std::nullopt;
  const Pat& h = q[0];
  const TypePtr& t = ts[0];
  // Rebuilds a witness whose first n entries are the arguments of `top`.
  auto wrap = [](Pat top, Row w, size_t n) {
    top.args.assign(w.begin(), w.begin() + static_cast<long>(n));
    Row out{std::move(top)};
    out.insert(out.end(), w.begin() + static_cast<long>(n), w.end());
    return out;
  };
  switch (h.kind) {
    case Pat::Kind::Con: {
      std::vector<TypePtr> payload;
      for (const auto& [n, ps] : constructors_of(t))
        if (n == h.name) payload = ps;
      payload.resize(h.args.size());
      Row nq = h.args;
      nq.insert(nq.end(), q.begin() + 1, q.end());
      auto w = witness(specialise_con(rows, h.name, h.args.size()), nq, with_rest(payload, ts));
      if (!w) return std::nullopt;
      return wrap(h, *w, h.args.size());
    }
    case Pat::Kind::Tuple: {
      Row nq = h.args;
      nq.insert(nq.end(), q.begin() + 1, q.end());
      auto cs = components(t);
      cs.resize(h.args.size());
      auto w = witness(specialise_tuple(rows, h.args.size()), nq, with_rest(cs, ts));
      if (!w) return std::nullopt;
      return wrap(h, *w, h.args.size());
    }
    case Pat::Kind::Lit: {
      auto w = witness(specialise_lit(rows, h.name), Row(q.begin() + 1, q.end()), with_rest({}, ts));
      if (!w) return std::nullopt;
      w->insert(w->begin(), h);
      return w;
    }
    case Pat::Kind::Wild: break;
  }
  if (is_product(t)) {
    auto cs = components(t);
    Row nq = wilds(cs.size());
    nq.insert(nq.end(), q.begin() + 1, q.end());
    auto w = witness(specialise_tuple(rows, cs.size()), nq, with_rest(cs, ts));
    if (!w) return std::nullopt;
    Pat top;
    top.kind = Pat::Kind::Tuple;
    return wrap(top, *w, cs.size());
  }
  auto cons = constructors_of(t);
  std::set<std::string> used;
  for (const Row& r : rows)
    if (r[0].kind == Pat::Kind::Con) used.insert(r[0].name);
  if (!cons.empty() && used.size() == cons.size()) {
    for (const auto& [n, ps] : cons) {
      Row nq = wilds(ps.size());
      nq.insert(nq.end(), q.begin() + 1, q.end());
      if (auto w = witness(specialise_con(rows, n, ps.size()), nq, with_rest(ps, ts))) {
        Pat top;
        top.kind = Pat::Kind::Con;
        top.name = n;
        return wrap(top, *w, ps.size());
      }
    }
    return std::nullopt;
  }
  auto w = witness(default_rows(rows), Row(q.begin() + 1, q.end()), with_rest({}, ts));
  if (!w) return std::nullopt;
  Pat first;  // a wildcard, or a constructor no row mentions
  for (const auto& [n, ps] : cons)
    if (!used.count(n)) {
      first.kind = Pat::Kind::Con;
      first.name = n;
      first.args = wilds(ps.size());
      break;
    }
  w->insert(w->begin(), first);
  return w;
}

std::string show(const Pat& p, bool nested) {
  switch (p.kind) {
    case Pat::Kind::Wild: return "_";
    case Pat::Kind::Lit: return p.name;
    case Pat::Kind::Tuple: {
      std::string s = "(";
      for (size_t i = 0; i < p.args.size(); ++i) s += (i ? ", " : "") + show(p.args[i], false);
      return s + ")";
    }
    case Pat::Kind::Con: {
      if (p.name == "true" || p.name == "false") return p.name;
      std::string s = "#" + p.name;
      for (const auto& a : p.args) s += " " + show(a, true);
      return nested && !p.args.empty() ? "(" + s + ")" : s;
    }
  }
  return "_";
}

}  // namespace

std::optional<std::string> unmatched_case(const TypePtr& t, const std::vector<const Pattern*>& cases) {
  std::vector<Row> rows;
  for (const Pattern* p : cases) rows.push_back(Row{convert(*p, t)});
  auto w = witness(rows, Row(1), Types{t});
  if (!w) return std::nullopt;
  return show((*w)[0], false);
}

}  // namespace thorn::types
