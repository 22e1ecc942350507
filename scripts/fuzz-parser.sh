#!/usr/bin/env bash
# Builds the libFuzzer parser target with clang in its own build directory
# and runs it for a bounded time (ctest's fuzz/parser test calls this).
# Usage: scripts/fuzz-parser.sh BUILD_DIR [SECONDS]
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
dir="$1"
seconds="${2:-60}"
CC=clang CXX=clang++ cmake -G Ninja -S "$src" -B "$dir" -DTHORN_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C "$dir" parser_fuzz
ctest --test-dir "$dir" -L fuzz --output-on-failure
