#include "interp/util/source.hpp"

#include <deque>
#include <mutex>

#include <fmt/format.h>

namespace thorn {

std::string_view SourceFile::line(uint32_t line_no) const {
  std::string_view t = text;
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

namespace {
// A deque never moves its elements, so the returned pointers stay valid.
// Released files (REPL inputs nothing refers to any more) are reused, but
// only after kRetiredSlots more have been released, so that a location
// still held somewhere (an error being reported) reads the old text, or at
// worst another input's, never freed memory.
constexpr size_t kRetiredSlots = 256;
std::mutex g_mutex;
std::deque<SourceFile> g_files;
std::deque<SourceFile*> g_retired;
}  // namespace

const SourceFile* register_source(std::string name, std::string text) {
  std::lock_guard lock(g_mutex);
  if (g_retired.size() > kRetiredSlots) {
    SourceFile* f = g_retired.front();
    g_retired.pop_front();
    f->name = std::move(name);
    f->text = std::move(text);
    return f;
  }
  g_files.push_back(SourceFile{std::move(name), std::move(text)});
  return &g_files.back();
}

void release_source(const SourceFile* file) {
  if (!file) return;
  std::lock_guard lock(g_mutex);
  g_retired.push_back(const_cast<SourceFile*>(file));
}

std::string Loc::str() const {
  if (!file) return "<unknown>";
  return fmt::format("{}:{}:{}", file->name, line, col);
}

}  // namespace thorn
