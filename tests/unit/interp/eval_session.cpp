// Session behaviour the CLI relies on: REPL inputs, failures leaving the
// session unchanged, loading and reloading files with imports, entry points.
#include "eval_test_util.hpp"

#include <filesystem>

using thorn::Session;
using thorn::test::eval_error;

TEST_CASE("REPL declarations join the session; expressions are evaluated") {
  Session s;
  Session::Outcome o = s.eval_input("def x = 40", "[1]");
  CHECK_FALSE(o.is_expression);
  CHECK(o.defined == std::vector<std::string>{"x"});
  o = s.eval_input("let y = x + 1", "[2]");
  o = s.eval_input("x + y", "[3]");
  CHECK(o.is_expression);
  CHECK(thorn::format_value(o.value, o.type) == "81i32");
  CHECK(thorn::to_string(*o.type) == "i32");
  // Later redefinitions do not change earlier closures (lexical scope).
  s.eval_input("def f (a: i32) = a + x", "[4]");
  s.eval_input("def x = 0", "[5]");
  o = s.eval_input("f 1", "[6]");
  CHECK(thorn::format_value(o.value, o.type) == "41i32");
}

TEST_CASE("a failing input leaves the session unchanged") {
  Session s;
  s.eval_input("def a = 1i32", "[1]");
  CHECK(eval_error(s, "def b = a + true") != "");  // type error
  CHECK(eval_error(s, "b") != "");                  // b was not defined
  CHECK(eval_error(s, "def c = [1][2]") == "Index [2] out of bounds for array of shape [1].");
  CHECK(eval_error(s, "c") != "");
  CHECK(eval_error(s, "def d = 1 def e = [1][5]") != "");
  CHECK(eval_error(s, "d") != "");                  // all or nothing
  Session::Outcome o = s.eval_input("a + 1", "[2]");
  CHECK(thorn::format_value(o.value, o.type) == "2i32");
}

TEST_CASE("type_of does not evaluate") {
  Session s;
  CHECK(thorn::to_string(*s.type_of("1 / 0")) == "i32");
  CHECK(thorn::to_string(*s.type_of("map (+1) [1.0]")) == "[1]f64");
}

TEST_CASE("load_file with imports, reload, entries and calls") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "thorn_session_test";
  fs::create_directories(dir / "lib");
  std::ofstream(dir / "lib" / "util.fut") << "def double (x: i32) = x * 2\nlocal def secret = 1i32\n";
  std::ofstream(dir / "lib" / "more.fut") << "import \"util\"\ndef quad (x: i32) = double (double x)\n";
  std::ofstream(dir / "main.fut") << "import \"lib/util\"\nimport \"lib/more\"\n"
                                     "entry main (x: i32) : (i32, i32) = (double x, quad x)\n"
                                     "def helper = 3i32\n";
  Session s;
  s.load_file((dir / "main.fut").string());
  CHECK(s.entry_names() == std::vector<std::string>{"main"});
  auto e = s.entry("main");
  REQUIRE(e);
  CHECK(e->params.size() == 1);
  CHECK(e->results.size() == 2);
  std::vector<thorn::Value> out = s.call("main", {thorn::Value(thorn::Scalar::i32(5))});
  REQUIRE(out.size() == 2);
  CHECK(out[0].scalar.i == 10);
  CHECK(out[1].scalar.i == 20);
  CHECK(s.entry("helper"));
  CHECK_FALSE(s.entry("secret"));
  CHECK_FALSE(s.entry("nope"));

  // The REPL sees the program's names.
  Session::Outcome o = s.eval_input("helper + double 1", "[r]");
  CHECK(thorn::format_value(o.value, o.type) == "5i32");

  // Reload picks up changes; a broken file leaves the old program in place.
  std::ofstream(dir / "main.fut") << "entry main (x: i32) : i32 = x + 100\n";
  s.reload();
  out = s.call("main", {thorn::Value(thorn::Scalar::i32(5))});
  CHECK(out[0].scalar.i == 105);
  std::ofstream(dir / "main.fut") << "entry main (x: i32) : i32 = x +\n";
  CHECK_THROWS_AS(s.reload(), thorn::Error);
  out = s.call("main", {thorn::Value(thorn::Scalar::i32(5))});
  CHECK(out[0].scalar.i == 105);

  std::ofstream(dir / "cyc_a.fut") << "import \"cyc_b\"\n";
  std::ofstream(dir / "cyc_b.fut") << "import \"cyc_a\"\n";
  CHECK_THROWS_AS(s.load_file((dir / "cyc_a.fut").string()), thorn::Error);
  CHECK_THROWS_AS(s.load_file((dir / "missing.fut").string()), thorn::Error);
}

TEST_CASE("deep nesting and long let chains evaluate") {
  Session s;
  std::string e = "1";
  for (int i = 0; i < 150; ++i) e = "(" + e + " + 1)";
  Session::Outcome o = s.eval_input(e, "[deep]");
  CHECK(thorn::format_value(o.value, o.type) == "151i32");
  std::string lets = "id (let x0 = 0i32 ";
  for (int i = 1; i < 500; ++i) lets += "let x" + std::to_string(i) + " = x" + std::to_string(i - 1) + " + 1 ";
  lets += "in x499)";
  o = s.eval_input(lets, "[lets]");
  CHECK(thorn::format_value(o.value, o.type) == "499i32");
}

TEST_CASE("unavailable backends are refused") {
  thorn::SessionOptions opts;
  opts.backend = "no-such-backend";
  CHECK_THROWS_AS(Session{opts}, thorn::Error);
}
