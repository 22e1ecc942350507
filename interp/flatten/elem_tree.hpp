#pragma once
// Element structure of arrays in the flattener: an array of (nested)
// tuples or records of scalars is kept as one buffer per scalar leaf, in
// depth-first order, as in Futhark's internal representation. These
// helpers go between that flat list of leaves and the nested structure
// (ElemShape for run-time values, Sym for lowered ones).
#include <vector>

#include "interp/core/value.hpp"
#include "interp/flatten/sym.hpp"

namespace thorn::flatten {

// The prim leaves of `a`, depth first, when every (nested) component has
// a's shape (no array components, no sum types): false otherwise.
bool flat_leaves(const ArrayValue& a, std::vector<const ArrayValue*>& out);

// The scalar types of an element structure, depth first.
void elem_prims(const ElemShape& e, std::vector<Prim>& out);

// The element structure of a lowered value made of scalars, tuples and
// records (Fallback for arrays and functions).
ElemShape elem_shape_of_sym(const Sym& like);

// An array of shape `shape` and element structure `e` over prim arrays,
// one per leaf (consumed from leaves[pos...]).
ArrayPtr nest_leaves(const ElemShape& e, const std::vector<ArrayPtr>& leaves, size_t& pos,
                     const std::vector<int64_t>& shape);

// A lowered element of structure `e` from its scalar leaves (parts[pos...]).
Sym sym_from_parts(const ElemShape& e, const std::vector<Sym>& parts, size_t& pos);

}  // namespace thorn::flatten
