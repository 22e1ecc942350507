#include "interp/cli/random_values.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "interp/util/error.hpp"

namespace thorn::cli {

// ------------------------------------------------------------ types

ValueType parse_value_type(std::string_view text) {
  auto fail = [&](const std::string& why) -> void {
    throw Error(ErrorKind::Usage, fmt::format("cannot generate values of type '{}': {}", text, why));
  };
  ValueType t;
  size_t k = 0;
  auto skip = [&] {
    while (k < text.size() && std::isspace(static_cast<unsigned char>(text[k]))) ++k;
  };
  skip();
  while (k < text.size() && text[k] == '[') {
    ++k;
    skip();
    size_t start = k;
    while (k < text.size() && (std::isdigit(static_cast<unsigned char>(text[k])) || text[k] == '_')) ++k;
    if (k == start) fail("every dimension needs a constant size, as in [10]i32");
    int64_t n = 0;
    for (size_t j = start; j < k; ++j) {
      if (text[j] == '_') continue;
      if (n > (std::numeric_limits<int64_t>::max() - 9) / 10) fail("dimension too large");
      n = n * 10 + (text[j] - '0');
    }
    // Optional suffix on the size, as in [10i64]i32.
    while (k < text.size() && std::isalnum(static_cast<unsigned char>(text[k]))) ++k;
    skip();
    if (k >= text.size() || text[k] != ']') fail("expected ']'");
    ++k;
    skip();
    t.shape.push_back(n);
  }
  std::string_view rest = text.substr(k);
  while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.back()))) rest.remove_suffix(1);
  if (!rest.empty() && (rest[0] == '(' || rest[0] == '{')) fail("tuples and records are not supported");
  auto p = prim_from_name(rest);
  if (!p) fail(rest.empty() ? "missing element type" : fmt::format("unknown type '{}'", rest));
  t.prim = *p;
  return t;
}

// ------------------------------------------------------------ bounds

RandomBounds::RandomBounds() {
  for (int k = 0; k < kNumPrims; ++k) {
    Prim p = Prim(k);
    if (is_float(p)) {
      low_[k] = 0.0;
      high_[k] = 1.0;
    } else if (p == Prim::Bool) {
      low_[k] = 0;
      high_[k] = 1;
      low_i_[k] = 0;
      high_i_[k] = 1;
    } else {
      int bits = prim_bytes(p) * 8;
      if (is_signed_int(p)) {
        low_i_[k] = bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (bits - 1));
        high_i_[k] = bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (bits - 1)) - 1;
      } else {
        low_i_[k] = 0;
        high_i_[k] = bits == 64 ? int64_t(-1) : int64_t((uint64_t(1) << bits) - 1);
      }
      low_[k] = double(low_i_[k]);
      high_[k] = double(high_i_[k]);
    }
  }
}

void RandomBounds::set(Prim p, std::string_view min_max) {
  auto fail = [&]() -> void {
    throw Error(ErrorKind::Usage, fmt::format("invalid bounds for {}: '{}' (expected MIN:MAX)", prim_name(p), min_max));
  };
  size_t colon = min_max.find(':', 1);  // a leading '-' is a sign
  if (colon == std::string_view::npos) fail();
  std::string lo(min_max.substr(0, colon)), hi(min_max.substr(colon + 1));
  int k = int(p);
  if (is_float(p)) {
    double a = 0, b = 0;
    auto ra = std::from_chars(lo.data(), lo.data() + lo.size(), a);
    auto rb = std::from_chars(hi.data(), hi.data() + hi.size(), b);
    if (ra.ec != std::errc() || rb.ec != std::errc() || ra.ptr != lo.data() + lo.size() ||
        rb.ptr != hi.data() + hi.size() || !(a <= b))
      fail();
    low_[k] = a;
    high_[k] = b;
    return;
  }
  if (p == Prim::Bool) fail();
  if (is_unsigned_int(p)) {
    uint64_t a = 0, b = 0;
    auto ra = std::from_chars(lo.data(), lo.data() + lo.size(), a);
    auto rb = std::from_chars(hi.data(), hi.data() + hi.size(), b);
    if (ra.ec != std::errc() || rb.ec != std::errc() || ra.ptr != lo.data() + lo.size() ||
        rb.ptr != hi.data() + hi.size() || a > b || uint64_t(high_i_[k]) < b)
      fail();
    low_i_[k] = int64_t(a);
    high_i_[k] = int64_t(b);
  } else {
    int64_t a = 0, b = 0;
    auto ra = std::from_chars(lo.data(), lo.data() + lo.size(), a);
    auto rb = std::from_chars(hi.data(), hi.data() + hi.size(), b);
    RandomBounds defaults;
    if (ra.ec != std::errc() || rb.ec != std::errc() || ra.ptr != lo.data() + lo.size() ||
        rb.ptr != hi.data() + hi.size() || a > b || a < defaults.low_i_[k] || b > defaults.high_i_[k])
      fail();
    low_i_[k] = a;
    high_i_[k] = b;
  }
  low_[k] = double(low_i_[k]);
  high_[k] = double(high_i_[k]);
}

// ------------------------------------------------------------ generation

namespace {

// xoshiro256** seeded through splitmix64: fast, and the same sequence on
// every platform.
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (auto& s : state_) {
      seed += 0x9e3779b97f4a7c15ull;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      s = z ^ (z >> 31);
    }
  }
  uint64_t next() {
    uint64_t result = rotl(state_[1] * 5, 7) * 9;
    uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }
  // Uniform in [0, n] (n + 1 values; n = 2^64-1 means any value).
  uint64_t upto(uint64_t n) {
    if (n == std::numeric_limits<uint64_t>::max()) return next();
    uint64_t range = n + 1;
    uint64_t limit = std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % range;
    uint64_t x;
    do x = next();
    while (x >= limit);
    return x % range;
  }
  double unit() { return double(next() >> 11) * 0x1.0p-53; }  // [0, 1)

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t state_[4];
};

Scalar random_scalar(Prim p, Rng& rng, const RandomBounds& b) {
  if (p == Prim::Bool) return Scalar::boolean(rng.next() >> 63);
  if (is_float(p)) {
    double lo = b.low(p), hi = b.high(p);
    double v = lo + (hi - lo) * rng.unit();
    return Scalar::floating(p, std::min(v, hi));
  }
  uint64_t lo = uint64_t(b.low_int(p)), hi = uint64_t(b.high_int(p));
  uint64_t v = lo + rng.upto(hi - lo);  // modular arithmetic covers signed ranges too
  return is_signed_int(p) ? Scalar::signed_int(p, int64_t(v)) : Scalar::unsigned_int(p, v);
}

}  // namespace

Value random_value(const ValueType& type, uint64_t seed, const RandomBounds& bounds) {
  Rng rng(seed);
  if (type.shape.empty()) return random_scalar(type.prim, rng, bounds);
  int64_t count = 1;
  for (int64_t d : type.shape) count *= d;
  auto buffer = std::make_shared<Buffer>(type.prim, count);
  std::byte* out = buffer->host_mut();
  size_t width = size_t(prim_bytes(type.prim));
  for (int64_t k = 0; k < count; ++k) store_scalar(out + size_t(k) * width, random_scalar(type.prim, rng, bounds));
  return Value::make_array(make_prim_array(buffer, type.shape));
}

}  // namespace thorn::cli
