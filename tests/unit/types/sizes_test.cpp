// Static size checking (Futhark's size types): sizes known to differ are
// errors at applications, return types, ascriptions and annotated lets;
// everything that may be equal at run time is accepted.
#include <doctest/doctest.h>

#include "types_test_util.hpp"

using namespace thorn;
using namespace thorn::test;

namespace {
bool sizes_error(const std::string& prog) {
  return error_message(prog).find("do not match") != std::string::npos;
}
bool ok(const std::string& prog) { return error_message(prog) == "<no error>"; }
}  // namespace

TEST_CASE("sizes unified through application") {
  CHECK(sizes_error("def f [n][m] (xs: [n]i32) (ys: [m]i32) = map2 (+) xs ys"));
  CHECK(error_message("def f [n][m] (xs: [n]i32) (ys: [m]i32) = zip xs ys").find("Sizes \"n\" and \"m\" do not match.") !=
        std::string::npos);
  CHECK(ok("def f [n][m] (xs: [n]i32) (ys: [m]i32) = zip xs (ys :> [n]i32)"));
  CHECK(ok("def f [n] (xs: [n]i32) (ys: [n]i32) = map2 (+) xs ys"));
  CHECK(sizes_error("def f [n] (xs: [n]i32) = zip xs (iota 3)"));
  CHECK(sizes_error("def f = zip [1, 2, 3] [true, false]"));
  CHECK(ok("def f = zip [1, 2, 3] [true, false, true]"));
  // An existential size (filter's result) is no other size (Futhark).
  CHECK(sizes_error("def f [n] (xs: [n]i32) = zip xs (filter (> 0) xs)"));
  CHECK(ok("def f [n] (xs: [n]i32) = zip xs (filter (> 0) xs :> [n]i32)"));
  // Anonymous sizes of parameters may be anything (lenient: Futhark makes
  // them distinct size parameters).
  CHECK(ok("def f [n] (xs: [n]i32) (ys: []i32) = zip xs ys"));
}

TEST_CASE("return types, ascriptions and annotated lets") {
  CHECK(sizes_error("def f [n][m] (xs: [n]i32) (_: [m]i32) : [m]i32 = xs"));
  CHECK(ok("def f [n][m] (xs: [n]i32) (_: [m]i32) : [n]i32 = xs"));
  CHECK(sizes_error("def f [n][m] (xs: [n]i32) (_: [m]i32) = xs : [m]i32"));
  CHECK(sizes_error("def f [n][m] (xs: [n]i32) (_: [m]i32) = let (ys: [m]i32) = xs in ys"));
  CHECK(ok("def f [n][m] (xs: [n]i32) (_: [m]i32) = let (ys: [m]i32) = xs :> [m]i32 in ys"));
  CHECK(sizes_error("def f (k: i64) : [3]i64 = iota k"));
  CHECK(ok("def f (k: i64) : [k]i64 = iota k"));
  CHECK(sizes_error("def f : [2]i32 = [1, 2, 3]"));
  CHECK(sizes_error("def f [n] (xs: [n]i32) = (\\(ys: [n]i32) : [3]i32 -> ys) xs"));
}

TEST_CASE("lenient where sizes may legitimately differ") {
  // Branches may differ in size (the result's size is unknown).
  CHECK(ok("def f [n][m] (b: bool) (xs: [n]i32) (ys: [m]i32) = if b then xs else ys"));
  CHECK(ok("def f [n][m] (xs: [n]i32) (ys: [m]i32) = [xs, ys]"));
  // A local function is used at different sizes.
  CHECK(ok("def f [n][m] (xs: [n]i32) (ys: [m]i32) = let g zs = map (+ 1) zs in (g xs, g ys)"));
  CHECK(ok("def f [n][m] (xs: [n]i32) (ys: [m]i32) = let g [k] (zs: [k]i32) = zs in (g xs, g ys)"));
  // let [k] binds k from the value.
  CHECK(ok("def f [n] (xs: [n]i32) = let [k] (ys: [k]i32) = xs in zip xs ys"));
  // A size whose variable went out of scope may be anything.
  CHECK(ok("def f [n] (xs: [n]i32) = zip xs (let k = n in replicate k 0i32)"));
  // Loop-carried arrays may change size.
  CHECK(ok("def f [n] (xs: [n]i32) = loop ys = xs for i < 3 do ys ++ ys"));
}

TEST_CASE("sealed abstract types are opaque") {
  const char* m = "module M : { type t val mk : i32 -> t val get : t -> i32 } = "
                  "{ type t = i32 def mk (x: i32) = x def get (x: t) = x }\n";
  CHECK(!ok(std::string(m) + "def f = M.mk 1 + 1"));
  CHECK(ok(std::string(m) + "def f = M.get (M.mk 1) + 1"));
  CHECK(!ok(std::string(m) + "def f : i32 = M.mk 1"));
  // `with` keeps the type transparent.
  CHECK(ok("module type S = { type t val mk : i32 -> t }\n"
           "module M : S with t = i32 = { type t = i32 def mk (x: i32) = x }\n"
           "def f = M.mk 1 + 1"));
  // Without ascription everything stays visible.
  CHECK(ok("module M = { type t = i32 def mk (x: i32) : t = x }\ndef f = M.mk 1 + 1"));
}

TEST_CASE("size parameters and existential sizes must be usable") {
  CHECK(error_message("def f [n] (x: i32) : i32 = x") == "Size [n] unused in pattern.");
  // A size only in the return type comes from the context (`rep`).
  CHECK(ok("def f [n] (x: i32) : [n]i32 = replicate n x"));
  CHECK(ok("def f [n] (xs: [n]i32) : [n]i32 = xs"));
  CHECK(ok("def f [n] (g: [n]i32 -> i32) (xs: [n]i32) = g xs"));
  CHECK(error_message("def f (k: i64) : ?[n].bool -> [n]bool = \\b -> replicate k b")
            .find("Existential size \"n\" not used as array size.") == 0);
  CHECK(ok("def f (k: i64) : ?[n].[n]bool = replicate k true"));
  CHECK(ok("def f (k: i64) : ?[n].([n](), bool -> [n]bool) = (replicate k (), \\b -> replicate k b)"));
}

TEST_CASE("named parameters are substituted without capture") {
  // u3's parameters are called n, m, l; the caller's l and k must not be
  // renamed by them (this made the prelude's unflatten_4d fail).
  const char* u3 = "def u3 't (n: i64) (m: i64) (l: i64) (x: t) : [n][m][l]t = "
                   "replicate n (replicate m (replicate l x))\n";
  CHECK(ok(std::string(u3) + "def g 't (l: i64) (k: i64) (x: t) : [2][l][k]t = u3 2 l k x"));
  CHECK(ok(std::string(u3) + "def g 't (n: i64) (l: i64) (k: i64) (x: t) : [n][l][k]t = u3 n l k x"));
  CHECK(sizes_error(std::string(u3) + "def g 't (l: i64) (k: i64) (x: t) : [2][k][l]t = u3 2 l k x"));
}

TEST_CASE("size expressions compared structurally") {
  // n + 1 and n + 2 certainly differ; n + 1 and 1 + n are one size.
  CHECK(error_message("def k (n: i64) = zip (iota (n + 1)) (iota (n + 2))").find("Sizes \"n + 1\" and \"n + 2\" do not match.") !=
        std::string::npos);
  CHECK(ok("def k (n: i64) = zip (iota (n + 1)) (iota (1 + n))"));
  CHECK(ok("def k (n: i64) = zip (iota (n * 2)) (iota (n + n))"));
  CHECK(sizes_error("def f [n] (a: [n - 1]i32) (b: [n]i32) = map2 (+) a b"));
  CHECK(ok("def f [n] (a: [n + 1 - 1]i32) (b: [n]i32) = map2 (+) a b"));
  // Different names may be equal at run time.
  CHECK(ok("def k (n: i64) (m: i64) = zip (iota (n + 1)) (iota (m + 2))"));
  CHECK(ok("def k (n: i64) (m: i64) = zip (iota (n * m)) (iota (n * n))"));
  // A named parameter's argument expression is substituted into the result.
  CHECK(sizes_error("def f (n: i64) : [n + 1]i64 = iota (n + 1)\ndef g (k: i64) = zip (f (k + 1)) (iota (k + 1))"));
  CHECK(ok("def f (n: i64) : [n + 1]i64 = iota (n + 1)\ndef g (k: i64) = zip (f (k + 1)) (iota (k + 2))"));
  CHECK(ok("def f (n: i64) : [n + 1]i64 = iota (n + 1)\ndef g (k: i64) = zip (f k) (iota (k + 1))"));
  // Top-level and loose names are never compared.
  CHECK(ok("def n = 3i64\ndef k = zip (iota (n + 1)) (iota (n + 2))"));
  CHECK(ok("def k [n] (xs: [n]i32) = let [m] (ys: [m]i32) = filter (> 0) xs in zip (iota (m + 1)) (iota (m + 2))"));
}

TEST_CASE("names in size expressions are i64") {
  CHECK(ok("def g n m (_: [n + m]i32) = n + m\ndef h : i64 = g 2 3 [1, 2, 3, 4, 5]"));
  CHECK(ok("def g n (_: [n * 2]i32) : i64 = n"));
}

TEST_CASE("abbreviation sizes and sizes of tuple parameters") {
  CHECK(error_message("type^ t = []bool -> bool").find("anonymous size not used constructively") != std::string::npos);
  CHECK(ok("type^ t [n] = [n]bool -> bool"));
  CHECK(ok("type~ t = [](i32, i32)"));
  // A non-lifted abbreviation may not hide a size (Futhark's checkTypeBind).
  CHECK(error_message("type t = [](i32, i32)").find("may not use existential sizes") != std::string::npos);
  CHECK(error_message("def f (x: i64, _: bool) : [0][x]i32 = []").find("\"x\"") != std::string::npos);
  CHECK(error_message("def f (x: i64, y: i64) (a: [x]bool) = true").find("\"x\"") != std::string::npos);
  CHECK(ok("def f (x: i64) (y: i64) (a: [x]bool) = true"));
  CHECK(ok("def f (n: i64, xs: [n]i32) = xs"));
  // `square []` is one size n used twice.
  CHECK(sizes_error("type square [n] 't = [n][n]t\ndef f (n: i64) : square [] i64 = map (\\_ -> iota (n + 2)) (iota (n + 1))"));
  CHECK(ok("type square [n] 't = [n][n]t\ndef f (n: i64) : square [] i64 = map (\\_ -> iota (n + 1)) (iota (n + 1))"));
}

TEST_CASE("causality: an existential size needed before it is computed") {
  auto causality = [](const std::string& prog) {
    return error_message(prog).find("Causality check: size") != std::string::npos;
  };
  const std::string f = "def f [n] (_: [n]i32 -> i32) : [n]i32 -> i64 = let m = n + 1 in \\_ -> m\n";
  // `f (\_ -> 0)` runs before `filter`, whose size it needs.
  CHECK(causality(f + "def main (xs: []i32) = f (\\_ -> 0) <| filter (> 0) xs"));
  CHECK(error_message(f + "def main (xs: []i32) = f (\\_ -> 0) <| filter (> 0) xs").find("is computed at") !=
        std::string::npos);
  // Bound first, or passed as an argument (arguments are evaluated first).
  CHECK(ok(f + "def main (xs: []i32) = let ys = filter (> 0) xs in f (\\_ -> 0) <| ys"));
  CHECK(ok(f + "def main (xs: []i32) = f (\\_ -> 0) (filter (> 0) xs)"));
  // A constructor whose type needs the other branch's size.
  const std::string opt = "type option 'a = #None | #Some a\n";
  CHECK(causality(opt + "def gen (k: i64) : ?[n].[n]i32 = let (n, _) = (k, true) in replicate n 0i32\n"
                        "def main (b: bool) : option ([]i32) = if b then #None else #Some (gen 2)"));
  CHECK(causality(opt + "def main (b: bool) (xs: []i32) : option ([]i32) = if b then #None else #Some (filter (> 0) xs)"));
  CHECK(ok(opt + "def main (b: bool) (xs: []i32) : option ([]i32) = let ys = filter (> 0) xs in if b then #None else #Some ys"));
  // A loop body's new size is not needed by the loop parameter before.
  CHECK(ok("def main (xs: []i32) (n: i32) : []i32 = loop (xs) for i < n do xs ++ xs"));
  CHECK(ok("def g [n] 'a 'b (h: a -> []b) (as: [n]a) : []b = loop acc = [] for a in as do acc ++ h a"));
  // thorn's prelude writes `[]` where Futhark knows the size (drop: [n - i]).
  CHECK(ok("def drop [n] 't (i: i64) (x: [n]t): []t = x[i:]\n"
           "def main (xs: []i32) (j: i64) = map (\\k -> (xs[j], k)) <| drop (j + 1) xs"));
}

TEST_CASE("existential size in a function parameter of an application's result") {
  auto existential = [](const std::string& prog) {
    return error_message(prog).find("Existential size would appear in function parameter of return type") !=
           std::string::npos;
  };
  const std::string uncurry = "def uncurry '^a '^b '^c (f: a -> b -> c) (a: a, b: b): c = f a b\n";
  CHECK(existential(uncurry + "def f (n: i64) (m: i64) (b: [n][m]bool) = b[0, 0]\ndef g = uncurry f"));
  // Produced by the result as well: the caller gets the array to pass.
  CHECK(ok(uncurry + "def f (n: i64) (m: i64) : ([n][m]i32, [n][m]i32 -> i32) = "
                     "(replicate n (replicate m 0), \\b -> b[0, 0])\ndef g = uncurry f"));
  const std::string compose = "def compose '^a '^b '^c (f: a -> b) (g: b -> c) (x: a) : c = g (f x)\n";
  CHECK(existential(compose + "def h = compose iota"));
  CHECK(error_message(compose + "def h = compose iota").find("Cannot apply \"compose\" to \"iota\"") !=
        std::string::npos);
  // Only in results: fine.
  CHECK(ok("def f (n: i64) = n |> iota"));
  CHECK(ok(compose + "def h = compose (\\(x: i64) -> x + 1) iota"));
}

TEST_CASE("size parameters instantiated with sizes that are no polynomial") {
  // `/`, `**` and applications unify operator for operator (Futhark's
  // unifySizes); the instantiation keeps their syntax for the evaluator.
  Session s;
  Program& p = s.decls(R"(
def two [n] [m] (xs: [n * m]i32) : i64 = n + m
def f (k: i64) (xs: [(k / 2) * (2 ** k)]i32) = two xs
def g (k: i32) (xs: [i64.i32 k * 3]i32) = two xs
)");
  auto uses = uses_of(p, "two");
  REQUIRE(uses.size() == 2);
  auto text = [](const Expr* e, const std::string& name) -> std::string {
    for (const auto& [n, d] : e->size_args)
      if (n == name) {
        if (d.kind == Dim::Kind::Constant) return std::to_string(d.value);
        return d.formula ? d.formula->text + (d.formula->syntax ? " (syntax)" : "") : "?";
      }
    return "none";
  };
  CHECK(text(uses[0], "n") == "k / 2 (syntax)");
  CHECK(text(uses[0], "m") == "2 ** k (syntax)");
  CHECK(text(uses[1], "n") == "i64.i32 k (syntax)");
  CHECK(text(uses[1], "m") == "3");
}
