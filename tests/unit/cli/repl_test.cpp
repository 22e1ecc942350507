// thorn repl end to end on the real Session: printing, declarations,
// continuation lines, commands, and errors that do not end the session.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "interp/cli/repl.hpp"

using namespace thorn::cli;

namespace {

struct Captured {
  std::string out, err;
};

// Runs a REPL over `input`, capturing what it prints.
Captured run_repl(const std::string& input) {
  std::istringstream in(input);
  std::ostringstream out, err;
  auto* old_out = std::cout.rdbuf(out.rdbuf());
  auto* old_err = std::cerr.rdbuf(err.rdbuf());
  try {
    Repl repl(CommonOptions{}, in);
    repl.run(std::nullopt);
  } catch (...) {
    std::cout.rdbuf(old_out);
    std::cerr.rdbuf(old_err);
    throw;
  }
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old_err);
  return {out.str(), err.str()};
}

}  // namespace

TEST_CASE("expressions print like futhark repl, declarations join the session") {
  Captured c = run_repl("1 + 2\ndef sq (x: i32) = x * x\nmap sq [1, 2, 3]\n(1, true)\n");
  CHECK(c.out == "3\n[1, 4, 9]\n(1,\n true)\n");
  CHECK(c.err.empty());
}

TEST_CASE("incomplete input continues on the next lines") {
  Captured c = run_repl("def xs = [1,\n  2,\n  3]\nreduce (+) 0 xs +\n  1\nreduce (+) 0\n");
  CHECK(c.out == "7\n#<fun>\n");  // a complete line is not continued
  CHECK(c.err.empty());
}

TEST_CASE("errors are reported and the session goes on") {
  Captured c = run_repl("1 + true\nundefined_name\n[1,\n\n2 + 2\n");
  CHECK(c.out == "4\n");
  CHECK(c.err.find("[0]:1:5: type error") != std::string::npos);
  CHECK(c.err.find("[1]:1:1:") != std::string::npos);
  CHECK(c.err.find("unexpected end of input") != std::string::npos);  // a blank line gives up on "[1,"
}

TEST_CASE("commands") {
  Captured c = run_repl(":t [1, 2]\n:type 1.0f32\n:nonsense\n:plan 1\n:backend bogus\n:time 2 * 21\n:quit\n7\n");
  CHECK(c.out.find("[1, 2] : [2]i32") == 0);
  CHECK(c.out.find("1.0f32 : f32\n") != std::string::npos);
  CHECK(c.out.find("Unknown command ':nonsense'") != std::string::npos);
  CHECK(c.out.find("No SOAC nest was flattened") != std::string::npos);  // `:plan 1`
  CHECK(c.out.find("Unknown backend 'bogus'") != std::string::npos);
  CHECK(c.out.find("42\nTime: ") != std::string::npos);
  CHECK(c.out.find("\n7\n") == std::string::npos);  // nothing runs after :quit
}

TEST_CASE(":plan prints the segmented plans at the user's call site, then the value; :kernels answers") {
  Captured c = run_repl(":backend host\n:plan reduce (+) 0 (map (*2) (iota 1000))\n:kernels\n");
  CHECK(c.out.find("SegRed [1][1000]") != std::string::npos);
  CHECK(c.out.find("plan at [") != std::string::npos);
  CHECK(c.out.find("prelude") == std::string::npos);  // locations are the input's, not soacs.fut's
  CHECK(c.out.find("999000\n") != std::string::npos);
  bool gpu_line = c.out.find("no GPU: ") != std::string::npos || c.out.find("kernel") != std::string::npos;
  CHECK(gpu_line);
}

TEST_CASE("a command line ends an incomplete input and then runs") {
  Captured c = run_repl("(1 +\n:type 2\n");
  CHECK(c.out == "2 : i32\n");
  CHECK(c.err.find("unexpected end of input") != std::string::npos);
}

TEST_CASE(":load replaces the session; :backend keeps the definitions") {
  std::string path = (std::filesystem::temp_directory_path() / "thorn_repl_test_prog.fut").string();
  std::ofstream(path) << "def triple (x: i32) = 3 * x\n";
  Captured c = run_repl("def mine = 5\n:load " + path + "\ntriple 2\nmine\n:backend reference\ntriple 3\n");
  std::remove(path.c_str());
  CHECK(c.out.find("Loading " + path + "\n6\n") != std::string::npos);
  CHECK(c.err.find("mine") != std::string::npos);  // gone after :load
  CHECK(c.out.find("Backend: reference") != std::string::npos);
  CHECK(c.out.find("\n9\n") != std::string::npos);
}
