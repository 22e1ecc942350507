#pragma once
// Splitting a literate Futhark program into blocks, as `futhark literate`
// does (src/Futhark/CLI/Literate.hs):
//   - lines starting with "--" in column 0 form a comment block (Markdown
//     text, the "-- " or "--" removed);
//   - "-- ==" and the comment lines after it are a test block, shown as code;
//   - other lines form a code block (blank lines at its ends dropped);
//   - "-- >" starts a directive where a block starts (after a blank line or
//     code): "-- > e", "-- > :img e", ... The comment lines after it belong
//     to it: the expression continues on them; after a line ending in ';'
//     they are its parameters ("-- file: x.png") or :gnuplot's script.
#include <string>
#include <utility>
#include <vector>

namespace thorn::cli {

struct Directive {
  enum class Kind { Value, Img, Plot2d, Gnuplot, Video, Audio };
  Kind kind = Kind::Value;
  bool brief = false;   // :brief: show the directive without its parameters
  bool covert = false;  // :covert: show only the result
  std::string expr;     // the FutharkScript expression
  std::vector<std::pair<std::string, std::string>> params;  // "key: value" lines, in order
  std::string script;   // :gnuplot's script lines
  std::string text;     // the directive as written, comment markers removed ("> :img e\n")
  int line = 0;         // where it starts in the file (1-based)

  // ":img", "" for a plain value.
  const char* name() const;
  // "> :img e", without parameters or modifiers (for :brief, messages).
  std::string short_text() const;
  // A parameter's value, or `fallback`.
  std::string param(const std::string& key, const std::string& fallback = "") const;
};

struct LiterateBlock {
  enum class Kind { Code, Comment, Directive };
  Kind kind = Kind::Code;
  std::string text;  // Code and Comment
  Directive directive;
};

// Throws Error(Syntax) at the line of a directive it cannot read (an unknown
// :name, a parameter line that is not "key: value").
std::vector<LiterateBlock> parse_literate(const std::string& source, const std::string& path);

}  // namespace thorn::cli
