#pragma once
// Test blocks of Futhark programs, as `futhark test` reads them
// (Futhark.Test.Spec). A block is a comment starting at a line `-- ==` and
// running over the following `--` lines:
//
//   -- ==
//   -- tags { disable }                 (first block only)
//   -- entry: add sub                   (default: main)
//   -- "name" compiled input { [1, 2] 3i64 } output { 6 }
//   -- input @ data/big.in.gz  auto output
//   -- random input { [1000]i32 [10][20]f32 }  output @ expected.out
//   -- input { [1] 5i64 } error: index out of bounds
//
// or, as the whole first block, `error: REGEX`: the program must fail to
// type-check with a message matching REGEX. Values are kept as text with
// their position in the file: they are read later, guided by the entry
// point's parameter and result types.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "interp/core/value_io.hpp"
#include "interp/util/source.hpp"

namespace thorn::cli {

// Values written in a block, with where they start in the program file.
struct ValuesText {
  std::string text;  // the block's text with the "--" prefixes blanked out
  uint32_t line = 1;
  uint32_t col = 1;
};

// One value of a `random input { ... }` block: a type to generate or a
// fixed primitive value (`10i64`).
struct GenValue {
  std::string text;          // as written: "[100]i32", "10i64"
  std::optional<ValueType> type;  // a type to generate
  std::optional<Value> fixed;     // or this value
};

struct TestInput {
  enum class Kind { Values, File, Random, Script };
  Kind kind = Kind::Values;
  ValuesText values;             // Values (and Script: the expression text)
  std::string file;              // File (relative to the program's directory)
  std::vector<GenValue> random;  // Random
};

struct ExpectedResult {
  enum class Kind { Success, Values, File, Auto, Error };
  Kind kind = Kind::Success;     // Success: must run, output unchecked
  ValuesText values;             // Values
  std::string file;              // File
  std::string error_regex;       // Error; empty: any error
};

struct TestRun {
  std::string name;  // quoted name, or generated like Futhark: #0 ("1i32 [2i32]")
  std::vector<std::string> tags;  // compiled, nobench, random, script, no_..., ...
  TestInput input;
  ExpectedResult expected;
  uint32_t line = 0;  // of the input keyword
};

struct InputOutputs {
  std::vector<std::string> entries;  // "main" unless `entry:` says otherwise
  std::vector<TestRun> runs;
};

struct ProgramTest {
  std::vector<std::string> tags;              // the first block's `tags { ... }`
  bool expects_compile_error = false;         // the first block is `error: REGEX`
  std::string compile_error_regex;            // empty: any error
  std::vector<InputOutputs> cases;
  int structure_tests = 0;  // parsed and ignored: they test Futhark's compiler pipeline
  int warning_tests = 0;
  std::vector<std::string> properties;        // `property:` entries (not run yet)

  bool has_tag(const std::string& tag) const;
};

// The test blocks of a program (nullopt when it has none). Malformed blocks
// throw Error(ErrorKind::Syntax) pointing into the file.
std::optional<ProgramTest> parse_test_spec(const SourceFile* file);

}  // namespace thorn::cli
