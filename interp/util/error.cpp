#include "interp/util/error.hpp"

#include <fmt/format.h>

namespace thorn {

const char* error_kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Syntax: return "syntax error";
    case ErrorKind::Type: return "type error";
    case ErrorKind::Runtime: return "runtime error";
    case ErrorKind::Input: return "input error";
    case ErrorKind::Gpu: return "gpu error";
    case ErrorKind::Internal: return "internal error";
    case ErrorKind::Usage: return "usage error";
  }
  return "error";
}

static std::string headline(ErrorKind kind, const Loc& loc, const std::string& message) {
  if (loc.known()) return fmt::format("{}: {}: {}", loc.str(), error_kind_name(kind), message);
  return fmt::format("{}: {}", error_kind_name(kind), message);
}

Error::Error(ErrorKind kind_, Loc loc_, std::string message_, std::vector<std::string> notes_)
    : std::runtime_error(headline(kind_, loc_, message_)),
      kind(kind_),
      loc(loc_),
      message(std::move(message_)),
      notes(std::move(notes_)) {}

std::string Error::render() const {
  std::string out = headline(kind, loc, message);
  if (loc.known()) {
    std::string_view text = loc.file->line(loc.line);
    std::string gutter = fmt::format("{}", loc.line);
    out += fmt::format("\n {} | {}\n {} | ", gutter, text, std::string(gutter.size(), ' '));
    // Keep tabs so the caret lines up under the right character.
    for (uint32_t i = 1; i < loc.col && i - 1 < text.size(); ++i) out += text[i - 1] == '\t' ? '\t' : ' ';
    uint32_t width = loc.end_col >= loc.col ? loc.end_col - loc.col + 1 : 1;
    out += std::string(width, '^');
  }
  for (const auto& note : notes) out += "\n" + note;
  if (!backtrace.empty()) {
    // As Futhark prints it: #0 is where the error happened, then each call.
    out += fmt::format("\n\nBacktrace:\n-> #0  {}", loc.str());
    for (size_t k = 0; k < backtrace.size(); ++k) out += fmt::format("\n   #{:<2} {}", k + 1, backtrace[k].str());
    if (backtrace_dropped) out += fmt::format("\n   ... and {} more", backtrace_dropped);
  }
  return out;
}

void Error::add_call_site(const Loc& call) {
  if (!call.known() || !loc.known()) return;
  const Loc& last = backtrace.empty() ? loc : backtrace.back();
  if (call.file == last.file && call.line == last.line && call.col == last.col) return;
  if (backtrace.size() < kMaxBacktrace) backtrace.push_back(call);
  else ++backtrace_dropped;
}

void throw_error(ErrorKind kind, Loc loc, std::string message) {
  throw Error(kind, loc, std::move(message));
}

}  // namespace thorn
