// The default backend and the `--backend gpu` fallback (session_setup.hpp).
#include <doctest/doctest.h>

#include "gpu/executor.hpp"
#include "interp/cli/session_setup.hpp"

using namespace thorn;
using namespace thorn::cli;

TEST_CASE("default backend: gpu with a usable GPU, else host; explicit gpu without one runs on host") {
  bool have_gpu = gpu::GpuBackend::get() != nullptr;
  CHECK(default_backend() == (have_gpu ? "gpu" : "host"));
  CommonOptions none;
  CHECK(none.backend.empty());
  choose_backend(none);
  CHECK(none.backend == default_backend());
  CommonOptions g;
  g.backend = "gpu";
  choose_backend(g);  // prints the one-line notice without a GPU
  CHECK(g.backend == (have_gpu ? "gpu" : "host"));
  CommonOptions r;
  r.backend = "reference";
  choose_backend(r);
  CHECK(r.backend == "reference");
  CHECK(backend_unavailable_reason("host").empty());
  CHECK(backend_unavailable_reason("gpu").empty() == have_gpu);
}
