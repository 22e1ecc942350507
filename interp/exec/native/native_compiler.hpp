#pragma once
// The system C++ compiler as the native tier's back end (internal header):
// finds it, compiles a generated unit into a shared object, keeps the object
// in the on-disk kernel cache (gpu/jit/disk_cache.hpp) and loads it with
// dlopen. Why a compiler process rather than an in-process JIT such as LLVM
// ORC: docs/architecture.md, "Native host kernels".
#include <string>

#include "interp/exec/native/native_abi.hpp"

namespace thorn::host::native {

struct Toolchain {
  bool ok = false;
  std::string cxx;      // the compiler's path
  std::string version;  // first line of `cxx --version`
  std::string why;      // !ok: what is missing
};

// Found once: $THORN_CXX, else c++, g++, clang++ on PATH.
const Toolchain& toolchain();

// The flags every unit is compiled with: -O3 because the block form's lane
// loops must be unrolled and vectorised (k-means: 360 ms at -O2, 170 ms at
// -O3). Bit-identical results with the
// interpreter need IEEE arithmetic as written: no -ffast-math, and no
// contraction of a*b+c into fused multiply-adds (-ffp-contract=off), which
// -march=native would otherwise enable where the CPU has FMA.
const std::string& compile_flags();

struct Built {
  void* handle = nullptr;  // from dlopen; never closed (see native_registry.hpp)
  Entries entries;
  double ms = 0;           // compiling (or loading from disk) took this long
  bool from_disk = false;  // the disk cache had it
};

// Compiles `source` (or loads it from the disk cache). Returns false with
// `error` set when the compiler fails or the object does not load;
// `toolchain_broken` is set when the compiler could not run at all.
bool build(const std::string& source, Built& out, std::string& error, bool& toolchain_broken);
// Whether the process is exiting: a compilation that failed then was cut
// short by the exit handler, not by anything worth reporting.
bool process_exiting();

// The disk-cache key of a unit: its text, the compiler's version, the flags
// and the CPU (the object is built for this machine's instruction set).
std::string cache_key(const std::string& source);

}  // namespace thorn::host::native
