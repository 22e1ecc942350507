#pragma once
// Random values of the value-format types, for `thorn dataset -g` and the
// `random input { [1000]i32 [10][20]f32 }` datasets of test blocks. Like
// `futhark dataset`: integers range over their whole type, floats over
// [0, 1], unless bounds are given. Generation is deterministic in the seed
// (and independent of the platform), but not bit-compatible with Futhark's
// generator.
#include <cstdint>
#include <optional>
#include <string_view>

#include "interp/core/value_io.hpp"

namespace thorn::cli {

// "[10][20]f32", "i64": a primitive type with constant dimensions. Throws
// Error(ErrorKind::Usage) saying what is wrong (tuples, missing sizes, ...).
ValueType parse_value_type(std::string_view text);

// Inclusive bounds for generated values of each primitive type.
class RandomBounds {
 public:
  RandomBounds();
  // Sets bounds from "min:max" text (as --i32-bounds=0:9); throws Error(Usage).
  void set(Prim p, std::string_view min_max);
  double low(Prim p) const { return low_[int(p)]; }
  double high(Prim p) const { return high_[int(p)]; }
  // Integers keep exact 64-bit bounds.
  int64_t low_int(Prim p) const { return low_i_[int(p)]; }
  int64_t high_int(Prim p) const { return high_i_[int(p)]; }

 private:
  double low_[kNumPrims], high_[kNumPrims];
  int64_t low_i_[kNumPrims], high_i_[kNumPrims];  // unsigned types store their bits
};

Value random_value(const ValueType& type, uint64_t seed, const RandomBounds& bounds = RandomBounds());

}  // namespace thorn::cli
