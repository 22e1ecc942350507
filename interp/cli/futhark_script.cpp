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
