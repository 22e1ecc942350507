// The commands run in-process: standard input, output and the exit status.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "interp/cli/commands.hpp"
#include "interp/core/value_io.hpp"
#include "interp/util/error.hpp"

using namespace thorn;
using namespace thorn::cli;

namespace {

struct Result {
  int status = -1;
  std::string out, err;
};

Result run(int (*command)(const Args&), Args args, const std::string& input = "") {
  std::istringstream in(input);
  std::ostringstream out, err;
  auto* old_in = std::cin.rdbuf(in.rdbuf());
  auto* old_out = std::cout.rdbuf(out.rdbuf());
  auto* old_err = std::cerr.rdbuf(err.rdbuf());
  Result r;
  try {
    r.status = command(args);
  } catch (const Error& e) {
    r.status = e.kind == ErrorKind::Usage ? 2 : 1;
    r.err = e.message;
  }
  std::cin.rdbuf(old_in);
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old_err);
  r.out = out.str();
  r.err += err.str();
  return r;
}

// A program file that lives for one test.
struct Program {
  explicit Program(const std::string& text) {
    static int counter = 0;
    path = (std::filesystem::temp_directory_path() /
            ("thorn_cmd_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + ".fut"))
               .string();
    std::ofstream(path) << text;
  }
  ~Program() { std::remove(path.c_str()); }
  std::string path;
};

const char* kProgram =
    "entry main (xs: []i32) (y: f32): ([]i32, f32) = (map (* 2) xs, y + 1)\n"
    "entry mat (n: i64): [n][n]i64 = tabulate_2d n n (\\i j -> i * n + j)\n"
    "entry none (b: bool): []f64 = if b then [] else [1.5]\n"
    "entry fail (x: i32): i32 = 10 / x\n";

}  // namespace

TEST_CASE("thorn run prints one result per line, like futhark run") {
  Program p(kProgram);
  Result r = run(cmd_run, {p.path}, "[1, 2, 3] 2");
  CHECK(r.status == 0);
  CHECK(r.out == "[2i32, 4i32, 6i32]\n3.0f32\n");
  CHECK(r.err.empty());

  r = run(cmd_run, {"-e", "mat", p.path}, "2i64");
  CHECK(r.out == "[[0i64, 1i64],\n [2i64, 3i64]]\n");
  r = run(cmd_run, {"--entry-point=none", p.path}, "true");
  CHECK(r.out == "empty([0]f64)\n");
}

TEST_CASE("thorn run reads binary input and writes binary output") {
  Program p(kProgram);
  std::string input = binary_value(ValueReader("[5, 6]").read_any("v").first) + " 0.5f32";
  Result r = run(cmd_run, {"-b", p.path}, input);
  CHECK(r.status == 0);
  ValueReader back(r.out);
  CHECK(back.read_any("v").second.str() == "[2]i32");
  CHECK(back.read_any("v").first.scalar.f == 1.5);
  CHECK(back.at_end());
}

TEST_CASE("thorn run errors: input, entry points, run time, usage") {
  Program p(kProgram);
  Result r = run(cmd_run, {p.path}, "[[1]] 2");
  CHECK(r.status == 1);
  CHECK(r.err.find("<stdin>:1:1: input error: argument 1: expected []i32, got [[1]]") == 0);

  r = run(cmd_run, {p.path}, "[1]");
  CHECK(r.status == 1);
  CHECK(r.err.find("entry point main takes 2 arguments, but the input has only 1") != std::string::npos);

  r = run(cmd_run, {"-e", "nope", p.path}, "");
  CHECK(r.status == 1);
  CHECK(r.err.find("no entry point named 'nope'; its entry points are: main, mat, none, fail") != std::string::npos);

  r = run(cmd_run, {"-e", "fail", p.path}, "0");
  CHECK(r.status == 1);
  CHECK(r.err.find("runtime error") != std::string::npos);
  CHECK(r.out.empty());

  CHECK(run(cmd_run, {}, "").status == 2);
  CHECK(run(cmd_run, {"--backend", "tpu", p.path}, "").status == 2);
  CHECK(run(cmd_run, {"--frobnicate", p.path}, "").status == 2);
  CHECK(run(cmd_run, {"--help"}).out.find("Usage: thorn run") == 0);
}

TEST_CASE("thorn check") {
  Program good(kProgram), bad("def f (x: i32): bool = x\n");
  CHECK(run(cmd_check, {good.path}).status == 0);
  Result r = run(cmd_check, {bad.path});
  CHECK(r.status == 1);
  CHECK(r.err.find("type error") != std::string::npos);
}

TEST_CASE("thorn dataset generates and converts") {
  Result r = run(cmd_dataset, {"--i32-bounds=0:0", "-g", "[2][3]i32", "-g", "7u8"});
  CHECK(r.status == 0);
  CHECK(r.out == "[[0i32, 0i32, 0i32],\n [0i32, 0i32, 0i32]]\n7u8\n");
  Result b = run(cmd_dataset, {"-b", "-g", "[4]f64"});
  Result t = run(cmd_dataset, {"--type"}, b.out);
  CHECK(t.out == "[4]f64\n");
  Result again = run(cmd_dataset, {"-b", "-g", "[4]f64"});
  CHECK(again.out == b.out);  // deterministic
  CHECK(run(cmd_dataset, {"-s", "2", "-b", "-g", "[4]f64"}).out != b.out);
  CHECK(run(cmd_dataset, {}, "1 [true] ").out == "1i32\n[true]\n");
  CHECK(run(cmd_dataset, {"-g", "[2](i32,i32)"}).status == 2);
}

TEST_CASE("thorn test runs blocks and summarises") {
  Program p(
      "-- ==\n"
      "-- input { [1, 2] 1.0f32 } output { [2, 4] 2.0f32 }\n"
      "-- input { [1] 0.0f32 } output { [3] 1.0f32 }\n"
      "-- input { [1] 0.0f32 } error: never\n"
      "-- compiled random input { [10]i32 f32 } auto output\n"
      "entry main (xs: []i32) (y: f32): ([]i32, f32) = (map (* 2) xs, y + 1)\n");
  Result r = run(cmd_test, {p.path});
  CHECK(r.status == 1);
  CHECK(r.out.find("FAILED " + p.path + " main #1 (\"[1i32] 0.0f32\"): value #0 index [0]: expected 3i32, got 2i32\n") !=
        std::string::npos);
  CHECK(r.out.find("expected an error matching /never/, but the program succeeded") != std::string::npos);
  CHECK(r.out.find("2 passed, 2 failed, 0 skipped\n") != std::string::npos);
}
