// The evaluator's environments with checkpoint indexes (interp/eval/
// env_index.hpp): lookups through long chains of Local frames must give
// exactly what the frame-by-frame walk gives, for shadowing, closures that
// captured a chain half-way, module scopes in between and REPL
// redefinitions.
#include <fmt/format.h>

#include "eval_test_util.hpp"
#include "interp/eval/env.hpp"

using thorn::Value;
using namespace thorn::eval;

namespace {

Binding int_binding(int64_t v) {
  Binding b;
  b.value = Value(thorn::Scalar::signed_int(thorn::Prim::I64, v));
  return b;
}

// The plain walk the index must agree with.
const Binding* reference_lookup(const EnvPtr& env, const std::string& name) {
  for (const Env* e = env.get(); e; e = e->parent.get()) {
    if (e->ns) {
      auto it = e->ns->values.find(name);
      if (it != e->ns->values.end()) return &it->second;
      continue;
    }
    for (auto it = e->locals.rbegin(); it != e->locals.rend(); ++it)
      if (it->first == name) return &it->second;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("checkpoint indexes agree with the frame walk on every frame of long chains") {
  // A module scope at the root, a chain of 200 frames, a second scope in the
  // middle, names that are shadowed repeatedly (x, every 7th frame), names
  // bound twice in one frame (the later one wins), and names that exist
  // only in the scopes.
  auto root_ns = std::make_shared<Namespace>();
  root_ns->values.emplace("g", int_binding(-1));
  root_ns->values.emplace("x", int_binding(-2));
  EnvPtr env = extend_scope(nullptr, root_ns);
  std::vector<EnvPtr> chain;
  int checkpoints = 0;
  for (int k = 0; k < 200; ++k) {
    if (k == 100) {
      auto mid = std::make_shared<Namespace>();
      mid->values.emplace("m", int_binding(-3));
      mid->values.emplace("n3", int_binding(-4));  // shadows the chain's n3 below it
      env = extend_scope(env, mid);
    }
    std::vector<std::pair<std::string, Binding>> frame;
    frame.emplace_back(fmt::format("n{}", k), int_binding(k));
    if (k % 7 == 0) frame.emplace_back("x", int_binding(1000 + k));
    if (k % 11 == 0) {
      frame.emplace_back("d", int_binding(2000 + k));
      frame.emplace_back("d", int_binding(3000 + k));
    }
    env = extend(env, std::move(frame));
    if (env->index) ++checkpoints;
    chain.push_back(env);
  }
  CHECK(checkpoints > 10);
  std::vector<std::string> names = {"x", "g", "m", "d", "absent", "n3", "n0", "n99", "n100", "n150", "n199"};
  for (int k = 0; k < 200; k += 3) names.push_back(fmt::format("n{}", k));
  for (const EnvPtr& e : chain)
    for (const std::string& name : names) {
      const Binding* expected = reference_lookup(e, name);
      const Binding* got = lookup_value(e, std::string_view(name));
      CHECK_MESSAGE(got == expected, name);
    }
  // Spot checks of what the walk means.
  CHECK(lookup_value(chain[199], std::string_view("x"))->value.scalar.i == 1000 + 196);
  CHECK(lookup_value(chain[120], std::string_view("n3"))->value.scalar.i == -4);
  CHECK(lookup_value(chain[99], std::string_view("n3"))->value.scalar.i == 3);
  CHECK(lookup_value(chain[150], std::string_view("d"))->value.scalar.i == 3000 + 143);
  CHECK(lookup_value(chain[5], std::string_view("x"))->value.scalar.i == 1000);
}

TEST_CASE("a chain forked half-way keeps both branches apart") {
  EnvPtr env;
  for (int k = 0; k < 40; ++k) env = extend(env, {{fmt::format("v{}", k), int_binding(k)}});
  EnvPtr a = env, b = env;
  for (int k = 0; k < 40; ++k) {
    a = extend(a, {{"y", int_binding(100 + k)}});
    b = extend(b, {{"y", int_binding(200 + k)}, {fmt::format("v{}", k), int_binding(-k)}});
  }
  CHECK(lookup_value(a, std::string_view("y"))->value.scalar.i == 139);
  CHECK(lookup_value(b, std::string_view("y"))->value.scalar.i == 239);
  CHECK(lookup_value(a, std::string_view("v5"))->value.scalar.i == 5);
  CHECK(lookup_value(b, std::string_view("v5"))->value.scalar.i == -5);
  CHECK(lookup_value(env, std::string_view("y")) == nullptr);
}

namespace {
// A let chain of `n` names in Futhark; every 5th rebinds x, and a closure
// captures the chain a third of the way in.
std::string long_chain_program(int n) {
  std::string s = "def x = 7i64\ndef chain (a: i64) : (i64, i64, i64) =\n";
  for (int k = 0; k < n; ++k) {
    s += fmt::format("  let v{} = a + {}{}\n", k, k, k > 0 ? fmt::format(" + v{}", k - 1) : "");
    if (k % 5 == 0) s += fmt::format("  let x = x + v{}\n", k);
    if (k == n / 3) s += "  let f = \\(y: i64) -> x * 1000 + y\n";
  }
  s += fmt::format("  in (x, f v{}, v{})\n", n - 1, n / 2);
  return s;
}

// The same computed in C++.
std::tuple<int64_t, int64_t, int64_t> long_chain_expected(int n, int64_t a) {
  int64_t x = 7, captured = 0, prev = 0;
  std::vector<int64_t> v(size_t(n), 0);
  for (int k = 0; k < n; ++k) {
    v[size_t(k)] = a + k + (k > 0 ? prev : 0);
    prev = v[size_t(k)];
    if (k % 5 == 0) x += v[size_t(k)];
    if (k == n / 3) captured = x;
  }
  return {x, captured * 1000 + v[size_t(n - 1)], v[size_t(n / 2)]};
}
}  // namespace

TEST_CASE("long let chains: shadowing and closures captured half-way") {
  thorn::Session s;
  thorn::test::load_program(s, long_chain_program(150), "env_chain");
  thorn::Session::Outcome o = s.eval_input("chain 3", "[test]");
  REQUIRE(o.is_expression);
  auto [x, fy, mid] = long_chain_expected(150, 3);
  CHECK(thorn::test::one_line(thorn::format_value(o.value, o.type)) == fmt::format("({}i64, {}i64, {}i64)", x, fy, mid));
}

TEST_CASE("REPL redefinitions stay lexical through long chains") {
  thorn::Session s;
  std::string def = "def g (a: i64) =\n";
  for (int k = 0; k < 30; ++k) def += fmt::format("  let w{} = a + {}\n", k, k);
  def += "  in w29 + k\n";
  s.eval_input("def k = 1i64", "[1]");
  s.eval_input(def, "[2]");
  s.eval_input("def k = 100i64", "[3]");
  // g captured the first k; a new g sees the new one.
  auto text = [&](const std::string& in) {
    thorn::Session::Outcome o = s.eval_input(in, "[test]");
    return thorn::test::one_line(thorn::format_value(o.value, o.type));
  };
  CHECK(text("g 0") == "30i64");
  s.eval_input(def, "[5]");
  CHECK(text("g 0") == "129i64");
}

TEST_CASE("in-place updates consume variables found through a checkpoint") {
  std::string e = "let xs = iota 4i64\n";
  for (int k = 0; k < 30; ++k) e += fmt::format("let u{} = {}i64\n", k, k);
  e += "let ys = xs with [1] = u29 in ys";
  CHECK(thorn::test::eval_text(e) == "[0i64, 29i64, 2i64, 3i64]");
}
