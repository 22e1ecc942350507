#pragma once
// NVRTC, the CUDA runtime compiler, loaded with dlopen at first use.
//
// Library search (first that loads wins):
//   $THORN_NVRTC (a path to libnvrtc.so.*),
//   $CUDA_HOME/lib64, $CUDA_PATH/lib64, /usr/local/cuda/lib64 (each with the
//   sonames below), then the dynamic loader's path:
//   libnvrtc.so.13, libnvrtc.so.12, libnvrtc.so.11.2, libnvrtc.so.
// NVRTC works without a GPU: the nvrtc tests compile every kernel skeleton on
// machines that have the toolkit but no device.
#include <string>
#include <vector>

#include "gpu/driver/cuda_types.hpp"

namespace thorn::gpu {

struct NvrtcApi {
  nvrtcResult (*nvrtcVersion)(int*, int*) = nullptr;
  const char* (*nvrtcGetErrorString)(nvrtcResult) = nullptr;
  nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                                    const char* const*) = nullptr;
  nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram*) = nullptr;
  nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram, int, const char* const*) = nullptr;
  nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*nvrtcGetPTXSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*nvrtcGetPTX)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*nvrtcGetNumSupportedArchs)(int*) = nullptr;  // optional (CUDA >= 11.2)
  nvrtcResult (*nvrtcGetSupportedArchs)(int*) = nullptr;     // optional
};

// What one compilation produced.
struct NvrtcOutput {
  bool ok = false;
  std::string binary;  // cubin (or PTX text when compiled for a virtual arch)
  bool is_cubin = false;
  std::string log;     // the compiler's log (errors and warnings)
  double ms = 0;       // wall time of nvrtcCompileProgram
};

class Nvrtc {
 public:
  static const Nvrtc& get();  // loads on first call; thread-safe

  bool loaded() const { return loaded_; }
  const std::string& why() const { return why_; }   // one line when !loaded()
  const std::string& path() const { return path_; }
  int major() const { return major_; }
  int minor() const { return minor_; }
  std::string version_string() const;               // "13.0"
  const std::vector<int>& supported_archs() const { return archs_; }  // e.g. {75, 80, ..., 120}

  // The architecture to compile for on a device of compute capability `arch`
  // (major*10+minor), and whether it is a real one (cubin) or the newest
  // virtual one NVRTC knows (PTX, finished by the driver's JIT), for devices
  // newer than this NVRTC.
  struct Target {
    int arch = 0;
    bool cubin = true;
    std::string option() const;  // "--gpu-architecture=sm_90" / "compute_90"
  };
  Target target_for(int device_arch) const;

  // Compiles `source` (named `name` in messages) with `options`, producing a
  // cubin when target.cubin, else PTX. Never throws for compile errors: they
  // come back in `log` with ok=false. Throws Error(Gpu) when NVRTC is missing.
  NvrtcOutput compile(const std::string& source, const std::string& name,
                      const std::vector<std::string>& options, const Target& target) const;

 private:
  Nvrtc();
  bool loaded_ = false;
  std::string why_, path_;
  int major_ = 0, minor_ = 0;
  std::vector<int> archs_;
  NvrtcApi api_;
};

}  // namespace thorn::gpu
