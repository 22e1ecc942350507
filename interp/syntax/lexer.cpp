// The Futhark lexer. Token shapes are Spirit X3 rules (this is the only
// translation unit that includes X3, for compile time); decoding of literal
// values and the layout flags are plain C++ around them.
//
// Lexical rules follow Futhark's Lexer.x:
//  - identifiers: [a-zA-Z][a-zA-Z0-9_']* or _[a-zA-Z0-9_][a-zA-Z0-9_']*
//    (Futhark does not allow `__x`; thorn's prelude needs `__intrinsic`);
//  - operators: a character of +-*/%=!><|&^ followed by those or `.`;
//    a lone `=`, `!` and `->` are punctuation, not operators; `M.N.+` is one
//    qualified operator token;
//  - a numeric literal directly after `.` is a plain natural number, so that
//    `t.0.1` is two projections and not `t . 0.1`;
//  - `[` glued to [a-zA-Z0-9_'], `)` or `]` is an indexing bracket.
#include "interp/syntax/lexer.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>

#include <boost/spirit/home/x3.hpp>
#include <fmt/format.h>

#include "interp/util/error.hpp"

namespace thorn {
namespace {

namespace x3 = boost::spirit::x3;
using x3::char_;
using x3::lit;

// ---------------------------------------------------------------- X3 rules

// X3's character classes (x3::digit, x3::alpha) assert on bytes >= 0x80 with
// the standard encoding, so everything here is spelled as explicit sets.
const auto dec_digit = char_("0-9");
const auto hex_digit = char_("0-9a-fA-F");
const auto ident_start = char_("a-zA-Z");
const auto constituent = char_("a-zA-Z0-9_'");
const auto identifier = (ident_start >> *constituent) | (lit('_') >> char_("a-zA-Z0-9_") >> *constituent);

const auto op_start = char_("-+*/%=!><|&^");
// `--` starts a comment even in the middle of an operator.
const auto op_char = char_("-+*/%=!><|&^.") - lit("--");
const auto symbol = op_start >> *op_char;
const auto qualified_symbol = identifier >> *(lit('.') >> identifier) >> lit('.') >> symbol;

const auto dec_digits = dec_digit >> *(dec_digit | lit('_'));
const auto hex_digits = hex_digit >> *(hex_digit | lit('_'));
const auto exponent = char_("eE") >> -char_("-+") >> +dec_digit;
const auto hex_float = lit('0') >> char_("xX") >> hex_digits >> lit('.') >> hex_digits >> char_("pP") >>
                       -char_("-+") >> dec_digit >> *(dec_digit | lit('_'));
const auto hex_int = lit('0') >> char_("xX") >> hex_digits;
const auto bin_int = lit('0') >> char_("bB") >> char_("01") >> *char_("01_");
const auto dec_float = dec_digits >> ((lit('.') >> dec_digits >> -exponent) | exponent);

struct IntSuffixes : x3::symbols<Prim> {
  IntSuffixes() {
    add("i8", Prim::I8)("i16", Prim::I16)("i32", Prim::I32)("i64", Prim::I64)  //
        ("u8", Prim::U8)("u16", Prim::U16)("u32", Prim::U32)("u64", Prim::U64);
  }
};
struct FloatSuffixes : x3::symbols<Prim> {
  FloatSuffixes() { add("f16", Prim::F16)("f32", Prim::F32)("f64", Prim::F64); }
};

// One code point: an escape or a UTF-8 sequence (lead byte plus continuation bytes).
const auto continuation = char_('\x80', '\xbf');
const auto escape =
    lit('\\') >> (+dec_digit | (lit('x') >> +hex_digit) | (lit('o') >> +char_("0-7")) | char_);
const auto char_lit = lit('\'') >> (escape | ((char_ - char_("'\\\n")) >> *continuation)) >> lit('\'');
const auto string_lit = lit('"') >> *(escape | (char_ - char_("\"\\\n"))) >> lit('"');

const auto comment = lit("--") >> *(char_ - '\n');
const auto blank = char_(" \t\r\n\f\v");

// Runs `rule` at `pos`; returns the number of bytes it matched (0: no match).
template <typename Rule>
size_t match(const Rule& rule, const char* pos, const char* end) {
  const char* it = pos;
  if (x3::parse(it, end, rule)) return static_cast<size_t>(it - pos);
  return 0;
}

// ---------------------------------------------------------------- decoding

constexpr std::array<std::string_view, 24> kKeywords = {
    "true", "false", "if",    "then",    "else",   "def",  "let",    "loop",
    "in",   "val",   "for",   "do",      "with",   "local", "open",  "include",
    "import", "type", "entry", "module", "while",  "assert", "match", "case"};

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class Lexer {
 public:
  explicit Lexer(const SourceFile* file) : file_(file), text_(file->text) {
    line_starts_.push_back(0);
    for (size_t i = 0; i < text_.size(); ++i)
      if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }

  std::vector<Token> run() {
    std::vector<Token> tokens;
    size_t pos = 0;
    const char* begin = text_.data();
    const char* end = begin + text_.size();
    bool space = true;
    while (true) {
      // Whitespace and comments.
      while (pos < text_.size()) {
        size_t n = match(blank, begin + pos, end);
        if (!n) n = match(comment, begin + pos, end);
        if (!n) break;
        pos += n;
        space = true;
      }
      Token tok;
      tok.space_before = space;
      tok.offset = static_cast<uint32_t>(pos);
      if (pos >= text_.size()) {
        tok.kind = Tok::End;
        tok.loc = loc_at(pos, 0);
        tokens.push_back(std::move(tok));
        return tokens;
      }
      size_t n = lex_one(tok, pos, begin, end);
      tok.length = static_cast<uint32_t>(n);
      tok.loc = loc_at(pos, n);
      pos += n;
      space = false;
      tokens.push_back(std::move(tok));
    }
  }

 private:
  const SourceFile* file_;
  std::string_view text_;
  std::vector<size_t> line_starts_;
  IntSuffixes int_suffixes_;
  FloatSuffixes float_suffixes_;

  Loc loc_at(size_t pos, size_t len) const {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), pos);
    size_t line_index = static_cast<size_t>(it - line_starts_.begin()) - 1;
    size_t col = pos - line_starts_[line_index] + 1;
    Loc loc;
    loc.file = file_;
    loc.line = static_cast<uint32_t>(line_index + 1);
    loc.col = static_cast<uint32_t>(col);
    loc.end_col = static_cast<uint32_t>(col + (len ? len - 1 : 0));
    return loc;
  }

  [[noreturn]] void fail(size_t pos, size_t len, std::string message) const {
    throw Error(ErrorKind::Syntax, loc_at(pos, len), std::move(message));
  }

  size_t lex_one(Token& tok, size_t pos, const char* begin, const char* end) {
    const char* p = begin + pos;
    char c = *p;
    char next = pos + 1 < text_.size() ? p[1] : '\0';

    if (c >= '0' && c <= '9') return lex_number(tok, pos, begin, end);

    if (size_t n = match(qualified_symbol, p, end)) {
      std::string_view all = text_.substr(pos, n);
      // Split `A.B.op` at the dots before the operator (the operator itself
      // may contain dots, but the qualifiers end at the first op character).
      size_t op_begin = 0;
      for (size_t i = 0; i < all.size(); ++i) {
        if (all[i] == '.' && i + 1 < all.size() && std::strchr("-+*/%=!><|&^", all[i + 1])) {
          op_begin = i + 1;
          break;
        }
      }
      std::string_view quals = all.substr(0, op_begin - 1);
      size_t start = 0;
      while (start <= quals.size()) {
        size_t dot = quals.find('.', start);
        if (dot == std::string_view::npos) dot = quals.size();
        tok.quals.emplace_back(quals.substr(start, dot - start));
        start = dot + 1;
      }
      tok.kind = Tok::Symbol;
      tok.text = std::string(all.substr(op_begin));
      return n;
    }
    if (size_t n = match(identifier, p, end)) {
      tok.text = std::string(text_.substr(pos, n));
      tok.kind = is_keyword(tok.text) ? Tok::Keyword : Tok::Ident;
      return n;
    }
    if (c == '\'') {
      if (size_t n = match(char_lit, p, end)) {
        decode_char(tok, pos, n);
        return n;
      }
      if (next == '^') return tok.kind = Tok::ApostropheHat, 2;
      if (next == '~') return tok.kind = Tok::ApostropheTilde, 2;
      return tok.kind = Tok::Apostrophe, 1;
    }
    if (c == '"') {
      size_t n = match(string_lit, p, end);
      if (!n) fail(pos, 1, "unterminated string literal");
      tok.kind = Tok::StringLit;
      tok.text = decode_string(pos + 1, pos + n - 1);
      return n;
    }
    if (size_t n = match(symbol, p, end)) {
      std::string_view s = text_.substr(pos, n);
      if (s == "=") return tok.kind = Tok::Equals, n;
      if (s == "!") return tok.kind = Tok::Bang, n;
      if (s == "->") return tok.kind = Tok::Arrow, n;
      tok.kind = Tok::Symbol;
      tok.text = std::string(s);
      return n;
    }
    switch (c) {
      case '(': return tok.kind = Tok::LParen, 1;
      case ')': return tok.kind = Tok::RParen, 1;
      case '[': {
        bool glued = false;
        if (pos > 0) {
          char prev = text_[pos - 1];
          glued = std::isalnum(static_cast<unsigned char>(prev)) || prev == '_' || prev == '\'' ||
                  prev == ')' || prev == ']';
        }
        tok.kind = glued ? Tok::IndexBracket : Tok::LBracket;
        return 1;
      }
      case ']': return tok.kind = Tok::RBracket, 1;
      case '{': return tok.kind = Tok::LBrace, 1;
      case '}': return tok.kind = Tok::RBrace, 1;
      case ',': return tok.kind = Tok::Comma, 1;
      case ':':
        if (next == '>') return tok.kind = Tok::ColonGt, 2;
        return tok.kind = Tok::Colon, 1;
      case '\\': return tok.kind = Tok::Backslash, 1;
      case '`': return tok.kind = Tok::Backtick, 1;
      case '?': return tok.kind = Tok::Question, 1;
      case '~': return tok.kind = Tok::Tilde, 1;
      case '_': return tok.kind = Tok::Underscore, 1;
      case '.': {
        std::string_view rest = text_.substr(pos);
        if (rest.starts_with("..<")) return tok.kind = Tok::TwoDotsLt, 3;
        if (rest.starts_with("..>")) return tok.kind = Tok::TwoDotsGt, 3;
        if (rest.starts_with("...")) return tok.kind = Tok::ThreeDots, 3;
        if (rest.starts_with("..")) return tok.kind = Tok::TwoDots, 2;
        return tok.kind = Tok::Dot, 1;
      }
      case '#': {
        if (next == '[') return tok.kind = Tok::HashBracket, 2;
        if (size_t n = match(identifier, p + 1, end)) {
          tok.kind = Tok::Constructor;
          // Any identifier, keywords included (`#val`), as Futhark's lexer.
          tok.text = std::string(text_.substr(pos + 1, n));
          return n + 1;
        }
        fail(pos, 1, "expected a constructor name after \"#\"");
      }
      default: break;
    }
    unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) fail(pos, 1, fmt::format("unexpected character '{}'", c));
    fail(pos, 1, fmt::format("unexpected byte 0x{:02x}", u));
  }

  // Numbers: hex float, hex/binary integer, decimal float, decimal integer;
  // each with an optional type suffix. Decimal integers may carry a float
  // suffix (2f32 is a float).
  size_t lex_number(Token& tok, size_t pos, const char* begin, const char* end) {
    const char* p = begin + pos;
    bool after_dot = pos > 0 && text_[pos - 1] == '.';
    size_t n = 0;
    enum { Dec, Hex, Bin, DecFloat, HexFloat } form = Dec;
    if (after_dot) {
      n = match(dec_digits, p, end);
    } else if ((n = match(hex_float, p, end))) {
      form = HexFloat;
    } else if ((n = match(hex_int, p, end))) {
      form = Hex;
    } else if ((n = match(bin_int, p, end))) {
      form = Bin;
    } else if ((n = match(dec_float, p, end))) {
      form = DecFloat;
    } else {
      n = match(dec_digits, p, end);
    }
    std::string body;
    for (size_t i = 0; i < n; ++i)
      if (p[i] != '_') body += p[i];

    // Suffix.
    std::optional<Prim> suffix;
    size_t suffix_len = 0;
    if (!after_dot) {
      const char* it = p + n;
      Prim prim{};
      bool is_float_form = form == DecFloat || form == HexFloat;
      if (!is_float_form && x3::parse(it, end, int_suffixes_, prim)) {
        suffix = prim;
      } else if ((form == Dec || is_float_form) && (it = p + n, x3::parse(it, end, float_suffixes_, prim))) {
        suffix = prim;
      }
      if (suffix) suffix_len = static_cast<size_t>(it - (p + n));
    }
    size_t total = n + suffix_len;
    if (pos + total < text_.size()) {
      char after = text_[pos + total];
      if (std::isalnum(static_cast<unsigned char>(after)) || after == '_' || after == '\'') {
        size_t bad_end = pos + total;
        while (bad_end < text_.size() &&
               (std::isalnum(static_cast<unsigned char>(text_[bad_end])) || text_[bad_end] == '_'))
          ++bad_end;
        fail(pos, bad_end - pos,
             fmt::format("invalid numeric literal \"{}\"", text_.substr(pos, bad_end - pos)));
      }
    }

    tok.suffix = suffix;
    bool floating = form == DecFloat || form == HexFloat || (suffix && is_float(*suffix));
    if (floating) {
      tok.kind = Tok::FloatLit;
      std::string_view digits = body;
      auto fmt_kind = std::chars_format::general;
      if (form == HexFloat) {
        digits.remove_prefix(2);
        fmt_kind = std::chars_format::hex;
      }
      double value = 0;
      auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, fmt_kind);
      if (ec == std::errc::result_out_of_range) {
        // from_chars reports overflow/underflow; Futhark rounds to inf/0.
        bool negative_exp = body.find("e-") != std::string::npos || body.find("E-") != std::string::npos ||
                            body.find("p-") != std::string::npos || body.find("P-") != std::string::npos;
        value = negative_exp ? 0.0 : HUGE_VAL;
      } else if (ec != std::errc() || ptr != digits.data() + digits.size()) {
        fail(pos, total, fmt::format("invalid floating-point literal \"{}\"", text_.substr(pos, total)));
      }
      tok.float_value = value;
    } else {
      tok.kind = Tok::IntLit;
      std::string_view digits = body;
      int base = 10;
      if (form == Hex) base = 16, digits.remove_prefix(2);
      if (form == Bin) base = 2, digits.remove_prefix(2);
      uint64_t value = 0;
      auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
      if (ec == std::errc::result_out_of_range)
        fail(pos, total, fmt::format("integer literal \"{}\" is too large", text_.substr(pos, total)));
      if (ec != std::errc() || ptr != digits.data() + digits.size())
        fail(pos, total, fmt::format("invalid integer literal \"{}\"", text_.substr(pos, total)));
      tok.int_value = value;
    }
    tok.text = std::string(text_.substr(pos, total));
    return total;
  }

  // Decodes one escape sequence starting at text_[i] == '\\'; appends the
  // code point to `cp` and returns the index after it.
  size_t decode_escape(size_t i, size_t limit, uint32_t& cp) const {
    size_t start = i;
    ++i;  // the backslash
    char e = text_[i++];
    auto digits_value = [&](int base, size_t max_digits) {
      uint64_t v = 0;
      size_t count = 0;
      while (i < limit && count < max_digits) {
        char d = text_[i];
        int dv = -1;
        if (d >= '0' && d <= '9') dv = d - '0';
        else if (d >= 'a' && d <= 'f') dv = d - 'a' + 10;
        else if (d >= 'A' && d <= 'F') dv = d - 'A' + 10;
        if (dv < 0 || dv >= base) break;
        v = v * base + dv;
        if (v > 0x10FFFF) fail(start, i - start + 1, "character escape out of range");
        ++i, ++count;
      }
      if (count == 0) fail(start, i - start, "malformed escape sequence");
      return static_cast<uint32_t>(v);
    };
    switch (e) {
      case 'n': cp = '\n'; break;
      case 't': cp = '\t'; break;
      case 'r': cp = '\r'; break;
      case 'a': cp = '\a'; break;
      case 'b': cp = '\b'; break;
      case 'f': cp = '\f'; break;
      case 'v': cp = '\v'; break;
      case '\\': cp = '\\'; break;
      case '"': cp = '"'; break;
      case '\'': cp = '\''; break;
      case 'x': cp = digits_value(16, 8); break;
      case 'o': cp = digits_value(8, 11); break;
      default:
        if (e >= '0' && e <= '9') {
          --i;
          cp = digits_value(10, 8);
          break;
        }
        fail(start, 2, fmt::format("unknown escape sequence \"\\{}\"", e));
    }
    return i;
  }

  // Decodes one UTF-8 sequence at text_[i] (before `limit`); invalid
  // sequences are an error.
  size_t decode_utf8(size_t i, size_t limit, uint32_t& cp) const {
    unsigned char b = static_cast<unsigned char>(text_[i]);
    int extra = b < 0x80 ? 0 : (b >> 5) == 0x6 ? 1 : (b >> 4) == 0xE ? 2 : (b >> 3) == 0x1E ? 3 : -1;
    if (extra < 0) fail(i, 1, "invalid UTF-8 in character literal");
    cp = extra == 0 ? b : b & (0x3F >> extra);
    for (int k = 1; k <= extra; ++k) {
      if (i + k >= limit) fail(i, 1, "invalid UTF-8 in character literal");
      unsigned char cb = static_cast<unsigned char>(text_[i + k]);
      if ((cb & 0xC0) != 0x80) fail(i, 1, "invalid UTF-8 in character literal");
      cp = (cp << 6) | (cb & 0x3F);
    }
    return i + extra + 1;
  }

  void decode_char(Token& tok, size_t pos, size_t n) {
    size_t limit = pos + n - 1;  // the closing quote
    size_t i = pos + 1;
    uint32_t cp = 0;
    if (text_[i] == '\\') i = decode_escape(i, limit, cp);
    else i = decode_utf8(i, limit, cp);
    if (i != limit) fail(pos, n, "a character literal must contain exactly one character");
    tok.kind = Tok::IntLit;
    tok.is_char = true;
    tok.int_value = cp;
    tok.text = std::string(text_.substr(pos, n));
  }

  // The bytes of a string literal body [from, to): raw bytes pass through,
  // escapes become their UTF-8 encoding.
  std::string decode_string(size_t from, size_t to) const {
    std::string out;
    size_t i = from;
    while (i < to) {
      if (text_[i] == '\\') {
        uint32_t cp = 0;
        i = decode_escape(i, to, cp);
        append_utf8(out, cp);
      } else {
        out += text_[i++];
      }
    }
    return out;
  }
};

}  // namespace

bool is_keyword(std::string_view word) {
  return std::find(kKeywords.begin(), kKeywords.end(), word) != kKeywords.end();
}

std::vector<Token> lex(const SourceFile* file) { return Lexer(file).run(); }

}  // namespace thorn
