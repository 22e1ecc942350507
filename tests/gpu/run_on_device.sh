#!/usr/bin/env bash
# The GPU tests on a device machine, cold and warm kernel cache:
#   tests/gpu/run_on_device.sh [LOG_DIR]
# Uses gpu-carry/ (bench/gpu/pack.sh) when present, else build-gpu/.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
logs="${1:-${OUT:-/tmp}}"
if [ -x "$root/gpu-carry/thorn_gpu_differential" ]; then
  bin="$root/gpu-carry"
  export LD_LIBRARY_PATH="$bin/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
  bin="$root/build-gpu/tests/gpu"
fi
cache="$(mktemp -d)/kernel-cache"
status=0
# Each step is bounded so that one hang cannot eat the device lease.
step_timeout="${STEP_TIMEOUT:-240}"
t() { timeout "$step_timeout" "$@"; }
t "$bin/thorn_gpu_differential" --fresh-cache "$cache" > "$logs/gpu_cold.log" 2>&1 || status=$?
tail -5 "$logs/gpu_cold.log"
t "$bin/thorn_gpu_differential" --expect-warm "$cache" > "$logs/gpu_warm.log" 2>&1 || status=$?
tail -5 "$logs/gpu_warm.log"
# The interpreter through the GPU path: every tests/programs/*.fut with
# every supported plan offloaded, validated against the reference backend.
thorn="$bin/thorn"
[ -x "$thorn" ] || thorn="$root/build-gpu/thorn"
if [ -x "$thorn" ]; then
  THORN_GPU_THRESHOLD=0 THORN_HOST_MIN_WORK=0 THORN_CACHE_DIR="$cache" \
    t "$thorn" test --backend gpu --validate "$root/tests/programs" > "$logs/programs_gpu.log" 2>&1 || status=$?
  tail -3 "$logs/programs_gpu.log"
fi
# compute-sanitizer, when the toolkit has it (small sizes: it is slow).
if [ -z "${SKIP_SANITIZER:-}" ] && command -v compute-sanitizer >/dev/null 2>&1; then
  for tool in memcheck racecheck; do
    t compute-sanitizer --tool "$tool" --error-exitcode 9 "$bin/thorn_gpu_differential" --expect-warm "$cache" --log-n 12 \
      > "$logs/sanitizer_$tool.log" 2>&1 || status=$?
    tail -3 "$logs/sanitizer_$tool.log"
  done
fi
grep FAIL "$logs"/*.log | head -40
exit $status
