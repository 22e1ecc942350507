#include "interp/cli/commands.hpp"

#include <fmt/format.h>

namespace thorn::cli {

// Kept in step with project(thorn VERSION ...) in CMakeLists.txt.
constexpr const char* kVersion = "0.1.0";

std::string version_line() { return fmt::format("thorn {}", kVersion); }

const std::vector<CommandInfo>& commands() {
  static const std::vector<CommandInfo> table{
      {"run", cmd_run, "run an entry point with arguments from standard input"},
      {"repl", cmd_repl, "start an interactive session"},
      {"test", cmd_test, "run the test blocks (-- ==) of programs"},
      {"literate", cmd_literate, "run a program's directives and write it as Markdown, with pictures"},
      {"check", cmd_check, "parse and type-check programs"},
      {"dataset", cmd_dataset, "generate random values or convert between value formats"},
      {"bench", cmd_bench, "benchmark the datasets of test blocks"},
  };
  return table;
}

}  // namespace thorn::cli
