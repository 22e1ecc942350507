#pragma once
// Running the test blocks of one program (thorn test), as `futhark test`
// does: each dataset's input is passed to each entry point of its block and
// the results compared with the expected output (integers exactly, floats
// within a tolerance), or the expected error matched by a regex.
#include <string>
#include <vector>

#include "interp/cli/data_file.hpp"
#include "interp/cli/session_setup.hpp"
#include "interp/cli/test_spec.hpp"
#include "interp/core/value_compare.hpp"

namespace thorn::cli {

struct CaseResult {
  enum class Status { Passed, Failed, Skipped };
  std::string file;
  std::string entry;    // empty for whole-program results (load failures, type-error tests)
  std::string dataset;
  Status status = Status::Passed;
  std::string message;  // why it failed or was skipped (may be several lines)
  double seconds = 0;
};

struct TestOptions {
  CommonOptions common;
  double tolerance = kDefaultTolerance;
};

// Runs every test of the program at `path`. A program without test blocks
// gives no results.
std::vector<CaseResult> run_program_tests(const std::string& path, const TestOptions& options);

// Does `regex` (POSIX extended, as Futhark's regex-tdfa) occur in `text`?
// An empty regex matches anything.
bool error_matches(const std::string& regex, const std::string& text);

}  // namespace thorn::cli
