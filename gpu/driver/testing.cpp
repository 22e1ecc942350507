#include "gpu/driver/testing.hpp"

#include <memory>

namespace thorn::gpu::testing {

namespace {
std::unique_ptr<Hooks>& slot() {
  static std::unique_ptr<Hooks> hooks;
  return hooks;
}
}  // namespace

void install(Hooks hooks) { slot() = std::make_unique<Hooks>(std::move(hooks)); }

const Hooks* installed() { return slot().get(); }

}  // namespace thorn::gpu::testing
