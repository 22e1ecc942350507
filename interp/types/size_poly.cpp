// Size expressions in normal form (SizePoly, declared in ty.hpp): the
// structural comparison Futhark makes of `[n + 1]` against `[n + 2]`.
// Addition, subtraction and multiplication of names and constants are
// normalised (sorted monomials, collected coefficients), so `1 + n` and
// `n + 1` agree; anything else is not a size expression here.
#include <fmt/format.h>

#include <algorithm>

#include "interp/syntax/ast.hpp"
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

namespace {
// The normal form of a tree whose leaves are all known (false otherwise).
bool tree_poly(const SizeTreePtr& t, SizePoly& out) {
  if (t->op == SizeTree::Op::Leaf) return dim_poly(t->leaf, out);
  if (t->op == SizeTree::Op::Apply) return false;  // no normal form: compared structurally only
  SizePoly a, b;
  if (!tree_poly(t->a, a)) return false;
  if (t->op == SizeTree::Op::Neg) {
    out = poly_add(SizePoly{}, a, -1);
    return true;
  }
  if (!tree_poly(t->b, b)) return false;
  switch (t->op) {
    case SizeTree::Op::Add: out = poly_add(a, b); return true;
    case SizeTree::Op::Sub: out = poly_add(a, b, -1); return true;
    default: out = poly_mul(a, b); return true;
  }
}
}  // namespace

SizeTreePtr tree_leaf(DimRef d) {
  auto t = std::make_shared<SizeTree>();
  t->leaf = std::move(d);
  return t;
}

SizeTreePtr tree_node(SizeTree::Op op, SizeTreePtr a, SizeTreePtr b) {
  auto t = std::make_shared<SizeTree>();
  t->op = op;
  t->a = std::move(a);
  t->b = std::move(b);
  return t;
}

SizeTreePtr tree_apply(std::string fn, std::vector<SizeTreePtr> args) {
  auto t = std::make_shared<SizeTree>();
  t->op = SizeTree::Op::Apply;
  t->fn = std::move(fn);
  t->args = std::move(args);
  return t;
}

bool tree_pending(const SizeTreePtr& t) {
  if (!t) return false;
  if (t->op == SizeTree::Op::Leaf) {
    DimRef d = dim_resolve(t->leaf);
    return d->kind == DimNode::Kind::Var || (d->kind == DimNode::Kind::Expr && !d->poly && tree_pending(d->tree));
  }
  for (const auto& x : t->args)
    if (tree_pending(x)) return true;
  return tree_pending(t->a) || tree_pending(t->b);
}

bool tree_mentions(const SizeTreePtr& t, const DimRef& var) {
  if (!t) return false;
  if (t->op == SizeTree::Op::Leaf) {
    DimRef d = dim_resolve(t->leaf);
    return d == var || (d->kind == DimNode::Kind::Expr && tree_mentions(d->tree, var));
  }
  for (const auto& x : t->args)
    if (tree_mentions(x, var)) return true;
  return tree_mentions(t->a, var) || tree_mentions(t->b, var);
}

namespace {
void tree_names(const SizeTreePtr& t, std::set<std::string>& out) {
  if (!t) return;
  if (t->op == SizeTree::Op::Leaf) {
    std::set<std::string> n = dim_names(t->leaf);
    out.insert(n.begin(), n.end());
    return;
  }
  for (const auto& x : t->args) tree_names(x, out);
  tree_names(t->a, out);
  tree_names(t->b, out);
}
}  // namespace

std::set<std::string> dim_names(const DimRef& d0) {
  DimRef d = dim_resolve(d0);
  std::set<std::string> out;
  if (d->kind == DimNode::Kind::Name) out.insert(d->name);
  if (d->kind != DimNode::Kind::Expr) return out;
  if (d->poly)
    for (const auto& [n, b] : d->poly->bindings) out.insert(n);
  else
    tree_names(d->tree, out);
  return out;
}

std::string show_tree(const SizeTreePtr& t) {
  switch (t->op) {
    case SizeTree::Op::Leaf: {
      DimRef d = dim_resolve(t->leaf);
      switch (d->kind) {
        case DimNode::Kind::Constant: return std::to_string(d->value);
        case DimNode::Kind::Name: return d->name;
        case DimNode::Kind::Expr: return "(" + d->name + ")";
        default: return "?";
      }
    }
    case SizeTree::Op::Neg: return "-" + show_tree(t->a);
    case SizeTree::Op::Apply: {
      if (is_symbolic(t->fn) && t->args.size() == 2) {  // an operator other than +, - and *
        auto operand = [](const SizeTreePtr& x) {
          return x->op == SizeTree::Op::Leaf ? show_tree(x) : "(" + show_tree(x) + ")";
        };
        return operand(t->args[0]) + " " + t->fn + " " + operand(t->args[1]);
      }
      std::string out = t->fn;
      for (const auto& x : t->args) out += x->op == SizeTree::Op::Leaf ? " " + show_tree(x) : " (" + show_tree(x) + ")";
      return out;
    }
    case SizeTree::Op::Add: return show_tree(t->a) + " + " + show_tree(t->b);
    case SizeTree::Op::Sub: return show_tree(t->a) + " - (" + show_tree(t->b) + ")";
    case SizeTree::Op::Mul: {
      auto factor = [](const SizeTreePtr& x) {
        bool sum = x->op == SizeTree::Op::Add || x->op == SizeTree::Op::Sub;
        return sum ? "(" + show_tree(x) + ")" : show_tree(x);
      };
      return factor(t->a) + " * " + factor(t->b);
    }
  }
  return "?";
}

DimRef dim_of_tree(const SizeTreePtr& t) {
  if (t->op == SizeTree::Op::Leaf) return t->leaf;
  SizePoly p;
  if (tree_poly(t, p)) {
    DimRef d = dim_of_poly(std::move(p));
    if (d->kind == DimNode::Kind::Expr || d->kind == DimNode::Kind::Constant) d->tree = t;
    return d;
  }
  auto d = std::make_shared<DimNode>();
  d->kind = DimNode::Kind::Expr;
  d->tree = t;
  d->name = show_tree(t);
  return d;
}

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
      if (d->poly) {
        out = *d->poly;
        return true;
      }
      return d->tree && tree_poly(d->tree, out);
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
