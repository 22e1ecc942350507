#include "interp/cli/image.hpp"

#include <cmath>

#include <fmt/format.h>

#include "interp/util/error.hpp"

namespace thorn::cli {

namespace {

[[noreturn]] void not_a_picture(const std::string& what) {
  throw Error(ErrorKind::Input,
              fmt::format("cannot make an image of {}; expected [][]u32 or [][]i32 (ARGB), [][]f32 or [][]f64 "
                          "(grey, 0 to 1), [][]u8 (grey, 0 to 255) or [][]bool",
                          what));
}

uint32_t grey(uint32_t level) { return (level << 16) | (level << 8) | level; }

// Futhark scales a float by 255, rounds, and keeps the low byte (so values
// outside [0, 1] wrap rather than clamp); the same here, for the same pictures.
uint32_t grey_of_float(double x) {
  if (!std::isfinite(x)) return 0;
  return grey(uint32_t(int64_t(std::nearbyint(x * 255.0))) & 0xFF);
}

uint32_t argb_of(const Scalar& s) {
  switch (s.type) {
    case Prim::U32: return uint32_t(s.u);
    case Prim::I32: return uint32_t(s.i);
    case Prim::U8: return grey(uint32_t(s.u));
    case Prim::Bool: return s.b ? 0xFFFFFF : 0;
    default: return grey_of_float(s.as_f64());
  }
}

bool is_picture_prim(Prim p) {
  return p == Prim::U32 || p == Prim::I32 || p == Prim::U8 || p == Prim::Bool || p == Prim::F32 || p == Prim::F64;
}

}  // namespace

Image image_from_value(const Value& v) {
  if (!v.is_array() || v.arr().elem.kind != ElemShape::Kind::Prim || v.arr().elem.ad)
    not_a_picture("a value that is not an array of numbers");
  const ArrayValue& a = v.arr();
  if (a.rank() != 2) not_a_picture(fmt::format("a {}-dimensional array", a.rank()));
  if (!is_picture_prim(a.elem.prim)) not_a_picture(fmt::format("an array of {}", prim_name(a.elem.prim)));
  Image img;
  img.height = a.shape[0];
  img.width = a.shape[1];
  img.rgb.resize(size_t(img.width * img.height) * 3);
  for (int64_t k = 0; k < img.width * img.height; ++k) {
    uint32_t argb = argb_of(prim_element(a, k));
    img.rgb[size_t(k) * 3 + 0] = uint8_t(argb >> 16);
    img.rgb[size_t(k) * 3 + 1] = uint8_t(argb >> 8);
    img.rgb[size_t(k) * 3 + 2] = uint8_t(argb);
  }
  return img;
}

}  // namespace thorn::cli
