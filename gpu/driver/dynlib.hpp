#pragma once
// A shared library opened at run time (dlopen), with typed symbol lookup.
// Used for libcuda and libnvrtc so thorn builds and runs without either.
#include <cstdint>
#include <string>
#include <vector>

namespace thorn::gpu {

class DynLib {
 public:
  DynLib() = default;
  ~DynLib();
  DynLib(const DynLib&) = delete;
  DynLib& operator=(const DynLib&) = delete;
  DynLib(DynLib&& o) noexcept : handle_(o.handle_), path_(std::move(o.path_)) { o.handle_ = nullptr; }
  DynLib& operator=(DynLib&& o) noexcept;

  // Opens the first candidate that loads (a path, or a bare soname searched
  // by the dynamic loader). On failure returns a closed DynLib and sets
  // `why` to the loader's messages, one per candidate tried.
  static DynLib open_first(const std::vector<std::string>& candidates, std::string* why);

  bool is_open() const { return handle_ != nullptr; }
  const std::string& path() const { return path_; }  // the candidate that loaded

  // The symbol's address, or null when absent.
  void* symbol(const char* name) const;
  template <class Fn>
  bool bind(Fn*& out, const char* name) const {
    out = reinterpret_cast<Fn*>(symbol(name));
    return out != nullptr;
  }

 private:
  void* handle_ = nullptr;
  std::string path_;
};

// Reads an environment variable; empty when unset.
std::string env_or_empty(const char* name);
// An integer setting from the environment; `dflt` when unset.
int64_t env_int(const char* name, int64_t dflt);

}  // namespace thorn::gpu
