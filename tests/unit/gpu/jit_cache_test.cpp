// The kernel caches: the disk format's integrity checks, and KernelCache's
// memory / disk / NVRTC layering (NVRTC needed for the latter; without it
// those cases only print a message).
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "gpu/codegen/skeleton.hpp"
#include "gpu/driver/nvrtc.hpp"
#include "gpu/jit/disk_cache.hpp"
#include "gpu/jit/hash.hpp"
#include "gpu/jit/kernel_cache.hpp"
#include "interp/util/error.hpp"
#include "tests/gpu/support/steps.hpp"

using namespace thorn;
using namespace thorn::gpu;
namespace fs = std::filesystem;

namespace {

std::string temp_dir(const char* tag) {
  fs::path p = fs::temp_directory_path() / fmt::format("thorn-test-{}-{}", tag, ::getpid());
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_file(const std::string& path, const std::string& data) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << data;
}

}  // namespace

TEST_CASE("hash64 is deterministic, seeded and sensitive to every byte") {
  std::string s(1000, 'x');
  CHECK(jit::hash64(s) == jit::hash64(s));
  CHECK(jit::hash64(s, 1) != jit::hash64(s, 2));
  for (size_t i : {size_t(0), size_t(31), size_t(32), size_t(999)}) {
    std::string t = s;
    t[i] ^= 1;
    CHECK(jit::hash64(t) != jit::hash64(s));
  }
  CHECK(jit::hash64("") != jit::hash64(std::string(1, '\0')));
  CHECK(jit::hex64(0xabcull) == "0000000000000abc");
}

TEST_CASE("disk cache entries round-trip and corrupt ones are misses") {
  std::string dir = temp_dir("disk");
  jit::DiskCache cache(dir);
  REQUIRE(cache.enabled());
  jit::CachedBinary bin{std::string("\x7f" "ELF fake cubin payload \0 with a NUL", 36), true};
  REQUIRE(cache.store("key1", bin));
  auto back = cache.load("key1");
  REQUIRE(back);
  CHECK(back->data == bin.data);
  CHECK(back->cubin);
  CHECK_FALSE(cache.load("missing"));

  std::string file = read_file(cache.path_of("key1"));
  SUBCASE("a flipped payload byte") {
    std::string bad = file;
    bad[bad.size() - 3] ^= 0x40;
    write_file(cache.path_of("key1"), bad);
    CHECK_FALSE(cache.load("key1"));
  }
  SUBCASE("a truncated entry") {
    write_file(cache.path_of("key1"), file.substr(0, file.size() - 5));
    CHECK_FALSE(cache.load("key1"));
  }
  SUBCASE("a header only") {
    write_file(cache.path_of("key1"), file.substr(0, 20));
    CHECK_FALSE(cache.load("key1"));
  }
  SUBCASE("another key's entry") {
    write_file(cache.path_of("key2"), file);
    CHECK_FALSE(cache.load("key2"));
  }
  SUBCASE("no temporary files are left behind") {
    int others = 0;
    for (auto& e : fs::directory_iterator(dir)) others += e.path().filename() != "key1.bin";
    CHECK(others == 0);
  }
  fs::remove_all(dir);
}

TEST_CASE("disk cache: bounded, least recently used out; a killed writer's leftovers are ignored and cleaned") {
  std::string dir = temp_dir("disk-lru");
  jit::DiskCache cache(dir, 10000);  // room for about four 2 KB entries
  jit::CachedBinary bin{std::string(2000, 'k'), true};
  for (int k = 0; k < 3; ++k) REQUIRE(cache.store(fmt::format("key{}", k), bin));
  // key0 used last: it must outlive key1 and key2.
  auto back_in_time = fs::file_time_type::clock::now() - std::chrono::minutes(10);
  for (int k = 0; k < 3; ++k)
    fs::last_write_time(cache.path_of(fmt::format("key{}", k)), back_in_time + std::chrono::seconds(k));
  REQUIRE(cache.load("key0"));
  // A writer killed mid-write: a stale temporary file, and a truncated entry.
  std::string stale = dir + "/.key9.tmp.99999.0";
  write_file(stale, std::string(100, 'x'));
  fs::last_write_time(stale, fs::file_time_type::clock::now() - std::chrono::hours(2));
  std::string whole = read_file(cache.path_of("key2"));
  write_file(cache.path_of("key8"), whole.substr(0, whole.size() / 2));
  CHECK_FALSE(cache.load("key8"));
  for (int k = 3; k < 6; ++k) REQUIRE(cache.store(fmt::format("key{}", k), bin));
  uint64_t total = 0;
  for (auto& e : fs::directory_iterator(dir)) total += fs::file_size(e.path());
  CHECK(total <= 10000);
  CHECK(cache.load("key0"));
  CHECK_FALSE(cache.load("key1"));
  CHECK(cache.load("key5"));
  CHECK_FALSE(fs::exists(stale));
  fs::remove_all(dir);
}

TEST_CASE("disk cache: two processes sharing it never see a corrupt entry") {
  std::string dir = temp_dir("disk-shared");
  pid_t child = fork();
  REQUIRE(child >= 0);
  int bad = 0;
  {
    jit::DiskCache cache(dir, 30000);
    for (int round = 0; round < 200; ++round) {
      int k = round % 23;
      std::string key = fmt::format("shared{}", k);
      jit::CachedBinary bin{std::string(size_t(1000 + k), char('a' + k)), true};
      cache.store(key, bin);
      if (auto b = cache.load(fmt::format("shared{}", (k * 7) % 23)))
        bad += b->data.size() != size_t(1000 + (k * 7) % 23) || b->data[0] != char('a' + (k * 7) % 23);
    }
  }
  if (child == 0) _exit(bad == 0 ? 0 : 1);
  int status = 0;
  waitpid(child, &status, 0);
  CHECK(bad == 0);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  fs::remove_all(dir);
}

TEST_CASE("a disabled disk cache stores nothing") {
  jit::DiskCache off("");
  CHECK_FALSE(off.enabled());
  CHECK_FALSE(off.store("k", {"x", true}));
  CHECK_FALSE(off.load("k"));
}

TEST_CASE("cache keys change with the source, the options and the target") {
  const Nvrtc& nv = Nvrtc::get();
  if (!nv.loaded()) {
    MESSAGE("NVRTC unavailable: " << nv.why());
    return;
  }
  cg::KernelSource a = cg::gen_segmap(test::map_axpy(Prim::F32, 4, 100), {});
  cg::KernelSource b = cg::gen_segmap(test::map_axpy(Prim::F64, 4, 100), {});
  Nvrtc::Target sm90{90, true}, sm80{80, true};
  std::string k = jit::cache_key(a, sm90);
  CHECK(k.size() == 32);
  CHECK(k == jit::cache_key(a, sm90));
  CHECK(k != jit::cache_key(b, sm90));
  CHECK(k != jit::cache_key(a, sm80));
  setenv("THORN_GPU_FMAD", "1", 1);
  CHECK(k != jit::cache_key(a, sm90));
  unsetenv("THORN_GPU_FMAD");
  CHECK(k == jit::cache_key(a, sm90));
}

TEST_CASE("KernelCache: NVRTC, then memory, then disk; a corrupt entry is recompiled") {
  const Nvrtc& nv = Nvrtc::get();
  if (!nv.loaded()) {
    MESSAGE("NVRTC unavailable: " << nv.why());
    return;
  }
  std::string dir = temp_dir("kc");
  jit::KernelCache cache{jit::DiskCache(dir)};
  cg::KernelSource ks = cg::gen_segmap(test::map_axpy(Prim::I32, 4, 100), {});
  std::shared_ptr<jit::KernelStats> st;
  auto bin1 = cache.binary(ks, 90, &st);
  REQUIRE(st);
  CHECK(st->compiles == 1);
  CHECK(bin1->cubin);
  CHECK(bin1->data.size() > 100);
  CHECK(st->target == "sm_90");

  auto bin2 = cache.binary(ks, 90);
  CHECK(st->memory_hits == 1);
  CHECK(bin2 == bin1);

  cache.forget_memory();
  auto bin3 = cache.binary(ks, 90);
  CHECK(st->disk_hits == 1);
  CHECK(st->compiles == 1);
  CHECK(bin3->data == bin1->data);

  // Corrupt the entry on disk: it must be recompiled, never loaded, and rewritten.
  std::string path = cache.disk().path_of(st->key);
  std::string file = read_file(path);
  file[file.size() / 2] ^= 0x5a;
  write_file(path, file);
  cache.forget_memory();
  auto bin4 = cache.binary(ks, 90);
  CHECK(st->compiles == 2);
  CHECK(st->disk_hits == 1);
  CHECK(bin4->data == bin1->data);
  CHECK(cache.disk().load(st->key));

  // A source that does not compile: NVRTC's log in a GPU error.
  cg::KernelSource broken = ks;
  broken.source += "\nthis is not CUDA;\n";
  try {
    cache.binary(broken, 90);
    CHECK_MESSAGE(false, "a broken source compiled");
  } catch (const Error& e) {
    CHECK(e.kind == ErrorKind::Gpu);
    CHECK(e.message.find("could not compile") != std::string::npos);
    CHECK(e.message.find("error") != std::string::npos);
  }
  fs::remove_all(dir);
}

TEST_CASE("THORN_DUMP_KERNELS writes kernel sources") {
  const Nvrtc& nv = Nvrtc::get();
  if (!nv.loaded()) return;
  std::string dir = temp_dir("dump"), cdir = temp_dir("dumpcache");
  setenv("THORN_DUMP_KERNELS", dir.c_str(), 1);
  jit::KernelCache cache{jit::DiskCache(cdir)};
  cg::KernelSource ks = cg::gen_transpose(4);
  cache.binary(ks, 80);
  unsetenv("THORN_DUMP_KERNELS");
  int files = 0;
  for (auto& e : fs::directory_iterator(dir)) {
    ++files;
    CHECK(e.path().extension() == ".cu");
    CHECK(read_file(e.path().string()) == ks.source);
  }
  CHECK(files == 1);
  fs::remove_all(dir);
  fs::remove_all(cdir);
}

TEST_CASE("KernelCache: bounded in memory, least recently used out; held records stay valid") {
  const Nvrtc& nv = Nvrtc::get();
  if (!nv.loaded()) {
    MESSAGE("NVRTC unavailable: " << nv.why());
    return;
  }
  std::string dir = temp_dir("kcbound");
  jit::KernelCache cache{jit::DiskCache(dir), 4};
  cg::KernelSource base = cg::gen_transpose(4);
  auto variant = [&](int i) {
    cg::KernelSource ks = base;
    ks.source += fmt::format("\n// variant {}\n", i);
    return ks;
  };
  std::shared_ptr<jit::KernelStats> first;
  auto bin0 = cache.binary(variant(0), 90, &first);
  for (int i = 1; i < 4; ++i) cache.binary(variant(i), 90);
  CHECK(cache.size() == 4);
  cache.binary(variant(0), 90);  // variant 0 is now the most recently used
  CHECK(first->memory_hits == 1);
  cache.binary(variant(4), 90);  // full: drops one entry, the least recently used (variant 1)
  CHECK(cache.size() == 4);
  CHECK(cache.totals().dropped == 1);
  CHECK(cache.binary(variant(0), 90) == bin0);  // still in memory
  CHECK(first->memory_hits == 2);
  std::shared_ptr<jit::KernelStats> again;
  cache.binary(variant(1), 90, &again);  // dropped: back from the disk cache
  CHECK(again->disk_hits == 1);
  CHECK(cache.size() <= 4);
  for (int i = 5; i < 12; ++i) cache.binary(variant(i), 90);
  CHECK(cache.size() <= 4);
  // Variant 0's entry is gone now, but its record, held here, is intact.
  CHECK(first->memory_hits == 2);
  CHECK(first->compiles == 1);
  jit::KernelTotals t = cache.totals();
  CHECK(t.compiles == 12);
  CHECK(t.disk_hits == 1);
  CHECK(t.entries == t.dropped + cache.size());
  fs::remove_all(dir);
}
