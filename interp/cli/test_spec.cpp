// Parsing test blocks. The grammar follows Futhark.Test.Spec, read as
// tokens separated by any blanks (Futhark's parser lets a block continue
// over `--` lines between any two tokens), except that `entry:`, `error:`
// and `warning:` take the rest of their line.
#include "interp/cli/test_spec.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>

#include "interp/cli/random_values.hpp"
#include "interp/util/error.hpp"

namespace thorn::cli {

bool ProgramTest::has_tag(const std::string& tag) const {
  return std::find(tags.begin(), tags.end(), tag) != tags.end();
}

namespace {

// One `-- ==` block: the lines after the `==` line, with their leading "--"
// replaced by blanks so that columns still match the file.
struct Block {
  std::string text;
  uint32_t first_line = 0;
};

std::vector<Block> find_blocks(const SourceFile* file) {
  std::vector<std::string_view> lines;
  std::string_view text = file->text;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  auto is_comment = [](std::string_view l) { return l.size() >= 2 && l[0] == '-' && l[1] == '-'; };
  auto is_separator = [&](std::string_view l) {
    if (!is_comment(l)) return false;
    size_t k = 2;
    while (k < l.size() && (l[k] == ' ' || l[k] == '\t')) ++k;
    if (l.substr(k, 2) != "==") return false;
    for (k += 2; k < l.size(); ++k)
      if (!std::isspace(static_cast<unsigned char>(l[k]))) return false;
    return true;
  };
  std::vector<Block> blocks;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!is_separator(lines[i])) continue;
    Block b;
    b.first_line = uint32_t(i + 2);
    size_t j = i + 1;
    for (; j < lines.size() && is_comment(lines[j]); ++j) {
      std::string l(lines[j]);
      if (!l.empty() && l.back() == '\r') l.pop_back();
      l[0] = l[1] = ' ';
      b.text += l + "\n";
    }
    blocks.push_back(std::move(b));
    i = j - 1;
  }
  return blocks;
}

bool tag_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }

class BlockParser {
 public:
  BlockParser(const SourceFile* file, const Block& block) : file_(file), block_(block), text_(block.text) {}

  void parse(ProgramTest& test, bool first) {
    skip_blanks();
    if (first && peek_word() == "tags") {
      take_word();
      ValuesText body = braces("tags");
      size_t k = 0;
      const std::string& t = body.text;
      while (k < t.size()) {
        while (k < t.size() && std::isspace(static_cast<unsigned char>(t[k]))) ++k;
        size_t start = k;
        while (k < t.size() && !std::isspace(static_cast<unsigned char>(t[k]))) ++k;
        if (k > start) test.tags.push_back(t.substr(start, k - start));
      }
      skip_blanks();
    }
    std::string w = peek_word();
    if (w == "error:") {
      if (!first) fail(pos_, "`error:` (an expected type error) may only be the first test block");
      take_word();
      test.expects_compile_error = true;
      test.compile_error_regex = rest_of_line();
      expect_end();
      return;
    }
    if (w == "property:") {
      take_word();
      std::string names = rest_of_line();
      for (auto& n : split_words(names)) test.properties.push_back(n);
      expect_end();
      return;
    }
    InputOutputs io;
    io.entries = {"main"};
    if (w == "entry:") {
      take_word();
      io.entries.clear();
      for (auto& n : split_words(rest_of_line())) {
        if (n.find('}') != std::string::npos) fail(pos_, fmt::format("invalid entry point name '{}'", n));
        io.entries.push_back(n);
      }
      if (io.entries.empty()) fail(pos_, "`entry:` needs at least one entry point name");
    }
    int index = 0;
    std::set<std::string> names;
    TestRun run;
    while (parse_run(run, index)) {
      if (!names.insert(run.name).second)
        fail_line(run.line, fmt::format("multiple datasets with name \"{}\"", run.name));
      io.runs.push_back(std::move(run));
      run = TestRun{};
      ++index;
    }
    for (;;) {
      skip_blanks();
      std::string k = peek_word();
      if (k == "structure") {
        take_word();
        skip_blanks();
        if (!at('{')) take_word();  // the pipeline: gpu, mc, seq-mem, ...
        braces("structure");
        test.structure_tests++;
      } else if (k == "warning:") {
        take_word();
        rest_of_line();
        test.warning_tests++;
      } else {
        break;
      }
    }
    expect_end();
    if (!io.runs.empty()) test.cases.push_back(std::move(io));
  }

 private:
  // ------------------------------------------------------------ runs

  bool parse_run(TestRun& run, int index) {
    skip_blanks();
    if (pos_ >= text_.size()) return false;
    size_t start = pos_;
    bool named = false;
    if (at('"')) {
      run.name = string_literal();
      named = true;
    }
    for (;;) {
      skip_blanks();
      std::string w = peek_word();
      if (w.empty() || w == "input" || w == "structure" || w == "warning:" || w == "output" || w == "auto" ||
          w == "error:" || w == "entry:" || w == "property:" || w == "tags")
        break;
      if (!std::all_of(w.begin(), w.end(), tag_char)) break;
      run.tags.push_back(take_word());
    }
    skip_blanks();
    if (peek_word() != "input") {
      if (named || !run.tags.empty()) fail(pos_, fmt::format("expected 'input', got {}", what_is_here()));
      pos_ = start;
      return false;
    }
    run.line = line_of(pos_);
    take_word();
    bool random = has(run.tags, "random"), script = has(run.tags, "script");
    skip_blanks();
    if (random) {
      run.input.kind = TestInput::Kind::Random;
      run.input.values = braces("random input");
      run.input.random = gen_values(run.input.values);
    } else if (at('@')) {
      ++pos_;
      run.input.kind = script ? TestInput::Kind::Script : TestInput::Kind::File;
      run.input.file = file_name();
    } else {
      run.input.kind = script ? TestInput::Kind::Script : TestInput::Kind::Values;
      run.input.values = braces("input");
    }
    parse_expected(run.expected);
    if (!named) run.name = default_name(run.input, index);
    return true;
  }

  void parse_expected(ExpectedResult& e) {
    skip_blanks();
    std::string w = peek_word();
    if (w == "auto") {
      take_word();
      skip_blanks();
      if (take_word() != "output") fail(pos_, "expected 'output' after 'auto'");
      e.kind = ExpectedResult::Kind::Auto;
    } else if (w == "output") {
      take_word();
      skip_blanks();
      if (at('@')) {
        ++pos_;
        e.kind = ExpectedResult::Kind::File;
        e.file = file_name();
      } else {
        e.kind = ExpectedResult::Kind::Values;
        e.values = braces("output");
      }
    } else if (w == "error:") {
      take_word();
      e.kind = ExpectedResult::Kind::Error;
      e.error_regex = rest_of_line();
    }
  }

  std::vector<GenValue> gen_values(const ValuesText& body) {
    std::vector<GenValue> out;
    const std::string& t = body.text;
    size_t k = 0;
    while (true) {
      while (k < t.size() && std::isspace(static_cast<unsigned char>(t[k]))) ++k;
      if (k >= t.size()) break;
      size_t start = k;
      GenValue g;
      if (t[k] == '[' || std::isalpha(static_cast<unsigned char>(t[k]))) {
        // [10][20]f32, allowing blanks around the brackets.
        while (k < t.size()) {
          while (k < t.size() && std::isspace(static_cast<unsigned char>(t[k]))) ++k;
          if (k < t.size() && t[k] == '[') {
            while (k < t.size() && t[k] != ']') ++k;
            if (k < t.size()) ++k;
            continue;
          }
          while (k < t.size() && std::isalnum(static_cast<unsigned char>(t[k]))) ++k;
          break;
        }
        g.text = t.substr(start, k - start);
        try {
          g.type = parse_value_type(g.text);
        } catch (const Error& e) {
          fail(body_offset(body, start), e.message);
        }
      } else {
        while (k < t.size() && !std::isspace(static_cast<unsigned char>(t[k]))) ++k;
        g.text = t.substr(start, k - start);
        try {
          g.fixed = ValueReader(g.text).read_any("random input value").first;
        } catch (const Error& e) {
          fail(body_offset(body, start), fmt::format("'{}' is neither a type nor a value", g.text));
        }
      }
      // Normalise the text the way the dataset is described: no blanks.
      g.text.erase(std::remove_if(g.text.begin(), g.text.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
                   g.text.end());
      out.push_back(std::move(g));
    }
    return out;
  }

  // Futhark's description of an unnamed dataset.
  std::string default_name(const TestInput& in, int index) const {
    switch (in.kind) {
      case TestInput::Kind::File: {
        const std::string& f = in.file;
        if (f.size() > 3 && f.compare(f.size() - 3, 3, ".gz") == 0) return f.substr(0, f.size() - 3);
        return f;
      }
      case TestInput::Kind::Random: {
        std::string out;
        for (const auto& g : in.random) out += (out.empty() ? "" : " ") + g.text;
        return out;
      }
      case TestInput::Kind::Script: return collapse(in.values.text);
      case TestInput::Kind::Values: break;
    }
    // As Futhark.Test.Spec: the values as futhark-data's valueText writes
    // them (rows separated by ",\n", no indentation), joined by spaces, cut
    // at 50 characters, and then line breaks turned into spaces.
    std::string shown;
    try {
      ValueReader r(in.values.text);
      while (!r.at_end()) {
        auto [v, t] = r.read_any("value");
        std::string text = format_value(v, semantic_type(t), ValueStyle::Data);
        std::string unindented;
        for (size_t k = 0; k < text.size(); ++k) {
          unindented += text[k];
          if (text[k] == '\n')
            while (k + 1 < text.size() && text[k + 1] == ' ') ++k;
        }
        shown += (shown.empty() ? "" : " ") + unindented;
      }
    } catch (const Error&) {
      shown = collapse(in.values.text);  // malformed: reported when the case runs
    }
    if (shown.size() > 50) shown = shown.substr(0, 50) + "...";
    std::replace(shown.begin(), shown.end(), '\n', ' ');
    return fmt::format("#{} (\"{}\")", index, shown);
  }

  // ------------------------------------------------------------ lexing

  void skip_blanks() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }

  // A word ends after a colon: keywords (`entry:`, `error:`, `property:`)
  // need no space after them, as in Futhark's test parser (`entry:main`).
  std::string peek_word() const {
    size_t k = pos_;
    while (k < text_.size() && tag_char(text_[k])) ++k;
    if (k < text_.size() && text_[k] == ':') ++k;
    return std::string(text_.substr(pos_, k - pos_));
  }
  std::string take_word() {
    std::string w = peek_word();
    pos_ += w.size();
    return w;
  }

  std::string rest_of_line() {
    size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    std::string s(text_.substr(pos_, end - pos_));
    pos_ = end;
    size_t a = s.find_first_not_of(" \t\r");
    size_t b = s.find_last_not_of(" \t\r");
    return a == std::string::npos ? "" : s.substr(a, b - a + 1);
  }

  std::string file_name() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
    size_t start = pos_;
    while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    if (pos_ == start) fail(pos_, "expected a file name after '@'");
    return std::string(text_.substr(start, pos_ - start));
  }

  std::string string_literal() {
    size_t start = pos_++;
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\n') {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      out += text_[pos_++];
    }
    if (!at('"')) fail(start, "unterminated dataset name");
    ++pos_;
    return out;
  }

  // '{' ... '}' with nesting; the contents with their position.
  ValuesText braces(const char* what) {
    skip_blanks();
    if (!at('{')) fail(pos_, fmt::format("expected '{{' after '{}', got {}", what, what_is_here()));
    size_t open = pos_++;
    size_t start = pos_;
    int depth = 0;
    bool in_string = false;
    for (; pos_ < text_.size(); ++pos_) {
      char c = text_[pos_];
      if (in_string) {
        if (c == '\\') ++pos_;
        else if (c == '"') in_string = false;
      } else if (c == '"') {
        in_string = true;
      } else if (c == '{') {
        ++depth;
      } else if (c == '}') {
        if (depth == 0) break;
        --depth;
      }
    }
    if (pos_ >= text_.size()) fail(open, fmt::format("this '{{' of '{}' is never closed", what));
    ValuesText v;
    // Whole lines from the start of the contents' line, with everything
    // before the contents blanked, keep columns exact for the value reader.
    size_t line_start = start_of_line(start);
    v.text = std::string(start - line_start, ' ') + std::string(text_.substr(start, pos_ - start));
    v.line = line_of(line_start);
    v.col = 1;
    ++pos_;  // the '}'
    return v;
  }

  void expect_end() {
    skip_blanks();
    if (pos_ < text_.size()) fail(pos_, fmt::format("unexpected {} in test block", what_is_here()));
  }

  std::string what_is_here() const {
    if (pos_ >= text_.size()) return "the end of the test block";
    size_t k = pos_;
    while (k < text_.size() && !std::isspace(static_cast<unsigned char>(text_[k])) && k - pos_ < 30) ++k;
    return fmt::format("'{}'", text_.substr(pos_, k - pos_));
  }

  static std::vector<std::string> split_words(const std::string& s) {
    std::vector<std::string> out;
    size_t k = 0;
    while (k < s.size()) {
      while (k < s.size() && std::isspace(static_cast<unsigned char>(s[k]))) ++k;
      size_t start = k;
      while (k < s.size() && !std::isspace(static_cast<unsigned char>(s[k]))) ++k;
      if (k > start) out.push_back(s.substr(start, k - start));
    }
    return out;
  }

  static std::string collapse(const std::string& s) {
    std::string out;
    bool blank = false;
    for (char c : s) {
      if (std::isspace(static_cast<unsigned char>(c))) {
        blank = true;
        continue;
      }
      if (blank && !out.empty()) out += ' ';
      blank = false;
      out += c;
    }
    return out;
  }

  static bool has(const std::vector<std::string>& v, const char* s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  }

  // ------------------------------------------------------------ positions

  size_t start_of_line(size_t offset) const {
    size_t nl = offset == 0 ? std::string_view::npos : text_.rfind('\n', offset - 1);
    return nl == std::string_view::npos ? 0 : nl + 1;
  }
  uint32_t line_of(size_t offset) const {
    return block_.first_line + uint32_t(std::count(text_.begin(), text_.begin() + long(offset), '\n'));
  }
  size_t body_offset(const ValuesText& body, size_t k) const {
    // The body text starts at the beginning of its line in the block.
    size_t line_start = 0;
    for (uint32_t l = block_.first_line; l < body.line; ++l) line_start = text_.find('\n', line_start) + 1;
    return line_start + k;
  }

  [[noreturn]] void fail(size_t offset, const std::string& message) const {
    Loc loc;
    loc.file = file_;
    loc.line = line_of(std::min(offset, text_.size()));
    size_t line_start = start_of_line(offset);
    loc.col = uint32_t(offset - line_start) + 1;
    throw Error(ErrorKind::Syntax, loc, "test block: " + message);
  }
  [[noreturn]] void fail_line(uint32_t line, const std::string& message) const {
    Loc loc;
    loc.file = file_;
    loc.line = line;
    loc.col = 1;
    throw Error(ErrorKind::Syntax, loc, "test block: " + message);
  }

  const SourceFile* file_;
  const Block& block_;
  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

std::optional<ProgramTest> parse_test_spec(const SourceFile* file) {
  std::vector<Block> blocks = find_blocks(file);
  if (blocks.empty()) return std::nullopt;
  ProgramTest test;
  for (size_t k = 0; k < blocks.size(); ++k) {
    if (k > 0 && test.expects_compile_error)
      throw Error(ErrorKind::Syntax, Loc{file, blocks[k].first_line - 1, 1, 0},
                  "test block: no more test blocks may follow one that expects a type error");
    BlockParser(file, blocks[k]).parse(test, k == 0);
  }
  return test;
}

}  // namespace thorn::cli
