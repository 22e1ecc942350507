#pragma once
// Futhark values as pictures, by `futhark literate`'s rules for :img:
//   [][]u32, [][]i32   ARGB pixels (alpha is dropped, as Futhark's BMP step drops it)
//   [][]f32, [][]f64   greyscale, 0 black to 1 white
//   [][]u8             greyscale, 0 black to 255 white
//   [][]bool           false black, true white
#include <cstdint>
#include <string>
#include <vector>

#include "interp/core/value.hpp"

namespace thorn::cli {

// 8-bit RGB, row-major, the first row at the top.
struct Image {
  int64_t width = 0, height = 0;
  std::vector<uint8_t> rgb;  // 3 bytes per pixel
};

// The picture of a 2D array of the types above; throws Error(Input) saying
// which types are accepted when `v` is none of them.
Image image_from_value(const Value& v);

}  // namespace thorn::cli
