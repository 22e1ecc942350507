#!/usr/bin/env bash
# Installs missing build dependencies, configures and builds thorn into build/.
# Usage: scripts/build.sh [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
ninja -C build
