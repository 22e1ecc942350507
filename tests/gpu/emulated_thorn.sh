#!/usr/bin/env bash
# The real thorn binary on the emulated GPU (libthorn-cuda-emu.so): it must
# say so, launch kernels, and get the right answers.
#   emulated_thorn.sh THORN EMU_LIB PROGRAMS_DIR
# Environment from ctest: THORN_CACHE_DIR (kernel cache in the build tree),
# THORN_GPU_THRESHOLD=0, THORN_HOST_MIN_WORK=0.
set -u
thorn=$1 lib=$2 programs=$3
export THORN_LIBCUDA=$lib
fail() { echo "FAIL: $*"; exit 1; }

version=$("$thorn" --version) || fail "thorn --version exited with $?"
echo "$version"
grep -q "^Code runs on: gpu" <<<"$version" || fail "--version does not say code runs on the GPU"
grep -q "thorn emulator" <<<"$version" || fail "--version does not name the emulator"

# A run through the GPU path, with the emulator's counters at exit.
report=$(mktemp)
trap 'rm -f "$report"' EXIT
out=$(echo 100000 | THORN_EMU_REPORT=$report "$thorn" run --backend gpu "$programs/residency.fut" 2>&1) ||
  fail "thorn run exited with $?: $out"
[ "$out" = $'100000i64\n100999i64' ] || fail "wrong result: $out"
cat "$report"
launches=$(sed -n 's/.* \([0-9]*\) launches.*/\1/p' "$report")
[ -n "$launches" ] && [ "$launches" -gt 0 ] || fail "no kernel was launched"

# Data stays on the device between GPU plans: the reductions read the
# scatter's output there, so only scalars come back (not the 800 KB array).
: >"$report"
out=$(echo 100000 | THORN_EMU_REPORT=$report "$thorn" run --backend gpu "$programs/device_resident.fut" 2>&1) ||
  fail "thorn run exited with $?: $out"
[ "$out" = $'14999850000i64\n299998i64' ] || fail "wrong result: $out"
cat "$report"
down=$(sed -n 's/.* downloads (\([0-9]*\) B).*/\1/p' "$report")
[ -n "$down" ] && [ "$down" -lt 100000 ] || fail "$down bytes downloaded: an array left the device between plans"

# The REPL's :kernels lists them with their launches.
kernels=$(printf ':load %s\nmain 1000\n:kernels\n' "$programs/residency.fut" | "$thorn" repl 2>&1)
echo "$kernels"
awk '$NF ~ /^[0-9]+$/ && $NF > 0 && /emulated/ {ok=1} END {exit !ok}' <<<"$kernels" ||
  fail ":kernels lists no launched kernel"
echo "ok"
