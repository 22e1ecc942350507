#!/usr/bin/env bash
# The GPU benchmarks in one call, on a machine with a device:
#   bench/gpu/run.sh [RESULTS_DIR]
# Runs CUB's reductions, scans and histograms first (cub_peer), then thorn's with CUB's
# results for the ratios; both write JSON and text into RESULTS_DIR (default: $OUT
# when set, else bench/gpu/results).
#
# Programs: from gpu-carry/ when present (bench/gpu/pack.sh made it on a
# machine with thorn's build dependencies), else built here with CMake and
# nvcc. Environment: LOG_N (default 28), REPS (default 10), THORN_BENCH_ARCH
# (sm_90).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
results="${1:-${OUT:-$here/results}}"
log_n="${LOG_N:-28}"
reps="${REPS:-10}"
mkdir -p "$results"

if [ -x "$root/gpu-carry/thorn_gpu_bench" ]; then
  bin="$root/gpu-carry"
  export LD_LIBRARY_PATH="$bin/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
  bin="$root/build-bench-gpu"
  mkdir -p "$bin"
  cmake -G Ninja -S "$root" -B "$bin" -DCMAKE_BUILD_TYPE=Release > "$bin/cmake.log"
  ninja -C "$bin" thorn_gpu_bench
  cp "$bin/bench/gpu/thorn_gpu_bench" "$bin/thorn_gpu_bench"
fi
[ -x "$bin/cub_peer" ] || "$here/build.sh" "$bin"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv || true

"$bin/cub_peer" --out "$results/cub_peer.json" --log-n "$log_n" --reps "$reps" | tee "$results/cub_peer.txt"
THORN_CACHE_DIR="$results/kernel-cache" "$bin/thorn_gpu_bench" --peer "$results/cub_peer.json" \
  --out "$results/thorn_gpu_bench.json" --log-n "$log_n" --reps "$reps" | tee "$results/thorn_gpu_bench.txt"
rm -rf "$results/kernel-cache"
