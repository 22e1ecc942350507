#!/usr/bin/env bash
# End-to-end programs (bench/gpu/e2e/*.fut) on the GPU backend against the
# host backend, on a machine with a device:  bench/gpu/e2e.sh [RESULTS_DIR]
# Uses gpu-carry/thorn when present (bench/gpu/pack.sh), else build/thorn.
# Each dataset is run once to warm up (kernels compiled, caches filled),
# then RUNS times; the JSON files are in futhark bench's format.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
results="${1:-${OUT:-$here/results}}"
runs="${RUNS:-5}"
thorn="$root/build/thorn"
if [ -x "$root/gpu-carry/thorn" ]; then
  thorn="$root/gpu-carry/thorn"
  export LD_LIBRARY_PATH="$root/gpu-carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
mkdir -p "$results"
status=0
for backend in host gpu; do
  "$thorn" bench --backend "$backend" --runs "$runs" --json "$results/e2e_$backend.json" "$here/e2e" || status=$?
done
exit $status
