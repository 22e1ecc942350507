#include "gpu/driver/dynlib.hpp"

#include <dlfcn.h>

#include <cstdlib>

namespace thorn::gpu {

DynLib::~DynLib() {
  // Libraries are never closed while thorn runs: CUDA keeps threads and
  // atexit handlers inside them, and unloading libcuda under a live context
  // crashes at exit. The handle is deliberately leaked.
}

DynLib& DynLib::operator=(DynLib&& o) noexcept {
  handle_ = o.handle_;
  path_ = std::move(o.path_);
  o.handle_ = nullptr;
  return *this;
}

DynLib DynLib::open_first(const std::vector<std::string>& candidates, std::string* why) {
  DynLib lib;
  std::string errors;
  for (const std::string& c : candidates) {
    if (c.empty()) continue;
    void* h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h) {
      lib.handle_ = h;
      lib.path_ = c;
      return lib;
    }
    const char* e = dlerror();
    if (!errors.empty()) errors += "; ";
    errors += e ? e : c + ": cannot open";
  }
  if (why) *why = errors;
  return lib;
}

void* DynLib::symbol(const char* name) const {
  if (!handle_) return nullptr;
  return dlsym(handle_, name);
}

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

int64_t env_int(const char* name, int64_t dflt) {
  std::string v = env_or_empty(name);
  return v.empty() ? dflt : std::atoll(v.c_str());
}

}  // namespace thorn::gpu
