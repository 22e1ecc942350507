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
# Histograms run as SegHist kernels on the device (gpu/codegen/hist.cpp),
# not on the host: reduce_by_index with a non-neutral destination, an
# out-of-bounds index, and argmax (a tuple: the lock path).
kernels=$(printf '%s\n' ":load $programs/hist_scatter.fut" 'counts 5 [0i64, 1i64, 1i64, 3i64, 3i64, 3i64, 7i64, -1i64]' \
  'with_dest [10, 20, 30] [0i64, 2i64, 2i64] [1, 2, 3]' 'maxes [0i64, 0i64, 1i64, 1i64] [3, 7, 2, 2]' ':kernels' |
  "$thorn" repl --backend gpu 2>&1)
echo "$kernels"
grep -q '^\[1, 2, 0, 3, 0\]$' <<<"$kernels" && grep -q '^\[11, 20, 35\]$' <<<"$kernels" &&
  grep -q '^(\[7, 2\],$' <<<"$kernels" && grep -q '^ \[1, 2\])$' <<<"$kernels" || fail "histograms: a wrong result"
awk '/seghist/ && $NF ~ /^[0-9]+$/ && $NF > 0 {ok=1} END {exit !ok}' <<<"$kernels" ||
  fail ":kernels lists no launched histogram kernel"
# Every test program that uses hist / reduce_by_index, validated against the
# reference with every plan offloaded: the histogram kernels must have run
# on the (emulated) device.
hist_programs=$(grep -lE 'reduce_by_index|hist ' "$programs"/*.fut)
: >"$report"
out=$(THORN_EMU_REPORT=$report "$thorn" test --backend gpu --validate $hist_programs 2>&1) ||
  fail "thorn test on the histogram programs exited with $?: $out"
echo "$out" | tail -1
cat "$report"
grep -Eq 'thorn_hist_(shared|global) x[1-9]' "$report" || fail "no histogram kernel ran on the device"
# A session bounded to 4 loaded modules: the least recently used are
# unloaded (after the stream drains) and loaded again when needed; every
# result stays right.
session=$(printf '%s\n' 'let xs = iota 100000' 'reduce (+) 0 xs' 'reduce (*) 1 (map (\x -> x % 3 + 1) xs)' \
  'reduce i64.max 0 xs' 'reduce i64.min 7 xs' 'map (+1) xs |> reduce (+) 0' 'map (*2) xs |> reduce (+) 0' \
  'reduce (+) 0 xs' 'reduce i64.max 0 xs' ':kernels' |
  THORN_GPU_MAX_MODULES=4 "$thorn" repl --backend gpu 2>&1)
echo "$session" | grep -v "^ "
[ "$(grep -c '^4999950000$' <<<"$session")" -eq 2 ] || fail "module cache: the sum, computed twice, is not right twice"
grep -q "^99999$" <<<"$session" && grep -q "^0$" <<<"$session" && grep -q "^5000050000$" <<<"$session" &&
  grep -q "^9999900000$" <<<"$session" || fail "module cache: a wrong result"
grep -Eq "modules: [0-4] loaded \(at most 4.*, [1-9][0-9]* unloaded" <<<"$session" ||
  fail "module cache: nothing was unloaded, or more than 4 modules stayed loaded"
# The same with the in-memory kernel cache bounded to 4 entries: loaded
# modules outlive their dropped entries (sharing the statistics record).
session=$(printf '%s\n' 'let xs = iota 100000' 'reduce (+) 0 xs' 'reduce (*) 1 (map (\x -> x % 3 + 1) xs)' \
  'reduce i64.max 0 xs' 'reduce i64.min 7 xs' 'map (+1) xs |> reduce (+) 0' 'map (*2) xs |> reduce (+) 0' \
  'reduce (+) 0 xs' 'reduce i64.max 0 xs' ':kernels' |
  THORN_GPU_MAX_MODULES=6 THORN_GPU_MAX_KERNELS=4 "$thorn" repl --backend gpu 2>&1)
echo "$session" | grep -v "^ "
[ "$(grep -c '^4999950000$' <<<"$session")" -eq 2 ] && grep -q "^9999900000$" <<<"$session" ||
  fail "kernel cache: a wrong result"
grep -Eq "kernel binaries in memory: [0-4] \(at most 4.*, [1-9][0-9]* dropped" <<<"$session" ||
  fail "kernel cache: nothing was dropped, or more than 4 entries stayed"
echo "ok"
