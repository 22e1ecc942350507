#pragma once
// What every command that runs Futhark code shares: the --backend and
// --validate options, and opening a Session with them.
//
// Backends: `reference` (sequential, the semantic oracle), `host`
// (flattened plans on the CPU cores) and `gpu` (JIT-compiled CUDA kernels).
// An unknown name is a usage error. Without --backend the default is `gpu`
// when a GPU is usable here and `host` otherwise, silently. An explicit
// `--backend gpu` without a usable GPU runs on `host` after one line on
// stderr saying why, so scripts keep working on machines without a GPU.
#include <memory>
#include <string>
#include <vector>

#include "interp/cli/args.hpp"

#if __has_include("interp/eval/session.hpp")
#include "interp/eval/session.hpp"
#define THORN_HAVE_SESSION 1
#endif

namespace thorn::cli {

struct CommonOptions {
  std::string backend;  // empty: default_backend(), resolved when a session opens
  bool validate = false;
};

// `gpu` when GpuBackend::get() finds a usable device, else `host`.
std::string default_backend();

// Consumes --backend NAME and --validate when `args` is at one of them.
bool take_common_option(ArgScanner& args, CommonOptions& options);

// Help text lines for the common options.
extern const char* const kCommonOptionsHelp;

const std::vector<std::string>& backend_names();

// One line on where code of this backend runs, for banners and --version.
std::string backend_description(const std::string& backend);

#ifdef THORN_HAVE_SESSION
// A Session with the chosen backend, or the reference backend after a
// notice when the chosen one is unavailable. `options.backend` is updated
// to the backend actually used.
std::unique_ptr<Session> open_session(CommonOptions& options);
#endif

// Checks once that the chosen backend can be used, falling back to
// `reference` with the one-line notice when not (for commands that open
// many sessions, like `test`).
void resolve_backend(CommonOptions& options);

// Replaces an empty backend by default_backend(), and `gpu` without a
// usable GPU by `host` after the one-line notice. Idempotent.
void choose_backend(CommonOptions& options);

// Empty when `backend` can be used here, otherwise why not (for --version).
std::string backend_unavailable_reason(const std::string& backend);

// Printed by the commands that need the evaluator when it is not built.
int evaluator_missing(const char* command);

}  // namespace thorn::cli
