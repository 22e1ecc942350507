#!/usr/bin/env bash
# Builds the CUB peer of the GPU benchmarks: bench/gpu/build.sh [OUT_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../../build-bench-gpu}"
mkdir -p "$out"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
arch="${THORN_BENCH_ARCH:-sm_90}"
"$nvcc" -arch="$arch" -O3 -std=c++17 -o "$out/cub_peer" "$here/cub_peer.cu"
echo "built $out/cub_peer ($arch)"
