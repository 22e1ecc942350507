#include "interp/cli/args.hpp"

#include <charconv>

#include <fmt/format.h>

#include "interp/util/error.hpp"

namespace thorn::cli {

ArgScanner::ArgScanner(std::string command, std::vector<std::string> args)
    : command_(std::move(command)), args_(std::move(args)) {}

bool ArgScanner::next() {
  if (index_ >= args_.size()) return false;
  std::string a = args_[index_++];
  has_attached_ = false;
  attached_.clear();
  positional_ = false;
  if (only_positionals_ || a == "-" || a.size() < 2 || a[0] != '-') {
    positional_ = true;
    current_ = a;
    return true;
  }
  if (a == "--") {
    only_positionals_ = true;
    return next();
  }
  if (a[1] == '-') {  // --long or --long=value
    size_t eq = a.find('=');
    if (eq != std::string::npos) {
      current_ = a.substr(0, eq);
      attached_ = a.substr(eq + 1);
      has_attached_ = true;
    } else {
      current_ = a;
    }
  } else {  // -x or -xVALUE
    current_ = a.substr(0, 2);
    if (a.size() > 2) {
      attached_ = a.substr(2);
      has_attached_ = true;
    }
  }
  return true;
}

bool ArgScanner::is(std::string_view short_name, std::string_view long_name) const {
  if (positional_) return false;
  return (!short_name.empty() && current_ == short_name) || (!long_name.empty() && current_ == long_name);
}

std::string ArgScanner::value() {
  if (has_attached_) return attached_;
  if (index_ >= args_.size()) fail(fmt::format("option {} needs a value", current_));
  return args_[index_++];
}

void ArgScanner::no_value() const {
  if (has_attached_) fail(fmt::format("option {} takes no value", current_));
}

void ArgScanner::unknown() const {
  if (positional_) fail(fmt::format("unexpected argument '{}'", current_));
  fail(fmt::format("unknown option '{}'", current_));
}

void ArgScanner::fail(const std::string& message) const {
  throw Error(ErrorKind::Usage, fmt::format("thorn {}: {} (see 'thorn {} --help')", command_, message, command_));
}

long long parse_integer(const ArgScanner& args, const std::string& text) {
  long long v = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size())
    args.fail(fmt::format("'{}' is not an integer", text));
  return v;
}

}  // namespace thorn::cli
