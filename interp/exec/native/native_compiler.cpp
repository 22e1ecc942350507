#include "interp/exec/native/native_compiler.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <mutex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpu/jit/disk_cache.hpp"
#include "gpu/jit/hash.hpp"

extern char** environ;

namespace thorn::host::native {

namespace {

bool executable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

std::string on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return executable(name) ? name : std::string();
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (dir.empty()) continue;
    std::string p = dir + "/" + name;
    if (executable(p)) return p;
  }
  return {};
}

// The compiler child of a tiered compilation may still run when the process
// exits (the background thread is detached): an exit handler kills it and
// removes its temporary directory, so that nothing is left behind.
constexpr int kStoppedBySignal = -2;

struct Active {
  std::mutex mu;
  pid_t pid = 0;
  std::string dir;
  // Set by the exit handler: the background thread may not start another
  // compiler, whose arguments would point into strings that the static
  // destructors free next (a "-fvisibility=hiddenp" from a compiler spawned
  // while the process exited).
  bool exiting = false;
};
Active& active() {
  static Active* a = [] {
    auto* x = new Active;
    std::atexit([] {
      Active& s = active();
      std::lock_guard lk(s.mu);
      s.exiting = true;
      if (s.pid > 0) {
        ::kill(s.pid, SIGKILL);
        for (const char* f : {"k.cpp", "k.log", "k.so", "version.txt"}) ::unlink((s.dir + "/" + f).c_str());
        ::rmdir(s.dir.c_str());
      }
    });
    return x;
  }();
  return *a;
}

// Runs argv with stdout and stderr to `log` (or /dev/null); the exit status,
// -1 when it could not start, or kStoppedBySignal when a signal ended it (the
// exit handler above, at the end of a short run, or the system running out
// of memory): the compiler itself is fine then. posix_spawn, not system(): system() blocks
// SIGCHLD and ignores SIGINT in the whole process while it waits, and the
// compiler runs on a background thread while the REPL takes Ctrl-C.
int run(const std::vector<std::string>& argv, const std::string& log) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  const char* out = log.empty() ? "/dev/null" : log.c_str();
  // Not the REPL's standard input: the compiler must not compete for it.
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid;
  Active& act = active();
  std::unique_lock lk(act.mu);
  if (act.exiting) {
    posix_spawn_file_actions_destroy(&fa);
    return kStoppedBySignal;
  }
  int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  act.pid = pid;
  act.dir = log.empty() ? std::string() : log.substr(0, log.rfind('/'));
  lk.unlock();
  int status = 0;
  int w;
  while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  lk.lock();
  act.pid = 0;
  if (w < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : kStoppedBySignal;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool write_file(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), std::streamsize(data.size()));
  return bool(out);
}

std::string temp_dir() {
  const char* t = std::getenv("TMPDIR");
  std::string pattern = std::string(t && *t ? t : "/tmp") + "/thorn-native-XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) return {};
  return buf.data();
}

void remove_dir(const std::string& dir, std::initializer_list<const char*> files) {
  for (const char* f : files) ::unlink((dir + "/" + f).c_str());
  ::rmdir(dir.c_str());
}

// What -march=native depends on: the CPU's model and feature flags.
std::string cpu_id() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, id;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0 || line.rfind("flags", 0) == 0 || line.rfind("Features", 0) == 0)
      id += line + "\n";
    if (line.empty() && !id.empty()) break;  // the first processor is enough
  }
  return id;
}

bool load(const std::string& so_path, Built& out, std::string& error) {
  void* h = ::dlopen(so_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = ::dlerror();
    error = fmt::format("dlopen: {}", e ? e : "unknown error");
    return false;
  }
  out.handle = h;
  out.entries.segmap = reinterpret_cast<SegMapFn>(::dlsym(h, "thorn_segmap"));
  out.entries.tile = reinterpret_cast<TileFn>(::dlsym(h, "thorn_tile"));
  out.entries.apply = reinterpret_cast<ApplyFn>(::dlsym(h, "thorn_apply"));
  out.entries.fold = reinterpret_cast<FoldFn>(::dlsym(h, "thorn_fold"));
  if (!out.entries.tile) {
    error = "the object has no thorn_tile";
    return false;
  }
  return true;
}

const gpu::jit::DiskCache& disk() {
  static const gpu::jit::DiskCache cache(gpu::jit::DiskCache::default_dir());
  return cache;
}

}  // namespace

const Toolchain& toolchain() {
  static const Toolchain tc = [] {
    Toolchain t;
    std::vector<std::string> names;
    if (const char* env = std::getenv("THORN_CXX"); env && *env) names.push_back(env);
    else names = {"c++", "g++", "clang++"};
    for (const std::string& n : names) {
      std::string p = on_path(n);
      if (p.empty()) continue;
      std::string dir = temp_dir();
      if (dir.empty()) break;
      std::string log = dir + "/version.txt";
      int rc = run({p, "--version"}, log);
      std::string v = read_file(log);
      remove_dir(dir, {"version.txt"});
      if (rc != 0) continue;
      t.ok = true;
      t.cxx = p;
      t.version = v.substr(0, v.find('\n'));
      return t;
    }
    t.why = names.size() == 1 ? fmt::format("THORN_CXX={} is not a working compiler", names[0])
                              : "no C++ compiler (c++, g++, clang++) on PATH";
    return t;
  }();
  return tc;
}

const std::string& compile_flags() {
  // Never destroyed: the detached background thread may read it while the
  // process exits.
  static const std::string* flags = new std::string(
      "-std=c++17 -O3 -march=native -ffp-contract=off -fno-math-errno -fPIC -shared -fvisibility=hidden -w");
  return *flags;
}

bool process_exiting() {
  Active& act = active();
  std::lock_guard lk(act.mu);
  return act.exiting;
}

std::string cache_key(const std::string& source) {
  static const std::string machine = cpu_id();
  uint64_t h = gpu::jit::hash64(source);
  h = gpu::jit::hash64(toolchain().version, h);
  h = gpu::jit::hash64(compile_flags(), h);
  h = gpu::jit::hash64(machine, h);
  return "native-" + gpu::jit::hex64(h);
}

bool build(const std::string& source, Built& out, std::string& error, bool& toolchain_broken) {
  toolchain_broken = false;
  const Toolchain& tc = toolchain();
  if (!tc.ok) {
    error = tc.why;
    toolchain_broken = true;
    return false;
  }
  auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  std::string key = cache_key(source);
  // THORN_DUMP_KERNELS: the GPU's kernel dump directory takes these too.
  if (const char* dump = std::getenv("THORN_DUMP_KERNELS"); dump && *dump) {
    ::mkdir(dump, 0755);
    write_file(std::string(dump) + "/" + key + ".cpp", source);
  }
  std::string dir = temp_dir();
  if (dir.empty()) {
    error = "cannot create a temporary directory";
    return false;
  }
  std::string so = dir + "/k.so";
  // dlopen needs a file; a cached object is copied out of its entry (the
  // entry has a header) and the copy deleted once loaded.
  if (auto hit = disk().load(key)) {
    if (write_file(so, hit->data) && load(so, out, error)) {
      remove_dir(dir, {"k.so"});
      out.ms = elapsed();
      out.from_disk = true;
      return true;
    }
    error.clear();
  }
  std::string cpp = dir + "/k.cpp", log = dir + "/k.log";
  if (!write_file(cpp, source)) {
    remove_dir(dir, {"k.cpp"});
    error = "cannot write the kernel source";
    return false;
  }
  std::vector<std::string> argv{tc.cxx};
  std::stringstream fs(compile_flags());
  for (std::string f; fs >> f;) argv.push_back(f);
  argv.insert(argv.end(), {"-o", so, cpp, "-lm"});
  int rc = run(argv, log);
  if (rc != 0) {
    std::string msg = read_file(log);
    if (msg.size() > 2000) msg = msg.substr(0, 2000) + "...";
    error = rc == kStoppedBySignal ? fmt::format("{} was stopped by a signal", tc.cxx)
            : rc < 0               ? fmt::format("{} could not run", tc.cxx)
                                   : fmt::format("{} failed:\n{}", tc.cxx, msg);
    toolchain_broken = rc < 0 && rc != kStoppedBySignal;
    remove_dir(dir, {"k.cpp", "k.log", "k.so"});
    return false;
  }
  std::string binary = read_file(so);
  bool ok = load(so, out, error);
  if (ok) disk().store(key, gpu::jit::CachedBinary{binary, false});
  remove_dir(dir, {"k.cpp", "k.log", "k.so"});
  out.ms = elapsed();
  return ok;
}

}  // namespace thorn::host::native
