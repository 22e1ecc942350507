// thorn dataset: random values like `futhark dataset`, or conversion of
// values on stdin between the text and binary formats.
#include <unistd.h>

#include <iostream>
#include <iterator>

#include <fmt/format.h>

#include "interp/cli/args.hpp"
#include "interp/cli/commands.hpp"
#include "interp/cli/random_values.hpp"
#include "interp/core/value_io.hpp"
#include "interp/util/error.hpp"

namespace thorn::cli {

namespace {

constexpr const char* kHelp = R"(Usage: thorn dataset [options...]

Generate random values in Futhark's value format on standard output, like
`futhark dataset`. Without -g, values are read from standard input (text or
binary) and written in the chosen format instead, which converts between them.

  -g, --generate TYPE   generate a value of TYPE, e.g. -g [1000][32]f32 -g i64;
                        TYPE may also be a literal value (-g 10i64)
  -s, --seed N          seed of the first generated value (default 1); the
                        k-th -g uses seed N+k
  --text                write the text format (the default)
  -b, --binary          write Futhark's binary format
  -t, --type            write the type of each value instead of the value
  --T-bounds=MIN:MAX    inclusive bounds for values of type T (e.g.
                        --i32-bounds=0:9, --f32-bounds=-1:1); integers default
                        to their whole range, floats to [0, 1]

Format and bound options apply to the -g options after them.
)";

enum class Format { Text, Binary, Type };

struct Order {
  std::optional<ValueType> type;  // generate this
  std::optional<Value> literal;   // or write this value
  Format format;
  RandomBounds bounds;
};

void write(const Value& v, Format format) {
  switch (format) {
    case Format::Binary: {
      std::string bytes = binary_value(v);
      std::cout.write(bytes.data(), std::streamsize(bytes.size()));
      break;
    }
    case Format::Text: {
      TypePtr type = semantic_type(value_type_of(v));
      std::cout << format_value(v, type, ValueStyle::Data) << '\n';
      break;
    }
    case Format::Type: {
      std::cout << value_type_of(v).str() << '\n';
      break;
    }
  }
}

}  // namespace

int cmd_dataset(const Args& args_in) {
  ArgScanner args("dataset", args_in);
  Format format = Format::Text;
  RandomBounds bounds;
  long long seed = 1;
  std::vector<Order> orders;
  while (args.next()) {
    if (args.is("-h", "--help")) {
      std::cout << kHelp;
      return 0;
    } else if (args.is("-g", "--generate")) {
      std::string text = args.value();
      Order o{std::nullopt, std::nullopt, format, bounds};
      // A literal value, or a type.
      try {
        ValueReader r(text, "-g");
        auto v = r.read_any("value");
        if (r.at_end()) o.literal = v.first;
      } catch (const Error&) {
      }
      if (!o.literal) o.type = parse_value_type(text);
      orders.push_back(std::move(o));
    } else if (args.is("-s", "--seed")) {
      seed = parse_integer(args, args.value());
    } else if (args.is("", "--text")) {
      args.no_value();
      format = Format::Text;
    } else if (args.is("-b", "--binary")) {
      args.no_value();
      format = Format::Binary;
    } else if (args.is("-t", "--type")) {
      args.no_value();
      format = Format::Type;
    } else if (!args.positional() && args.arg().size() > 9 &&
               args.arg().compare(args.arg().size() - 7, 7, "-bounds") == 0) {
      std::string name = args.arg().substr(2, args.arg().size() - 9);
      auto p = prim_from_name(name);
      if (!p || *p == Prim::Bool) args.fail(fmt::format("unknown option '{}'", args.arg()));
      bounds.set(*p, args.value());
    } else {
      args.unknown();
    }
  }

  if (orders.empty()) {
    // Convert: read every value on stdin.
    std::string input{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
    ValueReader reader(input, "<stdin>");
    int k = 0;
    while (!reader.at_end()) write(reader.read_any(fmt::format("value {}", ++k)).first, format);
    return 0;
  }
  for (size_t k = 0; k < orders.size(); ++k) {
    const Order& o = orders[k];
    if (o.literal) {
      write(*o.literal, o.format);
    } else {
      write(random_value(*o.type, uint64_t(seed) + k, o.bounds), o.format);
    }
  }
  std::cout.flush();
  return 0;
}

}  // namespace thorn::cli
