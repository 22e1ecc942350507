#pragma once
// PNG files through libpng: writing an Image, and reading back a file's
// size (what the tests check of the pictures thorn writes).
#include <cstdint>
#include <string>

#include "interp/cli/image.hpp"

namespace thorn::cli {

// Writes `img` as an 8-bit RGB PNG; throws Error(Input) naming the file on failure.
void write_png(const std::string& path, const Image& img);

struct PngSize {
  uint32_t width = 0, height = 0;
};
// The size in a PNG file's header, after libpng has checked the signature
// and header; throws Error(Input) when the file is not a PNG.
PngSize read_png_size(const std::string& path);

}  // namespace thorn::cli
