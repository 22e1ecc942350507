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
"$bin/thorn_gpu_differential" --fresh-cache "$cache" > "$logs/gpu_cold.log" 2>&1 || status=$?
tail -5 "$logs/gpu_cold.log"
"$bin/thorn_gpu_differential" --expect-warm "$cache" > "$logs/gpu_warm.log" 2>&1 || status=$?
tail -5 "$logs/gpu_warm.log"
grep FAIL "$logs"/gpu_*.log | head -40
exit $status
