#include "interp/cli/futhark_script.hpp"

#include <cctype>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "interp/cli/data_file.hpp"
#include "interp/core/value_io.hpp"
#include "interp/util/error.hpp"

namespace thorn::cli {

namespace {

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '\''; }

}  // namespace

namespace {

std::string in_dir(const std::string& dir, const std::string& file) {
  if (dir.empty() || (!file.empty() && file[0] == '/')) return file;
  return dir + "/" + file;
}

// A data file's values as Futhark literals: one value, or a tuple of them.
std::string loaddata_literal(const std::string& path) {
  std::string data = read_data_file(path);
  ValueReader reader(data, path);
  std::vector<std::string> values;
  while (!reader.at_end()) {
    auto [v, t] = reader.read_any(fmt::format("value {}", values.size()));
    values.push_back(format_value(v, semantic_type(t), ValueStyle::Data));
  }
  if (values.empty()) throw Error(ErrorKind::Input, fmt::format("$loaddata: {} holds no values", path));
  if (values.size() == 1) return "(" + values[0] + ")";
  std::string out = "(";
  for (size_t k = 0; k < values.size(); ++k) out += (k ? ", " : "") + values[k];
  return out + ")";
}

// A file's bytes as a []u8 literal.
std::string loadbytes_literal(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::Input, fmt::format("$loadbytes: cannot read {}", path));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.empty()) return "([] : [0]u8)";
  std::string out = "[";
  for (size_t k = 0; k < bytes.size(); ++k) out += fmt::format("{}{}u8", k ? "," : "", unsigned(uint8_t(bytes[k])));
  return out + "]";
}

// The string literal starting at `at` (after blanks), unescaped; `end`
// receives the position after it. Builtins take one file name.
std::string string_argument(const std::string& script, size_t at, size_t& end, const std::string& builtin) {
  while (at < script.size() && std::isspace(static_cast<unsigned char>(script[at]))) ++at;
  if (at >= script.size() || script[at] != '"')
    throw Error(ErrorKind::Input, fmt::format("{} takes a file name in double quotes", builtin));
  std::string s;
  size_t k = at + 1;
  for (; k < script.size() && script[k] != '"'; ++k) {
    if (script[k] == '\\' && k + 1 < script.size()) ++k;
    s += script[k];
  }
  if (k >= script.size()) throw Error(ErrorKind::Input, fmt::format("{}: unterminated file name", builtin));
  end = k + 1;
  return s;
}

}  // namespace

std::string script_to_futhark(const std::string& script, const std::string& files_dir) {
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
      std::string builtin = script.substr(i, end - i);
      if (builtin == "$loaddata" || builtin == "$loadbytes") {
        std::string file = in_dir(files_dir, string_argument(script, end, end, builtin));
        out += builtin == "$loaddata" ? loaddata_literal(file) : loadbytes_literal(file);
        i = end;
        continue;
      }
      throw Error(ErrorKind::Input, fmt::format("the FutharkScript builtin {} is not supported by thorn", builtin));
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

Session::Outcome eval_script(Session& session, const std::string& script, const std::string& files_dir,
                             const std::string& source_name) {
  std::string text = script_to_futhark(script, files_dir);
  try {
    return session.eval_input(text, source_name);
  } catch (const Error& e) {
    auto app = single_application(text);
    auto entry = app && e.kind == ErrorKind::Type ? session.entry(app->function) : std::nullopt;
    if (!entry || entry->params.size() < 2) throw;
    return session.eval_input(uncurried_call(*app, entry->params.size()), source_name);
  }
}

namespace {

// Splits `text` where `at_separator(c)` holds outside brackets and string
// literals; empty pieces are dropped.
template <class Pred>
std::vector<std::string> split_top_level(const std::string& text, Pred at_separator) {
  std::vector<std::string> parts;
  std::string current;
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\' && i + 1 < text.size()) current += text[i++];
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    } else if (depth == 0 && at_separator(c)) {
      if (!current.empty()) parts.push_back(current);
      current.clear();
      continue;
    }
    current += c;
  }
  if (!current.empty()) parts.push_back(current);
  return parts;
}

std::string trimmed(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\n");
  return a == std::string::npos ? "" : s.substr(a, s.find_last_not_of(" \t\n") + 1 - a);
}

}  // namespace

std::optional<std::vector<std::string>> tuple_components(const std::string& script) {
  std::string t = trimmed(script);
  if (t.size() < 2 || t.front() != '(' || t.back() != ')') return std::nullopt;
  // The opening bracket must close at the end: not "(a) (b)".
  int depth = 0;
  for (size_t k = 0; k + 1 < t.size(); ++k) {
    depth += t[k] == '(' ? 1 : t[k] == ')' ? -1 : 0;
    if (depth == 0) return std::nullopt;
  }
  std::vector<std::string> parts;
  for (const auto& p : split_top_level(t.substr(1, t.size() - 2), [](char c) { return c == ','; }))
    parts.push_back(trimmed(p));
  if (parts.size() < 2) return std::nullopt;
  return parts;
}

std::vector<std::string> application_words(const std::string& script) {
  return split_top_level(trimmed(script), [](char c) { return c == ' ' || c == '\t' || c == '\n'; });
}

std::optional<SingleApplication> single_application(const std::string& script) {
  size_t a = script.find_first_not_of(" \t\n");
  if (a == std::string::npos || !(std::isalpha(static_cast<unsigned char>(script[a])) || script[a] == '_'))
    return std::nullopt;
  size_t name_end = a;
  while (name_end < script.size() && (is_name_char(script[name_end]) || script[name_end] == '.')) ++name_end;
  size_t b = script.find_first_not_of(" \t\n", name_end);
  size_t e = script.find_last_not_of(" \t\n");
  if (b == std::string::npos || b == name_end) return std::nullopt;
  std::string argument = script.substr(b, e + 1 - b);
  // One atom: a bracketed group closed by the last character, or a name.
  if (argument.front() == '(') {
    int depth = 0;
    for (size_t k = 0; k < argument.size(); ++k) {
      depth += argument[k] == '(' ? 1 : argument[k] == ')' ? -1 : 0;
      if (depth == 0 && k + 1 < argument.size()) return std::nullopt;
    }
  } else {
    for (char c : argument)
      if (!is_name_char(c)) return std::nullopt;
  }
  return SingleApplication{script.substr(a, name_end - a), argument};
}

std::string uncurried_call(const SingleApplication& app, size_t arity) {
  std::string names, args;
  for (size_t k = 0; k < arity; ++k) {
    names += fmt::format("{}uncurried_{}", k ? ", " : "", k);
    args += fmt::format(" uncurried_{}", k);
  }
  return fmt::format("let ({}) = {} in {}{}", names, app.argument, app.function, args);
}

}  // namespace thorn::cli
