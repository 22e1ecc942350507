#include "interp/cli/literate_blocks.hpp"

#include <cctype>

#include <fmt/format.h>

#include "interp/util/error.hpp"

namespace thorn::cli {

namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

// A comment line's text: "-- x" -> "x", "--x" -> "x" (Futhark's stripCommentPrefix).
std::string uncomment(const std::string& line) { return line.substr(starts_with(line, "-- ") ? 3 : 2); }

std::vector<std::string> split_lines(const std::string& source) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < source.size()) {
    size_t end = source.find('\n', start);
    if (end == std::string::npos) end = source.size();
    std::string line = source.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    start = end + 1;
  }
  return lines;
}

struct KindName {
  const char* name;
  Directive::Kind kind;
};
const KindName kKinds[] = {{"img", Directive::Kind::Img},         {"plot2d", Directive::Kind::Plot2d},
                           {"gnuplot", Directive::Kind::Gnuplot}, {"video", Directive::Kind::Video},
                           {"audio", Directive::Kind::Audio}};

// Takes ":name" off the front of `rest` when it is there.
bool take_word(std::string& rest, const std::string& word) {
  if (rest.compare(0, word.size(), word) != 0) return false;
  if (rest.size() > word.size() && !std::isspace(static_cast<unsigned char>(rest[word.size()]))) return false;
  rest = trim(rest.substr(word.size()));
  return true;
}

// `lines` are the directive's lines with comment markers removed; the first
// starts after "> ".
Directive parse_directive(const std::vector<std::string>& lines, int line_no, const std::string& path) {
  auto fail = [&](const std::string& message) {
    throw Error(ErrorKind::Syntax, fmt::format("{}:{}: {}", path, line_no, message));
  };
  Directive d;
  d.line = line_no;
  for (const auto& l : lines) d.text += l + "\n";

  std::string rest = trim(lines[0].substr(1));  // after '>'
  for (;;) {
    if (take_word(rest, ":brief")) d.brief = true;
    else if (take_word(rest, ":covert")) d.covert = true;
    else break;
  }
  if (!rest.empty() && rest[0] == ':') {
    bool known = false;
    for (const auto& k : kKinds)
      if (take_word(rest, std::string(":") + k.name)) {
        d.kind = k.kind;
        known = true;
        break;
      }
    if (!known) fail(fmt::format("unknown directive '{}'", rest.substr(0, rest.find(' '))));
  }

  // The expression runs until a line that ends in ';'; what follows are
  // parameters (or :gnuplot's script).
  size_t k = 0;
  std::string expr = rest;
  bool has_params = false;
  for (;;) {
    std::string t = trim(expr);
    if (!t.empty() && t.back() == ';') {
      t.pop_back();
      d.expr += (d.expr.empty() ? "" : "\n") + t;
      has_params = true;
      ++k;
      break;
    }
    d.expr += (d.expr.empty() ? "" : "\n") + t;
    if (++k >= lines.size()) break;
    expr = lines[k];
  }
  d.expr = trim(d.expr);
  if (d.expr.empty()) fail("the directive has no expression");
  if (!has_params) return d;
  if (d.kind == Directive::Kind::Value) fail("a value directive takes no parameters");
  for (; k < lines.size(); ++k) {
    if (d.kind == Directive::Kind::Gnuplot) {
      d.script += lines[k] + "\n";
      continue;
    }
    std::string p = trim(lines[k]);
    if (p.empty()) continue;
    size_t colon = p.find(':');
    if (colon == std::string::npos) fail(fmt::format("expected a parameter 'key: value', got '{}'", p));
    d.params.emplace_back(trim(p.substr(0, colon)), trim(p.substr(colon + 1)));
  }
  return d;
}

}  // namespace

const char* Directive::name() const {
  for (const auto& k : kKinds)
    if (k.kind == kind) return k.name;
  return "";
}

std::string Directive::short_text() const {
  std::string e = expr;
  for (char& c : e)
    if (c == '\n') c = ' ';
  return kind == Kind::Value ? "> " + e : fmt::format("> :{} {}", name(), e);
}

std::string Directive::param(const std::string& key, const std::string& fallback) const {
  for (const auto& [k, v] : params)
    if (k == key) return v;
  return fallback;
}

std::vector<LiterateBlock> parse_literate(const std::string& source, const std::string& path) {
  std::vector<std::string> lines = split_lines(source);
  std::vector<LiterateBlock> blocks;
  size_t i = 0;
  auto comment_run = [&](size_t from) {  // the end of the comment lines starting at `from`
    while (from < lines.size() && starts_with(lines[from], "--")) ++from;
    return from;
  };
  while (i < lines.size()) {
    LiterateBlock b;
    if (starts_with(lines[i], "-- >")) {
      size_t end = comment_run(i + 1);
      std::vector<std::string> text;
      for (size_t k = i; k < end; ++k) text.push_back(uncomment(lines[k]));
      b.kind = LiterateBlock::Kind::Directive;
      b.directive = parse_directive(text, int(i) + 1, path);
      i = end;
    } else if (starts_with(lines[i], "-- ==")) {
      // A test block stays code, as written.
      size_t end = comment_run(i + 1);
      b.text = "-- ==\n";
      for (size_t k = i + 1; k < end; ++k) b.text += "-- " + uncomment(lines[k]) + "\n";
      i = end;
    } else if (starts_with(lines[i], "--")) {
      size_t end = comment_run(i);
      b.kind = LiterateBlock::Kind::Comment;
      for (size_t k = i; k < end; ++k) b.text += uncomment(lines[k]) + "\n";
      i = end;
    } else {
      size_t end = i;
      while (end < lines.size() && !starts_with(lines[end], "--")) ++end;
      size_t first = i, last = end;  // without blank lines at either end
      while (first < last && trim(lines[first]).empty()) ++first;
      while (last > first && trim(lines[last - 1]).empty()) --last;
      for (size_t k = first; k < last; ++k) b.text += lines[k] + "\n";
      i = end;
    }
    blocks.push_back(std::move(b));
  }
  return blocks;
}

}  // namespace thorn::cli
