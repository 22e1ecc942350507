// Element structure helpers (see elem_tree.hpp).
#include "interp/flatten/elem_tree.hpp"

namespace thorn::flatten {

namespace {
bool is_product(ElemShape::Kind k) { return k == ElemShape::Kind::Tuple || k == ElemShape::Kind::Record; }
}  // namespace

bool flat_leaves(const ArrayValue& a, std::vector<const ArrayValue*>& out) {
  if (a.elem.kind == ElemShape::Kind::Prim) {
    if (!a.buffer) return false;
    out.push_back(&a);
    return true;
  }
  if (!is_product(a.elem.kind)) return false;
  for (const ArrayPtr& c : a.components)
    if (c->shape != a.shape || !flat_leaves(*c, out)) return false;
  return true;
}

void elem_prims(const ElemShape& e, std::vector<Prim>& out) {
  if (e.kind == ElemShape::Kind::Prim) {
    out.push_back(e.prim);
    return;
  }
  for (const ElemShape& c : e.children) elem_prims(c, out);
}

ElemShape elem_shape_of_sym(const Sym& like) {
  ElemShape e;
  if (like.kind == Sym::Kind::Scalar) {
    e.kind = ElemShape::Kind::Prim;
    e.prim = like.prim;
    return e;
  }
  if (like.kind != Sym::Kind::Tuple && like.kind != Sym::Kind::Record)
    throw Fallback("array elements other than scalars, tuples and records");
  e.kind = like.kind == Sym::Kind::Record ? ElemShape::Kind::Record : ElemShape::Kind::Tuple;
  for (const Sym& c : like.elems) e.children.push_back(elem_shape_of_sym(c));
  if (like.names) e.names = *like.names;
  return e;
}

ArrayPtr nest_leaves(const ElemShape& e, const std::vector<ArrayPtr>& leaves, size_t& pos,
                     const std::vector<int64_t>& shape) {
  if (e.kind == ElemShape::Kind::Prim) return leaves.at(pos++);
  auto a = std::make_shared<ArrayValue>();
  a->shape = shape;
  a->elem = e;
  for (const ElemShape& c : e.children) a->components.push_back(nest_leaves(c, leaves, pos, shape));
  return a;
}

Sym sym_from_parts(const ElemShape& e, const std::vector<Sym>& parts, size_t& pos) {
  if (e.kind == ElemShape::Kind::Prim) return parts.at(pos++);
  Sym s;
  s.kind = e.kind == ElemShape::Kind::Record ? Sym::Kind::Record : Sym::Kind::Tuple;
  for (const ElemShape& c : e.children) s.elems.push_back(sym_from_parts(c, parts, pos));
  if (s.kind == Sym::Kind::Record) s.names = std::make_shared<std::vector<std::string>>(e.names);
  return s;
}

}  // namespace thorn::flatten
