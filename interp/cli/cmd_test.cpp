// thorn test: runs the `-- ==` test blocks of Futhark programs, compatible
// with `futhark test`. Prints one line per failing case and a summary;
// exits with status 1 if any case failed.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "interp/cli/commands.hpp"
#include "interp/cli/program_files.hpp"
#include "interp/cli/test_runner.hpp"
#include "interp/util/error.hpp"

namespace thorn::cli {

namespace {

constexpr const char* kHelp =
    "Usage: thorn test [options...] PATH...\n"
    "\n"
    "Run the test blocks (`-- ==`) of Futhark programs, as `futhark test` does: each\n"
    "PATH is a .fut file or a directory searched recursively for .fut files. Cases\n"
    "marked `compiled` run too; `disable`, `notest` and `no_BACKEND` ones are skipped.\n"
    "Results are compared like futhark test does: integers exactly, floats within a\n"
    "relative tolerance, NaN equal to NaN.\n"
    "\n"
    "  --json FILE           also write the results of every case to FILE as JSON\n"
    "  --tolerance X         relative float tolerance (default 0.002)\n"
    "  -v, --verbose         print every case, and failures in full\n";

const char* status_name(CaseResult::Status s) {
  switch (s) {
    case CaseResult::Status::Passed: return "passed";
    case CaseResult::Status::Failed: return "failed";
    case CaseResult::Status::Skipped: return "skipped";
  }
  return "?";
}

void write_json(const std::string& path, const std::vector<CaseResult>& results, const std::string& backend,
                int passed, int failed, int skipped) {
  std::ofstream out(path);
  if (!out) throw Error(ErrorKind::Usage, fmt::format("cannot write {}", path));
  out << fmt::format("{{\"backend\": {}, \"passed\": {}, \"failed\": {}, \"skipped\": {}, \"cases\": [",
                     json_string(backend), passed, failed, skipped);
  for (size_t k = 0; k < results.size(); ++k) {
    const CaseResult& r = results[k];
    out << (k ? ",\n  " : "\n  ")
        << fmt::format("{{\"file\": {}, \"entry\": {}, \"dataset\": {}, \"status\": \"{}\", \"seconds\": {:.6f}, "
                       "\"message\": {}}}",
                       json_string(r.file), json_string(r.entry), json_string(r.dataset), status_name(r.status),
                       r.seconds, json_string(r.message));
  }
  out << "\n]}\n";
}

// "prog.fut main #0 ("[1i32]")" or just "prog.fut".
std::string case_label(const CaseResult& r) {
  std::string label = r.file;
  if (!r.entry.empty()) label += " " + r.entry;
  if (!r.dataset.empty()) label += " " + r.dataset;
  return label;
}

}  // namespace

int cmd_test(const Args& args_in) {
  ArgScanner args("test", args_in);
  TestOptions options;
  std::string json;
  bool verbose = false;
  std::vector<std::string> paths;
  while (args.next()) {
    if (args.is("-h", "--help")) {
      std::cout << kHelp << kCommonOptionsHelp;
      return 0;
    } else if (args.is("", "--json")) {
      json = args.value();
    } else if (args.is("", "--tolerance")) {
      std::string v = args.value();
      try {
        size_t used = 0;
        options.tolerance = std::stod(v, &used);
        if (used != v.size() || options.tolerance < 0) throw std::invalid_argument(v);
      } catch (const std::exception&) {
        args.fail(fmt::format("'{}' is not a tolerance", v));
      }
    } else if (args.is("-v", "--verbose")) {
      args.no_value();
      verbose = true;
    } else if (args.is("-i", "") || args.is("-c", "")) {
      args.no_value();  // futhark test's interpreter/compiled switches: thorn always interprets
    } else if (take_common_option(args, options.common)) {
    } else if (args.positional()) {
      paths.push_back(args.arg());
    } else {
      args.unknown();
    }
  }
  if (paths.empty()) args.fail("expects at least one file or directory");

  resolve_backend(options.common);
  std::vector<CaseResult> all;
  int passed = 0, failed = 0, skipped = 0;
  for (const std::string& file : find_programs(paths)) {
    for (CaseResult& r : run_program_tests(file, options)) {
      switch (r.status) {
        case CaseResult::Status::Passed:
          ++passed;
          if (verbose) std::cout << fmt::format("passed {} ({:.3f} s)\n", case_label(r), r.seconds);
          break;
        case CaseResult::Status::Skipped:
          ++skipped;
          if (verbose) std::cout << fmt::format("skipped {}: {}\n", case_label(r), r.message);
          break;
        case CaseResult::Status::Failed: {
          ++failed;
          // One line per failure; the whole message with -v.
          std::string message = verbose ? r.message : r.message.substr(0, r.message.find('\n'));
          std::cout << fmt::format("FAILED {}: {}\n", case_label(r), message);
          break;
        }
      }
      std::cout.flush();
      all.push_back(std::move(r));
    }
  }
  std::cout << fmt::format("{} passed, {} failed, {} skipped\n", passed, failed, skipped);
  if (!json.empty()) write_json(json, all, options.common.backend, passed, failed, skipped);
  return failed > 0 ? 1 : 0;
}

}  // namespace thorn::cli
