// The grammar of Futhark's textual value format, in Boost.Spirit X3. It only
// recognises tokens and structure; every semantic check (types, regularity,
// ranges) happens in ValueBuilder, which the actions call with the exact
// source range of each token. X3 lives in this one translation unit.
#include <boost/spirit/home/x3.hpp>

#include <cctype>

#include <fmt/format.h>

#include "interp/core/value_builder.hpp"

namespace thorn {

namespace {

namespace x3 = boost::spirit::x3;

struct builder_tag;

template <class Context>
ValueBuilder& builder_of(const Context& ctx) {
  return x3::get<builder_tag>(ctx).get();
}

// Actions: hand the token's range to the builder. (Every token is wrapped
// in raw[] because in Boost 1.74 _where is the rest of the input, not the
// match.)
auto const on_open = [](auto& ctx) { builder_of(ctx).open(&*x3::_attr(ctx).begin()); };
auto const on_close = [](auto& ctx) { builder_of(ctx).close(&*x3::_attr(ctx).begin()); };

template <void (ValueBuilder::*Event)(const char*, const char*)>
struct token_action {
  template <class Context>
  void operator()(Context& ctx) const {
    auto const& range = x3::_attr(ctx);
    const char* begin = &*range.begin();
    (builder_of(ctx).*Event)(begin, begin + (range.end() - range.begin()));
  }
};

// ------------------------------------------------------------ tokens

auto const boundary = !(x3::ascii::alnum | x3::lit('_') | x3::lit('.'));
auto const digits = x3::ascii::digit >> *(x3::ascii::digit | x3::lit('_'));
auto const hex_digits = x3::ascii::xdigit >> *(x3::ascii::xdigit | x3::lit('_'));
auto const bin_digits = x3::char_("01") >> *(x3::char_("01") | x3::lit('_'));
auto const exponent = x3::char_("eE") >> -x3::char_("+-") >> digits;
auto const suffix = x3::lit("i8") | x3::lit("i16") | x3::lit("i32") | x3::lit("i64") |
                    x3::lit("u8") | x3::lit("u16") | x3::lit("u32") | x3::lit("u64") |
                    x3::lit("f16") | x3::lit("f32") | x3::lit("f64");

// A decimal needs digits on both sides of the point (as in Futhark's reader).
auto const decimal = (digits >> '.' >> digits >> -exponent) | (digits >> exponent);
auto const integer = (x3::lit("0x") >> hex_digits) | (x3::lit("0b") >> bin_digits) | digits;

auto const number = x3::raw[x3::lexeme[-x3::lit('-') >> (decimal | integer) >> -suffix >> boundary]];
auto const named_float = x3::raw[x3::lexeme[-x3::lit('-') >> (x3::lit("f16") | x3::lit("f32") | x3::lit("f64")) >>
                                            '.' >> (x3::lit("inf") | x3::lit("nan")) >> boundary]];
auto const boolean = x3::raw[x3::lexeme[(x3::lit("true") | x3::lit("false")) >> boundary]];
auto const string_literal =
    x3::raw[x3::lexeme['"' >> *((x3::lit('\\') >> x3::char_) | (x3::char_ - '"' - x3::eol)) >> '"']];

auto const prim_word = x3::lexeme[(x3::lit("bool") | suffix) >> boundary];
auto const empty_literal = x3::raw[x3::lexeme[x3::lit("empty") >> !(x3::ascii::alnum | '_')] >> '(' >>
                                   *(x3::lit('[') >> x3::lexeme[digits] >> ']') >> prim_word >> ')'];

// ------------------------------------------------------------ structure

x3::rule<class value_class> const value = "value";
// Named so that an expectation failure can say what it wanted.
x3::rule<class close_bracket_class> const close_bracket = "']'";

auto const close_bracket_def = x3::raw[x3::lit(']')][on_close];
auto const array = x3::raw[x3::lit('[')][on_open] > -(value % ',' >> -x3::lit(',')) > close_bracket;

auto const value_def = array | empty_literal[token_action<&ValueBuilder::empty>{}] |
                       string_literal[token_action<&ValueBuilder::string>{}] |
                       named_float[token_action<&ValueBuilder::named_float>{}] |
                       boolean[token_action<&ValueBuilder::boolean>{}] |
                       number[token_action<&ValueBuilder::number>{}];

BOOST_SPIRIT_DEFINE(value, close_bracket)

auto const comment = x3::lit("--") >> *(x3::char_ - x3::eol);
auto const blank = x3::ascii::space | comment;

std::string describe(const std::string& which) {
  if (which == "']'") return "expected ',' or ']'";
  if (which == "value") return "expected a value";
  return "expected " + which;
}

}  // namespace

bool parse_text_value(const char*& first, const char* last, ValueBuilder& builder) {
  auto const parser = x3::with<builder_tag>(std::ref(builder))[value];
  try {
    return x3::phrase_parse(first, last, parser, blank);
  } catch (const x3::expectation_failure<const char*>& e) {
    const char* at = e.where();
    // Point at what is there, not at the blanks before it.
    while (at != last && std::isspace(static_cast<unsigned char>(*at))) ++at;
    if (at == last) builder.fail(at, 1, describe(e.which()) + ", but the input ended");
    builder.fail(at, 1, fmt::format("{}, got {}", describe(e.which()), builder.snippet(at)));
  }
}

}  // namespace thorn
