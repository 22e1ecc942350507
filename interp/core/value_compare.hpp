#pragma once
// Comparing results with expected values, as `futhark test` does
// (Futhark.Data.Compare): integers and booleans exactly; floats within a
// tolerance, where NaN equals NaN and infinities equal when their signs do;
// shapes must match exactly. The float tolerance of an array is absolute:
// max(tolerance, tolerance * v) over its finite expected elements v (so
// 0.002 means "0.2% of the largest expected value").
#include <optional>
#include <string>
#include <vector>

#include "interp/core/value.hpp"

namespace thorn {

constexpr double kDefaultTolerance = 0.002;

// The first difference between `got` and `expected`, described for a human
// ("value #0 index [2,1]: expected 3i32, got 4i32"), or nothing when they
// match. `index` numbers the value in messages.
std::optional<std::string> compare_value(const Value& got, const Value& expected, int index = 0,
                                         double tolerance = kDefaultTolerance);

// As compare_value for each pair; also reports a different count of values.
std::optional<std::string> compare_values(const std::vector<Value>& got, const std::vector<Value>& expected,
                                          double tolerance = kDefaultTolerance);

}  // namespace thorn
