#include <doctest/doctest.h>

#include <cmath>

#include "syntax_test_util.hpp"

using namespace thorn;
using namespace thorn::test;

namespace {
Token one(std::string_view text) {
  auto toks = tokens(text);
  REQUIRE(toks.size() == 1);
  return toks[0];
}
}  // namespace

TEST_CASE("lexer: integer literals") {
  Token t = one("42");
  CHECK(t.kind == Tok::IntLit);
  CHECK(t.int_value == 42);
  CHECK(!t.suffix);
  CHECK(t.text == "42");

  CHECK(one("0xff").int_value == 255);
  CHECK(one("0XFF").int_value == 255);
  CHECK(one("0b1010").int_value == 10);
  CHECK(one("0B1_0").int_value == 2);
  CHECK(one("1_000_000").int_value == 1000000);
  CHECK(one("0xdead_beef").int_value == 0xdeadbeefULL);
  CHECK(one("18446744073709551615").int_value == 18446744073709551615ULL);

  Token s = one("1_000i64");
  CHECK(s.kind == Tok::IntLit);
  CHECK(s.int_value == 1000);
  CHECK(s.suffix == Prim::I64);
  CHECK(one("7u8").suffix == Prim::U8);
  CHECK(one("7i8").suffix == Prim::I8);
  CHECK(one("7i16").suffix == Prim::I16);
  CHECK(one("7u16").suffix == Prim::U16);
  CHECK(one("7i32").suffix == Prim::I32);
  CHECK(one("7u32").suffix == Prim::U32);
  CHECK(one("7u64").suffix == Prim::U64);
  CHECK(one("0xffu8").suffix == Prim::U8);
  CHECK(one("0xffu8").int_value == 255);
  CHECK(one("0b11i16").int_value == 3);
  // Hex digits swallow what would otherwise be a float suffix.
  CHECK(one("0x10f32").int_value == 0x10f32);
}

TEST_CASE("lexer: float literals") {
  Token t = one("1.5");
  CHECK(t.kind == Tok::FloatLit);
  CHECK(t.float_value == 1.5);
  CHECK(!t.suffix);
  CHECK(one("1e3").float_value == 1000.0);
  CHECK(one("1E3").kind == Tok::FloatLit);
  CHECK(one("1.5e-3").float_value == doctest::Approx(0.0015));
  CHECK(one("2.5E+2").float_value == 250.0);
  CHECK(one("1_0.2_5").float_value == 10.25);
  CHECK(one("0x1.8p1").float_value == 3.0);
  CHECK(one("0x1.fp3").float_value == 15.5);
  CHECK(one("0x1.8p-1f32").suffix == Prim::F32);

  Token f = one("2f32");  // integer digits with a float suffix are a float
  CHECK(f.kind == Tok::FloatLit);
  CHECK(f.float_value == 2.0);
  CHECK(f.suffix == Prim::F32);
  CHECK(one("3f16").suffix == Prim::F16);
  CHECK(one("1.5f64").suffix == Prim::F64);
  CHECK(one("1337e2f64").float_value == 133700.0);
  CHECK(one("1e400").float_value == HUGE_VAL);
}

TEST_CASE("lexer: character and string literals") {
  Token c = one("'a'");
  CHECK(c.kind == Tok::IntLit);
  CHECK(c.is_char);
  CHECK(c.int_value == 'a');
  CHECK(c.text == "'a'");
  CHECK(one("'\\n'").int_value == '\n');
  CHECK(one("'\\t'").int_value == '\t');
  CHECK(one("'\\\\'").int_value == '\\');
  CHECK(one("'\\''").int_value == '\'');
  CHECK(one("'\\65'").int_value == 65);
  CHECK(one("'\\x41'").int_value == 0x41);
  CHECK(one("'é'").int_value == 0xE9);
  CHECK(one("'λ'").int_value == 0x3BB);

  Token s = one("\"abc\"");
  CHECK(s.kind == Tok::StringLit);
  CHECK(s.text == "abc");
  CHECK(one("\"a\\nb\\t\\\"q\\\"\\\\\"").text == "a\nb\t\"q\"\\");
  CHECK(one("\"\\955\"").text == "\xCE\xBB");  // λ encoded as UTF-8
  CHECK(one("\"héllo\"").text == "h\xC3\xA9llo");
  CHECK(one("\"\"").text.empty());
}

TEST_CASE("lexer: identifiers, keywords, constructors") {
  auto toks = tokens("x xs' _y __intrinsic a_b1 if then match true #some #[ i32 _");
  REQUIRE(toks.size() == 13);
  CHECK(toks[0].kind == Tok::Ident);
  CHECK(toks[1].text == "xs'");
  CHECK(toks[2].text == "_y");
  CHECK(toks[3].text == "__intrinsic");
  CHECK(toks[3].kind == Tok::Ident);
  CHECK(toks[4].text == "a_b1");
  CHECK(toks[5].kind == Tok::Keyword);
  CHECK(toks[6].is_keyword("then"));
  CHECK(toks[7].is_keyword("match"));
  CHECK(toks[8].is_keyword("true"));
  CHECK(toks[9].kind == Tok::Constructor);
  CHECK(toks[9].text == "some");
  CHECK(toks[10].kind == Tok::HashBracket);
  CHECK(toks[11].kind == Tok::Ident);
  CHECK(toks[12].kind == Tok::Underscore);
}

TEST_CASE("lexer: operators and punctuation") {
  auto toks = tokens("+ - * ** <= >>= |> <| = == ! != -> : :> .. ... ..< ..> . ` \\ ? ~ '^ '~ ' +^ <*>");
  std::vector<Tok> kinds;
  for (const auto& t : toks) kinds.push_back(t.kind);
  std::vector<Tok> expected = {Tok::Symbol,    Tok::Symbol,   Tok::Symbol,    Tok::Symbol,    Tok::Symbol,
                               Tok::Symbol,    Tok::Symbol,   Tok::Symbol,    Tok::Equals,    Tok::Symbol,
                               Tok::Bang,      Tok::Symbol,   Tok::Arrow,     Tok::Colon,     Tok::ColonGt,
                               Tok::TwoDots,   Tok::ThreeDots, Tok::TwoDotsLt, Tok::TwoDotsGt, Tok::Dot,
                               Tok::Backtick,  Tok::Backslash, Tok::Question,  Tok::Tilde,     Tok::ApostropheHat,
                               Tok::ApostropheTilde, Tok::Apostrophe, Tok::Symbol, Tok::Symbol};
  CHECK(kinds == expected);
  CHECK(toks[5].text == ">>=");
  CHECK(toks[27].text == "+^");

  auto q = tokens("i32.+ M.N.<*>");
  REQUIRE(q.size() == 2);
  CHECK(q[0].kind == Tok::Symbol);
  CHECK(q[0].text == "+");
  CHECK(q[0].quals == std::vector<std::string>{"i32"});
  CHECK(q[1].text == "<*>");
  CHECK(q[1].quals == std::vector<std::string>{"M", "N"});
}

TEST_CASE("lexer: comments and positions") {
  auto toks = tokens("-- a comment\nlet x = 1 -- another\n  in x--y\n");
  REQUIRE(toks.size() == 6);
  CHECK(toks[0].is_keyword("let"));
  CHECK(toks[0].loc.line == 2);
  CHECK(toks[0].loc.col == 1);
  CHECK(toks[0].loc.end_col == 3);
  CHECK(toks[3].loc.col == 9);  // 1
  CHECK(toks[4].is_keyword("in"));
  CHECK(toks[4].loc.line == 3);
  CHECK(toks[4].loc.col == 3);
  CHECK(toks[5].text == "x");  // `--y` is a comment
  CHECK(toks[5].loc.end_col == 6);
  CHECK(tokens("-- == test block\n-- input { 1 }\n").empty());
}

TEST_CASE("lexer: whitespace-before flag and index brackets") {
  auto toks = tokens("xs[i] f [1] (a)[0] g(x) x.0");
  REQUIRE(toks.size() >= 16);
  CHECK(toks[0].space_before);  // start of input counts as whitespace
  CHECK(toks[1].kind == Tok::IndexBracket);
  CHECK(!toks[1].space_before);
  CHECK(toks[5].kind == Tok::LBracket);
  CHECK(toks[5].space_before);
  CHECK(toks[11].kind == Tok::IndexBracket);  // after `)`
  CHECK(toks[14].kind == Tok::Ident);         // g
  CHECK(toks[15].kind == Tok::LParen);
  CHECK(!toks[15].space_before);
  auto arr = tokens("[1][0] \"s\"[0]");
  CHECK(arr[3].kind == Tok::IndexBracket);  // after `]`
  CHECK(arr[7].kind == Tok::LBracket);      // after a string literal: not indexing
}

TEST_CASE("lexer: numbers after a dot are field indices") {
  auto toks = tokens("t.0.1");
  REQUIRE(toks.size() == 5);
  CHECK(toks[2].kind == Tok::IntLit);
  CHECK(toks[2].int_value == 0);
  CHECK(toks[4].int_value == 1);
  auto range = tokens("1..5");
  REQUIRE(range.size() == 3);
  CHECK(range[1].kind == Tok::TwoDots);
}

TEST_CASE("lexer: errors") {
  auto err = [](std::string_view text) -> std::optional<Error> {
    try {
      tokens(text);
    } catch (const Error& e) {
      return e;
    }
    return std::nullopt;
  };
  auto e1 = err("x = \"abc");
  REQUIRE(e1);
  CHECK(e1->kind == ErrorKind::Syntax);
  CHECK(e1->message == "unterminated string literal");
  CHECK(e1->loc.col == 5);
  auto e2 = err("99999999999999999999");
  REQUIRE(e2);
  CHECK(e2->message.find("too large") != std::string::npos);
  auto e3 = err("1i3");
  REQUIRE(e3);
  CHECK(e3->message == "invalid numeric literal \"1i3\"");
  auto e4 = err("x $ y");
  REQUIRE(e4);
  CHECK(e4->message == "unexpected character '$'");
  CHECK(e4->loc.col == 3);
  auto e5 = err("\"\\q\"");
  REQUIRE(e5);
  CHECK(e5->message == "unknown escape sequence \"\\q\"");
  CHECK(err("#")->message == "expected a constructor name after \"#\"");
  CHECK(err("'\\1114112'"));
  CHECK(err("\xff"));
  // A non-ASCII byte after a backslash (found by the fuzzer: X3's character
  // classes assert on such bytes).
  CHECK(err("\"\\\xc3\xa9\"")->message.find("unknown escape sequence") == 0);
  CHECK(err("'\\\x85'"));
}
