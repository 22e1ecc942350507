#pragma once
// Arrays of sum types in flattened code. thorn keeps such arrays boxed (a
// Value per element, core/value.hpp); a plan reads them as columns, the
// way Futhark represents them: per element the index of its constructor
// (an i32 tag) and, per constructor, the leaves of its payload (zero where
// the element holds another constructor). A plan writes sum results the
// same way, and the columns are boxed again after it ran.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "interp/core/value.hpp"
#include "interp/flatten/sym.hpp"

namespace thorn::flatten {

// The columns of a list of values of one type: a tree mirroring the type.
struct Columns {
  enum class Kind { Prim, Tuple, Record, Sum };
  Kind kind = Kind::Prim;
  Prim prim = Prim::I32;
  BufferPtr column;                // Prim: the values; Sum: the tags (i32)
  std::vector<std::string> names;  // Record: its fields; Sum: the constructors the values hold, sorted
  std::vector<Columns> children;   // Tuple/Record: the fields; Sum: each constructor's payload, as a Tuple
};

// The columns of `rows` (a null row's contents are never read: zeros), or
// nullopt when a value is not made of scalars, tuples, records and sums
// (arrays or functions in it), with the reason in `why`.
std::optional<Columns> columns_of(const std::vector<const Value*>& rows, std::string& why);

// Whether a result shaped like `like` holds a sum somewhere.
bool has_sum(const Sym& like);

// The array of `shape` whose elements are shaped like `like` from one
// buffer per leaf (Lowerer::leaves' order), starting at bufs[pos]: sums
// boxed, tuples and records as components (planning::array_from_leaves).
ArrayPtr array_with_sums(const Sym& like, const std::vector<BufferPtr>& bufs, size_t& pos,
                         const std::vector<int64_t>& shape);

}  // namespace thorn::flatten
