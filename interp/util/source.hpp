#pragma once
// Source files and positions. Every AST node carries a Loc; SourceFile
// objects live for the whole process (owned by the registry) so a Loc is a
// plain pointer plus line/column and stays valid in error messages forever.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace thorn {

struct SourceFile {
  std::string name;  // as shown in messages: the path, "[prelude]/x.fut", "[repl]:3"
  std::string text;
  // Offsets where each line starts, filled by register_source (empty: line()
  // scans the text). The checker reads source lines on every application to
  // name arguments in messages, so this keeps that O(1).
  std::vector<uint32_t> line_starts = {};
  std::string_view line(uint32_t line_no) const;  // 1-based, without newline
};

// Registers a file and returns a pointer that is valid until exit.
const SourceFile* register_source(std::string name, std::string text);
// The file is no longer needed (a REPL input the session can no longer
// reach): its slot may be reused by a later register_source, after a delay
// (source.cpp), so memory stays flat over a long session.
void release_source(const SourceFile* file);

struct Loc {
  const SourceFile* file = nullptr;
  uint32_t line = 0;  // 1-based; 0 means unknown
  uint32_t col = 0;   // 1-based, in bytes
  uint32_t end_col = 0;  // last column of the span on the same line (0: just col)

  bool known() const { return file != nullptr && line != 0; }
  // In one of the prelude's files ("[prelude]/x.fut").
  bool in_prelude() const { return known() && file->name.starts_with("[prelude]"); }
  std::string str() const;  // "file:line:col"
};

}  // namespace thorn
