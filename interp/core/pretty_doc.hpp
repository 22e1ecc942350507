#pragma once
// A minimal pretty-printing document, enough to lay values out the way
// Futhark's Haskell `prettyprinter` does (layoutPretty, 80 columns): text,
// line breaks that become a space when their group is flattened, `align`
// (indent continuation lines to the current column) and `group` (flatten if
// the rest of the line fits).
#include <memory>
#include <string>
#include <vector>

namespace thorn::pretty {

struct Doc;
using DocPtr = std::shared_ptr<const Doc>;

struct Doc {
  enum class Kind { Text, Line, Cat, Align, Group };
  Kind kind = Kind::Text;
  std::string text;            // Text
  std::vector<DocPtr> parts;   // Cat
  DocPtr inner;                // Align, Group
};

DocPtr text(std::string s);
DocPtr line();  // a newline, or a space when flattened
DocPtr cat(std::vector<DocPtr> parts);
DocPtr align(DocPtr d);
DocPtr group(DocPtr d);

// Renders starting at column `start_col`, lines at most `width` wide where
// the groups allow it.
std::string render(const DocPtr& doc, int width = 80, int start_col = 0);

}  // namespace thorn::pretty
