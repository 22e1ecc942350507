#include "gpu/jit/kernel_cache.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "gpu/driver/cuda.hpp"
#include "gpu/driver/dynlib.hpp"
#include "gpu/driver/testing.hpp"
#include "gpu/jit/hash.hpp"
#include "gpu/jit/lru.hpp"
#include "interp/util/cancel.hpp"
#include "interp/util/error.hpp"

namespace thorn::gpu::jit {

std::vector<std::string> compile_options() {
  // 177/550: unused or write-only variables, which dead code in the kernel
  // IR produces routinely.
  std::vector<std::string> o = {"--std=c++17", "--diag-suppress=177,550"};
  o.push_back(env_or_empty("THORN_GPU_FMAD") == "1" ? "--fmad=true" : "--fmad=false");
  // Since 12.4: leaves out texture, device-runtime and similar declarations
  // the kernels never use; about 15% less compile time.
  const Nvrtc& nv = Nvrtc::get();
  if (nv.major() > 12 || (nv.major() == 12 && nv.minor() >= 4)) o.push_back("-minimal");
  return o;
}

std::string cache_key(const cg::KernelSource& ks, const Nvrtc::Target& target) {
  const Nvrtc& nv = Nvrtc::get();
  std::string material = ks.source;
  material += '\0';
  for (const std::string& o : compile_options()) material += o + '\0';
  material += target.option() + '\0';
  material += fmt::format("nvrtc {}.{}", nv.major(), nv.minor());
  return hex64(hash64(material, 1)) + hex64(hash64(material, 2));
}

NvrtcOutput compile_uncached(const cg::KernelSource& ks, const Nvrtc::Target& target) {
  return Nvrtc::get().compile(ks.source, ks.entries.empty() ? "thorn.cu" : ks.entries[0] + ".cu",
                              compile_options(), target);
}

KernelCache& KernelCache::get() {
  static KernelCache* cache = new KernelCache(DiskCache(DiskCache::default_dir()));  // lives until exit
  return *cache;
}

namespace {

std::string sanitized(const std::string& name) {
  std::string s;
  for (char c : name) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_') ? c : '_';
  return s.substr(0, 80);
}

void dump_source(const cg::KernelSource& ks, const std::string& key) {
  std::string dir = env_or_empty("THORN_DUMP_KERNELS");
  if (dir.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::ofstream(dir + "/" + sanitized(ks.name) + "-" + key.substr(0, 16) + ".cu") << ks.source;
}

}  // namespace

size_t KernelCache::max_kernels() {
  static const size_t n = size_t(std::max<int64_t>(4, env_int("THORN_GPU_MAX_KERNELS", 512)));
  return n;
}

KernelCache::Entry& KernelCache::entry(const std::string& key, const cg::KernelSource& ks,
                                       const std::string& target) {
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    if (entries_.size() >= max_entries_) {
      std::vector<std::string> old = oldest_quarter(entries_, [](const auto& e) { return e->last_use; });
      for (const std::string& k : old) entries_.erase(k);
      totals_.dropped += old.size();
    }
    auto e = std::make_unique<Entry>();
    e->stats = std::make_shared<KernelStats>();
    e->stats->name = ks.name;
    e->stats->key = key;
    e->stats->target = target;
    ++totals_.entries;
    it = entries_.emplace(key, std::move(e)).first;
  }
  it->second->last_use = ++clock_;
  return *it->second;
}

std::shared_ptr<const CachedBinary> KernelCache::binary(const cg::KernelSource& ks, int device_arch,
                                                        std::shared_ptr<KernelStats>* stats_out, bool ptx) {
  const Nvrtc& nv = Nvrtc::get();
  const testing::Hooks* hooks = testing::installed();
  if (hooks && hooks->compile) return emulated(ks, hooks->compile, stats_out);
  if (CudaDriver::SourceCompiler sc = CudaDriver::get().source_compiler()) {
    // The emulator's driver library compiles source itself (cuda.hpp).
    auto compile = [sc](const std::string& src) {
      std::string out(16384, '\0');
      int rc = sc(src.c_str(), out.data(), out.size());
      out.resize(std::strlen(out.c_str()));
      if (rc != 0) throw Error(ErrorKind::Gpu, "the emulator could not compile a kernel: " + out);
      return out;
    };
    return emulated(ks, compile, stats_out);
  }
  if (!nv.loaded()) throw Error(ErrorKind::Gpu, nv.why());
  Nvrtc::Target target = nv.target_for(device_arch);
  if (ptx) target.cubin = false;
  std::string key = cache_key(ks, target);

  // One lock for the lookup and the compilation: compilations are rare and
  // two threads wanting the same kernel must not both run NVRTC.
  std::lock_guard<std::mutex> lock(mu_);
  Entry& e = entry(key, ks, fmt::format("{}_{}", target.cubin ? "sm" : "compute", target.arch));
  if (stats_out) *stats_out = e.stats;
  if (e.binary) {
    ++e.stats->memory_hits;
    return e.binary;
  }
  if (!e.failure.empty()) throw Error(ErrorKind::Gpu, e.failure);
  dump_source(ks, key);
  auto t0 = std::chrono::steady_clock::now();
  if (auto cached = disk_.load(key); cached && cached->cubin == target.cubin) {
    e.stats->disk_load_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    ++e.stats->disk_hits;
    ++totals_.disk_hits;
    e.binary = std::make_shared<const CachedBinary>(std::move(*cached));
    return e.binary;
  }
  check_cancel();  // Ctrl-C: no new compilation once cancelled
  NvrtcOutput out = nv.compile(ks.source, ks.entries.empty() ? "thorn.cu" : ks.entries[0] + ".cu",
                               compile_options(), target);
  ++e.stats->compiles;
  ++totals_.compiles;
  e.stats->compile_ms += out.ms;
  if (!out.ok) {
    e.failure = fmt::format("NVRTC {} could not compile kernel '{}' for {}:\n{}", nv.version_string(), ks.name,
                            e.stats->target, out.log);
    throw Error(ErrorKind::Gpu, e.failure);
  }
  CachedBinary bin{std::move(out.binary), out.is_cubin};
  disk_.store(key, bin);
  e.binary = std::make_shared<const CachedBinary>(std::move(bin));
  return e.binary;
}

std::shared_ptr<const CachedBinary> KernelCache::emulated(
    const cg::KernelSource& ks, const std::function<std::string(const std::string&)>& compile,
    std::shared_ptr<KernelStats>* stats_out) {
  // A test's or the emulator's compiler: memory cache only here, so its
  // output never lands where a real driver could find it (the emulator
  // keeps its own cache of compiled kernels).
  std::string key = "emulated-" + hex64(hash64(ks.source, 1)) + hex64(hash64(ks.source, 2));
  std::lock_guard<std::mutex> lock(mu_);
  Entry& e = entry(key, ks, "emulated");
  if (stats_out) *stats_out = e.stats;
  if (e.binary) {
    ++e.stats->memory_hits;
    return e.binary;
  }
  if (!e.failure.empty()) throw Error(ErrorKind::Gpu, e.failure);
  dump_source(ks, key);
  auto t0 = std::chrono::steady_clock::now();
  std::string bin;
  try {
    bin = compile(ks.source);
  } catch (const Error& err) {
    e.failure = err.message;
    throw;
  } catch (const std::exception& err) {
    e.failure = fmt::format("the emulator could not compile kernel '{}': {}", ks.name, err.what());
    throw Error(ErrorKind::Gpu, e.failure);
  }
  ++e.stats->compiles;
  ++totals_.compiles;
  e.stats->compile_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  e.binary = std::make_shared<const CachedBinary>(CachedBinary{std::move(bin), true});
  return e.binary;
}

void KernelCache::note_launch(KernelStats* s, uint64_t n) {
  if (!s) return;
  std::lock_guard<std::mutex> lock(mu_);
  s->launches += n;
}

void KernelCache::note_memory_hit(KernelStats* s) {
  if (!s) return;
  std::lock_guard<std::mutex> lock(mu_);
  ++s->memory_hits;
  // A hit on a loaded module: its entry is in use (when still in memory).
  if (auto it = entries_.find(s->key); it != entries_.end() && it->second->stats.get() == s)
    it->second->last_use = ++clock_;
}

std::vector<KernelStats> KernelCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<KernelStats> out;
  for (const auto& [key, e] : entries_) out.push_back(*e->stats);
  return out;
}

KernelTotals KernelCache::totals() const {
  std::lock_guard<std::mutex> lock(mu_);
  return totals_;
}

size_t KernelCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

void KernelCache::forget_memory() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [key, e] : entries_) e->binary.reset();
}

std::string format_kernel_stats(const std::vector<KernelStats>& stats) {
  if (stats.empty()) return "no GPU kernels compiled\n";
  std::string s = fmt::format("{:<44} {:>8} {:>8} {:>10} {:>8} {:>9} {:>10}\n", "kernel", "target", "compiles",
                              "compile ms", "mem hits", "disk hits", "launches");
  for (const KernelStats& k : stats)
    s += fmt::format("{:<44} {:>8} {:>8} {:>10.1f} {:>8} {:>9} {:>10}\n", k.name.substr(0, 44), k.target,
                     k.compiles, k.compile_ms, k.memory_hits, k.disk_hits, k.launches);
  return s;
}

}  // namespace thorn::gpu::jit
