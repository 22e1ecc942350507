#!/usr/bin/env bash
# Everything a device run checks and measures, in one call on the device
# machine (nothing is built there):
#   tests/gpu/run_on_device.sh [LOG_DIR]
# Programs come from gpu-carry/ (made here by bench/gpu/pack.sh BUILD_DIR),
# else from build-gpu/. In order, each step bounded by STEP_TIMEOUT seconds:
#  1. the GPU differential suite with a cold, then a warm kernel cache, and
#     the scan suite (thorn_gpu_scan_differential) and the histogram suite
#     (thorn_gpu_hist_differential);
#  2. `thorn test --backend gpu --validate tests/programs` with every
#     supported nest offloaded (thresholds 0);
#  3. compute-sanitizer memcheck, racecheck and synccheck over the
#     differential suite at small sizes, over the scan suite's small-tile
#     cases and the histogram suite's known answers (SKIP_SANITIZER=1 skips them);
#  4. the benchmarks: bench/gpu/run.sh (CUB and copy peers) and
#     bench/gpu/e2e.sh (programs, GPU against host) (SKIP_BENCH=1 skips).
# Logs go to LOG_DIR (default $OUT/device-run, else /tmp/device-run); with
# $OUT set they are also packed into $OUT/device-run.tgz, one file, since
# a device call brings back at most 8. The exit status is that of the first
# failing step; FAIL lines are printed last.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
logs="${1:-${OUT:-/tmp}/device-run}"
mkdir -p "$logs"
if [ -x "$root/gpu-carry/thorn_gpu_differential" ]; then
  bin="$root/gpu-carry"
  export LD_LIBRARY_PATH="$bin/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
  bin="$root/build-gpu/tests/gpu"
fi
export PATH="$PATH:/usr/local/cuda/bin"
cache="$(mktemp -d)/kernel-cache"
status=0
step_timeout="${STEP_TIMEOUT:-240}"
t() { timeout "$step_timeout" "$@"; }
note() { [ "$status" -ne 0 ] || status=$1; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$logs/device.txt" 2>&1
t "$bin/thorn_gpu_differential" --fresh-cache "$cache" > "$logs/gpu_cold.log" 2>&1 || note $?
tail -3 "$logs/gpu_cold.log"
t "$bin/thorn_gpu_differential" --expect-warm "$cache" > "$logs/gpu_warm.log" 2>&1 || note $?
tail -3 "$logs/gpu_warm.log"

# The scan suite and 1000 random scan launches (tests/gpu/scan_differential.cpp).
if [ -x "$bin/thorn_gpu_scan_differential" ]; then
  THORN_CACHE_DIR="$cache" t "$bin/thorn_gpu_scan_differential" --stress 1000 > "$logs/gpu_scan.log" 2>&1 || note $?
  grep -E "^(scan suite|stress)" "$logs/gpu_scan.log"
fi

# The histogram suite and 1000 random histogram launches (tests/gpu/hist_differential.cpp).
if [ -x "$bin/thorn_gpu_hist_differential" ]; then
  THORN_CACHE_DIR="$cache" t "$bin/thorn_gpu_hist_differential" --stress 1000 > "$logs/gpu_hist.log" 2>&1 || note $?
  grep -E "^(hist suite|stress|histogram kernel)" "$logs/gpu_hist.log"
fi

thorn="$bin/thorn"
[ -x "$thorn" ] || thorn="$root/build-gpu/thorn"
if [ -x "$thorn" ]; then
  THORN_GPU_THRESHOLD=0 THORN_HOST_MIN_WORK=0 THORN_CACHE_DIR="$cache" \
    t "$thorn" test --backend gpu --validate "$root/tests/programs" > "$logs/programs_gpu.log" 2>&1 || note $?
  tail -1 "$logs/programs_gpu.log"
fi

# At --log-n 12 racecheck ran past 100 s on an H100; 8 takes about a minute.
if [ -z "${SKIP_SANITIZER:-}" ] && command -v compute-sanitizer >/dev/null 2>&1; then
  for tool in memcheck racecheck synccheck; do
    t compute-sanitizer --tool "$tool" --error-exitcode 9 "$bin/thorn_gpu_differential" --fresh-cache "$(mktemp -d)" \
      --log-n 8 > "$logs/sanitizer_$tool.log" 2>&1 || note $?
    tail -1 "$logs/sanitizer_$tool.log"
    # The scan on its small-tile configurations (many tiles, short look-backs and long ones).
    if [ -x "$bin/thorn_gpu_scan_differential" ]; then
      THORN_CACHE_DIR="$(mktemp -d)" t compute-sanitizer --tool "$tool" --error-exitcode 9 \
        "$bin/thorn_gpu_scan_differential" --filter "block 32 m 3" --stress 20 > "$logs/sanitizer_scan_$tool.log" 2>&1 || note $?
      tail -1 "$logs/sanitizer_scan_$tool.log"
    fi
    # Histograms: the known answers on every launch configuration (locks,
    # CAS loops, shared and global subhistograms, several passes).
    if [ -x "$bin/thorn_gpu_hist_differential" ]; then
      THORN_CACHE_DIR="$(mktemp -d)" t compute-sanitizer --tool "$tool" --error-exitcode 9 \
        "$bin/thorn_gpu_hist_differential" --filter "known" --stress 0 > "$logs/sanitizer_hist_$tool.log" 2>&1 || note $?
      tail -1 "$logs/sanitizer_hist_$tool.log"
    fi
  done
fi

if [ -z "${SKIP_BENCH:-}" ]; then
  t bash "$root/bench/gpu/run.sh" "$logs" > "$logs/bench.log" 2>&1 || note $?
  grep -E "^(reduce|map_axpy|scan|hist|nvrtc|disk|warm)" "$logs/thorn_gpu_bench.txt" 2>/dev/null
  t bash "$root/bench/gpu/e2e.sh" "$logs" > "$logs/e2e.log" 2>&1 || note $?
  grep -A1 "backend)" "$logs/e2e.log"
fi

grep -h "FAIL" "$logs"/*.log | head -40
if [ -n "${OUT:-}" ]; then
  tar czf "$OUT/device-run.tgz" -C "$(dirname "$logs")" "$(basename "$logs")"
  [ -n "${1:-}" ] || rm -rf "$logs"  # the default folder in $OUT: the archive holds it
fi
exit $status
