#pragma once
// Structural operations on run-time values that need no evaluator:
// equality, construction from types, indexing regions, simple printing.
#include <optional>
#include <string>
#include <vector>

#include "interp/core/value.hpp"
#include "interp/eval/callable.hpp"
#include "interp/types/type.hpp"

namespace thorn::eval {

// Futhark's `==` on any non-function value: structural, IEEE on floats
// (so an array holding NaN is not equal to itself).
bool values_equal(const Value& a, const Value& b);

// The structure of elements of (non-array) type t, as arrays store them.
ElemShape elem_shape_of_type(const Type& t);
// An array of type t whose dimensions are taken from the type where they
// are constants and are 0 otherwise (so: the empty array of that type).
Value empty_array_of_type(const Type& t);

// Futhark's text for a value, without needing its type (used when value_io's
// printer is not available): 1i32, [1i32, 2i32], (1i32, true), empty([0]i32).
std::string format_value_plain(const Value& v);

// Futhark's rendering of index components in error messages: `5`, `1:3`, `::-1`.
std::string index_text(const std::vector<IndexValue>& idx);

// a[idx] for an array value. Throws Error(Runtime) without a location:
// "Index [5] out of bounds for array of shape [3]."
Value index_array(const ArrayValue& a, const std::vector<IndexValue>& idx);

// a with [idx] = v, in place when `a` is the only reference to its storage,
// otherwise on a copy. Takes `a` by value so that the caller's reference is
// released first.
Value update_array(Value a, const std::vector<IndexValue>& idx, const Value& v);

// True when nothing but `a` refers to its storage (the ArrayPtr itself is
// checked by the caller).
bool storage_unique(const ArrayValue& a);

}  // namespace thorn::eval
