// Size expressions in normal form (SizePoly, declared in ty.hpp): the
// structural comparison Futhark makes of `[n + 1]` against `[n + 2]`.
// Addition, subtraction and multiplication of names and constants are
// normalised (sorted monomials, collected coefficients), so `1 + n` and
// `n + 1` agree; anything else is not a size expression here.
#include <fmt/format.h>

#include <algorithm>

#include "interp/types/ty.hpp"

namespace thorn::types {

namespace {

void add_term(SizePoly& p, const std::vector<std::string>& mono, int64_t c) {
  if (c == 0) return;
  int64_t& slot = p.terms[mono];
  slot += c;
  if (slot == 0) p.terms.erase(mono);
}

// Merges b's name bindings into a; false when one name has two bindings.
bool merge_bindings(std::map<std::string, std::shared_ptr<const void>>& a,
                    const std::map<std::string, std::shared_ptr<const void>>& b) {
  bool ok = true;
  for (const auto& [n, bind] : b) {
    auto [it, inserted] = a.emplace(n, bind);
    if (!inserted && it->second != bind) {
      it->second = nullptr;  // two bindings of one name: never compared
      ok = false;
    }
  }
  return ok;
}

}  // namespace

SizePoly poly_const(int64_t v) {
  SizePoly p;
  add_term(p, {}, v);
  return p;
}

bool dim_poly(const DimRef& d0, SizePoly& out) {
  DimRef d = dim_resolve(d0);
  switch (d->kind) {
    case DimNode::Kind::Constant: out = poly_const(d->value); return true;
    case DimNode::Kind::Name:
      out = SizePoly{};
      out.terms[{d->name}] = 1;
      out.bindings[d->name] = d->binding;
      return true;
    case DimNode::Kind::Expr:
      if (!d->poly) return false;
      out = *d->poly;
      return true;
    default: return false;
  }
}

DimRef dim_of_poly(SizePoly p) {
  if (p.terms.empty()) return dim_const(0);
  if (p.terms.size() == 1 && p.terms.begin()->first.empty()) return dim_const(p.terms.begin()->second);
  if (p.terms.size() == 1 && p.terms.begin()->first.size() == 1 && p.terms.begin()->second == 1) {
    const std::string& n = p.terms.begin()->first[0];
    auto it = p.bindings.find(n);
    return dim_name(n, it == p.bindings.end() ? nullptr : it->second);
  }
  // Keep only the bindings of names that still occur.
  std::map<std::string, std::shared_ptr<const void>> used;
  for (const auto& [mono, c] : p.terms)
    for (const auto& n : mono) used[n] = p.bindings[n];
  p.bindings = std::move(used);
  auto d = std::make_shared<DimNode>();
  d->kind = DimNode::Kind::Expr;
  d->name = show_poly(p);
  d->poly = std::make_shared<const SizePoly>(std::move(p));
  return d;
}

SizePoly poly_add(const SizePoly& a, const SizePoly& b, int64_t sign) {
  SizePoly r = a;
  merge_bindings(r.bindings, b.bindings);
  for (const auto& [mono, c] : b.terms) add_term(r, mono, sign * c);
  return r;
}

SizePoly poly_mul(const SizePoly& a, const SizePoly& b) {
  SizePoly r;
  r.bindings = a.bindings;
  merge_bindings(r.bindings, b.bindings);
  for (const auto& [ma, ca] : a.terms)
    for (const auto& [mb, cb] : b.terms) {
      std::vector<std::string> m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      std::sort(m.begin(), m.end());
      add_term(r, m, ca * cb);
    }
  return r;
}

bool poly_certainly_differ(const SizePoly& a, const SizePoly& b) {
  std::map<std::string, std::shared_ptr<const void>> binds = a.bindings;
  if (!merge_bindings(binds, b.bindings)) return false;
  for (const auto& [n, bind] : binds)
    if (!bind) return false;
  SizePoly d = poly_add(a, b, -1);
  if (d.terms.size() != 1) return false;
  return d.terms.begin()->first.empty();  // a nonzero constant (zeros are erased)
}

bool poly_same(const SizePoly& a, const SizePoly& b) {
  if (a.terms != b.terms) return false;
  for (const auto& [n, bind] : a.bindings) {
    auto it = b.bindings.find(n);
    if (it != b.bindings.end() && it->second != bind) return false;
  }
  return true;
}

// Futhark's notation: `n + 1`, `n * m - 2`, `2 * n`.
std::string show_poly(const SizePoly& p) {
  std::string out;
  auto emit = [&](const std::vector<std::string>& mono, int64_t c) {
    bool neg = c < 0;
    int64_t mag = neg ? -c : c;
    std::string body;
    if (mono.empty() || mag != 1) body = std::to_string(mag);
    for (const auto& n : mono) body += (body.empty() ? "" : " * ") + n;
    if (out.empty())
      out = (neg ? "-" : "") + body;
    else
      out += (neg ? " - " : " + ") + body;
  };
  for (const auto& [mono, c] : p.terms)
    if (!mono.empty()) emit(mono, c);
  auto k = p.terms.find({});
  if (k != p.terms.end()) emit({}, k->second);
  return out.empty() ? "0" : out;
}

}  // namespace thorn::types
