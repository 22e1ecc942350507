// install(): the emulator as test hooks (gpu/driver/testing.hpp), for test
// executables that link it statically. The driver library
// (libthorn-cuda-emu.so, libcuda.cpp) is the other way in.
#include <filesystem>

#include "gpu/driver/testing.hpp"
#include "tests/gpu/emulator/emulator.hpp"

namespace thorn::gpu::emu {

void install(const Options& options) {
  opts = options;
  if (opts.work_dir.empty()) opts.work_dir = std::filesystem::temp_directory_path().string() + "/thorn-emulator";
  testing::Hooks h;
  h.driver = &driver_api();
  h.driver_name = "thorn GPU emulator";
  h.compile = compile;
  testing::install(std::move(h));
}

}  // namespace thorn::gpu::emu
