#include "interp/core/value_ad.hpp"

#include "interp/core/ad_value.hpp"

namespace thorn {

namespace {

bool is_ad_boxed(const ArrayValue& a) { return a.elem.kind == ElemShape::Kind::Boxed && a.elem.ad; }

// Whether the primitive leaves of `a` include boxed AD scalars / plain buffers.
void leaf_kinds(const ArrayValue& a, bool& boxed, bool& prim) {
  switch (a.elem.kind) {
    case ElemShape::Kind::Prim: prim = true; return;
    case ElemShape::Kind::Boxed:
      if (a.elem.ad) boxed = true;
      return;
    case ElemShape::Kind::Tuple:
    case ElemShape::Kind::Record:
      for (const auto& c : a.components) leaf_kinds(*c, boxed, prim);
      return;
  }
}

// Boxes every primitive leaf of a (possibly tuple/record) array.
ArrayPtr box_leaves(const ArrayValue& a) {
  switch (a.elem.kind) {
    case ElemShape::Kind::Prim: return box_scalars(a);
    case ElemShape::Kind::Boxed: return std::make_shared<ArrayValue>(a);
    case ElemShape::Kind::Tuple:
    case ElemShape::Kind::Record: {
      auto out = std::make_shared<ArrayValue>(a);
      out->components.clear();
      out->elem.children.clear();
      for (const auto& c : a.components) {
        out->components.push_back(box_leaves(*c));
        out->elem.children.push_back(out->components.back()->elem);
      }
      return out;
    }
  }
  return nullptr;
}

}  // namespace

ArrayPtr box_scalars(const ArrayValue& a) {
  if (is_ad_boxed(a)) return std::make_shared<ArrayValue>(a);
  auto out = std::make_shared<ArrayValue>();
  out->shape = a.shape;
  out->elem.kind = ElemShape::Kind::Boxed;
  out->elem.ad = true;
  out->elem.prim = a.buffer->elem();
  int64_t n = a.count();
  std::vector<Value> values;
  values.reserve(size_t(n));
  for (int64_t k = 0; k < n; ++k) values.emplace_back(prim_element(a, k));
  out->boxed = std::make_shared<const std::vector<Value>>(std::move(values));
  return out;
}

bool holds_ad_scalars(const ArrayValue& a) {
  if (!is_ad_boxed(a)) return false;
  int64_t n = a.count();
  for (int64_t k = 0; k < n; ++k)
    if ((*a.boxed)[size_t(a.offset + k)].kind == Value::Kind::AD) return true;
  return false;
}

ArrayPtr unbox_scalars(const ArrayValue& a) {
  auto out = make_prim_array(a.elem.prim, a.shape);
  int64_t n = a.count();
  size_t width = size_t(prim_bytes(a.elem.prim));
  std::byte* dst = out->buffer->host_mut();
  for (int64_t k = 0; k < n; ++k) {
    Scalar s = ad_scalar((*a.boxed)[size_t(a.offset + k)]);
    store_scalar(dst + size_t(k) * width, s.type == a.elem.prim ? s : s.convert_to(a.elem.prim));
  }
  return out;
}

bool scalar_rows_carry_ad(const std::vector<Value>& rows) {
  for (const auto& r : rows)
    if (r.kind == Value::Kind::AD) return true;
  return false;
}

bool rows_mix_ad_scalars(const std::vector<Value>& rows) {
  bool boxed = false, prim = false;
  for (const auto& r : rows) leaf_kinds(*r.array, boxed, prim);
  return boxed && prim;
}

std::vector<Value> box_rows(const std::vector<Value>& rows) {
  std::vector<Value> out;
  out.reserve(rows.size());
  for (const auto& r : rows) out.push_back(Value::make_array(box_leaves(*r.array)));
  return out;
}

}  // namespace thorn
