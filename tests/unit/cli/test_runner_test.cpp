// Pieces of `thorn test` and `thorn run` that need no evaluator: data files
// (plain and gzipped), expected-error regexes, entry point discovery.
#include <doctest/doctest.h>

#include <zlib.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "interp/cli/entry_points.hpp"
#include "interp/cli/futhark_script.hpp"
#include "interp/cli/test_runner.hpp"
#include "interp/util/error.hpp"

using namespace thorn;
using namespace thorn::cli;

namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("thorn_unit_" + std::to_string(::getpid()) + "_" + name)).string();
}

}  // namespace

TEST_CASE("data files, plain and gzipped") {
  std::string payload = "[1, 2, 3] ";
  payload += binary_value(Scalar::i64(7));

  std::string plain = temp_path("data.in");
  std::ofstream(plain, std::ios::binary) << payload;
  CHECK(read_data_file(plain) == payload);

  std::string gz = temp_path("data.in.gz");
  gzFile f = gzopen(gz.c_str(), "wb");
  REQUIRE(f);
  gzwrite(f, payload.data(), unsigned(payload.size()));
  gzclose(f);
  std::string back = read_data_file(gz);
  CHECK(back == payload);
  ValueReader r(back);
  CHECK(r.read_any("v").second.str() == "[3]i32");
  CHECK(r.read_any("v").first.scalar.i == 7);

  std::remove(plain.c_str());
  std::remove(gz.c_str());
  CHECK_THROWS_WITH_AS(read_data_file(temp_path("missing.in")), doctest::Contains("cannot read data file"), Error);
}

TEST_CASE("expected errors are POSIX extended regexes searched in the message") {
  CHECK(error_matches("", "anything"));
  CHECK(error_matches("out of bounds", "Index [5] out of bounds for array of shape [3]."));
  CHECK(error_matches("Error*", "Error: division by zero"));  // futhark's own example
  CHECK_FALSE(error_matches("Error*", "division by zero"));  // case matters
  CHECK(error_matches("[Ii]ndex \\[5\\]", "Index [5] out of bounds"));
  CHECK(error_matches("bounds|zero", "division by zero"));
  CHECK_FALSE(error_matches("^zero", "division by zero"));
  CHECK_THROWS_AS(error_matches("(", "x"), Error);
}

TEST_CASE("entry points declared in a source file") {
  CHECK(declared_entry_points("def main (x: i32) = x\n") == std::vector<std::string>{"main"});
  CHECK(declared_entry_points("def f x = x\nentry add (x: i32) = x\n  entry sub' (x: i32) = x\n") ==
        std::vector<std::string>{"add", "sub'"});
  CHECK(declared_entry_points("let main = 1\nentry other = 2\n") == std::vector<std::string>{"main", "other"});
  CHECK(declared_entry_points("def maine = 1\n").empty());
}

TEST_CASE("FutharkScript builtins become literals: $loaddata and $loadbytes, relative to a directory") {
  std::string dir = temp_path("script_dir");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/two.in", std::ios::binary) << "[1i32, 2i32] " << binary_value(Scalar::i64(7));
  std::ofstream(dir + "/one.in", std::ios::binary) << "3.5f32";
  std::ofstream(dir + "/bytes.bin", std::ios::binary) << std::string("A\0\xff", 3);
  std::ofstream(dir + "/empty.bin", std::ios::binary);

  CHECK(script_to_futhark("f ($loaddata \"two.in\")", dir) == "f (([1i32, 2i32], 7i64))");
  CHECK(script_to_futhark("(2f32, $loaddata \"one.in\")", dir) == "(2f32, (3.5f32))");
  CHECK(script_to_futhark("g $loadbytes \"bytes.bin\"", dir) == "g [65u8,0u8,255u8]");
  CHECK(script_to_futhark("$loadbytes \"empty.bin\"", dir) == "([] : [0]u8)");
  CHECK(script_to_futhark("h empty([0]i32) \"$loaddata\"", dir) == "h ([] : [0]i32) \"$loaddata\"");  // strings stay
  CHECK_THROWS_WITH_AS(script_to_futhark("$loaddata \"missing.in\"", dir), doctest::Contains("cannot read data file"), Error);
  CHECK_THROWS_WITH_AS(script_to_futhark("$loadimg \"x.png\"", dir), doctest::Contains("$loadimg is not supported"), Error);
  CHECK_THROWS_WITH_AS(script_to_futhark("$loaddata x", dir), doctest::Contains("file name in double quotes"), Error);
  std::filesystem::remove_all(dir);
}
