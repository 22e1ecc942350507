#pragma once
// A small command-line scanner: options are taken in order (some commands,
// like `dataset`, care about the order), in the usual spellings
//   -e NAME   -eNAME   --entry NAME   --entry=NAME   --flag   --   positional
// Mistakes throw Error(ErrorKind::Usage); main() prints them with a hint to
// the command's --help and exits with status 2.
#include <string>
#include <string_view>
#include <vector>

namespace thorn::cli {

class ArgScanner {
 public:
  ArgScanner(std::string command, std::vector<std::string> args);

  // Moves to the next argument; false when none is left.
  bool next();

  bool positional() const { return positional_; }
  const std::string& arg() const { return current_; }

  // Is the current argument this option? (`short_name` may be empty.)
  bool is(std::string_view short_name, std::string_view long_name) const;
  // The option's value (attached or the next argument); a usage error when missing.
  std::string value();
  // For flags: a usage error if a value was attached (--flag=x).
  void no_value() const;

  [[noreturn]] void unknown() const;  // "unknown option"
  [[noreturn]] void fail(const std::string& message) const;

 private:
  std::string command_;
  std::vector<std::string> args_;
  size_t index_ = 0;
  std::string current_;       // the option name (without =value) or the positional
  std::string attached_;      // value given as --opt=value or -ovalue
  bool has_attached_ = false;
  bool positional_ = false;
  bool only_positionals_ = false;  // after "--"
};

// Parses a non-negative integer option value, or fails with a usage error.
long long parse_integer(const ArgScanner& args, const std::string& text);

}  // namespace thorn::cli
