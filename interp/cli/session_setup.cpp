#include "interp/cli/session_setup.hpp"

#include <algorithm>
#include <iostream>

#include <fmt/format.h>

#include "gpu/executor.hpp"
#include "interp/util/error.hpp"

namespace thorn::cli {

const char* const kCommonOptionsHelp =
    "  --backend NAME        where SOACs run: reference (sequential), host (flattened,\n"
    "                        CPU cores) or gpu (CUDA kernels); default: gpu when a GPU\n"
    "                        is usable, else host. gpu without a GPU runs on host\n"
    "  --validate            also run each offloaded nest on the reference backend\n"
    "                        and report the first one whose results differ\n";

const std::vector<std::string>& backend_names() {
  static const std::vector<std::string> names{"reference", "host", "gpu"};
  return names;
}

std::string backend_description(const std::string& backend) {
  if (backend == "reference") return "sequential reference interpreter on the CPU";
  if (backend == "host") return "flattened parallel plans on the CPU cores";
  if (backend == "gpu") return "JIT-compiled CUDA kernels on the GPU, small nests on the CPU";
  return backend;
}

bool take_common_option(ArgScanner& args, CommonOptions& options) {
  if (args.is("", "--backend")) {
    std::string name = args.value();
    const auto& names = backend_names();
    if (std::find(names.begin(), names.end(), name) == names.end())
      args.fail(fmt::format("unknown backend '{}' (choose reference, host or gpu)", name));
    options.backend = name;
    return true;
  }
  if (args.is("", "--validate")) {
    args.no_value();
    options.validate = true;
    return true;
  }
  return false;
}

std::string default_backend() {
  static const std::string b = gpu::GpuBackend::get() ? "gpu" : "host";
  return b;
}

void choose_backend(CommonOptions& options) {
  if (options.backend.empty()) {
    options.backend = default_backend();
    return;
  }
  if (options.backend != "gpu") return;
  std::string why;
  if (gpu::GpuBackend::get(&why)) return;
  std::cerr << fmt::format("thorn: no usable GPU ({}); running on the host backend\n", why);
  options.backend = "host";
}

#ifdef THORN_HAVE_SESSION
std::unique_ptr<Session> open_session(CommonOptions& options) {
  choose_backend(options);
  SessionOptions so;
  so.backend = options.backend;
  so.validate = options.validate;
  if (options.backend == "reference") return std::make_unique<Session>(so);
  try {
    return std::make_unique<Session>(so);
  } catch (const Error& e) {
    std::cerr << fmt::format("thorn: backend '{}' is not available ({}); using 'reference'\n", options.backend,
                             e.message);
    options.backend = "reference";
    so.backend = "reference";
    return std::make_unique<Session>(so);
  }
}
#endif

std::string backend_unavailable_reason(const std::string& backend) {
  if (backend == "gpu") {
    std::string why;
    if (!gpu::GpuBackend::get(&why)) return why.empty() ? "no usable GPU" : why;
  }
#ifdef THORN_HAVE_SESSION
  try {
    SessionOptions so;
    so.backend = backend;
    Session probe(so);
    return "";
  } catch (const Error& e) {
    return e.message;
  }
#else
  (void)backend;
  return "this build has no evaluator";
#endif
}

void resolve_backend(CommonOptions& options) {
  choose_backend(options);
  if (options.backend == "reference") return;
  std::string why = backend_unavailable_reason(options.backend);
  if (why.empty()) return;
  std::cerr << fmt::format("thorn: backend '{}' is not available ({}); using 'reference'\n", options.backend, why);
  options.backend = "reference";
}

int evaluator_missing(const char* command) {
  std::cerr << fmt::format("thorn {}: this build has no evaluator (interp/eval/session.hpp is missing)\n", command);
  return 1;
}

}  // namespace thorn::cli
