// Futhark's causality check (Terms.hs causalityCheck, language reference
// "Causality restriction"): a value whose type mentions an existential size
// must not be needed before the application that computes that size has
// been evaluated:
//
//     def main xs = f (\_ -> 0) <| filter (> 0) xs
//
// `f`'s size parameter is the size of `filter`'s result, but `f (\_ -> 0)`
// is evaluated first. Runs on a finished definition, before zonking, over
// the types noted for its expressions and patterns.
//
// Existential sizes are those of a function's result, fresh per reference
// to the function (freshen_result_sizes) and listed in Pending::existentials;
// a type needs one where it appears outside a function's result, or where a
// still-open size variable met it (DimNode::met: Futhark would have bound
// the variable to it). Evaluation order follows Futhark: an application's
// arguments last to first, then the function; a binary operator's operands
// left to right; a `let`'s value before its body. A size counts as known
// once any application whose result mentions it has been walked; Futhark
// tracks known sizes per scope, so this is more lenient (never stricter).
#include <fmt/format.h>

#include <set>
#include <unordered_map>

#include "interp/types/checker_impl.hpp"

namespace thorn::types {

namespace {

struct Causality {
  std::unordered_map<const Expr*, Ty> expr_types;
  std::unordered_map<const Pattern*, Ty> pattern_types;
  std::set<const DimNode*> candidates;  // created in this definition
  std::set<const DimNode*> known;
  std::map<const DimNode*, Loc> origin;  // the application computing each
  std::map<const DimNode*, std::string> names;

  // Existential sizes in t: free ones (not in the result of a function
  // type) directly, and those met by open size variables anywhere.
  // `direct_only`: just the free existentials themselves (what an
  // application's result computes).
  void needed(const Ty& t0, bool in_result, bool direct_only, std::vector<const DimNode*>& out, int depth) const {
    if (!t0 || depth > 48) return;
    Ty t = t0;
    // A variable bound since the expression was checked: its constraint's
    // fields or constructors are what the expression itself had (`#None`
    // before it met a declared sum type).
    while (t->kind == TyNode::Kind::Var) {
      if (!direct_only) {
        for (const auto& [n, f] : t->fields) needed(f, in_result, direct_only, out, depth + 1);
        for (const auto& [n, ps] : t->constrs)
          for (const auto& p : ps) needed(p, in_result, direct_only, out, depth + 1);
      }
      if (!t->link) return;
      t = t->link;
    }
    switch (t->kind) {
      case TyNode::Kind::Array: {
        std::vector<const DimNode*> chain;
        DimRef d = t->dim;
        while (d) {
          chain.push_back(d.get());
          if (d->kind != DimNode::Kind::Var || !d->link) break;
          d = d->link;
        }
        if (d && d->kind == DimNode::Kind::Unknown && d->existential) {
          if (!in_result && candidates.count(d.get())) out.push_back(d.get());
        } else if (d && d->kind == DimNode::Kind::Var && !direct_only) {
          // Still open: whatever existential it (or a variable linked to
          // it) met is its size in Futhark.
          for (const DimNode* c : chain)
            if (c->met && candidates.count(c->met.get())) out.push_back(c->met.get());
        }
        needed(t->elem, in_result, direct_only, out, depth + 1);
        return;
      }
      case TyNode::Kind::Record:
        for (const auto& [n, f] : t->fields) needed(f, in_result, direct_only, out, depth + 1);
        return;
      case TyNode::Kind::Sum:
        for (const auto& [n, ps] : t->constrs)
          for (const auto& p : ps) needed(p, in_result, direct_only, out, depth + 1);
        return;
      case TyNode::Kind::Function:
        if (direct_only) return;
        needed(t->param, false, direct_only, out, depth + 1);
        needed(t->result, true, direct_only, out, depth + 1);
        return;
      default: return;
    }
  }

  Ty type_of(const Expr& e) const {
    auto it = expr_types.find(&e);
    return it == expr_types.end() ? nullptr : it->second;
  }

  // Pre-pass: each existential's computing application is the first one
  // (innermost, in post-order) whose result mentions it.
  void find_origins(const ExprPtr& e) {
    if (!e) return;
    for_children(*e, [&](const ExprPtr& c) { find_origins(c); });
    if (e->kind == Expr::Kind::Apply || e->kind == Expr::Kind::BinOp || e->kind == Expr::Kind::Loop ||
        e->kind == Expr::Kind::Range) {
      std::vector<const DimNode*> made;
      needed(type_of(*e), false, true, made, 0);
      for (const DimNode* d : made) origin.emplace(d, e->loc);
    }
  }

  template <class F>
  static void for_children(Expr& e, F&& f) {
    if (e.a) f(e.a);
    if (e.b) f(e.b);
    if (e.c) f(e.c);
    for (auto& x : e.list) f(x);
    for (auto& [n, x] : e.fields) f(x);
    for (auto& ix : e.indices) {
      if (ix.index) f(ix.index);
      if (ix.start) f(ix.start);
      if (ix.end) f(ix.end);
      if (ix.stride) f(ix.stride);
    }
    for (auto& c : e.cases) f(c.body);
  }

  std::string name_of(const DimNode* d) {
    auto it = names.find(d);
    if (it != names.end()) return it->second;
    std::string n = names.empty() ? "d" : fmt::format("d{}", names.size());
    names.emplace(d, n);
    return n;
  }

  static std::string loc_text(const Loc& at, const Loc& l) {
    if (!l.known()) return "an unknown location";
    std::string span = l.end_col > l.col ? fmt::format("{}:{}-{}", l.line, l.col, l.end_col) : fmt::format("{}:{}", l.line, l.col);
    if (at.file == l.file) return span;
    return l.str();
  }

  // The source text of a short pattern or expression, as Futhark prints it.
  static std::string source_text(const Loc& l, const std::string& fallback) {
    if (l.known() && l.end_col >= l.col) {
      std::string_view line = l.file->line(l.line);
      if (l.end_col <= line.size() && l.end_col - l.col < 40) return std::string(line.substr(l.col - 1, l.end_col - l.col + 1));
    }
    return fallback;
  }

  void check(const Ty& t, const std::string& what, Loc loc) {
    if (!t) return;
    std::vector<const DimNode*> need;
    needed(t, false, false, need, 0);
    for (const DimNode* d : need) {
      if (known.count(d)) continue;
      auto o = origin.find(d);
      if (o == origin.end()) continue;  // computed nowhere here: not ours to judge
      std::string n = name_of(d);
      throw Error(ErrorKind::Type, loc,
                  fmt::format("Causality check: size \"{}\" needed for type of {}:\n  {}\nBut \"{}\" is computed at {}.\n\n"
                              "Hint: Bind the expression producing \"{}\" with 'let' beforehand.\n\n"
                              "For more information, see:\n"
                              "  https://futhark.readthedocs.io/en/latest/error-index.html#causality-check",
                              n, what, show(t), n, loc_text(loc, o->second), n));
    }
  }

  void mark_known(const Expr& e) {
    std::vector<const DimNode*> made;
    needed(type_of(e), false, true, made, 0);
    known.insert(made.begin(), made.end());
  }

  void walk(const ExprPtr& ep) {
    if (!ep) return;
    Expr& e = *ep;
    switch (e.kind) {
      case Expr::Kind::Var:
        check(type_of(e), fmt::format("\"{}\"", e.name.str()), e.loc);
        return;
      case Expr::Kind::Apply:
        for (size_t i = e.list.size(); i-- > 0;) walk(e.list[i]);
        walk(e.a);
        mark_known(e);
        return;
      case Expr::Kind::BinOp:
        walk(e.a);
        walk(e.b);
        mark_known(e);
        return;
      case Expr::Kind::OpSection:
        check(type_of(e), "operator section", e.loc);
        break;
      case Expr::Kind::ProjSection:
      case Expr::Kind::IndexSection:
        check(type_of(e), "projection section", e.loc);
        break;
      case Expr::Kind::ArrayLit:
        if (e.list.empty()) check(type_of(e), "empty array", e.loc);
        break;
      case Expr::Kind::Lambda:
        for (const auto& p : e.params) {
          if (!p) continue;
          auto it = pattern_types.find(p.get());
          if (it != pattern_types.end()) check(it->second, source_text(p->loc, "parameter"), p->loc);
        }
        {
          // Sizes computed in a lambda's body are not known outside it.
          std::set<const DimNode*> before = known;
          for_children(e, [&](const ExprPtr& c) { walk(c); });
          known = std::move(before);
        }
        return;
      case Expr::Kind::Loop:
        // The initial value, then what the loop runs over, then the body.
        walk(e.a);
        walk(e.c);
        walk(e.b);
        mark_known(e);  // its loop-variant sizes (infer_loop)
        return;
      case Expr::Kind::If: {
        // Sizes computed in one branch are not known in the other.
        walk(e.a);
        std::set<const DimNode*> before = known;
        walk(e.b);
        std::set<const DimNode*> after_then = std::move(known);
        known = std::move(before);
        walk(e.c);
        known.insert(after_then.begin(), after_then.end());
        return;
      }
      case Expr::Kind::Intrinsic:
        if (e.text == "hole") check(type_of(e), "hole", e.loc);
        break;
      case Expr::Kind::Range:
        for_children(e, [&](const ExprPtr& c) { walk(c); });
        mark_known(e);  // a strided range's length
        return;
      case Expr::Kind::Constructor:
        // The payload first: `#Some (gen ())` computes its own size. A
        // constructor whose sum type needs a size computed later (`if b
        // then #None else #Some (gen ())`) cannot be built.
        for (auto& x : e.list) walk(x);
        check(type_of(e), fmt::format("\"#{}\"", e.name.name), e.loc);
        return;
      default: break;
    }
    for_children(e, [&](const ExprPtr& c) { walk(c); });
  }
};

}  // namespace

void CheckerImpl::check_causality(Expr& body, const Pending& p) const {
  if (p.existentials.empty()) return;
  Causality c;
  for (const auto& d : p.existentials) c.candidates.insert(d.get());
  for (const auto& [e, t] : p.exprs) c.expr_types.emplace(e, t);
  for (const auto& [pt, t] : p.patterns) c.pattern_types.emplace(pt, t);
  ExprPtr root(std::shared_ptr<Expr>{}, &body);  // non-owning
  c.find_origins(root);
  c.walk(root);
}

}  // namespace thorn::types
