#include <doctest/doctest.h>

#include "syntax_test_util.hpp"

using namespace thorn;
using namespace thorn::test;

TEST_CASE("parser: value declarations") {
  CHECK(pp("def f (x: i32) : i32 = x + 1") == "def f (x : i32) : i32 = (x + 1)\n");
  CHECK(pp("def x = 1\nlet y = 2\n") == "def x = 1\ndef y = 2\n");
  CHECK(pp("entry main [n] (xs: [n]i32) : []i32 = xs") == "entry main [n] (xs : [n]i32) : []i32 = xs\n");
  CHECK(pp("def reverse [n] 't (xs: [n]t): [n]t = xs[::-1]") ==
        "def reverse [n] 't (xs : [n]t) : [n]t = (xs[::(-1)])\n");
  CHECK(pp("def g 'a '^b '~c (f: a -> b) = f") == "def g 'a '^b '^c (f : (a -> b)) = f\n");
  CHECK(pp("def h (_: i32) ({a, b}: {a: i32, b: f32}) () = 1") ==
        "def h (_ : i32) ({a = a, b = b} : {a: i32, b: f32}) () = 1\n");
  auto prog = parse_program(src("entry main = 0\ndef f = 1"));
  REQUIRE(prog.decls.size() == 2);
  CHECK(prog.decls[0]->entry);
  CHECK(!prog.decls[1]->entry);
  CHECK(prog.decls[1]->loc.line == 2);
}

TEST_CASE("parser: operator definitions") {
  CHECK(pp("def (+++) (x: i32) (y: i32) = x + y") == "def (+++) (x : i32) (y : i32) = (x + y)\n");
  CHECK(pp("def x +^ y = x ^ y") == "def (+^) x y = (x ^ y)\n");
  CHECK(pp("def (a: i32, b: i32) <*> (c: i32, d: i32) = (a*c, b*d)") ==
        "def (<*>) ((a : i32), (b : i32)) ((c : i32), (d : i32)) = ((a * c), (b * d))\n");
  CHECK(pp("def (-) 't (x: t) (y: t) = x") == "def (-) 't (x : t) (y : t) = x\n");
  auto d = parse_program(src("def (>>=) x f = f x")).decls[0];
  CHECK(d->name == ">>=");
  CHECK(d->params.size() == 2);
}

TEST_CASE("parser: type declarations and type expressions") {
  CHECK(pp("type t = i32") == "type t = i32\n");
  CHECK(pp("type^ f = i32 -> i32") == "type^ f = (i32 -> i32)\n");
  CHECK(pp("type~ e = ?[n].[n]i32") == "type^ e = ?[n].[n]i32\n");
  CHECK(pp("type vec [n] 't = [n]t") == "type vec [n] 't = [n]t\n");
  CHECK(pp("type opt 'a = #some a | #none") == "type opt 'a = (#some a | #none)\n");
  CHECK(pt("[n][m]f32") == "[n][m]f32");
  CHECK(pt("[]i32") == "[]i32");
  CHECK(pt("[3]i32") == "[3]i32");
  CHECK(pt("*[]i32") == "*[]i32");
  CHECK(pt("(i32, f64)") == "(i32, f64)");
  CHECK(pt("()") == "()");
  CHECK(pt("{a: i32, b: []f32}") == "{a: i32, b: []f32}");
  CHECK(pt("i32 -> i32 -> i32") == "(i32 -> (i32 -> i32))");
  CHECK(pt("(i32 -> i32) -> i32") == "((i32 -> i32) -> i32)");
  CHECK(pt("(n: i64) -> [n]i32") == "((n: i64) -> [n]i32)");
  CHECK(pt("vec [n] f32") == "(vec [n] f32)");
  CHECK(pt("opt i32") == "(opt i32)");
  CHECK(pt("opt [n]i32") == "(opt [n] i32)");  // a size argument, as in Futhark
  CHECK(pt("opt ([n]i32)") == "(opt [n]i32)");
  CHECK(pt("[n]opt i32") == "[n](opt i32)");
  CHECK(pt("M.t") == "M.t");
  CHECK(pt("#a i32 | #b | #c bool [2]f32") == "(#a i32 | #b | #c bool [2]f32)");
  // As in Futhark, an array element type extends over a following application.
  CHECK(pt("#c [2]f32 bool") == "(#c [2](f32 bool))");
  CHECK(pt("?[n][m].[n][m]i32") == "?[n][m].[n][m]i32");
  CHECK(pt("[n*m]t") == "[(n * m)]t");  // size expressions, as in Futhark's prelude
  CHECK(pt("[M.n]t") == "[M.n]t");
  CHECK(parse_type(src("[n+1]i32"))->size.kind == SizeExpr::Kind::Expr);
  CHECK(parse_type(src("[M.n]i32"))->size.kind == SizeExpr::Kind::Name);
  auto t = parse_type(src("[0]i32"));
  CHECK(t->kind == TypeExpr::Kind::Array);
  CHECK(t->size.kind == SizeExpr::Kind::Constant);
  CHECK(t->size.value == 0);
}

TEST_CASE("parser: modules and module types") {
  CHECK(pp("module M = { def x = 1 }") == "module M = { def x = 1 }\n");
  CHECK(pp("module M = N") == "module M = N\n");
  CHECK(pp("module M : S = N") == "module M : S = N\n");
  CHECK(pp("module F (P: S) (Q: T) = { open P }") == "module F (P: S) (Q: T) = { open P }\n");
  CHECK(pp("module G = F(N)") == "module G = (F N)\n");
  CHECK(pp("module H = F { def x = 2 }") == "module H = (F { def x = 2 })\n");
  CHECK(pp("module I = F N M") == "module I = ((F N) M)\n");
  CHECK(pp("module J = (N : S)") == "module J = (N : S)\n");
  CHECK(pp("module K = \\(P: S) -> { open P }") == "module K = (\\(P: S) -> { open P })\n");
  CHECK(pp("module type S = { val f : i32 -> i32 type t type s = i32 type^ u 'a module X : T include U }") ==
        "module type S = { val f : (i32 -> i32) type t type s = i32 type^ u 'a module X : T include U }\n");
  CHECK(pp("module type S = { val + : t -> t -> t val (*) : t }") ==
        "module type S = { val + : (t -> (t -> t)) val * : t }\n");
  CHECK(pp("module type S2 = S with t = i32 with u 'a = [2]a") ==
        "module type S2 = ((S with t = i32) with u 'a = [2]a)\n");
  CHECK(pp("module type F = (P: S) -> T") == "module type F = ((P: S) -> T)\n");
  CHECK(pp("module type F = S -> T") == "module type F = (S -> T)\n");
  CHECK(pp("module m = import \"foo\"") == "module m = (import \"foo\")\n");
}

TEST_CASE("parser: open, import, local, attributes") {
  CHECK(pp("open M") == "open M\n");
  CHECK(pp("open import \"x\"") == "open (import \"x\")\n");
  CHECK(pp("import \"lib/github.com/diku-dk/sorts/radix_sort\"") ==
        "import \"lib/github.com/diku-dk/sorts/radix_sort\"\n");
  CHECK(pp("local def y = 2") == "local def y = 2\n");
  CHECK(pp("#[inline] #[noinline] def z = 3") == "#[inline] #[noinline] def z = 3\n");
  CHECK(pp("#[incremental_flattening(only_inner)] def z = 3") ==
        "#[incremental_flattening(only_inner)] def z = 3\n");
  auto d = parse_program(src("#[a] local type t = i32")).decls[0];
  CHECK(d->kind == Decl::Kind::Local);
  CHECK(d->attrs == std::vector<std::string>{"a"});
  CHECK(d->inner->kind == Decl::Kind::Type);
}

TEST_CASE("parser: a whole program with test blocks") {
  const char* text = R"(-- Sum of squares.
-- ==
-- input { [1,2,3] }
-- output { 14 }

def square (x: i32) = x * x

-- | The entry point.
entry main (xs: []i32) : i32 =
  let ys = map square xs
  let total = reduce (+) 0 ys
  in total
)";
  Program p = parse_program(src(text));
  REQUIRE(p.decls.size() == 2);
  CHECK(p.decls[0]->name == "square");
  CHECK(p.decls[1]->entry);
  CHECK(to_string(*p.decls[1]->body) == "(let ys = (map square xs) in (let total = (reduce (+) 0 ys) in total))");
  CHECK(p.decls[1]->loc.line == 9);
}

TEST_CASE("parser: repl input") {
  auto r1 = parse_repl_input(src("1 + 2"));
  CHECK(r1.decls.empty());
  REQUIRE(r1.expr);
  CHECK(to_string(*r1.expr) == "(1 + 2)");
  auto r2 = parse_repl_input(src("def f x = x + 1"));
  CHECK(!r2.expr);
  REQUIRE(r2.decls.size() == 1);
  auto r3 = parse_repl_input(src("let x = 1"));
  CHECK(!r3.expr);
  REQUIRE(r3.decls.size() == 1);
  auto r4 = parse_repl_input(src("let x = 1 in x + 1"));
  REQUIRE(r4.expr);
  CHECK(r4.decls.empty());
  auto r5 = parse_repl_input(src("type t = i32"));
  CHECK(r5.decls.size() == 1);
  auto r6 = parse_repl_input(src("#[unsafe] xs[0]"));
  REQUIRE(r6.expr);
  auto r7 = parse_repl_input(src("#[inline] def f = 0"));
  CHECK(r7.decls.size() == 1);
  auto r8 = parse_repl_input(src("open M"));
  CHECK(r8.decls.size() == 1);
  try {
    parse_repl_input(src("let x = 1 in"));
    FAIL("expected a syntax error");
  } catch (const Error& e) {
    CHECK(e.kind == ErrorKind::Syntax);
    CHECK(e.message == "unexpected end of input; expected an expression");
  }
}

TEST_CASE("parser: prelude-style modules (operator specs, refined signatures, qualified operators)") {
  const char* text = R"(
module type numeric = {
  type t
  val +: t -> t -> t
  val ==: t -> t -> bool
  val <: t -> t -> bool
  val sum [n]: [n]t -> t
  val mul_hi: (x: t) -> (y: t) -> t
}
module i8: (numeric with t = i8) = {
  type t = i8
  def (x: i8) + (y: i8) = intrinsics.add8 (x, y)
  def (x: i8) != (y: i8) = !(x == y)
  def to_i32(x: i8) = intrinsics.sext_i8_i32 x
  def set_bit (bit: i32) (x: t) (b: i32) =
    ((x & i32 (!(1 intrinsics.<< bit))) | i32 (b intrinsics.<< bit))
  def lowest = highest + 1i8
}
module bool: from_prim with t = bool = { type t = bool }
def concat_to [n] [m] 't (k: i64) (xs: [n]t) (ys: [m]t): *[k]t = xs ++ ys :> [k]t
def copy 't (a: t): *t = ([a])[0]
)";
  Program p = parse_program(src(text));
  REQUIRE(p.decls.size() == 5);
  const auto& sig = *p.decls[0]->sig;
  REQUIRE(sig.specs.size() == 6);
  CHECK(sig.specs[1]->name == "+");
  CHECK(sig.specs[2]->name == "==");
  CHECK(sig.specs[3]->name == "<");
  CHECK(sig.specs[4]->type_params.size() == 1);
  CHECK(to_string(*sig.specs[5]->type) == "((x: t) -> ((y: t) -> t))");
  const auto& mod = *p.decls[1];
  CHECK(to_string(*mod.sig) == "(numeric with t = i8)");
  const auto& defs = mod.module->decls;
  REQUIRE(defs.size() == 6);
  CHECK(defs[1]->name == "+");
  CHECK(to_string(*defs[2]->body) == "(!(x == y))");
  CHECK(defs[3]->name == "to_i32");
  CHECK(to_string(*defs[4]->body) ==
        "((x & (i32 (!(1 intrinsics.<< bit)))) | (i32 (b intrinsics.<< bit)))");
  CHECK(to_string(*p.decls[2]->sig) == "(from_prim with t = bool)");
  CHECK(to_string(*p.decls[3]->body) == "((xs ++ ys) :> [k]t)");
  CHECK(to_string(*p.decls[4]->body) == "([a][0])");
}
