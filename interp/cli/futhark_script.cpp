#include "interp/cli/futhark_script.hpp"

#include <cctype>

#include <fmt/format.h>

#include "interp/util/error.hpp"

namespace thorn::cli {

namespace {

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '\''; }

}  // namespace

std::string script_to_futhark(const std::string& script) {
  std::string out;
  for (size_t i = 0; i < script.size();) {
    char c = script[i];
    if (c == '"') {  // a string literal, copied as it is
      size_t end = i + 1;
      while (end < script.size() && script[end] != '"') end += script[end] == '\\' ? 2 : 1;
      out += script.substr(i, end + 1 - i);
      i = end + 1;
    } else if (c == '$') {
      size_t end = i + 1;
      while (end < script.size() && is_name_char(script[end])) ++end;
      throw Error(ErrorKind::Input, fmt::format("the FutharkScript builtin {} is not supported by thorn literate",
                                                script.substr(i, end - i)));
    } else if (script.compare(i, 6, "empty(") == 0 && (i == 0 || !is_name_char(script[i - 1]))) {
      // empty([0]i32) is the empty array ([] : [0]i32).
      size_t depth = 1, end = i + 6;
      for (; end < script.size() && depth > 0; ++end) depth += script[end] == '(' ? 1 : script[end] == ')' ? -1 : 0;
      out += "([] : " + script.substr(i + 6, end - 1 - (i + 6)) + ")";
      i = end;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

}  // namespace thorn::cli
