#pragma once
// Futhark's user parameters: `#[param(name)] e`, with e of type i64, is e
// unless a value for `name` is set, as a compiled Futhark program's
// `--param name=v` or tuning file (`prog.fut.tuning`, lines `name=v`) sets
// it; `futhark test` passes a program's tuning file when there is one, and
// so does `thorn test`. Non-i64 expressions keep their value (Futhark's
// internaliser ignores the attribute there).
//
// The table is process-wide: both the evaluator and the flattener's
// lowering read it (a plan bakes the value in as a constant, so it is set
// before a program runs and not changed while it does).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace thorn::eval {

using UserParams = std::map<std::string, int64_t>;

void set_user_params(UserParams params);

// For an attribute's text: the value `param(name)` stands for, if set.
std::optional<int64_t> user_param_value(const std::string& attr);

// `name=value` with an integer value (a tuning file's line, `thorn run -p`);
// nullopt when malformed.
std::optional<std::pair<std::string, int64_t>> parse_user_param(const std::string& setting);

// Reads a tuning file (`name=value` per line, blank lines ignored); throws
// a usage Error naming the file and line when a line is malformed.
UserParams read_tuning_file(const std::string& path);

}  // namespace thorn::eval
