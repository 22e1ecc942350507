#include "interp/util/source.hpp"

#include <deque>
#include <mutex>

#include <fmt/format.h>

namespace thorn {

std::string_view SourceFile::line(uint32_t line_no) const {
  std::string_view t = text;
  if (!line_starts.empty()) {
    if (line_no == 0 || line_no > line_starts.size()) return {};
    size_t start = line_starts[line_no - 1];
    size_t end = t.find('\n', start);
    if (end == std::string_view::npos) end = t.size();
    return t.substr(start, end - start);
  }
  uint32_t current = 1;
  size_t start = 0;
  while (current < line_no) {
    size_t nl = t.find('\n', start);
    if (nl == std::string_view::npos) return {};
    start = nl + 1;
    ++current;
  }
  size_t end = t.find('\n', start);
  if (end == std::string_view::npos) end = t.size();
  return t.substr(start, end - start);
}

const SourceFile* register_source(std::string name, std::string text) {
  // A deque never moves its elements, so the returned pointers stay valid.
  static std::mutex mutex;
  static std::deque<SourceFile> files;
  std::lock_guard lock(mutex);
  files.push_back(SourceFile{std::move(name), std::move(text)});
  SourceFile& f = files.back();
  f.line_starts.push_back(0);
  for (size_t i = 0; i < f.text.size(); ++i)
    if (f.text[i] == '\n') f.line_starts.push_back(static_cast<uint32_t>(i + 1));
  return &f;
}

std::string Loc::str() const {
  if (!file) return "<unknown>";
  return fmt::format("{}:{}:{}", file->name, line, col);
}

}  // namespace thorn
