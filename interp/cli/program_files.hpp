#pragma once
// What `thorn test` and `thorn bench` share about their inputs and reports:
// the .fut programs named by files and directories, and JSON string quoting.
#include <string>
#include <vector>

namespace thorn::cli {

// The programs named by `paths`: files as given, directories searched
// recursively for *.fut (sorted). A path that does not exist is a usage error.
std::vector<std::string> find_programs(const std::vector<std::string>& paths);

// `s` as a JSON string literal, quotes included.
std::string json_string(const std::string& s);

}  // namespace thorn::cli
