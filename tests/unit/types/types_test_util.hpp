#pragma once
// Helpers shared by the type checker's unit tests: parse a snippet, check
// it (after a small prelude written like thorn's), and look at the result.
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "interp/syntax/parser.hpp"
#include "interp/types/checker.hpp"
#include "interp/types/type.hpp"
#include "interp/util/error.hpp"

namespace thorn::test {

inline const SourceFile* src(std::string_view text, std::string name = "test.fut") {
  return register_source(std::move(name), std::string(text));
}

// The parts of a prelude the tests rely on, declared the way thorn's
// prelude declares them (intrinsics behind ordinary signatures).
inline constexpr std::string_view kMiniPrelude = R"(
def map 'a [n] 'x (f: a -> x) (as: [n]a): *[n]x = __intrinsic "map" f as
def reduce [n] 'a (op: a -> a -> a) (ne: a) (as: [n]a): a = __intrinsic "reduce" op ne as
def scan [n] 'a (op: a -> a -> a) (ne: a) (as: [n]a): *[n]a = __intrinsic "scan" op ne as
def iota (n: i64): *[n]i64 = __intrinsic "iota" n
def replicate 't (n: i64) (x: t): *[n]t = __intrinsic "replicate" n x
def length [n] 't (_: [n]t) = n
def zip [n] 'a 'b (as: [n]a) (bs: [n]b): *[n](a, b) = __intrinsic "zip" as bs
def unzip [n] 'a 'b (xs: [n](a, b)): ([n]a, [n]b) = __intrinsic "unzip" xs
def (++) 't (xs: []t) (ys: []t): *[]t = __intrinsic "concat" xs ys
def filter [n] 'a (p: a -> bool) (as: [n]a): *[]a = __intrinsic "filter" p as
def tabulate_2d 'a (n: i64) (m: i64) (f: i64 -> i64 -> a): *[n][m]a = __intrinsic "tabulate_2d" n m f
def flatten [n] [m] 't (xs: [n][m]t): []t = __intrinsic "flatten" xs
def transpose [n] [m] 't (a: [n][m]t): [m][n]t = __intrinsic "transpose" a
def scatter 't [k] [n] (dest: *[k]t) (is: [n]i64) (vs: [n]t): *[k]t = __intrinsic "scatter" dest is vs
def reduce_by_index 'a [k] [n] (dest: *[k]a) (f: a -> a -> a) (ne: a) (is: [n]i64) (as: [n]a): *[k]a =
  __intrinsic "hist" dest f ne is as
def copy 't (x: t): *t = __intrinsic "copy" x
def map2 'a 'b 'x [n] (f: a -> b -> x) (as: [n]a) (bs: [n]b): *[n]x = map (\(a, b) -> f a b) (zip as bs)
def (|>) '^a '^b (x: a) (f: a -> b): b = f x
def (<|) '^a '^b (f: a -> b) (x: a): b = f x
module i64 = {
  type t = i64
  def i32 (x: i32): i64 = __intrinsic "sext_i32_i64" x
  def sum (xs: []i64): i64 = reduce (+) 0 xs
}
module f32 = {
  type t = f32
  def sqrt (x: f32): f32 = __intrinsic "sqrt32" x
  def i64 (x: i64): f32 = __intrinsic "sitofp_i64_f32" x
  def sum (xs: []f32): f32 = reduce (+) 0 xs
}
module i32 = {
  type t = i32
  def max (x: i32) (y: i32): i32 = if x < y then y else x
  def sum (xs: []i32): i32 = reduce (+) 0 xs
  def i64 (x: i64): i32 = __intrinsic "sext_i64_i32" x
}
module f64 = {
  type t = f64
  def sqrt (x: f64): f64 = __intrinsic "sqrt64" x
  def i32 (x: i32): f64 = __intrinsic "sitofp_i32_f64" x
  def i64 (x: i64): f64 = __intrinsic "sitofp_i64_f64" x
}
)";

struct Session {
  Checker checker;
  std::vector<Program> programs;  // kept alive: the AST is annotated in place

  explicit Session(bool with_prelude = true) {
    if (with_prelude) decls(kMiniPrelude, "[prelude]/mini.fut");
  }
  Program& decls(std::string_view text, std::string name = "test.fut") {
    programs.push_back(parse_program(src(text, std::move(name))));
    checker.check_decls(programs.back().decls);
    return programs.back();
  }
  std::string type_of(std::string_view expr, bool generalise = false) {
    ExprPtr e = parse_expression(src(expr));
    return to_string(checker.check_expression(e, generalise));
  }
  std::string value_type(std::string_view qualified) {
    QualName q;
    std::string s(qualified);
    size_t pos;
    while ((pos = s.find('.')) != std::string::npos) {
      q.qualifiers.push_back(s.substr(0, pos));
      s = s.substr(pos + 1);
    }
    q.name = s;
    TypePtr t = checker.lookup_value(q);
    return t ? to_string(t) : "<none>";
  }
};

// The type of an expression checked after `decls` (with the mini prelude).
inline std::string type_of(std::string_view expr, std::string_view decls = "") {
  Session s;
  if (!decls.empty()) s.decls(decls);
  return s.type_of(expr);
}

// The type error (message) that checking `decls` then `expr` raises, or "" if none.
inline std::optional<Error> type_error(std::string_view decls, std::string_view expr = "") {
  Session s;
  try {
    if (!decls.empty()) s.decls(decls);
    if (!expr.empty()) s.type_of(expr);
  } catch (const Error& e) {
    if (e.kind != ErrorKind::Type) throw;
    return e;
  }
  return std::nullopt;
}

inline std::string error_message(std::string_view decls, std::string_view expr = "") {
  auto e = type_error(decls, expr);
  return e ? e->message : std::string("<no error>");
}

}  // namespace thorn::test

namespace thorn::test {

// Visits every expression and pattern of a program (including module bodies).
struct AstWalker {
  std::function<void(Expr&)> on_expr = [](Expr&) {};
  std::function<void(Pattern&)> on_pattern = [](Pattern&) {};

  void pattern(const PatternPtr& p) {
    if (!p) return;
    on_pattern(*p);
    for (auto& e : p->elems) pattern(e);
    for (auto& [n, f] : p->fields) pattern(f);
    expr(p->literal);
    pattern(p->inner);
  }
  void expr(const ExprPtr& e) {
    if (!e) return;
    on_expr(*e);
    expr(e->a);
    expr(e->b);
    expr(e->c);
    for (auto& x : e->list) expr(x);
    for (auto& [n, x] : e->fields) expr(x);
    for (auto& ix : e->indices) {
      expr(ix.index);
      expr(ix.start);
      expr(ix.end);
      expr(ix.stride);
    }
    for (auto& c : e->cases) {
      pattern(c.pattern);
      expr(c.body);
    }
    for (auto& p : e->params) pattern(p);
    pattern(e->pattern);
  }
  void mod(const ModExprPtr& m) {
    if (!m) return;
    for (auto& d : m->decls) decl(d);
    mod(m->fn);
    mod(m->arg);
  }
  void decl(const DeclPtr& d) {
    if (!d) return;
    for (auto& p : d->params) pattern(p);
    expr(d->body);
    mod(d->module);
    decl(d->inner);
  }
  void program(const Program& p) {
    for (auto& d : p.decls) decl(d);
  }
};

// Every expression and pattern of the program has a type (and every
// polymorphic Var an instantiation of the right length is checked elsewhere).
inline int count_unannotated(const Program& p) {
  int missing = 0;
  AstWalker w;
  w.on_expr = [&](Expr& e) { missing += !e.type; };
  w.on_pattern = [&](Pattern& pt) { missing += !pt.type; };
  w.program(p);
  return missing;
}

// All Var/BinOp nodes named `name` in the program, in source order.
inline std::vector<Expr*> uses_of(const Program& p, const std::string& name) {
  std::vector<Expr*> out;
  AstWalker w;
  w.on_expr = [&](Expr& e) {
    if ((e.kind == Expr::Kind::Var || e.kind == Expr::Kind::BinOp || e.kind == Expr::Kind::OpSection) &&
        e.name.str() == name)
      out.push_back(&e);
  };
  w.program(p);
  return out;
}

inline std::string types_str(const std::vector<TypePtr>& ts) {
  std::string out;
  for (const auto& t : ts) out += (out.empty() ? "" : ", ") + to_string(t);
  return out;
}

}  // namespace thorn::test
