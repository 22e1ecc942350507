#pragma once
// The `thorn` commands, one file each (cmd_<name>.cpp). Each takes the
// arguments after its name and returns the process exit status:
//   0 success, 1 failure (errors printed on stderr), 2 usage error.
// Usage errors are thrown as Error(ErrorKind::Usage) and reported by main.
#include <string>
#include <vector>

namespace thorn::cli {

using Args = std::vector<std::string>;

int cmd_run(const Args& args);      // run an entry point on values from stdin
int cmd_check(const Args& args);    // parse and type-check
int cmd_repl(const Args& args);     // interactive session
int cmd_test(const Args& args);     // run `-- ==` test blocks
int cmd_dataset(const Args& args);  // generate or convert values
int cmd_bench(const Args& args);    // benchmarks (not written yet)
int cmd_literate(const Args& args); // Markdown with directives' results (futhark literate)

// Short descriptions for `thorn --help`.
struct CommandInfo {
  const char* name;
  int (*run)(const Args&);
  const char* summary;
};
const std::vector<CommandInfo>& commands();

// "thorn 0.1.0".
std::string version_line();

}  // namespace thorn::cli
