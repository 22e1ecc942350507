#pragma once
// Entry points as the tools use them: reading their arguments in the value
// formats, and saying which entry points exist when a name is wrong.
#include <string>
#include <string_view>
#include <vector>

#include "interp/cli/session_setup.hpp"
#include "interp/core/value_io.hpp"

namespace thorn::cli {

// Can the value be written in Futhark's value formats (a scalar or an
// array of a primitive type)?
bool has_value_format(const Value& v);

// The names of the entry points declared in a program's source (`entry f`
// declarations, and `main` when the file defines one).
std::vector<std::string> declared_entry_points(const std::string& source_text);

#ifdef THORN_HAVE_SESSION
// Reads all arguments of `entry` from `input`; errors name the argument
// ("argument 2: expected [][]f32, got ...") and complain about missing or
// surplus values. `first_line` places the text inside a larger file.
std::vector<Value> read_arguments(std::string_view input, const std::string& source_name,
                                  const Session::Entry& entry, uint32_t first_line = 1);

// "no entry point named 'foo'; the program's entry points are: main, bar".
std::string unknown_entry_message(const Session& session, const std::string& path, const std::string& name);
#endif

}  // namespace thorn::cli
