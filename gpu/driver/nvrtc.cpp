#include "gpu/driver/nvrtc.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "gpu/driver/dynlib.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu {

namespace {

const char* const kSonames[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so"};

std::vector<std::string> nvrtc_candidates() {
  std::vector<std::string> out;
  std::string forced = env_or_empty("THORN_NVRTC");
  if (!forced.empty()) out.push_back(forced);
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    std::string dir = env_or_empty(var);
    if (dir.empty()) continue;
    for (const char* so : kSonames) out.push_back(dir + "/lib64/" + so);
  }
  for (const char* so : kSonames) out.push_back(std::string("/usr/local/cuda/lib64/") + so);
  for (const char* so : kSonames) out.push_back(so);
  return out;
}

}  // namespace

Nvrtc::Nvrtc() {
  std::string errors;
  DynLib lib = DynLib::open_first(nvrtc_candidates(), &errors);
  if (!lib.is_open()) {
    why_ = "NVRTC not found (libnvrtc.so.13/.12 not on $THORN_NVRTC, $CUDA_HOME, /usr/local/cuda/lib64 "
           "or the loader path)";
    return;
  }
  path_ = lib.path();
  std::string missing;
#define BIND(field)                             \
  if (!lib.bind(api_.field, #field)) {          \
    if (!missing.empty()) missing += ", ";      \
    missing += #field;                          \
  }
  BIND(nvrtcVersion);
  BIND(nvrtcGetErrorString);
  BIND(nvrtcCreateProgram);
  BIND(nvrtcDestroyProgram);
  BIND(nvrtcCompileProgram);
  BIND(nvrtcGetProgramLogSize);
  BIND(nvrtcGetProgramLog);
  BIND(nvrtcGetCUBINSize);
  BIND(nvrtcGetCUBIN);
  BIND(nvrtcGetPTXSize);
  BIND(nvrtcGetPTX);
#undef BIND
  lib.bind(api_.nvrtcGetNumSupportedArchs, "nvrtcGetNumSupportedArchs");
  lib.bind(api_.nvrtcGetSupportedArchs, "nvrtcGetSupportedArchs");
  if (!missing.empty()) {
    why_ = fmt::format("NVRTC {} lacks {}", path_, missing);
    return;
  }
  if (api_.nvrtcVersion(&major_, &minor_) != NVRTC_SUCCESS) {
    why_ = fmt::format("NVRTC {}: nvrtcVersion failed", path_);
    return;
  }
  int n = 0;
  if (api_.nvrtcGetNumSupportedArchs && api_.nvrtcGetSupportedArchs &&
      api_.nvrtcGetNumSupportedArchs(&n) == NVRTC_SUCCESS && n > 0) {
    archs_.resize(size_t(n));
    if (api_.nvrtcGetSupportedArchs(archs_.data()) != NVRTC_SUCCESS) archs_.clear();
    std::sort(archs_.begin(), archs_.end());
  }
  loaded_ = true;
}

const Nvrtc& Nvrtc::get() {
  static const Nvrtc nvrtc;  // process-wide, loaded once
  return nvrtc;
}

std::string Nvrtc::version_string() const { return fmt::format("{}.{}", major_, minor_); }

std::string Nvrtc::Target::option() const {
  return fmt::format("--gpu-architecture={}_{}", cubin ? "sm" : "compute", arch);
}

Nvrtc::Target Nvrtc::target_for(int device_arch) const {
  Target t;
  t.arch = device_arch;
  // Old NVRTC without the query: trust it knows the device.
  if (archs_.empty() || std::find(archs_.begin(), archs_.end(), device_arch) != archs_.end())
    return t;
  // A device newer than this NVRTC: emit PTX for the newest architecture it
  // knows; the driver JIT-compiles it for the device.
  int best = 0;
  for (int a : archs_)
    if (a <= device_arch) best = std::max(best, a);
  t.arch = best ? best : archs_.front();
  t.cubin = false;
  return t;
}

NvrtcOutput Nvrtc::compile(const std::string& source, const std::string& name,
                           const std::vector<std::string>& options, const Target& target) const {
  if (!loaded_) throw Error(ErrorKind::Gpu, why_);
  auto check = [&](nvrtcResult r, const char* call) {
    if (r != NVRTC_SUCCESS)
      throw Error(ErrorKind::Gpu, fmt::format("{} failed: {}", call, api_.nvrtcGetErrorString(r)));
  };
  NvrtcOutput out;
  nvrtcProgram prog = nullptr;
  check(api_.nvrtcCreateProgram(&prog, source.c_str(), name.c_str(), 0, nullptr, nullptr),
        "nvrtcCreateProgram");
  struct Guard {
    const NvrtcApi& api;
    nvrtcProgram& p;
    ~Guard() { api.nvrtcDestroyProgram(&p); }
  } guard{api_, prog};

  std::vector<std::string> opts = options;
  opts.push_back(target.option());
  std::vector<const char*> argv;
  for (const std::string& o : opts) argv.push_back(o.c_str());

  auto t0 = std::chrono::steady_clock::now();
  nvrtcResult r = api_.nvrtcCompileProgram(prog, int(argv.size()), argv.data());
  out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

  size_t log_size = 0;
  if (api_.nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 1) {
    out.log.resize(log_size);
    api_.nvrtcGetProgramLog(prog, out.log.data());
    while (!out.log.empty() && (out.log.back() == '\0' || out.log.back() == '\n')) out.log.pop_back();
  }
  if (r != NVRTC_SUCCESS) {
    if (out.log.empty()) out.log = api_.nvrtcGetErrorString(r);
    return out;
  }
  size_t size = 0;
  if (target.cubin) {
    check(api_.nvrtcGetCUBINSize(prog, &size), "nvrtcGetCUBINSize");
    out.binary.resize(size);
    check(api_.nvrtcGetCUBIN(prog, out.binary.data()), "nvrtcGetCUBIN");
  } else {
    check(api_.nvrtcGetPTXSize(prog, &size), "nvrtcGetPTXSize");
    out.binary.resize(size);  // includes the terminating NUL the driver wants
    check(api_.nvrtcGetPTX(prog, out.binary.data()), "nvrtcGetPTX");
  }
  out.is_cubin = target.cubin;
  out.ok = true;
  return out;
}

}  // namespace thorn::gpu
