#include <doctest/doctest.h>

#include "syntax_test_util.hpp"

using namespace thorn;
using namespace thorn::test;

TEST_CASE("parser: precedence table") {
  CHECK(pe("1 + 2 * 3") == "(1 + (2 * 3))");
  CHECK(pe("1 * 2 + 3") == "((1 * 2) + 3)");
  CHECK(pe("a - b - c") == "((a - b) - c)");
  CHECK(pe("a ** b ** c") == "((a ** b) ** c)");  // left-associative in Futhark
  CHECK(pe("a * b ** c") == "(a * (b ** c))");
  CHECK(pe("a + b << c") == "((a + b) << c)");
  CHECK(pe("a << b + c") == "(a << (b + c))");
  CHECK(pe("a & b << c") == "(a & (b << c))");
  CHECK(pe("x & y == z") == "((x & y) == z)");  // bitwise binds tighter than comparison
  CHECK(pe("a == b && c < d") == "((a == b) && (c < d))");
  CHECK(pe("a && b || c && d") == "((a && b) || (c && d))");
  CHECK(pe("a || b |> f") == "((a || b) |> f)");
  CHECK(pe("x |> f |> g") == "((x |> f) |> g)");
  CHECK(pe("f <| g <| x") == "(f <| (g <| x))");
  CHECK(pe("a <| b |> c") == "((a <| b) |> c)");
  CHECK(pe("a == b == c") == "((a == b) == c)");
  CHECK(pe("a // b %% c / d % e") == "((((a // b) %% c) / d) % e)");
  CHECK(pe("a ^ b | c & d") == "(((a ^ b) | c) & d)");
  CHECK(pe("a `f` b + c") == "(a `f` (b + c))");
  CHECK(pe("a + b `f` c * d") == "((a + b) `f` (c * d))");
  CHECK(pe("x `M.f` y") == "(x `M.f` y)");
}

TEST_CASE("parser: user-defined operators take the precedence of their longest built-in prefix") {
  CHECK(pe("a +^ b * c") == "(a +^ (b * c))");
  CHECK(pe("a *^ b + c") == "((a *^ b) + c)");
  CHECK(pe("a >>= b + c") == "(a >>= (b + c))");   // like >>, not >
  CHECK(pe("a >= b + c") == "(a >= (b + c))");
  CHECK(pe("a |>> b || c") == "(a |>> (b || c))");  // like |>
  CHECK(pe("a <|> b <|> c") == "(a <|> (b <|> c))");  // like <|: right-assoc
  CHECK(pe("a >-> b <-< c") == "((a >-> b) <-< c)");  // like > and <
  CHECK(pe("a !== b & c") == "(a !== (b & c))");     // like !
  CHECK(pe("a =<< b & c") == "(a =<< (b & c))");     // like =
  CHECK(pe("a **. b * c") == "((a **. b) * c)");
  CHECK(pe("a i32.+ b * c") == "(a i32.+ (b * c))");
}

TEST_CASE("parser: prefix operators and application") {
  CHECK(pe("-x ** 2") == "((-x) ** 2)");
  CHECK(pe("-f x") == "(-(f x))");
  CHECK(pe("!x == y") == "((!x) == y)");
  CHECK(pe("- - x") == "(-(-x))");
  CHECK(pe("f -1") == "(f - 1)");  // binary minus, as in Futhark
  CHECK(pe("f (-1) - -x") == "((f (-1)) - (-x))");
  CHECK(pe("f x y + g z") == "((f x y) + (g z))");
  CHECK(pe("f(x)") == "(f x)");
  CHECK(pe("f x.a y") == "(f x.a y)");
  CHECK(pe("a + if c then 1 else 2 + 3") == "(a + (if c then 1 else (2 + 3)))");
  CHECK(pe("1 + let x = 2 in x * 3") == "(1 + (let x = 2 in (x * 3)))");
  CHECK(pe("f <| \\x -> x + 1") == "(f <| (\\x -> (x + 1)))");
  CHECK(pe("assert (x > 0) y + 1") == "((assert (x > 0) y) + 1)");
}

TEST_CASE("parser: indexing versus application to an array literal") {
  CHECK(pe("xs[i]") == "(xs[i])");
  CHECK(pe("f [1, 2]") == "(f [1, 2])");
  CHECK(pe("f xs[1]") == "(f (xs[1]))");
  CHECK(pe("(f x)[0]") == "((f x)[0])");
  CHECK(pe("xs[i][j]") == "((xs[i])[j])");
  CHECK(pe("xs[i, j]") == "(xs[i, j])");
  CHECK(pe("xs[a:b:s]") == "(xs[a:b:s])");
  CHECK(pe("xs[:, 0]") == "(xs[:, 0])");
  CHECK(pe("xs[::-1]") == "(xs[::(-1)])");
  CHECK(pe("xs[1:]") == "(xs[1:])");
  CHECK(pe("xs[:n]") == "(xs[:n])");
  CHECK(pe("xs[i+1:j-1]") == "(xs[(i + 1):(j - 1)])");
  CHECK(pe("[[1,2],[3,4]][0][1]") == "(([[1, 2], [3, 4]][0])[1])");
  CHECK(pe("[1, 2, 3,]") == "[1, 2, 3]");
  CHECK(pe("[]") == "[]");
}

TEST_CASE("parser: projections and qualified names") {
  CHECK(pe("i32.max") == "i32.max");
  auto q = parse_expression(src("M.N.x"));
  CHECK(q->kind == Expr::Kind::Var);
  CHECK(q->name.qualifiers == std::vector<std::string>{"M", "N"});
  CHECK(q->name.name == "x");
  CHECK(pe("x.0") == "(x.0)");
  CHECK(pe("x.0.1") == "((x.0).1)");
  CHECK(pe("(e).a") == "(e.a)");
  CHECK(pe("(a, b).1") == "((a, b).1)");
  CHECK(pe("xs[0].a") == "((xs[0]).a)");
  CHECK(pe("r.a[1].b") == "((r.a[1]).b)");
  CHECK(pe("f32.(x + y)") == "f32.((x + y))");

  auto split = split_qualified_var(*parse_expression(src("r.a.b")), 2);
  CHECK(to_string(*split) == "((r.a).b)");
  auto partial = split_qualified_var(*parse_expression(src("M.r.a")), 1);
  CHECK(to_string(*partial) == "(M.r.a)");
  CHECK(partial->kind == Expr::Kind::Project);
  CHECK(partial->a->name.qualifiers == std::vector<std::string>{"M"});
}

TEST_CASE("parser: sections") {
  CHECK(pe("(+)") == "(+)");
  CHECK(pe("(+ 1)") == "(+ 1)");
  CHECK(pe("(1 +)") == "(1 +)");
  CHECK(pe("(-)") == "(-)");
  CHECK(pe("(x -)") == "(x -)");
  CHECK(pe("(-1)") == "(-1)");  // a negation, not a section
  CHECK(pe("(- x)") == "(-x)");
  CHECK(pe("(!= 0)") == "(!= 0)");
  CHECK(pe("(i32.+)") == "(i32.+)");
  CHECK(pe("(`f` 2)") == "(`f` 2)");
  CHECK(pe("(x `f`)") == "(x `f`)");
  CHECK(pe("(.a.b)") == "(.a.b)");
  CHECK(pe("(.0)") == "(.0)");
  CHECK(pe("(.[i, 1:])") == "(.[i, 1:])");
  CHECK(pe("(+ x * 2)") == "(+ (x * 2))");
  auto s = parse_expression(src("(+ 1)"));
  CHECK(s->kind == Expr::Kind::OpSection);
  CHECK(!s->a);
  CHECK(s->b);
}

TEST_CASE("parser: lambdas, tuples, records") {
  CHECK(pe("\\x y -> x + y") == "(\\x y -> (x + y))");
  CHECK(pe("\\(x: i32) : i32 -> x") == "(\\(x : i32) : i32 -> x)");
  CHECK(pe("\\(a, b) {c} -> a") == "(\\(a, b) {c = c} -> a)");
  CHECK(pe("()") == "()");
  CHECK(pe("(1, 2, 3,)") == "(1, 2, 3)");
  CHECK(pe("((1))") == "1");
  CHECK(pe("{a = 1, b}") == "{a = 1, b = b}");
  CHECK(pe("{}") == "{}");
  CHECK(pe("{0 = x, 1 = y}") == "(x, y)");  // fields 0..n-1 are a tuple, as in Futhark
  CHECK(pe("{1 = y, 0 = x}") == "(x, y)");
  CHECK(pe("{0 = x, 2 = y}") == "{0 = x, 2 = y}");
  CHECK(pe("{0 = x}") == "{0 = x}");
  CHECK(pe("(x : i32, y)") == "((x : i32), y)");
}

TEST_CASE("parser: let forms") {
  CHECK(pe("let x = 1 in x") == "(let x = 1 in x)");
  CHECK(pe("let x = 1 let y = 2 in x + y") == "(let x = 1 in (let y = 2 in (x + y)))");
  CHECK(pe("let (a, b) = p in a") == "(let (a, b) = p in a)");
  CHECK(pe("let {a, b = c} = r in a") == "(let {a = a, b = c} = r in a)");
  CHECK(pe("let x: i32 = 1 in x") == "(let (x : i32) = 1 in x)");
  CHECK(pe("let f x y = x + y in f 1 2") == "(let f x y = (x + y) in (f 1 2))");
  CHECK(pe("let f [n] 't (xs: [n]t) : [n]t = xs in f") == "(let f [n] 't (xs : [n]t) : [n]t = xs in f)");
  CHECK(pe("let xs[i] = v in xs") == "(let xs = (xs with [i] = v) in xs)");
  CHECK(pe("let xs[i, j] = v let y = 1 in y") == "(let xs = (xs with [i, j] = v) in (let y = 1 in y))");
  CHECK(pe("let [n] (xs: [n]i32) = ys in xs") == "(let [n] (xs : [n]i32) = ys in xs)");
  CHECK(pe("let [n][m] x = y in x") == "(let [n] [m] x = y in x)");
  auto upd = parse_expression(src("let xs[i] = v in xs"));
  CHECK(upd->kind == Expr::Kind::Let);
  CHECK(upd->a->kind == Expr::Kind::Update);
  CHECK(upd->pattern->name == "xs");
}

TEST_CASE("parser: loops") {
  CHECK(pe("loop acc = 0 for i < n do acc + i") == "(loop acc = 0 for i < n do (acc + i))");
  CHECK(pe("loop acc for x in xs do acc + x") == "(loop acc for x in xs do (acc + x))");
  CHECK(pe("loop (a, b) = (0, 1) while a < 10 do (b, a + b)") ==
        "(loop (a, b) = (0, 1) while (a < 10) do (b, (a + b)))");
  CHECK(pe("loop (x: i32) = 0 for (a, b) in zip xs ys do x") ==
        "(loop (x : i32) = 0 for (a, b) in (zip xs ys) do x)");
  auto l = parse_expression(src("loop x for i < 10 do x * 2"));
  CHECK(l->kind == Expr::Kind::Loop);
  CHECK(!l->a);  // init omitted
  CHECK(l->params.size() == 1);
  CHECK(l->loop_form == Expr::LoopForm::For);
  CHECK(l->loop_var == "i");
  auto w = parse_expression(src("loop x = 1 while x < 100 do x * 2"));
  CHECK(w->loop_form == Expr::LoopForm::While);
  auto fi = parse_expression(src("loop s = 0 for x in xs do s + x"));
  CHECK(fi->loop_form == Expr::LoopForm::ForIn);
  CHECK(fi->pattern->name == "x");
}

TEST_CASE("parser: match and patterns") {
  CHECK(pe("match x case #some y -> y case #none -> 0") == "(match x case (#some y) -> y case #none -> 0)");
  CHECK(pe("match x case -1 -> a case 1.5 -> b case 'c' -> c case true -> d case _ -> e") ==
        "(match x case (-1) -> a case 1.5 -> b case 'c' -> c case true -> d case _ -> e)");
  CHECK(pe("match p case (a, {b, c = 1}) -> a case (x: i32, _) -> x") ==
        "(match p case (a, {b = b, c = 1}) -> a case ((x : i32), _) -> x)");
  CHECK(pe("match l case #cons x (#cons y _) -> x + y case _ -> 0") ==
        "(match l case (#cons x (#cons y _)) -> (x + y) case _ -> 0)");
  auto m = parse_expression(src("match x case -2 -> 1"));
  const Pattern& p = *m->cases[0].pattern;
  CHECK(p.kind == Pattern::Kind::Literal);
  CHECK(p.literal->kind == Expr::Kind::Negate);
  CHECK(p.literal->a->int_value == 2);
}

TEST_CASE("parser: with, ranges, ascriptions, assert, constructors, attributes, intrinsics") {
  CHECK(pe("r with a.b = v") == "(r with a.b = v)");
  CHECK(pe("xs with [i] = v") == "(xs with [i] = v)");
  CHECK(pe("xs with [0] = 1 with [1] = 2") == "((xs with [0] = 1) with [1] = 2)");
  CHECK(pe("xs with [0] = 1 |> f") == "(xs with [0] = (1 |> f))");
  CHECK(pe("a `f` b with [0] = 1") == "(a `f` (b with [0] = 1))");
  CHECK(pe("a..b...c") == "(a..b...c)");
  CHECK(pe("1...n") == "(1...n)");
  CHECK(pe("0..<n") == "(0..<n)");
  CHECK(pe("n..>0") == "(n..>0)");
  CHECK(pe("0..2..<n + 1") == "(0..2..<(n + 1))");
  auto r = parse_expression(src("a..b...c"));
  CHECK(r->kind == Expr::Kind::Range);
  CHECK(r->a->name.name == "a");
  CHECK(r->b->name.name == "b");
  CHECK(r->c->name.name == "c");
  CHECK(pe("e : i32") == "(e : i32)");
  CHECK(pe("e :> [n]i32") == "(e :> [n]i32)");
  CHECK(pe("if a then b else c : i32") == "(if a then b else (c : i32))");
  CHECK(pe("assert (x > 0) (f x)") == "(assert (x > 0) (f x))");
  CHECK(pe("#foo a b") == "(#foo a b)");
  CHECK(pe("#foo") == "#foo");
  CHECK(pe("#foo #bar x") == "(#foo #bar x)");
  CHECK(pe("#[unroll] loop x = 0 for i < 4 do x") == "(#[unroll] (loop x = 0 for i < 4 do x))");
  CHECK(pe("#[trace(a, 1)] #[opaque] x + 1") == "(#[trace(a, 1)] #[opaque] (x + 1))");
  CHECK(pe("__intrinsic \"map\" f xs") == "(__intrinsic \"map\" f xs)");
  auto i = parse_expression(src("__intrinsic \"iota\" n"));
  CHECK(i->kind == Expr::Kind::Intrinsic);
  CHECK(i->text == "iota");
  CHECK(i->list.size() == 1);
}

TEST_CASE("parser: literals") {
  auto c = parse_expression(src("'a'"));
  CHECK(c->kind == Expr::Kind::IntLit);
  CHECK(c->int_value == 97);
  CHECK(c->text == "'a'");
  CHECK(!c->suffix);
  auto f = parse_expression(src("2f32"));
  CHECK(f->kind == Expr::Kind::FloatLit);
  CHECK(f->suffix == Prim::F32);
  auto s = parse_expression(src("\"hi\\n\""));
  CHECK(s->kind == Expr::Kind::StringLit);
  CHECK(s->text == "hi\n");
  auto b = parse_expression(src("false"));
  CHECK(b->kind == Expr::Kind::BoolLit);
  CHECK(!b->bool_value);
  auto n = parse_expression(src("-1i8"));
  CHECK(n->kind == Expr::Kind::Negate);
  CHECK(n->a->suffix == Prim::I8);
}

TEST_CASE("parser: node locations") {
  auto e = parse_expression(src("foo + bar\n"));
  CHECK(e->loc.line == 1);
  CHECK(e->loc.col == 1);
  CHECK(e->loc.end_col == 9);
  CHECK(e->b->loc.col == 7);
  CHECK(e->b->loc.end_col == 9);
  auto l = parse_expression(src("let x =\n  f y\nin x"));
  CHECK(l->a->loc.line == 2);
  CHECK(l->a->loc.col == 3);
  CHECK(l->a->loc.end_col == 5);
  CHECK(l->b->loc.line == 3);
  CHECK(l->loc.end_col == 7);  // a multi-line node underlines the rest of its first line
}
