#include "interp/cli/png_file.hpp"

#include <png.h>

#include <csetjmp>
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "interp/util/error.hpp"

namespace thorn::cli {

namespace {

struct FileCloser {
  void operator()(FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<FILE, FileCloser>;

File open_file(const std::string& path, const char* mode, const char* doing) {
  File f(std::fopen(path.c_str(), mode));
  if (!f) throw Error(ErrorKind::Input, fmt::format("cannot {} {}", doing, path));
  return f;
}

}  // namespace

void write_png(const std::string& path, const Image& img) {
  File f = open_file(path, "wb", "write the image");
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!info) {
    png_destroy_write_struct(&png, nullptr);
    throw Error(ErrorKind::Input, "libpng could not start");
  }
  // libpng reports errors by longjmp; nothing with a destructor lives
  // between here and the calls that may jump.
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    throw Error(ErrorKind::Input, fmt::format("libpng failed writing {}", path));
  }
  png_init_io(png, f.get());
  png_set_IHDR(png, info, png_uint_32(img.width), png_uint_32(img.height), 8, PNG_COLOR_TYPE_RGB,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int64_t r = 0; r < img.height; ++r)
    png_write_row(png, const_cast<png_bytep>(img.rgb.data() + size_t(r * img.width) * 3));
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
}

PngSize read_png_size(const std::string& path) {
  File f = open_file(path, "rb", "read");
  png_byte signature[8];
  if (std::fread(signature, 1, 8, f.get()) != 8 || png_sig_cmp(signature, 0, 8) != 0)
    throw Error(ErrorKind::Input, fmt::format("{} is not a PNG file", path));
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!info) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    throw Error(ErrorKind::Input, "libpng could not start");
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    throw Error(ErrorKind::Input, fmt::format("{} has a broken PNG header", path));
  }
  png_init_io(png, f.get());
  png_set_sig_bytes(png, 8);
  png_read_info(png, info);
  PngSize size{png_get_image_width(png, info), png_get_image_height(png, info)};
  png_destroy_read_struct(&png, &info, nullptr);
  return size;
}

}  // namespace thorn::cli
